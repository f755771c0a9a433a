"""`zot_search` modes beyond the hybrid core, through a real MCP client on an indexed library whose PDFs cite
each other (the graph test library): provenance, entity and graph enrichment, metadata and comprehensive
merging, compound queries, escalation, expansion, and queries that are only an identifier."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.index.retrieval import PaperHit, Passage
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.search.modes import assess, merge_subqueries
from tests.conftest import connect
from tests.graph.test_graph_explore import graph_library  # noqa: F401  (the module fixture, used by name)


@pytest.fixture
async def client(graph_library: tuple[Settings, dict[str, str]], tmp_path: Path):  # noqa: F811
    async with connect(graph_library[0], home=tmp_path / "home") as connected:
        yield connected


async def search(client: Client, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool("zot_search", arguments, raise_on_error=False)
    assert not result.is_error, result.content[0].text
    return result.structured_content | {"text": result.content[0].text}


def keys(data: dict[str, Any]) -> list[str]:
    return [p["key"] for p in data["papers"]]


@pytest.mark.slow
async def test_provenance_names_the_channels(client: Client, graph_library) -> None:  # noqa: F811
    _, k = graph_library
    data = await search(client, query="graph neural networks for citation recommendation", force_mode="fast")
    top = data["papers"][0]
    assert top["key"] in (k["gnn"], k["revisited"])
    assert set(top["found_by"]) == {"vector", "sparse"}  # both channels agree on it
    assert data["quality"]["confidence"] > 0


@pytest.mark.slow
async def test_entity_mode_lists_methods_and_concepts_of_the_top_papers(client: Client) -> None:
    data = await search(client, query="citation recommendation", force_mode="entity")
    entities = data["entities"]
    assert entities and all(isinstance(e["papers"], list) for group in entities.values() for e in group)
    assert "In these papers:" in data["text"]


@pytest.mark.slow
async def test_graph_mode_adds_authors_and_citation_neighbours(client: Client, graph_library) -> None:  # noqa: F811
    _, k = graph_library
    data = await search(
        client, query="graph neural network citation recommendation", force_mode="graph", limit=2
    )
    names = {a["name"] for a in data["authors"]}
    assert "Ada Lovelace" in names
    by_graph = [p for p in data["papers"] if p["found_by"] == ["graph"]]
    assert by_graph, "papers citing or cited by the top papers are added"
    assert {p["key"] for p in by_graph} <= {k["context"], k["survey"], k["gnn"], k["revisited"], k["protein"]}
    assert "Who works on this" in data["text"]


@pytest.mark.slow
async def test_comprehensive_adds_metadata_matches(client: Client, graph_library) -> None:  # noqa: F811
    _, k = graph_library
    data = await search(client, query="protein", force_mode="comprehensive")
    protein = next(p for p in data["papers"] if p["key"] == k["protein"])
    assert "metadata" in protein["found_by"]


@pytest.mark.slow
async def test_compound_and_ranks_papers_covering_both_parts_first(client: Client, graph_library) -> None:  # noqa: F811
    _, k = graph_library
    data = await search(client, query="protein structure AND citation context analysis", force_mode="fast")
    assert data["route"]["compound"] and len(data["route"]["subqueries"]) == 2
    assert data["compound"]["how"] == "papers covering every part first"
    either = await search(client, query="protein structure OR citation context analysis", force_mode="fast")
    assert either["compound"]["how"] == "union (any part)"
    assert {k["protein"], k["context"]} <= set(keys(either)[:4])


def test_merge_puts_papers_covering_every_part_first() -> None:
    def hit(key: str, score: float) -> PaperHit:
        return PaperHit(key, score, [Passage(key, "chunk", None, 1, 1, None, score)], {"vector"})

    parts = {"a": [hit("ONLYA", 0.9), hit("BOTH", 0.5)], "b": [hit("ONLYB", 0.8), hit("BOTH", 0.4)]}
    ranked, info = merge_subqueries("a and b", ("a", "b"), lambda part: parts[part], limit=3)
    assert ranked[0].item_key == "BOTH" and info["covering_all"] == 1
    union, _ = merge_subqueries("a or b", ("a", "b"), lambda part: parts[part], limit=3)
    assert union[0].item_key == "ONLYA"


def test_quality_is_low_for_empty_flat_or_disagreeing_lists() -> None:
    assert assess([], limit=10, query_terms=3).confidence == 0.0
    agree = [PaperHit(f"K{i}", 1.0 - i * 0.1, [], {"vector", "sparse"}) for i in range(6)]
    disagree = [PaperHit(f"K{i}", 0.5, [], {"vector"}) for i in range(6)]
    high, low = assess(agree, limit=10, query_terms=3), assess(disagree, limit=10, query_terms=3)
    assert high.confidence > 0.6 > low.confidence
    assert "no result stands out" in low.reasons


@pytest.mark.slow
async def test_weak_results_escalate_to_comprehensive(client: Client) -> None:
    forced = await search(client, query="zebrafish cardiomyocyte regeneration", force_mode="fast")
    assert not forced["route"]["escalated"]  # a mode the caller forced is kept
    data = await search(client, query="zebrafish cardiomyocyte regeneration")
    route = data["route"]
    assert route["escalated"] and route["mode"] == "comprehensive"
    assert "low confidence" in route["reason"] and "no query word occurs in the library" in route["reason"]


@pytest.mark.slow
async def test_an_escalated_search_reuses_its_first_pass_and_says_things_once(
    graph_library: tuple[Settings, dict[str, str]],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent_zot.services.search import answer as search_module

    calls: list[tuple[str, int]] = []
    real = search_module.search_papers

    def counted(resources: Any, text: str, *, limit: int, **rest: Any) -> Any:
        calls.append((text, limit))
        return real(resources, text, limit=limit, **rest)

    monkeypatch.setattr(search_module, "search_papers", counted)
    settings, _ = graph_library
    ctx = AppContext(settings)
    try:
        async with Client(build_server(ctx)) as connected:
            result = await connected.call_tool(
                "zot_search", {"query": "zebrafish cardiomyocyte regeneration"}
            )
            calls_for_one = list(calls)
    finally:
        ctx.close()
    route = result.structured_content["route"]
    assert route["escalated"] and route["mode"] == "comprehensive"
    assert len(calls_for_one) == 1  # one hybrid retrieval, not one per pass


@pytest.mark.slow
def test_a_second_pass_replaces_the_first_ones_notes(graph_library: tuple[Settings, dict[str, str]]) -> None:  # noqa: F811
    from dataclasses import replace

    from agent_zot.services.resolve.scope import resolve_filters
    from agent_zot.services.search.answer import _Search
    from agent_zot.services.tools import routed

    ctx = AppContext(graph_library[0])
    try:
        library = ctx.library()
        search = _Search(
            ctx, library, resolve_filters(library, {}, {}, strict_authors=False), 10, "sentences"
        )
        route = routed("zot_search", "who works on citation context classification", None)
        assert route.mode == "graph"
        search.run(route, "citation context classification", "citation context classification")
        first = list(search.notes)
        search.run(replace(route, mode="comprehensive"), "citation context classification", "")
    finally:
        ctx.close()
    assert any("Who works on this" in note for note in first)
    assert sum("Who works on this" in note for note in search.notes) == 1


@pytest.mark.slow
async def test_identifier_only_queries_resolve_the_item(client: Client, graph_library) -> None:  # noqa: F811
    _, k = graph_library
    by_doi = await search(client, query="10.1234/context.2017")
    assert keys(by_doi) == [k["context"]]
    by_key = await search(client, query=k["survey"])
    assert keys(by_key) == [k["survey"]]
    missing = await client.call_tool("zot_search", {"query": "10.9999/nothing.here"}, raise_on_error=False)
    assert missing.is_error and "No item with DOI" in missing.content[0].text


@pytest.mark.slow
async def test_only_stopwords_is_an_actionable_error(client: Client) -> None:
    result = await client.call_tool("zot_search", {"query": "what is the of and"}, raise_on_error=False)
    assert result.is_error and "no words to search for" in result.content[0].text


@pytest.mark.slow
async def test_a_configured_reranker_reorders_the_candidates(
    graph_library,  # noqa: F811
    tmp_path: Path,
) -> None:
    from tests.index.test_rerank import build_cross_encoder

    settings, _ = graph_library
    model = build_cross_encoder(tmp_path / "ce", train=True)
    with_reranker = settings.model_copy(update={"reranker_model": model, "rerank_candidates": 10})
    ctx = AppContext(with_reranker, home=tmp_path / "home")
    async with Client(build_server(ctx)) as client:
        data = await search(
            client, query="graph neural networks for citation recommendation", force_mode="fast"
        )
    ctx.close()
    assert all("rerank" in p["found_by"] for p in data["papers"][:3])
    scores = [p["score"] for p in data["papers"]]
    assert scores == sorted(scores, reverse=True)
