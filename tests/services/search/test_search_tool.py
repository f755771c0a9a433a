"""`zot_search` through a real MCP client, on the demo library indexed with the real embedded stack."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import connect, guard_database, index_library, library_settings


@pytest.fixture(scope="module")
def demo_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("search")
    db = guard_database(ensure_demo_library(root / "library"))
    return index_library(library_settings(db.parent, root), root / "home")


@pytest.fixture
async def client(demo_settings: Settings, tmp_path: Path):
    async with connect(demo_settings, home=tmp_path / "home") as connected:
        yield connected


async def call(client: Client, **arguments: Any) -> Any:
    return await client.call_tool("zot_search", arguments, raise_on_error=False)


def titles(result: Any) -> list[str]:
    return [p["title"] for p in result.structured_content["papers"]]


@pytest.mark.slow
async def test_topic_search_finds_the_paper_with_page_cited_passages(client: Client) -> None:
    result = await call(client, query="how are citation links resolved when building a corpus of papers?")
    assert not result.is_error
    papers = result.structured_content["papers"]
    assert papers[0]["title"].startswith("S2ORC")
    passages = papers[0]["passages"]
    assert passages and passages[0]["kind"] == "chunk" and passages[0]["page_start"] >= 1
    assert "p. " in result.content[0].text
    assert result.structured_content["route"]["tool"] == "zot_search"


@pytest.mark.slow
async def test_filters_from_the_query_and_from_arguments(client: Client) -> None:
    routed = await call(client, query="language models published since 2019")
    assert routed.structured_content["route"]["params"]["years"]["start"] == 2019
    assert all(p["year"] >= 2019 for p in routed.structured_content["papers"])
    explicit = await call(client, query="language models", year_max=2018)
    assert all(p["year"] <= 2018 for p in explicit.structured_content["papers"])
    tagged = await call(client, query="statistics", tags=["optimization"])
    assert titles(tagged) == ["Numerical Optimization"]


@pytest.mark.slow
async def test_metadata_only_request_lists_the_authors_papers(client: Client) -> None:
    result = await call(client, query="papers by van der Berg")
    assert not result.is_error
    assert titles(result) == ["Mining Citation Contexts in Scholarly Full Text"]
    assert result.structured_content["papers"][0]["found_by"] == ["metadata"]


@pytest.mark.slow
async def test_unknown_author_suggests_close_names(client: Client) -> None:
    unknown = await call(client, query="papers by Vaswanni")
    assert unknown.is_error
    assert "Vaswani" in unknown.content[0].text  # a close name is suggested


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"query": "   "}, "empty"),
        ({"query": "x" * 5000}, "limit is 2,000"),
        ({"query": "transformers", "year_min": 2030, "year_max": 2020}, "empty"),
        ({"query": "transformers published in 2099"}, "No paper can be from 2099"),
    ],
)
@pytest.mark.slow
async def test_bad_input_gets_an_actionable_error(client: Client, arguments: dict, expected: str) -> None:
    result = await call(client, **arguments)
    assert result.is_error
    assert expected in result.content[0].text


async def test_no_index_says_how_to_build_it_and_metadata_still_works(tmp_path: Path) -> None:
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    settings = library_settings(db.parent, tmp_path, export_dir=tmp_path / "x")
    async with connect(settings, home=tmp_path / "home") as client:
        topic = await call(client, query="pretrained language models for science")
        assert topic.is_error and "agent-zot update-db" in topic.content[0].text
        metadata = await call(client, query="papers by Devlin")
        assert not metadata.is_error and titles(metadata)[0].startswith("BERT")


@pytest.mark.slow
async def test_unknown_author_next_to_a_topic_drops_that_filter_and_says_so(client: Client) -> None:
    result = await call(client, query="attention mechanisms regulated by Zebulonx gating")
    assert not result.is_error
    assert result.structured_content["papers"]
    assert "Searched without these filters" in result.content[0].text
    assert "Zebulonx" in result.structured_content["unknown_filters"][0]
    collection = await call(client, query="corpus construction in the Zebulon data collection process")
    assert not collection.is_error and collection.structured_content["papers"]
