"""Every tool through a real MCP client (fastmcp's in-memory Client), as an assistant would call it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from tests.conftest import call_tool, make_settings, text_of
from tests.factories import FullLibrary


@pytest.fixture
def server(app: AppContext):
    return build_server(app)


async def call(server, tool: str, **args):
    async with Client(server) as client:
        return await client.call_tool(tool, args, raise_on_error=False)


async def test_collections_list_show_recent(server, full_lib: FullLibrary) -> None:
    listed = await call(server, "zot_manage_collections", query="what collections do I have?")
    assert not listed.is_error and listed.structured_content["route"]["mode"] == "list"
    assert "Thesis" in text_of(listed) and "Chapter 2" in text_of(listed)

    shown = await call(
        server, "zot_manage_collections", query="show me the papers in my Chapter 2 collection"
    )
    assert shown.structured_content["route"]["mode"] == "show_items"
    assert {i["key"] for i in shown.structured_content["items"]} == {
        full_lib.keys["s2orc"],
        full_lib.keys["scibert"],
    }

    recent = await call(server, "zot_manage_collections", query="what did I add recently?", limit=2)
    assert recent.structured_content["route"]["mode"] == "recent"
    assert len(recent.structured_content["items"]) == 2


async def test_ambiguous_collection_returns_candidates(server) -> None:
    result = await call(server, "zot_manage_collections", force_mode="show_items", collection="reading")
    assert result.is_error
    error = result.structured_content["error"]
    assert error["type"] == "AmbiguousNameError" and len(error["candidates"]) == 2
    assert "Reading list" in text_of(result)


async def test_tags_list_and_boolean_search(server, full_lib: FullLibrary) -> None:
    listed = await call(server, "zot_manage_tags", query="list my tags")
    assert listed.structured_content["route"]["mode"] == "list"
    assert listed.structured_content["tags"][0] == {"name": "nlp", "count": 3, "automatic": False}
    found = await call(server, "zot_manage_tags", query="papers tagged nlp", tags="nlp, -to-read")
    assert found.structured_content["route"]["mode"] == "search"
    assert {i["key"] for i in found.structured_content["items"]} == {
        full_lib.keys["s2orc"],
        full_lib.keys["group_item"],
    }


async def test_notes_annotations_and_search(server, full_lib: FullLibrary) -> None:
    k = full_lib.keys
    notes = await call(server, "zot_manage_notes", query=f"show my notes on {k['s2orc']}")
    assert notes.structured_content["route"]["mode"] == "list_notes"
    assert "Key ideas" in text_of(notes)
    anns = await call(server, "zot_manage_notes", query=f"what did I highlight in {k['s2orc']}?")
    assert anns.structured_content["route"]["mode"] == "list_annotations"
    assert [a["page_label"] for a in anns.structured_content["annotations"]] == ["4969", "4971", "4972"]
    hits = await call(server, "zot_manage_notes", query='search my notes for "trust regions"')
    assert hits.structured_content["route"]["mode"] == "search"
    assert [m["key"] for m in hits.structured_content["matches"]] == [k["book_note"]]
    # the words are sent once, in the text; the structured content says which notes and where
    assert all("text" not in n and n["chars"] > 0 for n in notes.structured_content["notes"])
    highlighted = text_of(anns).split('"')[1]
    assert highlighted and highlighted not in json.dumps(anns.structured_content)


async def test_write_modes_are_detected_but_not_enabled(server, full_lib: FullLibrary) -> None:
    for tool, query, mode in [
        ("zot_manage_collections", "create a collection called Thesis/Chapter 3", "create"),
        ("zot_manage_tags", f"add the tag to-read to {full_lib.keys['book']}", "add"),
        ("zot_manage_notes", f"add a note to {full_lib.keys['book']} saying check eq. 3", "create"),
    ]:
        result = await call(server, tool, query=query)
        assert result.is_error and result.structured_content["route"]["mode"] == mode
        assert result.structured_content["status"] == "not_enabled"
        assert "not enabled" in text_of(result)


async def test_export_bibtex_by_collection(server, app: AppContext, full_lib: FullLibrary) -> None:
    result = await call(server, "zot_export", query="export my Thesis collection to thesis.bib")
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert data["route"]["mode"] == "bibtex" and data["format"] == "bibtex"
    target = Path(data["path"])
    assert target == app.settings.export_dir.resolve() / "thesis.bib"
    assert set(data["item_keys"]) == {full_lib.keys["s2orc"], full_lib.keys["scibert"]}
    assert "@inproceedings{lo2020s2orc," in target.read_text(encoding="utf-8")


async def test_export_refuses_overwrite_and_escape(server, app: AppContext) -> None:
    first = await call(server, "zot_export", path="all.json")
    assert not first.is_error and json.loads(Path(first.structured_content["path"]).read_text())
    again = await call(server, "zot_export", path="all.json")
    assert again.is_error and "already exists" in text_of(again)
    replaced = await call(server, "zot_export", path="all.json", overwrite=True)
    assert not replaced.is_error
    outside = await call(server, "zot_export", path="../../escape.bib")
    assert outside.is_error and "outside the export folder" in text_of(outside)
    assert not (app.settings.export_dir.parent.parent / "escape.bib").exists()


async def test_export_markdown_one_file_per_item(server, full_lib: FullLibrary) -> None:
    result = await call(
        server,
        "zot_export",
        force_mode="markdown",
        path="notes/",
        item_keys=[full_lib.keys["s2orc"], full_lib.keys["book"]],
    )
    assert not result.is_error, text_of(result)
    files = [Path(p) for p in result.structured_content["files"]]
    assert len(files) == 2 and all(p.suffix == ".md" for p in files)
    s2orc = next(p for p in files if p.name.startswith("lo2020s2orc")).read_text(encoding="utf-8")
    assert s2orc.startswith("---\n") and "4969" in s2orc and "Key ideas" in s2orc


async def test_bad_arguments_get_actionable_errors(server) -> None:
    unknown = await call(server, "zot_manage_notes", force_mode="list_notes", item_key="ZZZZ9999")
    assert unknown.is_error and "ZZZZ9999" in text_of(unknown)
    keys = await call(server, "zot_export", path="x.bib", item_keys=["ZZZZ9999", "YYYY8888"])
    assert keys.is_error and "ZZZZ9999" in text_of(keys) and "YYYY8888" in text_of(keys)
    no_tags = await call(server, "zot_manage_tags", force_mode="search")
    assert no_tags.is_error and "Which tags" in text_of(no_tags)
    async with Client(server) as client:  # schema validation: the client sees a tool error, not a crash
        bad = await client.call_tool("zot_manage_collections", {"limit": 0}, raise_on_error=False)
        assert bad.is_error
        # in words the assistant acts on: the argument, what it takes, what it got; no pydantic codes or links
        assert text_of(bad).startswith("Invalid argument for zot_manage_collections: limit should be greater")
        assert "(got 0)" in text_of(bad) and "pydantic" not in text_of(bad) and "type=" not in text_of(bad)
        assert bad.structured_content["error"]["type"] == "InvalidArgumentError"
        typed = await client.call_tool(
            "zot_search", {"query": "x", "year_min": "last year"}, raise_on_error=False
        )
        assert typed.is_error and "year_min should be a valid integer" in text_of(typed)
        unknown_arg = await client.call_tool("zot_search", {"query": "x", "year": 2020}, raise_on_error=False)
        assert "year is not an argument of zot_search" in text_of(unknown_arg)
        assert "zot_search takes: query, authors, year_min, year_max" in text_of(unknown_arg)
        assert (await client.call_tool("zot_manage_collections", {})).structured_content["route"][
            "mode"
        ] == "list"


async def test_missing_library_is_explained_not_crashed(tmp_path: Path, full_lib: FullLibrary) -> None:
    settings = make_settings(full_lib, tmp_path, zotero_data_dir=tmp_path / "not-here")
    result = await call_tool(settings, "zot_manage_tags", query="list tags")
    assert result.is_error and "No Zotero database at" in text_of(result)
    assert result.structured_content["error"]["type"] == "LibraryNotFoundError"


async def test_an_internal_failure_is_masked_and_the_server_goes_on(server, monkeypatch) -> None:
    from agent_zot.services import tools

    def broken(*_args, **_kwargs):
        raise RuntimeError("secret internal detail")

    monkeypatch.setitem(tools.HANDLERS, "zot_manage_tags", broken)
    async with Client(server) as client:
        failed = await client.call_tool("zot_manage_tags", {"query": "list tags"}, raise_on_error=False)
        assert failed.is_error and "secret internal detail" not in text_of(failed)
        still = await client.call_tool("zot_manage_collections", {"query": "list collections"})
        assert not still.is_error


async def test_answers_from_the_demo_library_say_so(tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path / "state", export_dir=tmp_path / "exports")
    ctx = AppContext(settings, home=tmp_path / "no-zotero-here")
    async with Client(build_server(ctx)) as client:
        listed = await client.call_tool("zot_manage_collections", {"query": "list my collections"})
        assert text_of(listed).startswith("[Demo library: no Zotero library was found")
        assert "AGENT_ZOT_ZOTERO_DATA_DIR" in text_of(listed)
        assert listed.structured_content["library"]["demo"] is True
        assert listed.structured_content["route"]["mode"] == "list"  # the answer itself is still there
        missing = await client.call_tool(
            "zot_summarize", {"item_key": "ZZZZ9999", "force_mode": "quick"}, raise_on_error=False
        )
        assert missing.is_error and "Demo library" in missing.structured_content["error"]["hint"]
    ctx.close()


async def test_answers_from_a_real_library_carry_no_demo_note(server) -> None:
    listed = await call(server, "zot_manage_collections", query="list my collections")
    assert "Demo library" not in text_of(listed) and "library" not in listed.structured_content


@pytest.mark.parametrize(
    ("path", "expected"),
    [
        ("a\u0000b.bib", "NUL character"),
        ("x" * 300 + ".bib", "the limit is 255"),
        ("out.exe", "does not write .exe files"),
    ],
)
async def test_bad_export_paths_get_clear_errors_and_write_nothing(
    server, tmp_path: Path, path: str, expected: str
) -> None:
    result = await call(server, "zot_export", path=path)
    assert result.is_error and expected in text_of(result)
    assert result.structured_content["error"]["type"] == "InvalidArgumentError"
    assert len(text_of(result)) < 400  # the path is not echoed back whole
    assert not (tmp_path / "exports").exists() or not any((tmp_path / "exports").iterdir())


async def test_exported_files_are_ordinary_files(server, tmp_path: Path) -> None:
    result = await call(server, "zot_export", path="refs.bib")
    assert not result.is_error
    mode = (tmp_path / "exports" / "refs.bib").stat().st_mode & 0o777
    assert mode & 0o044  # readable beyond the owner as the umask allows, not private like a temp file


async def test_a_pasted_page_is_not_echoed_back_whole(server) -> None:
    result = await call(server, "zot_manage_notes", query="search my notes for " + "z" * 20_000)
    assert not result.is_error and len(text_of(result)) < 300
