"""The README's first-steps questions, asked through a real MCP client on the indexed demo library: each
lands on the tool call Claude would make and answers with the demo's own papers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

README = Path(__file__).resolve().parents[2] / "README.md"
VOCABULARY = "how is the vocabulary built in the papers of my Thesis collection?"
CITE_BERT = "which of my papers cite BERT?"
BUILD_ON = "which papers build on Devlin 2019?"
LO_CITES = "what does Lo et al. 2020 cite?"
POSSESSIVE = "Beltagy's SciBERT paper"
ROUTE = "who cites the BERT paper?"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("readme")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home", graph=True)


def test_the_questions_are_the_readmes() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert VOCABULARY in text and CITE_BERT in text and "check the citations in this draft" in text


@pytest.mark.slow
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


def test_the_naming_examples_are_the_readmes() -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert all(example in text for example in (BUILD_ON, LO_CITES, POSSESSIVE, ROUTE))


@pytest.mark.slow
async def test_naming_a_paper_and_a_direction(demo: Settings) -> None:
    ctx = AppContext(demo)
    try:
        async with Client(build_server(ctx)) as client:
            citing = (await client.call_tool("zot_explore_graph", {"query": BUILD_ON})).structured_content
            assert citing["resolved"]["papers"][0]["title"].startswith("BERT")
            assert citing["resolved"]["direction"] == "in" and "cites" not in citing
            assert {p["title"].split(":")[0] for p in citing["cited_by"]} == {"SciBERT", "S2ORC"}
            cited = (await client.call_tool("zot_explore_graph", {"query": LO_CITES})).structured_content
            assert cited["resolved"]["papers"][0]["title"].startswith("S2ORC")
            assert cited["resolved"]["direction"] == "out" and "cited_by" not in cited
            assert any(p.get("title", "").startswith("BERT") for p in cited["cites"])
            summary = await client.call_tool("zot_summarize", {"query": POSSESSIVE})
            assert summary.structured_content["title"].startswith("SciBERT")
    finally:
        ctx.close()


@pytest.mark.slow
def test_route_shows_the_paper_and_direction(demo: Settings) -> None:
    from click.testing import CliRunner

    from agent_zot.cli.main import cli

    result = CliRunner().invoke(cli, ["--library", str(demo.zotero_data_dir), "route", "explore", ROUTE])
    assert result.exit_code == 0, result.output
    assert "paper: [" in result.output and "BERT: Pre-training" in result.output
    assert "direction: in" in result.output


def _readme_block(after: str, language: str) -> str:
    """The first fenced block of ``language`` after the words ``after`` in the README."""
    text = README.read_text(encoding="utf-8")
    rest = text[text.index(after) :]
    start = rest.index(f"```{language}\n") + len(language) + 4
    return rest[start : rest.index("```", start)].strip()


CLAIM_QUESTION = (
    "is there evidence that pretraining on scientific text improves results on scientific NLP tasks?"
)


@pytest.mark.slow
async def test_the_claim_check_worksheet_and_the_verdicts_example(demo: Settings) -> None:
    """The README's worksheet lines are what a claim check answers, and its verdicts example gets the
    answer the README quotes."""
    assert CLAIM_QUESTION in " ".join(README.read_text(encoding="utf-8").split())
    worksheet = _readme_block("By default the judge is your assistant.", "text").splitlines()
    example = json.loads(_readme_block("On the demo library", "json"))
    ctx = AppContext(demo)
    try:
        async with Client(build_server(ctx)) as client:
            checked = await client.call_tool("zot_search", {"query": CLAIM_QUESTION})
            answer = checked.content[0].text
            assert all(line in answer.splitlines() for line in worksheet), answer
            keys = {p["key"]: p["title"] for p in checked.structured_content["papers"]}
            assert keys[example["verdicts"][0]["item_key"]].startswith("SciBERT")  # the demo's own key
            exported = await client.call_tool("zot_export", example)
    finally:
        ctx.close()
    text = exported.content[0].text
    assert text.startswith("Wrote a review package of 1 claim (") and "/pretraining-review.md." in text
    assert "Judged by the assistant: 2 verdicts, 1 verified, 1 unverified." in text
    assert "- verdict 2 [HKKAURKC p. 1]: the quoted words are not in the paper" in text
