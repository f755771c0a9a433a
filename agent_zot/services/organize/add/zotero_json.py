"""A CSL-JSON record as Zotero item JSON, with only the fields Zotero's schema gives the item type.

Zotero 10's local API does not refuse a field the type lacks: it moves the value into Extra without a
word. So every field is checked here: a type-specific field takes its base field's value (proceedingsTitle
for publicationTitle), an identifier the type has no field for goes into Extra as "DOI: …" (where Zotero
itself keeps such values), and anything else the type lacks is dropped.

The facts are Zotero's schema.json (version 41, zotero/zotero-schema 5eedf44): its `csl` mappings and the
fields and creator types of the item types a registry's record can become.
"""

from __future__ import annotations

import html
import re
from typing import Any

_COMMON = "DOI citationKey url accessDate archive archiveLocation shortTitle language libraryCatalog callNumber rights extra"

# item type -> its fields ("field:base" for a type-specific one), as schema.json lists them
_SCHEMA: dict[str, str] = {
    "journalArticle": "title abstractNote publicationTitle publisher place date volume issue section partNumber "
    "partTitle pages series seriesTitle seriesText journalAbbreviation PMID PMCID ISSN",
    "preprint": "title abstractNote genre:type repository:publisher archiveID:number place date series seriesNumber",
    "book": "title abstractNote series seriesNumber volume numberOfVolumes edition date publisher place "
    "originalDate originalPublisher originalPlace format:medium numPages ISBN ISSN",
    "bookSection": "title abstractNote bookTitle:publicationTitle series seriesNumber volume numberOfVolumes "
    "edition date publisher place originalDate originalPublisher originalPlace format:medium pages ISBN ISSN",
    "conferencePaper": "title abstractNote proceedingsTitle:publicationTitle conferenceName publisher place date "
    "eventPlace volume issue numberOfVolumes pages series seriesNumber ISBN ISSN",
    "report": "title abstractNote reportNumber:number reportType:type institution:publisher place date "
    "seriesTitle seriesNumber pages ISBN ISSN",
    "thesis": "title abstractNote thesisType:type university:publisher place date series seriesNumber numPages "
    "ISBN ISSN",
    "dataset": "title abstractNote identifier:number type versionNumber date repository:publisher "
    "repositoryLocation:place format:medium",
    "standard": "title abstractNote organization:authority committee type number versionNumber edition status "
    "date publisher place partNumber partTitle ISBN numPages",
    "computerProgram": "title abstractNote seriesTitle versionNumber date system company:publisher place "
    "programmingLanguage ISBN",
    "webpage": "title abstractNote websiteTitle:publicationTitle websiteType:type date publisher place",
    "document": "title abstractNote type date publisher place",
}
_NOT_ON = {
    "webpage": {"archive", "archiveLocation", "libraryCatalog", "callNumber"},
    "computerProgram": {"language"},
}

ITEM_FIELDS: dict[str, dict[str, str]] = {}  # item type -> {field: base field (itself when it is one)}
for _type, _fields in _SCHEMA.items():
    _pairs = [f.split(":") if ":" in f else [f, f] for f in (*_fields.split(), *_COMMON.split())]
    ITEM_FIELDS[_type] = {f: b for f, b in _pairs if f not in _NOT_ON.get(_type, set())}

CREATOR_TYPES: dict[str, tuple[str, ...]] = {
    "journalArticle": ("author", "contributor", "editor", "translator", "reviewedAuthor"),
    "preprint": ("author", "contributor", "editor", "translator", "reviewedAuthor"),
    "book": ("author", "contributor", "editor", "translator", "seriesEditor"),
    "bookSection": ("author", "contributor", "editor", "bookAuthor", "translator", "seriesEditor"),
    "conferencePaper": ("author", "contributor", "editor", "translator", "seriesEditor"),
    "report": ("author", "editor", "contributor", "translator", "seriesEditor"),
    "thesis": ("author", "contributor"),
    "dataset": ("author", "contributor"),
    "standard": ("author", "editor", "contributor"),
    "computerProgram": ("programmer", "contributor"),  # its primary creator is what CSL calls the author
    "webpage": ("author", "contributor", "translator"),
    "document": ("author", "contributor", "editor", "translator", "reviewedAuthor"),
}

# CSL type (and Crossref's type names, which doi.org answers may carry) -> item type
_TYPES = {
    "article": "preprint",
    "article-journal": "journalArticle",
    "paper-conference": "conferencePaper",
    "book": "book",
    "chapter": "bookSection",
    "report": "report",
    "thesis": "thesis",
    "dataset": "dataset",
    "standard": "standard",
    "software": "computerProgram",
    "webpage": "webpage",
    "journal-article": "journalArticle",
    "proceedings-article": "conferencePaper",
    "posted-content": "preprint",
    "book-chapter": "bookSection",
    "book-section": "bookSection",
    "book-part": "bookSection",
    "monograph": "book",
    "edited-book": "book",
    "reference-book": "book",
    "dissertation": "thesis",
    "report-component": "report",
}

# CSL variable -> the base fields it may fill, in schema.json's order (csl.fields.text)
_VARIABLES: dict[str, tuple[str, ...]] = {
    "title": ("title",),
    "abstract": ("abstractNote",),
    "container-title": ("publicationTitle",),
    "container-title-short": ("journalAbbreviation",),
    "journalAbbreviation": ("journalAbbreviation",),
    "collection-title": ("seriesTitle", "series"),
    "collection-number": ("seriesNumber",),
    "event-title": ("conferenceName",),
    "event-place": ("eventPlace",),
    "publisher": ("publisher",),
    "publisher-place": ("place",),
    "volume": ("volume",),
    "issue": ("issue",),
    "page": ("pages",),
    "number": ("number",),
    "genre": ("type",),
    "edition": ("edition",),
    "number-of-pages": ("numPages",),
    "number-of-volumes": ("numberOfVolumes",),
    "version": ("versionNumber",),
    "medium": ("medium",),
    "language": ("language",),
    "title-short": ("shortTitle",),
    "URL": ("url",),
    "license": ("rights",),
    "note": ("extra",),
    "DOI": ("DOI",),
    "ISBN": ("ISBN",),
    "ISSN": ("ISSN",),
    "PMID": ("PMID",),
    "PMCID": ("PMCID",),
}
_IDENTIFIERS = ("DOI", "ISBN", "ISSN", "PMID", "PMCID")  # kept in Extra where the type has no field
# CSL name variable -> Zotero creator type (schema.json csl.names, reversed)
_NAMES = {
    "author": "author",
    "editor": "editor",
    "translator": "translator",
    "container-author": "bookAuthor",
    "collection-editor": "seriesEditor",
    "reviewed-author": "reviewedAuthor",
}
_TAG = re.compile(r"<[^>]+>")


def item_type_of(csl_type: object) -> str:
    return _TYPES.get(str(csl_type or ""), "document")


def zotero_item(csl: dict[str, Any], *, library_catalog: str) -> dict[str, Any]:
    """The Zotero item JSON (itemType, fields, creators) of a CSL-JSON record."""
    item_type = item_type_of(csl.get("type"))
    fields = ITEM_FIELDS[item_type]
    by_base: dict[str, str] = {}
    for field, base in fields.items():
        by_base.setdefault(base, field)
    item: dict[str, Any] = {"itemType": item_type}
    extra: list[str] = []
    for variable, bases in _VARIABLES.items():
        value = _text(csl.get(variable), abstract=variable == "abstract")
        if not value:
            continue
        target = next((by_base[b] for b in bases if b in by_base), None)
        if target is not None:
            item.setdefault(target, value)
        elif variable in _IDENTIFIERS:
            extra.append(f"{variable}: {value}")
    date = _date(csl.get("issued"))
    if date:
        item["date"] = date
    if "libraryCatalog" in fields:
        item["libraryCatalog"] = library_catalog
    if extra:
        item["extra"] = "\n".join([*filter(None, [item.get("extra")]), *extra])
    item["creators"] = _creators(csl, item_type)
    return item


def _text(value: object, *, abstract: bool = False) -> str:
    if isinstance(value, list):  # Crossref lists ISSNs and ISBNs: the first is the one to keep
        value = value[0] if value else ""
    if value is None or isinstance(value, dict):
        return ""
    text = str(value)
    if abstract:  # Crossref abstracts are JATS XML
        text = html.unescape(_TAG.sub(" ", text))
        text = re.sub(r"\s+([.,;:!?])", r"\1", " ".join(text.split()))
    return text.strip()


def _date(issued: object) -> str:
    """CSL date → Zotero's date text: date-parts as YYYY-MM-DD (as far as given), else the literal."""
    if not isinstance(issued, dict):
        return ""
    parts = (issued.get("date-parts") or [[]])[0] or []
    numbers = [int(p) for p in parts[:3] if str(p).lstrip("-").isdigit()]
    if numbers:
        return "-".join([f"{numbers[0]:04d}", *(f"{n:02d}" for n in numbers[1:])])
    return str(issued.get("literal") or issued.get("raw") or "")


def _creators(csl: dict[str, Any], item_type: str) -> list[dict[str, str]]:
    allowed = CREATOR_TYPES[item_type]
    creators = []
    for variable, creator_type in _NAMES.items():
        if creator_type == "author":
            creator_type = allowed[0]
        if creator_type not in allowed:
            creator_type = "contributor"
        for name in csl.get(variable) or []:
            if not isinstance(name, dict):
                continue
            family, given = str(name.get("family") or "").strip(), str(name.get("given") or "").strip()
            if family:
                creators.append({"creatorType": creator_type, "firstName": given, "lastName": family})
            elif name.get("literal") or name.get("name"):
                creators.append(
                    {"creatorType": creator_type, "name": str(name.get("literal") or name["name"])}
                )
    return creators
