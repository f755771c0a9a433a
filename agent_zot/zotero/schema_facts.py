"""Facts about Zotero's schema, used to build Zotero-shaped databases (test fixtures, the demo library).

Only the parts agent-zot reads are described. Per item type: its fields, and for a type-specific field the
base field it maps to (Zotero's ``baseFieldMappings``), so ``proceedingsTitle`` answers ``publicationTitle``.
Numeric ids are deliberately not Zotero's: the builder numbers them per shape, so a reader that hard-codes
ids fails the tests.
"""

from __future__ import annotations

from dataclasses import dataclass

_COMMON = ("title", "abstractNote", "date", "language", "shortTitle", "url", "accessDate", "extra", "rights")

# item type -> {field: base field or None}
ITEM_TYPE_FIELDS: dict[str, dict[str, str | None]] = {
    "journalArticle": dict.fromkeys(
        (
            *_COMMON,
            "publicationTitle",
            "volume",
            "issue",
            "pages",
            "series",
            "journalAbbreviation",
            "DOI",
            "ISSN",
        )
    ),
    "conferencePaper": {
        **dict.fromkeys((*_COMMON, "conferenceName", "place", "volume", "pages", "DOI", "ISBN", "series")),
        "proceedingsTitle": "publicationTitle",
        "publisher": None,
    },
    "book": dict.fromkeys(
        (*_COMMON, "publisher", "place", "edition", "numPages", "ISBN", "series", "volume")
    ),
    "bookSection": {
        **dict.fromkeys((*_COMMON, "publisher", "place", "pages", "ISBN", "edition", "series")),
        "bookTitle": "publicationTitle",
    },
    "thesis": {
        **dict.fromkeys((*_COMMON, "place", "numPages")),
        "university": "publisher",
        "thesisType": "type",
    },
    "report": {
        **dict.fromkeys((*_COMMON, "place", "pages", "seriesTitle")),
        "institution": "publisher",
        "reportNumber": "number",
        "reportType": "type",
    },
    "webpage": {**dict.fromkeys(_COMMON), "websiteTitle": "publicationTitle", "websiteType": "type"},
    "preprint": {
        **dict.fromkeys((*_COMMON, "DOI", "archiveID", "number")),
        "repository": "publisher",
        "genre": "type",
    },
    "patent": {
        **dict.fromkeys((*_COMMON, "place", "country", "pages")),
        "patentNumber": "number",
        "issueDate": "date",
    },
    "computerProgram": {
        **dict.fromkeys((*_COMMON, "versionNumber", "place", "system")),
        "company": "publisher",
    },
    "document": dict.fromkeys((*_COMMON, "publisher")),
    "attachment": dict.fromkeys(("title", "url", "accessDate")),
    "note": {},
    "annotation": {},
}

# Citation keys became a real field in Zotero 7's schema (dataset, preprint, standard); older libraries
# keep them in Extra.
ZOTERO7_FIELDS = ("citationKey",)

# Global schema 40/41 (Zotero 7.0.32+, 8): citationKey on every regular type, PMID/PMCID on journal articles
# (Zotero 8 moves "PMID: …" lines out of Extra into them), DOI on most types, `format` (base `medium`) on
# books. Only the types this module describes are listed.
SCHEMA40_FIELDS: dict[str, dict[str, str | None]] = {
    "journalArticle": {"PMID": None, "PMCID": None},
    "book": {"DOI": None, "format": "medium"},
    "bookSection": {"DOI": None, "format": "medium"},
    "thesis": {"DOI": None},
    "report": {"DOI": None},
}


def fields_of(item_type: str, *, citation_key: bool, schema40: bool) -> dict[str, str | None]:
    """The fields one item type has in a schema era: {field: base field or None}."""
    fields = dict(ITEM_TYPE_FIELDS[item_type])
    regular = item_type not in ("attachment", "note", "annotation")
    if regular and (citation_key or schema40):
        fields.update(dict.fromkeys(ZOTERO7_FIELDS))
    if schema40:
        fields.update(SCHEMA40_FIELDS.get(item_type, {}))
    return fields


CREATOR_TYPES = (
    "author",
    "contributor",
    "editor",
    "translator",
    "seriesEditor",
    "bookAuthor",
    "inventor",
    "programmer",
    "reviewedAuthor",
)

# Attachment link modes and annotation types as stored.
LINK_MODES = {"imported_file": 0, "imported_url": 1, "linked_file": 2, "linked_url": 3}
ANNOTATION_TYPE_IDS = {"highlight": 1, "note": 2, "image": 3, "ink": 4, "underline": 5, "text": 6}


@dataclass(frozen=True, slots=True)
class SchemaShape:
    """One era of the userdata schema, as far as agent-zot reads it."""

    name: str
    userdata: int
    annotations: bool  # itemAnnotations (Zotero 6+)
    deleted_collections: bool  # deletedCollections (Zotero 5.0.8x+)
    citation_key_field: bool  # citationKey field (Zotero 7)
    combined_tables: bool  # itemTypesCombined / fieldsCombined / baseFieldMappingsCombined
    attachment_last_processed: bool  # itemAttachments.lastProcessedModificationTime (Zotero 6+)
    retractions: bool  # retractedItems (Zotero 5.0.66+; absent from userdata 102 as real databases show)
    global_schema: int = 0  # the `version` table's globalSchema row (0: none written)
    schema40_fields: bool = False  # SCHEMA40_FIELDS (global schema 40+: Zotero 7.0.32, 8)
    last_read: bool = False  # itemAttachments.lastRead, libraries.isAdmin (userdata 124-125: Zotero 9)
    normalized: bool = False  # *Normalized search columns (userdata 126: Zotero 10)
    word_tables: bool = True  # fulltextWords/fulltextItemWords; dropped for fulltext.sqlite (userdata 127)
    client_version: bool = False  # clientVersion on items, collections, savedSearches, libraries (129)
    wal: bool = False  # Zotero 10 runs the database in WAL mode (header bytes 18/19 = 2)


SHAPES: dict[str, SchemaShape] = {
    "z5-early": SchemaShape("z5-early", 95, False, False, False, False, False, False),
    "z5": SchemaShape("z5", 102, False, False, False, True, False, False),
    "z6": SchemaShape("z6", 120, True, True, False, True, True, True),
    "z7": SchemaShape("z7", 123, True, True, True, True, True, True, global_schema=31),
    "z8": SchemaShape("z8", 123, True, True, True, True, True, True, global_schema=41, schema40_fields=True),
    "z9": SchemaShape(
        "z9", 125, True, True, True, True, True, True, global_schema=42, schema40_fields=True, last_read=True
    ),
    # 10.0.0's global schema number is unverified (>= 42); the userdata version alone marks Zotero 10.
    "z10": SchemaShape(
        "z10",
        129,
        True,
        True,
        True,
        True,
        True,
        True,
        global_schema=42,
        schema40_fields=True,
        last_read=True,
        normalized=True,
        word_tables=False,
        client_version=True,
        wal=True,
    ),
}
