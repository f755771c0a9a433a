"""A collection in Zotero's trash (Zotero 6+ `deletedCollections`), named in a request: every tool that
takes a collection answers that it is in the trash and how to get it back, rather than guessing at live
collections with similar names; a live collection of the same name still wins, and a sub-collection of a
trashed one is in the trash with it."""

from __future__ import annotations

from typing import Any

import pytest

from agent_zot.config import Settings
from agent_zot.errors import NotFoundError
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.reader import load_library
from tests.conftest import call_tool, guard_database, library_settings, text_of


@pytest.fixture(scope="module")
def trash_lib(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("collection-trash")
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7")
    k: dict[str, str] = {}
    # Live names close to the trashed one: fuzzy matching alone would call the trashed name ambiguous.
    k["analysis"] = b.add_collection("Sepsis Benchmark Analysis")
    k["data"] = b.add_collection("Sepsis Benchmark Data")
    k["trashed"] = b.add_collection("Sepsis Research", deleted=True)
    k["trashed_child"] = b.add_collection("Cohorts", parent=k["trashed"])  # not marked itself
    k["live_twin"] = b.add_collection("Archive")
    k["trashed_twin"] = b.add_collection("Archive", deleted=True)
    for n, coll in enumerate(("analysis", "data", "trashed", "trashed_child", "live_twin")):
        b.add_item(
            "journalArticle",
            title=f"Paper {n} on sepsis outcomes",
            date="2021",
            creators=[("Ana", f"Author{n}")],
            collections=[k[coll]],
        )
    guard_database(b.build())
    return library_settings(root / "Zotero", root), k


CALLS = [
    pytest.param("zot_summarize", {"force_mode": "matrix", "questions": ["sample size"]}, id="matrix"),
    pytest.param("zot_manage_collections", {"force_mode": "show_items"}, id="show_items"),
    pytest.param("zot_manage_collections", {"force_mode": "recent"}, id="recent"),
    pytest.param("zot_export", {"path": "out.md"}, id="export"),
    pytest.param("zot_search", {"query": "sepsis outcomes", "force_mode": "metadata"}, id="search"),
    pytest.param("zot_manage_notes", {"force_mode": "list_notes"}, id="notes"),
]


@pytest.mark.parametrize("name", ["Sepsis Research", "sepsis research", "Sepsis Research/Cohorts", "Cohorts"])
@pytest.mark.parametrize(("tool", "arguments"), CALLS)
async def test_a_trashed_collection_is_said_to_be_in_the_trash_by_every_tool(
    trash_lib: tuple[Settings, dict[str, str]], tool: str, arguments: dict[str, Any], name: str
) -> None:
    settings, _ = trash_lib
    result = await call_tool(settings, tool, collection=name, **arguments)
    text = text_of(result)
    assert result.is_error, text
    assert "in Zotero's trash" in text and "restore" in text.lower(), text
    assert "matches several collections" not in text and "Benchmark" not in text


async def test_a_live_collection_of_the_same_name_wins_over_a_trashed_one(
    trash_lib: tuple[Settings, dict[str, str]],
) -> None:
    settings, _ = trash_lib
    result = await call_tool(
        settings, "zot_manage_collections", force_mode="show_items", collection="Archive"
    )
    assert not result.is_error and "Paper 4" in text_of(result)


def test_the_reader_keeps_trashed_collections_apart(trash_lib: tuple[Settings, dict[str, str]]) -> None:
    settings, k = trash_lib
    library = load_library(settings.zotero_data_dir / "zotero.sqlite")
    assert set(library.collections) == {k["analysis"], k["data"], k["live_twin"]}
    trashed = {c.key: c.path for c in library.trashed_collections.values()}
    assert trashed == {
        k["trashed"]: "Sepsis Research",
        k["trashed_child"]: "Sepsis Research/Cohorts",
        k["trashed_twin"]: "Archive",
    }


def test_the_trash_answer_is_a_not_found_error(trash_lib: tuple[Settings, dict[str, str]]) -> None:
    from agent_zot.services.resolve.library import resolve_collection

    settings, k = trash_lib
    library = load_library(settings.zotero_data_dir / "zotero.sqlite")
    with pytest.raises(NotFoundError, match="in Zotero's trash"):
        resolve_collection(library, k["trashed"])  # by key too
