"""Collections, tags and notes services over the every-case library."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.services.notes import read as notes
from agent_zot.services.organize import collections, tags
from agent_zot.services.organize.tags import TagCondition, parse_tag_expression
from agent_zot.services.resolve.library import resolve_collection, resolve_item
from agent_zot.zotero.models import ReadOptions
from agent_zot.zotero.reader import load_library
from tests.factories import FullLibrary


@pytest.fixture(scope="module")
def lib(full_lib: FullLibrary):
    return load_library(full_lib.db_path, options=ReadOptions(base_attachment_dir=full_lib.linked_base))


def test_collection_tree_counts_include_subcollections(lib, full_lib: FullLibrary) -> None:
    response = collections.collection_tree(lib)
    thesis = next(c for c in response.data["collections"] if c["key"] == full_lib.keys["thesis_coll"])
    assert thesis["item_count"] == 1 and thesis["total_item_count"] == 2
    assert "  - Chapter 2" in response.text  # indented under Thesis
    assert response.text.index("- Thesis") < response.text.index("  - Chapter 2")


@pytest.mark.parametrize("name", ["Thesis/Chapter 2", "chapter 2", "Chaptr 2", "thesis/chapter 2"])
def test_collection_names_match_fuzzily(lib, full_lib: FullLibrary, name: str) -> None:
    assert resolve_collection(lib, name).key == full_lib.keys["ch2_coll"]


def test_collection_by_key_and_exact_name_beats_fuzzy(lib, full_lib: FullLibrary) -> None:
    assert resolve_collection(lib, full_lib.keys["reading_coll"].lower()).name == "Reading list"
    assert resolve_collection(lib, "reading list").key == full_lib.keys["reading_coll"]


def test_ambiguous_collection_lists_candidates(lib) -> None:
    with pytest.raises(AmbiguousNameError) as err:
        resolve_collection(lib, "reading")
    assert {c.split(" [")[0] for c in err.value.candidates} == {"Reading list", "Reading list (old)"}


def test_unknown_collection_lists_what_exists(lib) -> None:
    with pytest.raises(NotFoundError, match="No collection matches 'Quantum gravity'") as err:
        resolve_collection(lib, "Quantum gravity")
    assert "Thesis/Chapter 2" in str(err.value)


def test_show_items_direct_and_recursive(lib, full_lib: FullLibrary) -> None:
    direct = collections.collection_items(lib, "Thesis", limit=20)
    assert [i["key"] for i in direct.data["items"]] == [full_lib.keys["s2orc"]]
    deep = collections.collection_items(lib, "Thesis", limit=20, recursive=True)
    assert {i["key"] for i in deep.data["items"]} == {full_lib.keys["s2orc"], full_lib.keys["scibert"]}
    limited = collections.collection_items(lib, "Thesis", limit=1, recursive=True)
    assert len(limited.data["items"]) == 1 and limited.data["total"] == 2 and "1 more" in limited.text


def test_recent_by_date_added_with_window(lib, full_lib: FullLibrary) -> None:
    newest = collections.recent_items(lib, limit=3)
    assert [i["key"] for i in newest.data["items"]] == [
        full_lib.keys["report"],
        full_lib.keys["scibert"],
        full_lib.keys["s2orc"],
    ]
    window = collections.recent_items(lib, limit=20, days=7, now=datetime(2024, 3, 11, tzinfo=UTC))
    assert [i["key"] for i in window.data["items"]] == [full_lib.keys["report"], full_lib.keys["scibert"]]
    scoped = collections.recent_items(lib, limit=20, collection="Reading list")
    assert {i["key"] for i in scoped.data["items"]} == {full_lib.keys["scibert"], full_lib.keys["book"]}


def test_tag_list_counts_and_filter(lib) -> None:
    response = tags.list_tags(lib, limit=50)
    rows = {r["name"]: r for r in response.data["tags"]}
    assert rows["nlp"]["count"] == 3 and response.data["tags"][0]["name"] == "nlp"  # most used first
    assert rows["Computer Science - Computation and Language"]["automatic"]
    assert not rows["corpus"]["automatic"]
    assert [r["name"] for r in tags.list_tags(lib, limit=50, contains="READ").data["tags"]] == ["to-read"]


@pytest.mark.parametrize(
    ("expression", "expected"),
    [
        ("nlp || optimization", [TagCondition(("nlp", "optimization"))]),
        ("nlp, -to-read", [TagCondition(("nlp",)), TagCondition(("to-read",), negated=True)]),
        ("nlp -to-read", [TagCondition(("to-read",), negated=True), TagCondition(("nlp",))]),
        ('"-draft" || x', [TagCondition(("-draft", "x"))]),
        ('"a || b", c', [TagCondition(("a || b",)), TagCondition(("c",))]),
        (
            ["nlp || corpus", "-stat"],
            [TagCondition(("nlp", "corpus")), TagCondition(("stat",), negated=True)],
        ),
        (
            "Computer Science - Computation and Language",
            [TagCondition(("Computer Science - Computation and Language",))],
        ),
    ],
)
def test_tag_expressions_parse(expression, expected) -> None:
    assert sorted(parse_tag_expression(expression), key=repr) == sorted(expected, key=repr)


def test_tag_search_or_not_and_combined(lib, full_lib: FullLibrary) -> None:
    k = full_lib.keys
    keys = lambda expr: {i["key"] for i in tags.search_by_tags(lib, expr, limit=50).data["items"]}  # noqa: E731
    assert keys("nlp") == {k["s2orc"], k["scibert"], k["group_item"]}
    assert keys("corpus || optimization") == {k["s2orc"], k["book"]}
    assert keys("nlp, -to-read") == {k["s2orc"], k["group_item"]}
    assert keys("NLP -corpus -to-read") == {k["group_item"]}  # case-insensitive names


def test_tag_search_errors_are_actionable(lib) -> None:
    with pytest.raises(NotFoundError, match="No tag 'nlpp' in this library") as err:
        tags.search_by_tags(lib, "nlpp", limit=5)
    assert "nlp" in str(err.value)
    with pytest.raises(InvalidArgumentError):
        tags.search_by_tags(lib, " , ", limit=5)


def test_notes_per_item_and_library(lib, full_lib: FullLibrary) -> None:
    per_item = notes.list_notes(lib, item_key=full_lib.keys["s2orc"], limit=10)
    assert [n["key"] for n in per_item.data["notes"]] == [full_lib.keys["s2orc_note"]]
    assert "Key ideas" in per_item.text
    everything = notes.list_notes(lib, item_key=None, limit=10)
    assert everything.data["total"] == 3


def test_annotations_for_item_with_page_labels(lib, full_lib: FullLibrary) -> None:
    response = notes.list_annotations(lib, item_key=full_lib.keys["s2orc"], limit=10)
    assert [a["page_label"] for a in response.data["annotations"]] == ["4969", "4971", "4972"]
    assert "(p. 4969)" in response.text and "size of the corpus" in response.text
    # the attachment's key finds its parent item too
    by_attachment = notes.list_annotations(lib, item_key=full_lib.keys["s2orc_pdf"], limit=10)
    assert by_attachment.data["total"] == 3
    assert notes.list_annotations(lib, item_key=full_lib.keys["book"], limit=10).data["total"] == 0


def test_search_notes_and_annotations(lib, full_lib: FullLibrary) -> None:
    hits = notes.search_notes(lib, "corpus size", limit=10).data["matches"]
    assert [h["key"] for h in hits] == [full_lib.keys["ann_highlight"]]
    assert hits[0]["page_label"] == "4969"
    found = {h["key"] for h in notes.search_notes(lib, "S2ORC", limit=10).data["matches"]}
    assert full_lib.keys["standalone_note"] in found
    assert notes.search_notes(lib, "nonexistentword", limit=10).data["total"] == 0


def test_unknown_item_key_is_named(lib) -> None:
    with pytest.raises(NotFoundError, match="No item with key 'ZZZZ9999'"):
        resolve_item(lib, "ZZZZ9999")
    with pytest.raises(InvalidArgumentError):
        resolve_item(lib, "  ")
