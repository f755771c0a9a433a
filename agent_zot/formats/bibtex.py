"""BibTeX export: stable citation keys and one brace-safe entry per Zotero item (no I/O)."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence

from agent_zot.formats.latex import escape, latex_title, strip_markup, verbatim
from agent_zot.identifiers import clean_doi
from agent_zot.text import ascii_key
from agent_zot.zotero.models import Creator, Item, ZoteroDate
from agent_zot.zotero.values import parse_zotero_date
from agent_zot.zotero.venues import readable_venue

# Creator roles that count as the item's authors (Zotero's primary creator type per item type).
_PRIMARY_ROLE_NAMES = (
    "author artist cartographer composer director inventor performer podcaster presenter programmer "
    "sponsor interviewee"
)
PRIMARY_ROLES = frozenset(_PRIMARY_ROLE_NAMES.split())

_ENTRY_TYPES = {
    "journalArticle": "article",
    "magazineArticle": "article",
    "newspaperArticle": "article",
    "conferencePaper": "inproceedings",
    "book": "book",
    "bookSection": "incollection",
    "encyclopediaArticle": "incollection",
    "dictionaryEntry": "incollection",
    "report": "techreport",
    "patent": "patent",
    "computerProgram": "software",
    "dataset": "dataset",
}
_PUBLISHER_ROLE = {"phdthesis": "school", "mastersthesis": "school", "techreport": "institution"}
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MASTERS = re.compile(r"master|magist|\bm\.?\s?(?:sc|a|phil|eng)\b|硕士", re.IGNORECASE)
_DOCTORAL = re.compile(r"ph\.?\s?d|doctor|博士", re.IGNORECASE)
_STANDARD_THESIS = re.compile(r"\W*(ph\.?\s?d\.?|doctoral|master'?s?)(\s+(thesis|dissertation))?\W*", re.I)
_STOPWORD_LIST = (
    "a an and are as at by de der die for from in into is it of on or over the to towards under via vs with"
)
_STOPWORDS = frozenset(_STOPWORD_LIST.split())
# Characters NFKD leaves alone but that have an obvious ASCII spelling.
_KEY_UNSAFE = re.compile(r"""[\s{}(),=\\#%"'~@]""")
_ARXIV_ID = r"(\d{4}\.\d{4,5}(?:v\d+)?|[a-z][a-z\-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d+)?)"
_ARXIV_PATTERNS = (
    re.compile(r"arxiv\s*:\s*" + _ARXIV_ID, re.IGNORECASE),
    re.compile(r"arxiv\.org/(?:abs|pdf)/" + _ARXIV_ID, re.IGNORECASE),
    re.compile(r"10\.48550/arxiv\." + _ARXIV_ID, re.IGNORECASE),
    re.compile(r"^_eprint:\s*(\d{4}\.\d{4,5}(?:v\d+)?)\s*$", re.MULTILINE),  # NASA ADS exports
)
_EXTRA_FIELD_LINE = re.compile(r"^\s*[\w\-]+(?: [\w\-]+){0,3}\s*:")
_NAME_SUFFIX = re.compile(r"^(?:jr|sr|i{1,3}|iv|v|vi)\.?$", re.IGNORECASE)
_AND = re.compile(r"\band\b", re.IGNORECASE)


# -- helpers shared with the other formatters -----------------------------------------------------


def item_date(item: Item) -> ZoteroDate | None:
    """The item's date, including types whose date field has another name (a patent's issueDate)."""
    return item.date or parse_zotero_date(item.field("date"))


def arxiv_id(item: Item) -> str:
    """An arXiv identifier found in archiveID, the URL, Extra or an arXiv DOI, else ""."""
    sources = (item.field("archiveID"), item.extra, item.url, item.doi)
    for pattern in _ARXIV_PATTERNS:
        for source in sources:
            match = pattern.search(source)
            if match:
                return match.group(1)
    return ""


def split_suffix(first_name: str) -> tuple[str, str]:
    """("Thomas N., III") -> ("Thomas N.", "III"): Zotero keeps a name suffix in the first name."""
    parts = [p.strip() for p in first_name.split(",")]
    suffixes = [p for p in parts if _NAME_SUFFIX.match(p)]
    if len(parts) != 2 or len(suffixes) != 1:
        return first_name, ""
    given = parts[1] if parts[0] == suffixes[0] else parts[0]
    return given, suffixes[0]


# -- keys -------------------------------------------------------------------------------------------


def _first_creator(item: Item) -> Creator | None:
    for roles in (PRIMARY_ROLES, frozenset({"editor"})):
        for creator in item.creators:
            if creator.creator_type in roles:
                return creator
    return item.creators[0] if item.creators else None


def _author_part(item: Item) -> str:
    creator = _first_creator(item)
    if creator is None:
        return "anon"
    name = creator.last_name or creator.first_name
    if creator.single_field or not creator.first_name:
        name = name.split(",")[0]  # a one-field "Vallenari, A." still starts with the family name
    return ascii_key(name) or "anon"


def _title_part(item: Item) -> str:
    for word in re.findall(r"\w+", strip_markup(item.title)):
        folded = ascii_key(word)
        if folded and folded not in _STOPWORDS:
            return folded
    return ""


def _generated_key(item: Item) -> str:
    date = item_date(item)
    year = str(date.year) if date and date.year else "nd"
    return f"{_author_part(item)}{year}{_title_part(item)}"


def _explicit_key(item: Item) -> str:
    return _KEY_UNSAFE.sub("", item.citation_key or "")


def _suffixes() -> Iterable[str]:
    """a, b, ..., z, aa, ab, ... without end."""
    width = 1
    while True:
        for n in range(26**width):
            yield "".join(chr(97 + (n // 26**i) % 26) for i in reversed(range(width)))
        width += 1


def bibtex_keys(items: Sequence[Item]) -> dict[str, str]:
    """Item key -> BibTeX key; the same items give the same keys whatever order they come in."""
    ordered = sorted({it.key: it for it in reversed(items)}.values(), key=lambda it: (it.date_added, it.key))
    keys: dict[str, str] = {}
    taken: set[str] = set()  # lowercased: BibTeX treats keys differing only in case as duplicates
    groups: dict[str, list[Item]] = {}
    for item in ordered:
        explicit = _explicit_key(item)
        if explicit and explicit.lower() not in taken:
            keys[item.key] = explicit
            taken.add(explicit.lower())
        else:
            groups.setdefault(explicit or _generated_key(item), []).append(item)
    # Lone generated keys are reserved before any suffix is handed out, so "x2020fooa" can't steal one.
    for base, members in groups.items():
        if len(members) == 1 and base.lower() not in taken:
            keys[members[0].key] = base
            taken.add(base.lower())
    for base in sorted(groups):
        members = [it for it in groups[base] if it.key not in keys]
        suffixes = (base + s for s in _suffixes() if (base + s).lower() not in taken)
        for item, key in zip(members, suffixes, strict=False):
            keys[item.key] = key
            taken.add(key.lower())
    return keys


# -- entries ----------------------------------------------------------------------------------------


def entry_type(item: Item) -> str:
    """The BibTeX entry type for a Zotero item type."""
    if item.item_type == "thesis":
        label = item.field("type")
        masters = _MASTERS.search(label) and not _DOCTORAL.search(label)
        return "mastersthesis" if masters else "phdthesis"
    return _ENTRY_TYPES.get(item.item_type, "misc")


def _name(creator: Creator) -> str:
    """One name in BibTeX's "Last, First" form, braced wherever BibTeX would misread it."""
    if creator.single_field or not creator.first_name:
        if creator.last_name.strip() == "others":
            return "others"  # BibTeX's own "et al." marker, e.g. from an imported .bib
        return "{" + escape(creator.last_name or creator.first_name) + "}"
    if not creator.last_name:
        return "{" + escape(creator.first_name) + "}"
    last = escape(creator.last_name)
    given, suffix = split_suffix(creator.first_name)
    given = escape(given)
    if "," in last or _AND.search(last):
        last = "{" + last + "}"
    if "," in given or _AND.search(given):
        given = "{" + given + "}"
    return f"{last}, {escape(suffix)}, {given}" if suffix else f"{last}, {given}"


def _names(item: Item, roles: frozenset[str]) -> str:
    return " and ".join(_name(c) for c in item.creators if c.creator_type in roles and c.full_name.strip())


def _pages(pages: str) -> str:
    """ "12-34" and "12–34" become BibTeX's range "12--34"; existing "--" stays."""
    return re.sub(r"\s*(?:(?<!-)-(?!-)|[–—])\s*", "--", pages)


def _note(extra: str) -> str:
    """Free-text lines of Extra; "Name: value" lines are Zotero/translator fields, not prose."""
    return " ".join(line for line in extra.splitlines() if line.strip() and not _EXTRA_FIELD_LINE.match(line))


def _venue_fields(item: Item, kind: str) -> dict[str, str]:
    venue = readable_venue(item.field("publicationTitle"))  # "\\apj" would print its backslash, escaped
    publisher = item.field("publisher")
    fields: dict[str, str] = {}
    if kind == "article":
        fields["journal"] = venue
    elif kind in {"inproceedings", "incollection"}:
        fields["booktitle"] = venue or item.fields.get("conferenceName", "")
    elif venue:
        fields["howpublished"] = venue  # website, blog or forum title
    fields[_PUBLISHER_ROLE.get(kind, "publisher")] = publisher
    fields["address"] = item.field("place")
    return fields


def _entry_fields(item: Item, kind: str) -> dict[str, str]:
    """Field name -> escaped value (without the outer braces); empty values are dropped later."""
    date = item_date(item)
    fields = {
        "author": _names(item, PRIMARY_ROLES),
        "editor": _names(item, frozenset({"editor"})),
        "translator": _names(item, frozenset({"translator"})),
        "title": latex_title(item.title),
    }
    fields.update({k: escape(v) for k, v in _venue_fields(item, kind).items()})
    fields["year"] = str(date.year) if date and date.year else ""
    plain = {
        "volume": item.field("volume"),
        "number": item.field("issue") or item.field("number"),
        "pages": _pages(item.field("pages")),
        "series": item.field("series"),
        "edition": item.field("edition"),
        "version": item.field("versionNumber"),
        "holder": item.fields.get("assignee", ""),
        "type": _type_label(item, kind),
        "isbn": item.field("ISBN"),
        "issn": item.field("ISSN"),
        "keywords": ", ".join(item.tag_names()),
        "abstract": item.abstract,
        "note": _note(item.extra),
    }
    fields.update({k: escape(v) for k, v in plain.items()})
    fields.update({"doi": verbatim(clean_doi(item.doi)), "url": verbatim(item.url)})
    fields["urldate"] = escape(item.fields.get("accessDate", "")[:10])
    eprint = arxiv_id(item)
    if eprint:
        fields.update({"eprint": eprint, "archiveprefix": "arXiv"})
        if item.item_type == "preprint":
            fields["number"] = ""  # a preprint's number is its archive ID, now in eprint
    return fields


def _type_label(item: Item, kind: str) -> str:
    """A thesis/report type BibTeX should print instead of its default ("PhD thesis")."""
    label = item.field("type")
    if kind in {"phdthesis", "mastersthesis"} and _STANDARD_THESIS.fullmatch(label):
        return ""
    return label if kind in {"phdthesis", "mastersthesis", "techreport"} else ""


def _render(kind: str, key: str, fields: Mapping[str, str], month: int | None) -> str:
    lines = [f"@{kind}{{{key},"]
    for name, value in fields.items():
        if value.strip():
            lines.append(f"  {name} = {{{value}}},")
        if name == "year" and month and 1 <= month <= 12:
            lines.append(f"  month = {_MONTHS[month - 1]},")  # a macro, so styles localise it
    if len(lines) > 1:
        lines[-1] = lines[-1].rstrip(",")
    return "\n".join([*lines, "}"])


def bibtex_entry(item: Item, key: str) -> str:
    kind = entry_type(item)
    date = item_date(item)
    entry = _render(kind, key, _entry_fields(item, kind), date.month if date else None)
    # A comment line, not a field: BibTeX ignores it and no style prints it, but whoever opens the file sees it
    return f"% {item.retraction.describe()}\n{entry}" if item.retraction else entry


def to_bibtex(items: Sequence[Item], keys: Mapping[str, str] | None = None) -> str:
    """One entry per distinct item, in the given order, separated by blank lines."""
    keys = keys or bibtex_keys(items)
    seen: set[str] = set()
    entries = []
    for item in items:
        if item.key not in seen:
            seen.add(item.key)
            entries.append(bibtex_entry(item, keys.get(item.key) or item.key))
    return "\n\n".join(entries) + "\n" if entries else ""
