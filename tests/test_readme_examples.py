"""The README's first-steps questions, asked through a real MCP client on the indexed demo library: each
lands on the tool call Claude would make and answers with the demo's own papers."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

README = Path(__file__).resolve().parents[1] / "README.md"
VOCABULARY = "how is the vocabulary built in the papers of my Thesis collection?"
CITE_BERT = "which of my papers cite BERT?"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("readme")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home", graph=True)


def test_the_questions_are_the_readmes() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert VOCABULARY in text and CITE_BERT in text and "check the citations in this draft" in text


async def test_first_steps_questions(demo: Settings) -> None:
    ctx = AppContext(demo)
    try:
        async with Client(build_server(ctx)) as client:
            vocabulary = await client.call_tool("zot_search", {"query": VOCABULARY})
            first = vocabulary.structured_content["papers"][0]
            assert "SciBERT" in first["title"]
            assert "word-piece vocabulary" in vocabulary.content[0].text
            assert vocabulary.structured_content["route"]["params"]["collection"] == "Thesis"

            cites = await client.call_tool("zot_explore_graph", {"query": CITE_BERT})
            text = cites.content[0].text
            assert "Cited by (in your library): 2" in text and "SciBERT" in text and "S2ORC" in text

            draft = (
                "Domain vocabularies help scientific language models [@beltagy2019]. "
                "A word-piece vocabulary was learned from the scientific corpus [@beltagy2019, p. 1]."
            )
            audit = await client.call_tool(
                "zot_summarize", {"query": "check the citations in this draft", "draft": draft}
            )
            assert audit.structured_content["route"]["mode"] == "audit"
            assert "2 citations" in audit.content[0].text
    finally:
        ctx.close()
