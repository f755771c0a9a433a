"""The reader over the real Zotero libraries in ../shared/data/zotero, checked against direct SQL."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from agent_zot.zotero.models import DOCUMENT_TYPES, ReadOptions
from agent_zot.zotero.reader import load_library
from tests.conftest import SHARED_ZOTERO, require_shared, shared_libraries

pytestmark = pytest.mark.shared_data(SHARED_ZOTERO)

require_shared(SHARED_ZOTERO)  # at import: the libraries below are test parameters
LIBRARIES = shared_libraries()

REGULAR = "t.typeName NOT IN ('attachment', 'note', 'annotation')"
# Items of the user and group libraries, not in the trash and not children of trashed parents.
VISIBLE = """
    i.libraryID IN (SELECT libraryID FROM libraries WHERE type IN ('user', 'group'))
    AND i.itemID NOT IN (SELECT itemID FROM deletedItems)
    AND coalesce((SELECT parentItemID FROM itemAttachments a WHERE a.itemID = i.itemID),
                 (SELECT parentItemID FROM itemNotes n WHERE n.itemID = i.itemID), -1)
        NOT IN (SELECT itemID FROM deletedItems)
"""


def _sql(db: Path, query: str) -> list[tuple]:
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        return conn.execute(query).fetchall()
    finally:
        conn.close()


def _count(db: Path, query: str) -> int:
    return _sql(db, query)[0][0]


def _types_table(db: Path) -> str:
    has = _sql(db, "SELECT count(*) FROM sqlite_master WHERE name = 'itemTypesCombined'")[0][0]
    return "itemTypesCombined" if has else "itemTypes"


@pytest.fixture(params=LIBRARIES, ids=lambda p: p.name)
def shared(request: pytest.FixtureRequest) -> Path:
    return request.param / "zotero.sqlite"


def test_item_counts_match_sql(shared: Path) -> None:
    library = load_library(shared)
    types = _types_table(shared)
    expected = _count(
        shared,
        f"SELECT count(*) FROM items i JOIN {types} t USING (itemTypeID) WHERE {REGULAR} AND {VISIBLE}",
    )
    # a document dropped in without a parent item (a PDF, a snapshot) is an item of its own
    documents = ", ".join(f"'{t}'" for t in sorted(DOCUMENT_TYPES))
    top_level = _count(
        shared,
        "SELECT count(*) FROM items i JOIN itemAttachments a USING (itemID) WHERE a.parentItemID IS NULL "
        f"AND a.contentType IN ({documents}) AND a.path IS NOT NULL AND a.linkMode != 3 AND {VISIBLE}",
    )
    assert len(library.items) == expected + top_level > 0


def test_notes_attachments_collections_tags_match_sql(shared: Path) -> None:
    library = load_library(shared)
    types = _types_table(shared)
    notes = _count(
        shared,
        f"SELECT count(*) FROM items i JOIN {types} t USING (itemTypeID) "
        f"WHERE t.typeName = 'note' AND {VISIBLE}",
    )
    attachments = _count(
        shared, f"SELECT count(*) FROM items i JOIN itemAttachments USING (itemID) WHERE {VISIBLE}"
    )
    assert len(library.notes) == notes
    assert len(library.attachments) == attachments
    deleted_collections = _count(
        shared, "SELECT count(*) FROM sqlite_master WHERE name = 'deletedCollections'"
    )
    trash_filter = (
        " WHERE collectionID NOT IN (SELECT collectionID FROM deletedCollections)"
        if deleted_collections
        else ""
    )
    assert len(library.collections) == _count(shared, f"SELECT count(*) FROM collections{trash_filter}")
    tags_on_items = _count(
        shared,
        f"SELECT count(DISTINCT tg.name) FROM itemTags it JOIN tags tg USING (tagID) JOIN items i USING (itemID) "
        f"JOIN {types} t USING (itemTypeID) WHERE {REGULAR} AND {VISIBLE}",
    )
    assert len(library.tag_counts()) == tags_on_items


def test_creators_match_sql_in_order(shared: Path) -> None:
    library = load_library(shared)
    rows = _sql(
        shared,
        "SELECT i.key, c.lastName FROM itemCreators ic JOIN creators c USING (creatorID) "
        "JOIN items i USING (itemID) ORDER BY ic.itemID, ic.orderIndex",
    )
    expected: dict[str, list[str]] = {}
    for key, last in rows:
        expected.setdefault(key, []).append(last)
    for key, item in library.items.items():
        assert [c.last_name for c in item.creators] == expected.get(key, [])


def test_every_attachment_file_on_disk_resolves(shared: Path) -> None:
    library = load_library(shared)
    storage = shared.parent / "storage"
    on_disk = {p.parent.name for p in storage.glob("*/*") if p.is_file() and not p.name.startswith(".zotero")}
    for attachment in library.attachments:
        stored = attachment.raw_path and attachment.raw_path.startswith("storage:")
        if (
            stored
            and attachment.key in on_disk
            and (storage / attachment.key / attachment.raw_path[8:]).is_file()
        ):
            assert attachment.exists and attachment.path.is_file(), attachment.raw_path
    missing_listed = (
        (shared.parent / "MISSING.txt").read_text(encoding="utf-8")
        if (shared.parent / "MISSING.txt").is_file()
        else ""
    )
    for attachment in library.attachments:
        if attachment.path is not None and not attachment.exists:
            assert attachment.path.name in missing_listed or attachment.key not in on_disk


def test_annotations_have_page_labels(shared: Path) -> None:
    has_table = _count(shared, "SELECT count(*) FROM sqlite_master WHERE name = 'itemAnnotations'")
    library = load_library(shared, options=ReadOptions(include_trash=True))
    expected = _count(shared, "SELECT count(*) FROM itemAnnotations") if has_table else 0
    assert len(library.annotations) == expected
    for annotation in library.annotations:
        assert annotation.page_label and annotation.page_index is not None
        assert annotation.attachment_key


def test_schema_version_is_known(shared: Path) -> None:
    library = load_library(shared)
    assert library.schema_version == _count(shared, "SELECT version FROM version WHERE schema = 'userdata'")
    assert library.warnings == []
