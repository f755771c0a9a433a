"""The index state database and update planning: what changed since the last run."""

from __future__ import annotations

import os
import shutil
import sqlite3
from pathlib import Path

import pytest

from agent_zot.index.changes import attachment_fingerprint, plan_update, same_content
from agent_zot.state.index import AttachmentRecord, IndexState, PageRecord, StateError
from agent_zot.zotero.reader import load_library
from tests.factories import FullLibrary


def _record_all(state: IndexState, library) -> None:
    plan = plan_update(library, {}, {}, {})
    for work in plan.work:
        records = [
            AttachmentRecord(a.key, work.item.key, fp, "pdfium", 1, 2, "indexed")
            for a, fp in work.attachments
        ]
        pages = {a.key: [PageRecord(1, "1", "text")] for a, _ in work.attachments}
        state.record_item(work.item.key, work.fingerprint, status="indexed", attachments=records, pages=pages)


def test_state_records_and_replaces_items(tmp_path: Path) -> None:
    state = IndexState(tmp_path / "state.sqlite")
    rec = AttachmentRecord(
        "ATT22222",
        "ITEM2222",
        "file:1:2:abc",
        "pdfium",
        2,
        5,
        "indexed",
        references_text="[1] A. Author. 2020.",
        references_page=2,
    )
    state.record_item(
        "ITEM2222",
        "v1",
        status="indexed",
        attachments=[rec],
        pages={"ATT22222": [PageRecord(1, "i", "first"), PageRecord(2, None, "second")]},
    )
    assert state.item_fingerprints() == {"ITEM2222": "v1"}
    assert [p.text for p in state.pages_of("ATT22222")] == ["first", "second"]
    assert state.attachments_of("ITEM2222")[0].references_page == 2
    state.record_item("ITEM2222", "v2", status="indexed", attachments=[], pages={})  # replaced wholesale
    assert state.pages_of("ATT22222") == [] and state.item_fingerprints() == {"ITEM2222": "v2"}
    counts = state.counts()
    assert (counts.items_indexed, counts.attachments_indexed, counts.chunks) == (1, 0, 0)
    state.forget_items(["ITEM2222"])
    assert state.item_fingerprints() == {}


def test_failed_items_are_not_counted_as_indexed(tmp_path: Path) -> None:
    state = IndexState(tmp_path / "s.sqlite")
    rec = AttachmentRecord("ATT22222", "ITEM2222", "missing", "none", 0, 0, "failed", reason="encrypted PDF")
    state.record_item("ITEM2222", "v1", status="failed", attachments=[rec], pages={})
    assert state.item_fingerprints() == {}  # retried next run
    assert state.failures() == [("ITEM2222", "ATT22222", "encrypted PDF")]


def test_unwritable_state_location_is_a_clear_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    with pytest.raises(StateError, match="data directory is writable"):
        IndexState(blocker / "state.sqlite")


def test_plan_detects_new_unchanged_changed_and_removed(full_lib: FullLibrary, tmp_path: Path) -> None:
    folder = tmp_path / "Zotero"
    shutil.copytree(full_lib.data_dir, folder)
    db = folder / "zotero.sqlite"
    state = IndexState(tmp_path / "state.sqlite")
    library = load_library(db)
    first = plan_update(library, {}, {}, {})
    assert {w.reason for w in first.work} == {"new"} and len(first.work) == len(library.items)
    _record_all(state, library)

    def plan(lib=None):
        return plan_update(
            lib or load_library(db),
            state.item_fingerprints(),
            state.attachment_fingerprints(),
            state.attachments_by_item(),
        )

    assert plan().work == [] and plan().unchanged == len(library.items)

    # touching a file without changing its bytes is not a change; changing its bytes is
    target = next(a for a in library.attachments if a.key == full_lib.keys["s2orc_pdf"]).path
    assert target.is_relative_to(folder)  # the copy, not the guarded fixture
    os.utime(target, ns=(1, 1))
    assert plan().work == []
    target.write_bytes(target.read_bytes() + b"\n% changed\n")
    assert [(w.item.key, w.reason) for w in plan().work] == [(full_lib.keys["s2orc"], "file changed")]

    # a metadata edit in Zotero (title, version) and a trashed item
    conn = sqlite3.connect(db)
    conn.execute(
        "UPDATE itemDataValues SET value = 'Numerical Optimization (2nd ed.)' "
        "WHERE value = 'Numerical Optimization'"
    )
    conn.execute(
        "INSERT INTO deletedItems (itemID) SELECT itemID FROM items WHERE key = ?",
        (full_lib.keys["chapter"],),
    )
    conn.commit()
    conn.close()
    result = plan()
    assert (full_lib.keys["book"], "metadata changed") in [(w.item.key, w.reason) for w in result.work]
    assert result.removed == [full_lib.keys["chapter"]]


def test_plan_force_only_and_limit(full_lib: FullLibrary) -> None:
    library = load_library(full_lib.db_path)
    assert len(plan_update(library, {}, {}, {}, limit=2).work) == 2
    only = plan_update(library, {}, {}, {}, only=[full_lib.keys["book"].lower()])
    assert [w.item.key for w in only.work] == [full_lib.keys["book"]] and only.removed == []
    forced = plan_update(library, {k: "x" for k in library.items}, {}, {}, force=True)
    assert {w.reason for w in forced.work} == {"forced"}


def test_fingerprints_of_missing_and_cached_files(full_lib: FullLibrary) -> None:
    library = load_library(full_lib.db_path)
    by_key = {a.key: a for a in library.attachments}
    assert attachment_fingerprint(by_key[full_lib.keys["missing_pdf"]]) == "missing"
    stored = attachment_fingerprint(by_key[full_lib.keys["s2orc_pdf"]])
    assert stored.startswith("file:") and same_content(stored, stored)
    assert not same_content(None, stored)


def test_one_schema_holds_the_index_records_the_graph_facts_and_the_graph(tmp_path: Path) -> None:
    from agent_zot.graph.facts import FactsCache
    from agent_zot.graph.store_sqlite import SqliteGraphStore
    from agent_zot.state.db import STATE_SCHEMA_VERSION, connect

    path = tmp_path / "state.sqlite"
    state, facts, graph = IndexState(path), FactsCache(path), SqliteGraphStore(path)
    graph.counts()  # opens its connection
    tables = {row[0] for row in connect(path).execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    assert {"meta", "items", "attachments", "pages", "graph_facts", "graph_nodes", "graph_edges"} <= tables
    assert state.get_meta("schema_version") == str(STATE_SCHEMA_VERSION)
    for store in (state, facts, graph):
        store.close()


def test_a_graph_counts_as_built_once_it_holds_a_paper(tmp_path: Path) -> None:
    """The search's "is there a graph?" check looks the first paper up in the id index instead of counting
    the tables; authors or cited works alone are not a graph to search with, and an id that merely sorts
    next to the papers' is not a paper."""
    from agent_zot.graph.model import GraphData, Node, NodeKind, node_id, paper_id
    from agent_zot.graph.store_sqlite import SqliteGraphStore

    graph = SqliteGraphStore(tmp_path / "state.sqlite")
    try:
        assert not graph.has_papers()
        author = Node(node_id(NodeKind.AUTHOR, "lo-kyle"), NodeKind.AUTHOR, {"name": "Kyle Lo"})
        neighbour = Node("paper;ABCD1234", NodeKind.CONCEPT, {"name": "sorts right after the papers"})
        graph.upsert(GraphData([author, neighbour], []))
        assert not graph.has_papers()
        graph.upsert(GraphData([Node(paper_id("ABCD1234"), NodeKind.PAPER, {"title": "T"})], []))
        assert graph.has_papers() and graph.stored_counts()["Paper"] == 1
        graph.delete_nodes([paper_id("ABCD1234")])
        assert not graph.has_papers()
    finally:
        graph.close()
