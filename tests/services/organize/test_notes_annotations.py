"""Notes and annotations the way people look for them: by colour, tag, item and collection, and by meaning
(update-db indexes them incrementally beside the papers, which zot_search keeps to itself).

A built library with annotations in Zotero's colours and custom shades, the real embedder and embedded store,
and zot_manage_notes through fastmcp's in-memory client.
"""

from __future__ import annotations

import io
import shutil
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.cli.progress import ProgressLine
from agent_zot.config import Settings
from agent_zot.errors import NotFoundError
from agent_zot.index.embed import make_embedder
from agent_zot.index.resources import IndexResources
from agent_zot.index.retrieval import QueryVectors, search_chunks
from agent_zot.index.store import NOTE_KINDS, PAPER_KINDS, SearchFilter
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.notes import read as notes
from agent_zot.services.notes.note_scope import resolve_scope
from agent_zot.services.upkeep.status import index_status
from agent_zot.services.upkeep.update_db import Progress, UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.reader import load_library
from tests.conftest import call_tool, guard_database, index_library, library_settings, text_of
from tests.factories import MINIMAL_PDF

# -- the library ------------------------------------------------------------------------------------

YELLOW = "a new WordPiece vocabulary built on the scientific corpus"


def build_library(folder: Path) -> dict[str, str]:
    b = ZoteroLibraryBuilder(folder, shape="z7", seed=5)
    k: dict[str, str] = {}
    k["thesis"] = b.add_collection("Thesis")
    k["ch2"] = b.add_collection("Chapter 2", parent=k["thesis"])
    k["reading"] = b.add_collection("Reading list")
    k["scibert"] = b.add_item(
        "journalArticle",
        title="SciBERT: A Pretrained Language Model for Scientific Text",
        date="2019-00-00 2019",
        creators=[("Iz", "Beltagy")],
        tags=["nlp"],
        collections=[k["ch2"]],  # in Thesis only through its sub-collection
    )
    k["scibert_pdf"] = b.add_attachment(k["scibert"], filename="scibert.pdf", content=MINIMAL_PDF)
    k["red"] = b.add_annotation(
        k["scibert_pdf"],
        text="trained on 1.14M papers from Semantic Scholar",
        comment="size of the training corpus",
        color="#ff6666",
        page_label="2",
        page_index=1,
    )
    k["custom_red"] = b.add_annotation(  # a shade of the user's own, nearest to Zotero's red
        k["scibert_pdf"],
        text="SciBERT outperforms BERT-Base on biomedical tasks",
        color="#ee1111",
        page_index=4,
    )
    k["yellow"] = b.add_annotation(
        k["scibert_pdf"],
        text=YELLOW,
        color="#FFD400",
        page_label="3",
        page_index=2,
    )
    k["green"] = b.add_annotation(
        k["scibert_pdf"],
        text="we fine-tune for 2 to 5 epochs",
        color="#5fb236",
        page_index=3,
        tags=["method"],
    )
    k["image"] = b.add_annotation(k["scibert_pdf"], kind="image", color="#2ea8e5", page_index=5)  # no words
    k["scibert_note"] = b.add_note(
        k["scibert"], "<p>Words are split into subword units with WordPiece before the encoder sees them.</p>"
    )
    k["book"] = b.add_item(
        "book",
        title="Numerical Optimization",
        date="2006-00-00 2006",
        creators=[("Jorge", "Nocedal")],
        tags=["method"],  # the paper's tag, not the annotation's
        collections=[k["reading"]],
    )
    k["book_pdf"] = b.add_attachment(k["book"], filename="book.pdf", content=MINIMAL_PDF)
    k["blue"] = b.add_annotation(
        k["book_pdf"], text="line search methods choose a step length", color="#2ea8e5", page_label="30"
    )
    k["book_note"] = b.add_note(k["book"], "<p>Chapter 4 covers trust regions; compare with line search.</p>")
    k["loose_note"] = b.add_note(None, "<p>Thesis plan: background on corpora, then methods.</p>")
    b.build()
    return k


WHERE = ("kind", "parent_key", "attachment_key", "page_label", "page_index", "color", "text")
WITH_WORDS = ("red", "custom_red", "yellow", "green", "blue", "scibert_note", "book_note", "loose_note")


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("notes")
    keys = build_library(root / "Zotero")
    guard_database(root / "Zotero" / "zotero.sqlite")
    return root, keys


@pytest.fixture(scope="module")
def indexed(built: tuple[Path, dict[str, str]]) -> Settings:
    root, _ = built
    return index_library(library_settings(root / "Zotero", root), root / "home")


@pytest.fixture(scope="module")
def library(built: tuple[Path, dict[str, str]]):
    return load_library(built[0] / "Zotero" / "zotero.sqlite")


async def call(settings: Settings, home: Path, **arguments: Any) -> Any:
    return await call_tool(settings, "zot_manage_notes", home=home, **arguments)


def shown(result: Any, field: str) -> set[str]:
    """Keys listed in a service answer (``data``) or a tool answer (``structured_content``)."""
    data = result.data if hasattr(result, "is_error") and not hasattr(result, "content") else None
    return {row["key"] for row in (data if data is not None else result.structured_content)[field]}


# -- scope: colour, tags, item, collection -------------------------------------------------------------


def test_colour_scope_takes_custom_shades_of_the_named_colour(library, built) -> None:
    k = built[1]
    red = notes.list_annotations(library, limit=20, scope=resolve_scope(library, color="Red"))
    assert shown(red, "annotations") == {k["red"], k["custom_red"]}
    assert {row["color_name"] for row in red.data["annotations"]} == {"red"}
    assert "coloured red (#ff6666)" in red.text and " red " in red.text
    exact = notes.list_annotations(library, limit=20, scope=resolve_scope(library, color="EE1111"))
    assert shown(exact, "annotations") == {k["custom_red"]}


def test_tags_count_on_the_annotation_or_its_paper_and_the_answer_says_which(library, built) -> None:
    k = built[1]
    scope = resolve_scope(library, tags=["METHOD"])  # case does not matter
    tagged = notes.list_annotations(library, limit=20, scope=scope)
    vias = {row["key"]: row["tag_via"] for row in tagged.data["annotations"]}
    assert vias == {k["green"]: "own", k["blue"]: "item"}
    assert "1 by their own tag, 1 by their paper's" in tagged.text
    assert shown(notes.list_notes(library, limit=20, scope=scope), "notes") == {k["book_note"]}


def test_a_collection_takes_its_sub_collections_items(library, built) -> None:
    k = built[1]
    thesis = notes.list_annotations(library, limit=20, scope=resolve_scope(library, collection="thesis"))
    assert shown(thesis, "annotations") == {k[n] for n in ("red", "custom_red", "yellow", "green", "image")}
    assert "(and below)" in thesis.text
    reading = notes.list_notes(library, limit=20, scope=resolve_scope(library, collection="Reading list"))
    assert shown(reading, "notes") == {k["book_note"]}


@pytest.mark.parametrize("name", ["SciBERT", "scibert_pdf", "scibert"])
def test_an_item_by_title_words_key_or_attachment_key(library, built, name: str) -> None:
    k = built[1]
    given = name if name == "SciBERT" else k[name]
    found = notes.list_annotations(library, item_key=given, limit=20)
    assert shown(found, "annotations") == {k["red"], k["custom_red"], k["yellow"], k["green"], k["image"]}


def test_names_that_match_nothing_get_the_closest_ones(library) -> None:
    with pytest.raises(NotFoundError, match="No tag 'methd'") as err:
        resolve_scope(library, tags=["methd"])
    assert "Did you mean: method?" in str(err.value)
    with pytest.raises(NotFoundError, match="No collection matches 'Quantum'") as err:
        resolve_scope(library, collection="Quantum")
    assert "Reading list" in str(err.value)
    with pytest.raises(NotFoundError, match="No paper in the library matches"):
        resolve_scope(library, item="Attention Is All You Need")


def test_word_search_is_narrowed_by_the_scope_too(library, built) -> None:
    k = built[1]
    everywhere = notes.search_notes(library, "line search", limit=10)
    assert shown(everywhere, "matches") == {k["blue"], k["book_note"]}
    assert everywhere.data["ranked_by"] == "words"
    blue_only = notes.search_notes(
        library, "line search", limit=10, scope=resolve_scope(library, color="blue")
    )
    assert shown(blue_only, "matches") == {k["blue"]}
    in_thesis = notes.search_notes(
        library, "line search", limit=10, scope=resolve_scope(library, collection="Thesis")
    )
    assert in_thesis.data["total"] == 0


# -- indexing ------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_update_db_indexes_notes_and_annotations_as_points_of_their_own(indexed: Settings, built) -> None:
    k = built[1]
    resources = IndexResources(indexed)
    try:
        resources.open()
        assert resources.state.note_counts() == {"annotation": 5, "note": 3}  # the image has no words
        assert resources.store.count(SearchFilter(kinds=NOTE_KINDS)) == len(WITH_WORDS)
        (red,) = resources.store.get_by_item(k["red"])
        assert {name: red.payload[name] for name in WHERE} == {
            "kind": "annotation",
            "parent_key": k["scibert"],
            "attachment_key": k["scibert_pdf"],
            "page_label": "2",
            "page_index": 1,
            "color": "#ff6666",
            "text": "trained on 1.14M papers from Semantic Scholar\nsize of the training corpus",
        }
        ctx = AppContext(indexed, home=indexed.data_dir / "home")
        try:
            assert index_status(ctx, ctx.library())["notes_indexed"] == len(WITH_WORDS)
        finally:
            ctx.close()
        # the papers' own points are untouched: a paper's points are its chunks and metadata only
        paper_points = resources.store.get_by_item(k["scibert"])
        assert paper_points and {p.payload["kind"] for p in paper_points} <= set(PAPER_KINDS)
    finally:
        resources.close()


@pytest.mark.slow
async def test_zot_search_keeps_notes_out_of_paper_results(indexed: Settings, built, tmp_path: Path) -> None:
    k = built[1]
    query = "words split into subword units with WordPiece"
    resources = IndexResources(indexed)
    try:
        vectors = QueryVectors(resources, query, "rrf")
        nearest = resources.store.search(vectors.dense, None, limit=1)[0]
        assert nearest.payload["item_key"] == k["scibert_note"]  # the note is the best match in the store
        chunks = search_chunks(resources, query, fetch=50, search_filter=None, fusion="rrf")
        assert chunks and {c.hit.payload["kind"] for c in chunks} <= set(PAPER_KINDS)  # papers never see it
    finally:
        resources.close()
    ctx = AppContext(indexed, home=tmp_path / "home")
    try:
        async with Client(build_server(ctx)) as client:
            result = await client.call_tool("zot_search", {"query": query}, raise_on_error=False)
    finally:
        ctx.close()
    assert not result.is_error
    found = {p["key"] for p in result.structured_content["papers"]}
    assert found and found <= {k["scibert"], k["book"]}


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


@pytest.mark.slow
def test_the_update_is_incremental(built, embedder, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    source, k = built
    shutil.copytree(source / "Zotero", tmp_path / "Zotero")  # a copy this test may change
    db = tmp_path / "Zotero" / "zotero.sqlite"
    resources = IndexResources(Settings(data_dir=tmp_path / "state", index_workers=1))
    resources.__dict__["embedder"] = embedder
    embedded: list[str] = []
    real = embedder.embed_documents
    monkeypatch.setattr(embedder, "embed_documents", lambda texts: embedded.extend(texts) or real(texts))
    try:
        seen: list[Progress] = []
        first = update_index(
            load_library(db), resources, UpdateOptions(fulltext=False), on_progress=seen.append
        ).notes
        assert first is not None and (first["indexed"], first["points"]) == (8, 8)
        assert (seen[-1].notes_done, seen[-1].notes_total) == (8, 8)  # long embedding runs show progress
        stream = io.StringIO()
        ProgressLine(stream).update(seen[-1])
        assert "notes and annotations 8/8" in stream.getvalue()
        embedded.clear()
        again = update_index(load_library(db), resources, UpdateOptions(fulltext=False)).notes
        assert again == again | {"indexed": 0, "unchanged": 8, "removed": 0} and embedded == []

        conn = sqlite3.connect(db)
        item_id = "SELECT itemID FROM items WHERE key = ?"
        conn.execute(
            f"UPDATE itemNotes SET note = '<p>Tokenizers split words into pieces.</p>' WHERE itemID = ({item_id})",
            (k["scibert_note"],),
        )
        conn.execute(
            f"UPDATE itemAnnotations SET color = '#2ea8e5' WHERE itemID = ({item_id})", (k["yellow"],)
        )
        conn.execute(f"INSERT INTO deletedItems (itemID) {item_id}", (k["blue"],))  # to the trash
        conn.execute(f"DELETE FROM itemNotes WHERE itemID = ({item_id})", (k["loose_note"],))
        conn.execute("DELETE FROM items WHERE key = ?", (k["loose_note"],))
        conn.commit()
        conn.close()

        changed = update_index(load_library(db), resources, UpdateOptions(fulltext=False)).notes
        assert changed == changed | {"indexed": 2, "unchanged": 4, "removed": 2}
        assert sorted(embedded) == ["Tokenizers split words into pieces.", YELLOW]
        store = resources.store
        assert store.get_by_item(k["blue"]) == [] and store.get_by_item(k["loose_note"]) == []
        assert store.get_by_item(k["yellow"])[0].payload["color"] == "#2ea8e5"
        assert (
            store.get_by_item(k["scibert_note"])[0].payload["text"] == "Tokenizers split words into pieces."
        )
        assert store.count(SearchFilter(kinds=NOTE_KINDS)) == 6
        assert set(resources.state.note_fingerprints()) == {k[n] for n in WITH_WORDS} - {
            k["blue"],
            k["loose_note"],
        }

        # An update of one item looks at that item's notes only, and removes nothing else.
        conn = sqlite3.connect(db)
        conn.execute(
            f"UPDATE itemAnnotations SET comment = 'see table 2' WHERE itemID = ({item_id})", (k["green"],)
        )
        conn.commit()
        conn.close()
        embedded.clear()
        one = update_index(load_library(db), resources, UpdateOptions(item_keys=(k["book"],), fulltext=False))
        assert one.notes == one.notes | {"indexed": 0, "removed": 0} and embedded == []
        scibert = update_index(
            load_library(db), resources, UpdateOptions(item_keys=(k["scibert"],), fulltext=False)
        )
        assert scibert.notes == scibert.notes | {"indexed": 1, "removed": 0}
    finally:
        resources.close()


# -- through the tool ------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_my_red_highlights_in_the_scibert_paper(indexed: Settings, built, tmp_path: Path) -> None:
    k = built[1]
    result = await call(indexed, tmp_path, query="my red highlights in the SciBERT paper")
    route = result.structured_content["route"]
    assert route["mode"] == "list_annotations" and route["params"]["color"] == "red"
    assert shown(result, "annotations") == {k["red"], k["custom_red"]}


@pytest.mark.slow
async def test_annotations_tagged_method(indexed: Settings, built, tmp_path: Path) -> None:
    k = built[1]
    result = await call(indexed, tmp_path, query="annotations tagged method")
    assert result.structured_content["route"]["mode"] == "list_annotations"
    assert shown(result, "annotations") == {k["green"], k["blue"]}


@pytest.mark.parametrize(
    ("query", "mode", "expected"),
    [
        ("list the highlights I made in 'SciBERT: A Pretrained'", "list_annotations", ("red", "yellow")),
        ("show my highlights with 'step length'", "search", ("blue",)),  # quoted words that name no paper
        ("my notes on the Numerical Optimization book", "list_notes", ("book_note",)),  # nothing else to find
    ],
)
@pytest.mark.slow
async def test_quoted_and_named_titles(
    indexed: Settings, built, tmp_path: Path, query: str, mode: str, expected: tuple[str, ...]
) -> None:
    k = built[1]
    result = await call(indexed, tmp_path, query=query)
    data = result.structured_content
    assert not result.is_error and data["route"]["mode"] == mode, text_of(result)
    field = {"list_annotations": "annotations", "list_notes": "notes", "search": "matches"}[mode]
    assert {k[n] for n in expected} <= {row["key"] for row in data[field]}


@pytest.mark.slow
async def test_what_did_i_highlight_in_yellow(indexed: Settings, built, tmp_path: Path) -> None:
    result = await call(indexed, tmp_path, query="what did I highlight in yellow")
    assert shown(result, "annotations") == {built[1]["yellow"]}


@pytest.mark.slow
async def test_notes_about_a_topic_in_a_collection_are_found_by_meaning(
    indexed: Settings, built, tmp_path: Path
) -> None:
    k = built[1]
    result = await call(indexed, tmp_path, query="notes about tokenization in my Thesis collection")
    data = result.structured_content
    assert data["route"]["mode"] == "search" and data["route"]["params"]["collection"] == "Thesis"
    assert data["ranked_by"] == "meaning and words"
    # No note says "tokenization": the WordPiece note is found by what it means.
    first = data["matches"][0]
    assert first["key"] == k["scibert_note"] and first["found_by"] == ["meaning"]
    keys = [m["key"] for m in data["matches"]]
    assert k["book_note"] not in keys and k["loose_note"] not in keys  # outside the collection
    # Lean: one line per hit, and how to see more.
    lines = text_of(result).splitlines()
    assert len(lines) == len(keys) + 2 and all(len(line) < 300 for line in lines)
    assert "list_notes" in lines[-1]


@pytest.mark.parametrize(
    ("arguments", "expected", "mode"),
    [
        ({"color": "Red", "item_key": "SciBERT"}, {"red", "custom_red"}, "list_annotations"),
        ({"color": "#EE1111"}, {"custom_red"}, "list_annotations"),
        ({"tags": ["METHOD"], "force_mode": "list_annotations"}, {"green", "blue"}, "list_annotations"),
        ({"collection": "Reading list"}, {"book_note"}, "list_notes"),
        ({"force_mode": "list_notes", "color": "blue"}, {"blue", "image"}, "list_annotations"),  # colours
        ({"query": "line search", "force_mode": "search", "color": "blue"}, {"blue"}, "search"),
        (
            {"query": "line search", "force_mode": "search", "tags": ["method"]},
            {"blue", "book_note"},
            "search",
        ),
        ({"query": "line search", "force_mode": "search", "collection": "Thesis"}, set(), "search"),
        (
            {"query": "line search", "force_mode": "search", "item_key": "Numerical"},
            {"blue", "book_note"},
            "search",
        ),
    ],
)
@pytest.mark.slow
async def test_every_typed_argument_takes_effect(
    indexed: Settings, built, tmp_path: Path, arguments: dict[str, Any], expected: set[str], mode: str
) -> None:
    k = built[1]
    result = await call(indexed, tmp_path, **arguments)
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert data["route"]["mode"] == mode
    field = {"list_annotations": "annotations", "list_notes": "notes", "search": "matches"}[mode]
    found = {row["key"] for row in data[field]}
    if mode == "search":  # meaning adds what words miss; what the scope excludes never comes back
        assert {k[n] for n in expected} <= found and found <= scope_keys(k, arguments)
    else:
        assert found == {k[n] for n in expected}


def scope_keys(k: dict[str, str], arguments: dict[str, Any]) -> set[str]:
    if "color" in arguments:
        return {k["blue"]}
    if "collection" in arguments:
        return {k[n] for n in ("red", "custom_red", "yellow", "green", "scibert_note")}
    return {k["blue"], k["book_note"], k["green"]}


@pytest.mark.parametrize(
    ("arguments", "says"),
    [
        ({"color": "teal"}, "yellow, red, green, blue"),
        ({"tags": ["methd"]}, "Did you mean: method?"),
        ({"collection": "Quantum"}, "Collections: Reading list, Thesis"),
        ({"item_key": "ZZZZ9999"}, "No item with key 'ZZZZ9999'"),
    ],
)
@pytest.mark.slow
async def test_bad_names_get_the_valid_choices(
    indexed: Settings, tmp_path: Path, arguments: dict[str, Any], says: str
) -> None:
    result = await call(indexed, tmp_path, **arguments)
    assert result.is_error and says in text_of(result)


async def test_without_an_index_search_matches_words_and_says_so(built, tmp_path: Path) -> None:
    root, k = built
    settings = Settings(zotero_data_dir=root / "Zotero", data_dir=tmp_path / "no-index")
    result = await call(settings, tmp_path, query="search my notes for 'line search'")
    assert not result.is_error
    assert result.structured_content["ranked_by"] == "words"
    assert shown(result, "matches") == {k["blue"], k["book_note"]}
    assert "Word match only" in text_of(result) and "update-db" in text_of(result)


@pytest.mark.slow
async def test_a_topic_no_note_is_about_finds_none_and_says_so(indexed: Settings, tmp_path: Path) -> None:
    """The notes and highlights are about language models and optimisation: none is about consensus. The
    dense channel still ranks every note; its best unrelated one is not an answer."""
    result = await call(indexed, tmp_path, query="my highlights about consensus or fault tolerance")
    data = result.structured_content
    assert data["route"]["mode"] == "search" and data["matches"] == []
    assert text_of(result).startswith("No notes or annotations match")
