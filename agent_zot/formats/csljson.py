"""CSL-JSON export: the item shape citeproc-js, Pandoc and Zotero itself read (no I/O)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence

from agent_zot.formats.bibtex import PRIMARY_ROLES, item_date, split_suffix
from agent_zot.identifiers import clean_doi
from agent_zot.zotero.models import Creator, Item, ZoteroDate
from agent_zot.zotero.venues import readable_venue

CSL_TYPES = {
    "artwork": "graphic",
    "audioRecording": "song",
    "bill": "bill",
    "blogPost": "post-weblog",
    "book": "book",
    "bookSection": "chapter",
    "case": "legal_case",
    "computerProgram": "software",
    "conferencePaper": "paper-conference",
    "dataset": "dataset",
    "dictionaryEntry": "entry-dictionary",
    "document": "document",
    "email": "personal_communication",
    "encyclopediaArticle": "entry-encyclopedia",
    "film": "motion_picture",
    "forumPost": "post",
    "hearing": "hearing",
    "instantMessage": "personal_communication",
    "interview": "interview",
    "journalArticle": "article-journal",
    "letter": "personal_communication",
    "magazineArticle": "article-magazine",
    "manuscript": "manuscript",
    "map": "map",
    "newspaperArticle": "article-newspaper",
    "patent": "patent",
    "podcast": "song",
    "preprint": "article",
    "presentation": "speech",
    "radioBroadcast": "broadcast",
    "report": "report",
    "standard": "standard",
    "statute": "legislation",
    "thesis": "thesis",
    "tvBroadcast": "broadcast",
    "videoRecording": "motion_picture",
    "webpage": "webpage",
}

# Zotero creator role -> CSL name variable, for roles that are not the item's primary creators.
_CSL_ROLES = {
    "editor": "editor",
    "bookAuthor": "container-author",
    "seriesEditor": "collection-editor",
    "translator": "translator",
    "interviewer": "interviewer",
    "recipient": "recipient",
    "reviewedAuthor": "reviewed-author",
    "composer": "composer",
    "director": "director",
}

# Zotero field (or base field) -> CSL string variable.
_STRING_FIELDS = (
    ("container-title", "publicationTitle"),
    ("container-title-short", "journalAbbreviation"),
    ("collection-title", "series"),
    ("collection-number", "seriesNumber"),
    ("volume", "volume"),
    ("issue", "issue"),
    ("page", "pages"),
    ("number-of-pages", "numPages"),
    ("edition", "edition"),
    ("version", "versionNumber"),
    ("number", "number"),
    ("publisher", "publisher"),
    ("publisher-place", "place"),
    ("genre", "type"),
    ("medium", "medium"),
    ("archive", "archive"),
    ("archive_location", "archiveLocation"),
    ("title-short", "shortTitle"),
    ("ISBN", "ISBN"),
    ("ISSN", "ISSN"),
    ("URL", "url"),
    ("abstract", "abstractNote"),
    ("language", "language"),
    ("note", "extra"),
)
_SQL_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


def csl_type(item_type: str) -> str:
    return CSL_TYPES.get(item_type, "document")


def csl_name(creator: Creator) -> dict[str, str]:
    """{"family", "given"[, "suffix"]} for two-field names, {"literal"} for one-field names."""
    if creator.single_field or not creator.first_name:
        return {"literal": creator.last_name or creator.first_name}
    if not creator.last_name:
        return {"literal": creator.first_name}
    given, suffix = split_suffix(creator.first_name)
    name = {"family": creator.last_name, "given": given}
    if suffix:
        name["suffix"] = suffix
    return name


def _role(creator: Creator) -> str:
    if creator.creator_type in _CSL_ROLES:
        return _CSL_ROLES[creator.creator_type]
    return "author" if creator.creator_type in PRIMARY_ROLES else "contributor"


def _names(item: Item) -> dict[str, list[dict[str, str]]]:
    names: dict[str, list[dict[str, str]]] = {}
    for creator in item.creators:
        if creator.full_name.strip():
            names.setdefault(_role(creator), []).append(csl_name(creator))
    return names


def csl_date(date: ZoteroDate | None) -> dict[str, object] | None:
    """{"date-parts": [[y, m, d]]} with only the parts known; {"literal"} when no year could be read."""
    if date is None:
        return None
    if date.year is None:
        return {"literal": date.original} if date.original.strip() else None
    parts = [date.year]
    if date.month:
        parts.append(date.month)
        if date.day:
            parts.append(date.day)
    return {"date-parts": [parts]}


def _accessed(stamp: str) -> dict[str, object] | None:
    """Zotero's accessDate is an SQL timestamp ("2019-04-08 07:18:40")."""
    match = _SQL_DATE.match(stamp)
    if not match:
        return None
    return csl_date(ZoteroDate(stamp, *(int(p) or None for p in match.groups())))


def csl_item(item: Item, key: str | None = None) -> dict[str, object]:
    """One CSL-JSON item with only non-empty variables."""
    data: dict[str, object] = {"id": key or item.key, "type": csl_type(item.item_type)}
    data["title"] = item.title
    data.update(_names(item))
    for variable, zotero_field in _STRING_FIELDS:
        data[variable] = item.field(zotero_field)
    # a journal held as an AAS macro prints only in LaTeX
    data["container-title"] = readable_venue(item.field("publicationTitle"))
    # A conference paper's event; a presentation's meeting shares the base field in older schemas.
    data["event-title"] = item.fields.get("conferenceName") or item.fields.get("meetingName", "")
    data["DOI"] = clean_doi(item.doi)
    data["keyword"] = ", ".join(item.tag_names())
    data["citation-key"] = key or item.citation_key or ""
    data["issued"] = csl_date(item_date(item))
    data["accessed"] = _accessed(item.fields.get("accessDate", ""))
    return {k: v.strip() if isinstance(v, str) else v for k, v in data.items() if _present(v)}


def _present(value: object) -> bool:
    return bool(value.strip()) if isinstance(value, str) else bool(value)


def to_csl_json(items: Sequence[Item], keys: Mapping[str, str] | None = None) -> list[dict[str, object]]:
    """CSL-JSON items; ``id`` is the BibTeX key when ``keys`` has one, else the Zotero item key."""
    keys = keys or {}
    return [csl_item(item, keys.get(item.key)) for item in items]
