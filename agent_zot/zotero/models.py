"""Plain data objects for what the reader loads from a Zotero library (no SQL here)."""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import IntEnum
from pathlib import Path
from typing import TYPE_CHECKING

from agent_zot.zotero.venues import readable_venue

if TYPE_CHECKING:
    from agent_zot.zotero.marks import LibraryMarks


class LinkMode(IntEnum):
    """Zotero's ``itemAttachments.linkMode`` values."""

    IMPORTED_FILE = 0
    IMPORTED_URL = 1
    LINKED_FILE = 2
    LINKED_URL = 3
    EMBEDDED_IMAGE = 4

    @property
    def label(self) -> str:
        return self.name.lower()


ANNOTATION_TYPES = {1: "highlight", 2: "note", 3: "image", 4: "ink", 5: "underline", 6: "text"}

# Item types that are children or containers rather than bibliographic records.
NON_REGULAR_TYPES = frozenset({"attachment", "note", "annotation"})

# Attachment types that hold a document agent-zot reads (others, such as images, count as metadata only).
DOCUMENT_TYPES = frozenset(
    {"application/pdf", "text/html", "application/xhtml+xml", "application/epub+zip", "text/plain"}
)


@dataclass(frozen=True, slots=True)
class ZoteroDate:
    """A date as Zotero stores it: a SQL-ish ``YYYY-MM-DD`` part plus the text the user typed."""

    original: str
    year: int | None = None
    month: int | None = None
    day: int | None = None

    def to_dict(self) -> dict[str, object]:
        return {"original": self.original, "year": self.year, "month": self.month, "day": self.day}


@dataclass(frozen=True, slots=True)
class Creator:
    """One creator of an item, in Zotero's order."""

    creator_id: int
    creator_type: str
    last_name: str
    first_name: str = ""
    single_field: bool = False

    @property
    def full_name(self) -> str:
        if self.single_field or not self.first_name:
            return self.last_name
        return f"{self.first_name} {self.last_name}"

    @property
    def sort_name(self) -> str:
        if self.single_field or not self.first_name:
            return self.last_name
        return f"{self.last_name}, {self.first_name}"

    def to_dict(self) -> dict[str, object]:
        return {
            "type": self.creator_type,
            "first_name": self.first_name,
            "last_name": self.last_name,
            "name": self.full_name,
            "single_field": self.single_field,
        }


@dataclass(frozen=True, slots=True)
class TagRef:
    """A tag on an item; ``automatic`` tags were added by Zotero or a translator (type 1)."""

    name: str
    automatic: bool = False


@dataclass(slots=True)
class Attachment:
    key: str
    item_id: int
    parent_key: str | None
    title: str
    link_mode: LinkMode
    content_type: str
    raw_path: str | None
    path: Path | None  # resolved absolute path, when the attachment has a file
    exists: bool
    url: str | None = None
    fulltext_cache: Path | None = None  # Zotero's own extracted text (.zotero-ft-cache)
    date_added: str = ""
    date_modified: str = ""
    version: int = 0
    storage_mod_time: int | None = None
    storage_hash: str | None = None
    last_read: str = ""  # when Zotero (9+) last opened it, UTC "YYYY-MM-DD HH:MM:SS"; "" never/older Zotero

    @property
    def is_pdf(self) -> bool:
        return self.content_type == "application/pdf"

    @property
    def is_document(self) -> bool:
        """A file agent-zot reads: a PDF, a web page snapshot, an EPUB or plain text."""
        return self.content_type in DOCUMENT_TYPES

    @property
    def file_name(self) -> str:
        """The file's name ("smith2020.pdf"), or "" when it has none."""
        if self.path is not None:
            return self.path.name
        return (self.raw_path or "").removeprefix("storage:").removeprefix("attachments:").rsplit("/", 1)[-1]

    def fulltext(self) -> str | None:
        """Zotero's cached full text, when Zotero indexed this file."""
        if self.fulltext_cache is None or not self.fulltext_cache.is_file():
            return None
        return self.fulltext_cache.read_text(encoding="utf-8", errors="replace")

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "parent_key": self.parent_key,
            "title": self.title,
            "link_mode": self.link_mode.label,
            "content_type": self.content_type,
            "path": str(self.path) if self.path else None,
            "exists": self.exists,
            "url": self.url,
            "has_fulltext_cache": self.fulltext_cache is not None,
        }


@dataclass(slots=True)
class Note:
    key: str
    item_id: int
    parent_key: str | None
    html: str
    text: str
    title: str
    date_added: str = ""
    date_modified: str = ""
    tags: list[TagRef] = field(default_factory=list)

    def to_dict(self, *, with_html: bool = False) -> dict[str, object]:
        data: dict[str, object] = {
            "key": self.key,
            "parent_key": self.parent_key,
            "title": self.title,
            "text": self.text,
            "date_modified": self.date_modified,
        }
        if with_html:
            data["html"] = self.html
        return data


@dataclass(slots=True)
class Annotation:
    key: str
    item_id: int
    attachment_key: str
    parent_item_key: str | None  # the regular item the attachment belongs to
    annotation_type: str
    text: str
    comment: str
    color: str
    page_label: str
    page_index: int | None
    sort_index: str
    author_name: str = ""
    date_added: str = ""
    date_modified: str = ""
    tags: list[TagRef] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "type": self.annotation_type,
            "text": self.text,
            "comment": self.comment,
            "color": self.color,
            "page_label": self.page_label,
            "page_index": self.page_index,
            "attachment_key": self.attachment_key,
            "parent_item_key": self.parent_item_key,
            "tags": [t.name for t in self.tags],
        }


@dataclass(slots=True)
class Collection:
    key: str
    collection_id: int
    name: str
    parent_key: str | None
    library_id: int
    path: str = ""  # "Thesis/Chapter 2"
    item_keys: list[str] = field(default_factory=list)
    child_keys: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "name": self.name,
            "path": self.path,
            "parent_key": self.parent_key,
            "item_count": len(self.item_keys),
        }


@dataclass(frozen=True, slots=True)
class Relation:
    predicate: str  # "dc:relation", "dc:replaces", "owl:sameAs", ...
    target_uri: str
    target_key: str | None  # the item key when the URI points at an item


@dataclass(frozen=True, slots=True)
class Retraction:
    """Zotero's record that an item was retracted (table ``retractedItems``, from Retraction Watch):
    the notice's date, the reasons given, and where to read the notice."""

    date: str | None  # "2021-03-04", as Zotero stores it
    reasons: tuple[str, ...] = ()
    notice_doi: str | None = None  # the retraction notice's DOI (Zotero stores it in place of the item's)
    notice_pmid: str | None = None
    urls: tuple[str, ...] = ()
    citation_warning: bool = True  # False when the user told Zotero not to warn when citing it

    @property
    def notice(self) -> str | None:
        """A link to the retraction notice, when Zotero has one."""
        if self.notice_doi:
            return f"https://doi.org/{self.notice_doi}"
        if self.notice_pmid:
            return f"https://www.ncbi.nlm.nih.gov/pubmed/{self.notice_pmid}/"
        return self.urls[0] if self.urls else None

    def flag(self) -> str:
        """The short mark every answer puts next to the item: "RETRACTED 2021-03-04"."""
        return f"RETRACTED {self.date}" if self.date else "RETRACTED"

    def details(self) -> str:
        """Why and where the notice is ("" when Zotero has neither)."""
        parts = []
        if self.reasons:
            parts.append("reasons: " + "; ".join(self.reasons))
        if self.notice:
            parts.append(f"notice: {self.notice}")
        return " — ".join(parts)

    def describe(self) -> str:
        """One line: when, why, and where the notice is."""
        return " — ".join(part for part in (self.flag(), self.details()) if part)

    def to_dict(self) -> dict[str, object]:
        return {
            "date": self.date,
            "reasons": list(self.reasons),
            "notice": self.notice,
            "urls": list(self.urls),
        }


@dataclass(slots=True)
class Item:
    """A regular (bibliographic) item with everything that hangs off it."""

    key: str
    item_id: int
    item_type: str
    library_id: int
    fields: dict[str, str]
    base_fields: dict[str, str]  # base field name -> value, e.g. publicationTitle from proceedingsTitle
    creators: list[Creator] = field(default_factory=list)
    tags: list[TagRef] = field(default_factory=list)
    collection_keys: list[str] = field(default_factory=list)
    attachments: list[Attachment] = field(default_factory=list)
    notes: list[Note] = field(default_factory=list)
    relations: list[Relation] = field(default_factory=list)
    date: ZoteroDate | None = None
    date_added: str = ""
    date_modified: str = ""
    version: int = 0
    citation_key: str | None = None
    deleted: bool = False
    retraction: Retraction | None = None  # set when Zotero has flagged the item as retracted
    from_pdf: tuple[str, ...] = ()  # "title", "authors", "year": read from its PDF (zotero/file_metadata.py)

    def field(self, name: str) -> str:
        """A field by its own name or by its base name ("publicationTitle" finds "proceedingsTitle")."""
        return self.fields.get(name) or self.base_fields.get(name) or ""

    @property
    def title(self) -> str:
        return self.field("title") or self.fields.get("caseName", "") or self.fields.get("nameOfAct", "")

    @property
    def venue(self) -> str:
        """Where it appeared: journal, proceedings, book, website... (Zotero's publicationTitle base field; a
        journal held as an AAS macro, "\\apj", by its name)."""
        return (
            readable_venue(self.field("publicationTitle"))
            or self.fields.get("conferenceName", "")
            or self.fields.get("university", "")
            or self.fields.get("institution", "")
        )

    @property
    def year(self) -> int | None:
        return self.date.year if self.date else None

    @property
    def doi(self) -> str:
        return self.fields.get("DOI", "") or _extra_value(self.fields.get("extra", ""), "DOI")

    @property
    def pmid(self) -> str:
        """PubMed id: Zotero 8's field, or a "PMID: …" line in Extra (where Zotero 7 and earlier keep it)."""
        return self.fields.get("PMID", "") or _extra_value(self.extra, "PMID")

    @property
    def pmcid(self) -> str:
        return self.fields.get("PMCID", "") or _extra_value(self.extra, "PMCID")

    @property
    def last_read(self) -> str:
        """When any of its attachments was last opened in Zotero 9+ ("" when never, or older Zotero)."""
        return max((a.last_read for a in self.attachments), default="")

    @property
    def abstract(self) -> str:
        return self.fields.get("abstractNote", "")

    @property
    def url(self) -> str:
        return self.fields.get("url", "")

    @property
    def extra(self) -> str:
        return self.fields.get("extra", "")

    @property
    def authors(self) -> list[Creator]:
        """Primary creators (authors, or whatever the type's primary role is), else all creators."""
        primary = [c for c in self.creators if c.creator_type in _PRIMARY_CREATOR_TYPES]
        return primary or list(self.creators)

    def tag_names(self) -> list[str]:
        return [t.name for t in self.tags]

    def annotations(self, library: Library) -> list[Annotation]:
        return [a for att in self.attachments for a in library.annotations_by_attachment.get(att.key, [])]

    def to_summary(self) -> dict[str, object]:
        """The compact form tools return in lists."""
        summary: dict[str, object] = {
            "key": self.key,
            "title": self.title,
            "authors": [c.full_name for c in self.authors][:5]
            + (["et al."] if len(self.authors) > 5 else []),
            "year": self.year,
            "venue": self.venue,
            "item_type": self.item_type,
        }
        if self.retraction:
            summary["retracted"] = self.retraction.date or True
        if self.from_pdf:
            summary["read_from_pdf"] = list(self.from_pdf)
        return summary

    def to_dict(self) -> dict[str, object]:
        return {
            "key": self.key,
            "item_type": self.item_type,
            "library_id": self.library_id,
            "title": self.title,
            "creators": [c.to_dict() for c in self.creators],
            "date": self.date.to_dict() if self.date else None,
            "year": self.year,
            "venue": self.venue,
            "doi": self.doi,
            "url": self.url,
            "abstract": self.abstract,
            "citation_key": self.citation_key,
            **{name: value for name, value in (("pmid", self.pmid), ("pmcid", self.pmcid)) if value},
            "fields": dict(self.fields),
            "tags": [{"name": t.name, "automatic": t.automatic} for t in self.tags],
            "collections": list(self.collection_keys),
            "attachments": [a.to_dict() for a in self.attachments],
            "notes": [n.key for n in self.notes],
            "relations": [
                {"predicate": r.predicate, "target": r.target_key or r.target_uri} for r in self.relations
            ],
            "date_added": self.date_added,
            "date_modified": self.date_modified,
            "version": self.version,
        }


_PRIMARY_CREATOR_TYPES = frozenset(
    {
        "author",
        "artist",
        "cartographer",
        "composer",
        "director",
        "inventor",
        "performer",
        "podcaster",
        "presenter",
        "programmer",
        "sponsor",
        "interviewee",
        "recipient",
    }
)


def _extra_value(extra: str, name: str) -> str:
    """Value of a ``Name: value`` line in Extra (Zotero's convention for fields a type lacks)."""
    prefix = name.lower() + ":"
    for line in extra.splitlines():
        if line.lower().startswith(prefix):
            return line[len(prefix) :].strip()
    return ""


@dataclass(frozen=True, slots=True)
class ReadOptions:
    """What a read of zotero.sqlite takes in (zotero/reader.py): the trash, which libraries, the base folder
    of linked attachments."""

    include_trash: bool = False
    library_ids: frozenset[int] | None = None  # None: the user library and every group library
    base_attachment_dir: Path | None = None  # Zotero's "Linked Attachment Base Directory"


@dataclass(frozen=True, slots=True)
class LibraryInfo:
    library_id: int
    kind: str  # "user" | "group"
    name: str
    group_id: int | None = None


@dataclass(slots=True)
class Library:
    """Everything loaded from one zotero.sqlite: a consistent, read-only snapshot."""

    data_dir: Path
    db_path: Path
    schema_version: int | None
    libraries: list[LibraryInfo]
    items: dict[str, Item]  # regular items by key (first library wins on a key clash, see key_clashes)
    collections: dict[str, Collection]
    standalone_notes: list[Note]
    standalone_attachments: list[Attachment]
    annotations_by_attachment: dict[str, list[Annotation]]
    trashed_count: int = 0
    # Collections in Zotero's trash (and those below them), by key: a request naming one is told so.
    trashed_collections: dict[str, Collection] = field(default_factory=dict)
    warnings: list[str] = field(default_factory=list)
    identity: str = ""  # Zotero's local user key, or the database's path (see reader._identity)
    read_stamp: str = ""  # the file state and options it was read with (see reader.load_library)
    # What an incremental read compares (zotero/marks.py), and, for each recent snapshot it was read on
    # top of, the read stamp and the keys of the items that changed since: their metadata stayed as it was.
    marks: LibraryMarks | None = field(default=None, repr=False, compare=False)
    lineage: tuple[tuple[str, frozenset[str]], ...] = field(default=(), repr=False, compare=False)

    @property
    def notes(self) -> list[Note]:
        return [n for it in self.items.values() for n in it.notes] + self.standalone_notes

    @property
    def attachments(self) -> list[Attachment]:
        return [a for it in self.items.values() for a in it.attachments] + self.standalone_attachments

    @property
    def annotations(self) -> list[Annotation]:
        return [a for anns in self.annotations_by_attachment.values() for a in anns]

    def collection_and_below(self, key: str) -> list[str]:
        """The keys of a collection and of its sub-collections at any depth, each once, the collection
        first: the one walk down the collection tree (a corrupt parent cycle does not loop). Empty when
        ``key`` is no collection of this library."""
        found: list[str] = []
        seen: set[str] = set()
        pending = [key]
        while pending:
            current = pending.pop()
            if current in seen or current not in self.collections:
                continue
            seen.add(current)
            found.append(current)
            pending.extend(self.collections[current].child_keys)
        return found

    def items_below(self, key: str) -> set[str]:
        """The keys of the items in a collection and its sub-collections."""
        return {k for c in self.collection_and_below(key) for k in self.collections[c].item_keys}

    def tag_counts(self) -> dict[str, int]:
        """Tag name -> number of regular items carrying it."""
        counts: dict[str, int] = {}
        for item in self.items.values():
            for name in {t.name for t in item.tags}:
                counts[name] = counts.get(name, 0) + 1
        return counts
