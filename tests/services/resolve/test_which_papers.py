"""One "which papers" for every tool (services/resolve/scope.py, services/resolve/library.py): a tag matches
in any case and is checked against the library, an unknown tag is a note with a "did you mean" (an error
only when the tags are the whole request), and a wrong item key gets the same hint from every door. Through
fastmcp's in-memory client over the every-case library (no index: metadata and abstracts answer)."""

from __future__ import annotations

import ast
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.exceptions import McpError

from agent_zot.config import Settings
from tests.conftest import REPO_ROOT, connect, text_of
from tests.factories import FullLibrary


async def tool(client: Client, name: str, **arguments: Any) -> Any:
    return await client.call_tool(name, arguments, raise_on_error=False)


async def test_a_tag_in_another_case_fills_the_matrix_exports_and_searches(
    settings: Settings, full_lib: FullLibrary, tmp_path: Path
) -> None:
    k = full_lib.keys
    async with connect(settings, home=tmp_path / "home") as client:
        tagged = await tool(client, "zot_manage_tags", query="items tagged nlp", force_mode="search")
        wanted = {row["key"] for row in tagged.structured_content["items"]}
        assert {k["s2orc"], k["scibert"]} <= wanted
        matrix = await tool(
            client, "zot_summarize", force_mode="matrix", questions=["corpus size"], tags=["NLP"]
        )
        assert not matrix.is_error, text_of(matrix)
        assert {row["item_key"] for row in matrix.structured_content["rows"]} == wanted
        exported = await tool(client, "zot_export", query="export", path="nlp.bib", tags=["NLP"])
        assert not exported.is_error, text_of(exported)
        assert set(exported.structured_content["item_keys"]) == wanted
        found = await tool(client, "zot_search", query="", tags=["NLP"], limit=50)
        assert not found.is_error, text_of(found)
        assert {p["key"] for p in found.structured_content["papers"]} == wanted


async def test_an_unknown_tag_beside_another_scope_takes_effect_with_did_you_mean(
    settings: Settings, full_lib: FullLibrary, tmp_path: Path
) -> None:
    """A typed tag argument takes effect even when the library has no such tag: the collection's papers
    without it are not offered as if they had it; the answer names the tag and the close ones."""
    async with connect(settings, home=tmp_path / "home") as client:
        matrix = await tool(
            client,
            "zot_summarize",
            force_mode="matrix",
            questions=["corpus size"],
            collection="Thesis",
            tags=["nlpp"],
        )
        exported = await tool(
            client, "zot_export", query="export", path="t.bib", collection="Thesis", tags=["nlpp"]
        )
        found = await tool(client, "zot_search", query="", collection="Thesis", tags=["nlpp"])
        for result in (matrix, exported, found):
            assert "No tag 'nlpp' in this library." in text_of(result), text_of(result)
            assert "Did you mean: nlp" in text_of(result)
        assert matrix.is_error and "No papers in" in text_of(matrix)
        assert exported.is_error or exported.structured_content["count"] == 0
        assert found.is_error or not found.structured_content["papers"]
        # the same request with the tag as the library spells it, in another case, fills all three
        matrix = await tool(
            client,
            "zot_summarize",
            force_mode="matrix",
            questions=["corpus size"],
            collection="Thesis",
            tags=["NLP"],
        )
        assert not matrix.is_error and matrix.structured_content["rows"], text_of(matrix)


@pytest.mark.parametrize(
    ("tool_name", "arguments"),
    [
        ("zot_summarize", {"force_mode": "matrix", "questions": ["corpus size"]}),
        ("zot_export", {"query": "export", "path": "t.bib"}),
        ("zot_search", {"query": ""}),
        ("zot_manage_notes", {"query": "my notes", "force_mode": "list_notes"}),
    ],
)
async def test_unknown_tags_that_are_the_whole_request_are_an_error_with_did_you_mean(
    settings: Settings, tmp_path: Path, tool_name: str, arguments: dict[str, Any]
) -> None:
    async with connect(settings, home=tmp_path / "home") as client:
        result = await tool(client, tool_name, tags=["nlpp"], **arguments)
    assert result.is_error and "No tag 'nlpp' in this library." in text_of(result)
    assert "Did you mean: nlp" in text_of(result)


async def test_a_wrong_item_key_gets_the_same_hint_from_every_door(
    settings: Settings, full_lib: FullLibrary, tmp_path: Path
) -> None:
    """zot_explore_graph needs a built graph first; it takes item_key through the same door as
    zot_summarize (resolve/papers.py), and `agent-zot view --item` through resolve_item too
    (tests/view/test_view_cli.py)."""
    key = full_lib.keys["s2orc"]
    typo = key[:-1] + ("2" if key[-1] != "2" else "3")
    async with connect(settings, home=tmp_path / "home") as client:
        answers = [
            await tool(client, "zot_summarize", query="summarize", item_key=typo),
            await tool(client, "zot_manage_notes", query="notes", item_key=typo),
            await tool(client, "zot_export", query="export", path="one.bib", item_keys=[typo]),
        ]
        texts = [text_of(a) for a in answers]
        matrix = await tool(
            client, "zot_summarize", force_mode="matrix", questions=["size"], item_keys=[typo]
        )
        texts.append(next(row["error"] for row in matrix.structured_content["rows"]))
        with pytest.raises(McpError) as resource:
            await client.read_resource(f"zotero://item/{typo}")
        texts.append(str(resource.value))
    hint = f"Did you mean: [{key}] S2ORC"
    for text in texts:
        assert f"No item with key '{typo}' in this library." in text and hint in text, text


def test_evidence_imports_nothing_from_search() -> None:
    """The claim check takes filters from resolve/ and query checks from services/query_text.py."""
    imported = set()
    for path in (REPO_ROOT / "agent_zot" / "services" / "evidence").glob("*.py"):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.ImportFrom) and node.module:
                imported.add((path.name, node.module))
            elif isinstance(node, ast.Import):
                imported.update((path.name, alias.name) for alias in node.names)
    assert [pair for pair in imported if pair[1].startswith("agent_zot.services.search")] == []
