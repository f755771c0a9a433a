"""The library graph as an MCP App, on the wire through fastmcp's in-memory client over the demo library
(its PDFs cite each other: SciBERT and S2ORC cite BERT): zot_explore_graph names the graph view; an Apps
client gets, beside the unchanged answer, the papers around the paper, author or concept the request named,
with the paper to start from or the author's papers to mark; a mode that ranks a field, and a paper the graph
does not hold yet, get the text answer alone. The browser half: test_app_graph_browser.py."""

from __future__ import annotations

import json
import re
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from agent_zot.apps.views import GRAPH_MODES, VIEWS, app_page, view_of
from agent_zot.config import Settings
from agent_zot.mcp.apps import for_client
from agent_zot.services.context import AppContext
from agent_zot.services.explore import graph_view
from agent_zot.services.response import ToolResponse
from agent_zot.view import page as graph_page
from tests.conftest import call_tool, connect
from tests.view.test_apps import APPS
from tests.view.view_fixtures import DEMO_TITLES, demo_settings

CITE_BERT = {"query": "which papers in my library cite BERT?"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return demo_settings(tmp_path_factory)


async def _call(settings: Settings, *, apps: bool, **arguments: Any) -> Any:
    return await call_tool(settings, "zot_explore_graph", extensions=[APPS] if apps else [], **arguments)


def _key(settings: Settings, title: str) -> str:
    ctx = AppContext(settings)
    try:
        return next(key for key, item in ctx.library().items.items() if item.title == title)
    finally:
        ctx.close()


@pytest.mark.slow
async def test_the_explore_tool_names_the_graph_page_which_draws_with_the_view_code(demo: Settings) -> None:
    async with connect(demo) as client:
        listed = {t.name: t for t in await client.list_tools()}
        page = (await client.read_resource("ui://agent-zot/graph.html"))[0].text
    assert listed["zot_explore_graph"].meta["ui"] == {"resourceUri": "ui://agent-zot/graph.html"}
    assert page == app_page(view_of("zot_explore_graph"))
    # The libraries and the drawing code of `agent-zot view`, its markup as a template, nothing loaded.
    for name in graph_page.SCRIPTS:
        assert graph_page.asset(name)[:200].replace("</script", "<\\/script") in page, name
    assert '<template id="graph-body">' in page and 'id="panel-centre"' in page
    assert "renderers.graph" in page and not re.search(r"@@[A-Z]+@@", page)
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", page)
    assert page.count("<script>") == 2 + len(graph_page.SCRIPTS) + 1
    # The other pages do not carry the graph's libraries.
    assert all("graphology" not in app_page(view) for view in VIEWS if not view.draws_graph)


@pytest.mark.slow
async def test_a_papers_graph_starts_at_the_paper_and_holds_its_citing_papers(demo: Settings) -> None:
    plain = await _call(demo, apps=False, **CITE_BERT)
    rich = await _call(demo, apps=True, **CITE_BERT)
    assert rich.content[0].text == plain.content[0].text and "SciBERT" in plain.content[0].text
    assert {k: v for k, v in rich.structured_content.items() if k != "view"} == plain.structured_content
    assert "view" not in plain.structured_content
    view = rich.structured_content["view"]
    bert = _key(demo, DEMO_TITLES["bert"])
    assert view["renderer"] == "graph" and view["seed"] == {"key": bert}
    titles = {n["title"] for n in view["nodes"]}
    assert {DEMO_TITLES["bert"], DEMO_TITLES["scibert"], DEMO_TITLES["s2orc"]} <= titles
    keys = [n["key"] for n in view["nodes"]]
    cites = {(keys[a], keys[b]) for a, b in view["edges"]["cites"]}
    assert (_key(demo, DEMO_TITLES["scibert"]), bert) in cites  # SciBERT cites BERT, drawn as such
    assert view["scope"].startswith(f"[{bert}] BERT") and "1 step away" in view["scope"]
    assert all(len(n.get("abstract") or "") <= graph_view.ABSTRACT_CHARS for n in view["nodes"])


@pytest.mark.slow
async def test_two_hops_reach_further_than_one(demo: Settings) -> None:
    attention = _key(demo, DEMO_TITLES["attention"])
    one = await _call(demo, apps=True, item_key=attention, force_mode="citation", hops=1)
    two = await _call(demo, apps=True, item_key=attention, force_mode="citation", hops=2)
    near = {n["key"] for n in one.structured_content["view"]["nodes"]}
    far = {n["key"] for n in two.structured_content["view"]["nodes"]}
    assert near < far and "2 steps away" in two.structured_content["view"]["scope"]


@pytest.mark.slow
async def test_an_authors_graph_marks_the_authors_papers(demo: Settings) -> None:
    result = await _call(demo, apps=True, query="who does Kyle Lo work with?")
    assert result.structured_content["route"]["mode"] == "collaboration"
    view = result.structured_content["view"]
    lo = {_key(demo, DEMO_TITLES["scibert"]), _key(demo, DEMO_TITLES["s2orc"])}
    assert view["seed"] == {"keys": sorted(lo), "label": "by Kyle Lo"}
    drawn = {n["key"] for n in view["nodes"]}
    assert lo < drawn and _key(demo, DEMO_TITLES["bert"]) in drawn  # the paper both cite, one step away


@pytest.mark.slow
async def test_a_concepts_graph_marks_the_papers_that_mention_it(demo: Settings) -> None:
    result = await _call(demo, apps=True, query="bert model", force_mode="concept")
    data = result.structured_content
    view = data["view"]
    mentioning = sorted(p["item_key"] for p in data["papers"])
    assert mentioning and view["seed"] == {"keys": mentioning, "label": "mentioning 'bert model'"}
    assert set(mentioning) < {n["key"] for n in view["nodes"]}  # with the papers one step from them


@pytest.mark.parametrize("mode", ["influence", "venue", "temporal"])
@pytest.mark.slow
async def test_modes_that_rank_a_field_have_no_graph(demo: Settings, mode: str) -> None:
    assert mode not in GRAPH_MODES
    result = await _call(demo, apps=True, query="language models", force_mode=mode)
    assert "view" not in result.structured_content


@pytest.mark.slow
def test_a_paper_the_graph_does_not_hold_yet_gets_the_text_alone(demo: Settings) -> None:
    ctx = AppContext(demo)
    try:
        item = ctx.library().items[_key(demo, DEMO_TITLES["bert"])]
        added = replace(item, key="ADDED234")  # as if added to Zotero since the last update-db
        assert graph_view.around_paper(ctx, added)() is None
    finally:
        ctx.close()
    # An Apps client then gets the structured answer as any other client does.
    response = ToolResponse("the text", {"route": {"mode": "citation"}}, view=lambda: None)
    assert for_client(response, renders_apps=True) == {"route": {"mode": "citation"}}


@pytest.mark.slow
def test_the_view_data_is_json(demo: Settings) -> None:
    ctx = AppContext(demo)
    try:
        item = ctx.library().items[_key(demo, DEMO_TITLES["scibert"])]
        data = graph_view.around_paper(ctx, item)()
    finally:
        ctx.close()
    assert data is not None and json.loads(json.dumps(data, allow_nan=False)) == data


def test_the_readmes_graph_questions_are_these() -> None:
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert CITE_BERT["query"] in readme and '"who does Kyle Lo work with?"' in readme
