"""`agent-zot view` in a real headless browser (Debian's Chromium driven by Playwright): the page loads
without errors, draws the expected papers, answers clicks and searches, and works from file:// and from
the loopback server. Skipped with the reason when Chromium is missing on a developer machine; CI installs
it (.ci/run), and there a missing browser fails the run."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_zot.config import Settings
from agent_zot.graph.model import NodeKind
from agent_zot.services.context import AppContext
from agent_zot.services.explore.view_data import ViewData, library_view
from agent_zot.services.explore.view_scope import ViewRequest
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.view.page import render_page
from agent_zot.view.serve import make_server, url
from tests.conftest import shared_library_params
from tests.view.view_fixtures import DEMO_TITLES, demo_settings, wait_ready

pytestmark = pytest.mark.slow

BACKGROUND = (0xFB, 0xFC, 0xFD)  # #graph's background in view.css


@pytest.fixture(scope="module")
def demo_view(tmp_path_factory: pytest.TempPathFactory) -> tuple[ViewData, Path]:
    settings = demo_settings(tmp_path_factory)
    ctx = AppContext(settings)
    try:
        data = library_view(ctx, ViewRequest())
    finally:
        ctx.close()
    path = tmp_path_factory.mktemp("view-page") / "demo.html"
    path.write_text(render_page(data.to_json(), f"agent-zot · {data.scope}"), encoding="utf-8")
    return data, path


class Loaded:
    """A page opened in the browser, with every console error and uncaught exception it produced."""

    def __init__(self, browser: Any, address: str) -> None:
        self.errors: list[str] = []
        self.page = browser.new_page()
        self.page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        self.page.on("pageerror", lambda e: self.errors.append(f"uncaught: {e}"))
        self.page.goto(address)
        wait_ready(self.page)

    def order(self) -> int:
        return int(self.page.evaluate("() => window.agentZotView.graph.order"))

    def click_node(self, key: str) -> None:
        box = self.page.locator("#graph").bounding_box()
        spot = self.page.evaluate("(key) => window.agentZotView.screenPosition(key)", key)
        self.page.mouse.click(box["x"] + spot["x"], box["y"] + spot["y"])


@pytest.fixture
def demo_page(browser: Any, demo_view: tuple[ViewData, Path]) -> Iterator[Loaded]:
    loaded = Loaded(browser, demo_view[1].as_uri())
    yield loaded
    loaded.page.close()


def key_of(data: ViewData, name: str) -> str:
    return next(n["key"] for n in data.nodes if n["title"] == DEMO_TITLES[name])


def test_demo_page_loads_without_errors(demo_page: Loaded) -> None:
    page = demo_page.page
    assert demo_page.order() == 7
    assert "The whole library: 7 papers, 4 citations between them" in page.locator("#summary").inner_text()
    assert page.locator("#legend li").count() == 4  # four collections, every paper in one
    # The toggles work without errors too.
    page.uncheck("#edge-cites")
    page.check("#edge-concept")
    page.check("input[name=color-by][value=year]")
    page.check("input[name=size-by][value=pagerank]")
    assert page.locator("#legend h3").inner_text() == "Year"
    page.wait_for_timeout(200)
    assert demo_page.errors == []


def test_click_on_a_paper_opens_its_panel(demo_page: Loaded, demo_view: tuple[ViewData, Path]) -> None:
    data, _ = demo_view
    page = demo_page.page
    assert page.locator("#panel").is_hidden()
    demo_page.click_node(key_of(data, "bert"))
    page.locator("#panel").wait_for(state="visible", timeout=5000)
    assert page.locator("#panel-title").inner_text() == DEMO_TITLES["bert"]
    cited_by = page.locator("#panel-cited-by li").all_inner_texts()
    assert sorted(t.rsplit(" (", 1)[0] for t in cited_by) == sorted(
        [DEMO_TITLES["s2orc"], DEMO_TITLES["scibert"]]
    )
    assert (
        page.locator("#panel-zotero").get_attribute("href")
        == f"zotero://select/library/items/{key_of(data, 'bert')}"
    )
    assert "Jacob Devlin" in page.locator("#panel-meta").inner_text()
    # Following a link in the panel selects that paper.
    page.locator("#panel-cited-by a", has_text="SciBERT").click()
    assert page.locator("#panel-title").inner_text() == DEMO_TITLES["scibert"]
    assert demo_page.errors == []


def test_search_box_finds_a_paper(demo_page: Loaded) -> None:
    page = demo_page.page
    page.locator("#search").fill("scibert")
    results = page.locator("#search-results li")
    assert results.count() == 1 and results.first.inner_text().startswith(DEMO_TITLES["scibert"])
    page.locator("#search").press("Enter")
    page.locator("#panel").wait_for(state="visible", timeout=5000)
    assert page.locator("#panel-title").inner_text() == DEMO_TITLES["scibert"]
    page.locator("#search").fill("lme4 devlin")  # every word must match
    assert page.locator("#search-results li").first.inner_text() == "No paper matches."
    assert demo_page.errors == []


def test_the_graph_is_drawn(demo_page: Loaded) -> None:
    from io import BytesIO

    import numpy as np
    from PIL import Image

    image = Image.open(BytesIO(demo_page.page.locator("#graph").screenshot())).convert("RGB")
    pixels = np.asarray(image, dtype=np.int16)
    drawn = int((np.abs(pixels - np.array(BACKGROUND)).max(axis=2) > 40).sum())
    # The papers are coloured discs (labels and links are grey): count pixels with a clear hue.
    coloured = int(((pixels.max(axis=2) - pixels.min(axis=2)) > 60).sum())
    assert drawn > 1500, f"only {drawn} pixels differ from the background"
    assert coloured > 7 * 50, f"only {coloured} coloured pixels: are the seven papers drawn?"


def test_served_page_works(browser: Any, demo_view: tuple[ViewData, Path]) -> None:
    data, path = demo_view
    server = make_server(path.read_text(encoding="utf-8"), 0)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        loaded = Loaded(browser, url(server))
        assert loaded.order() == len(data.nodes) and loaded.errors == []
        loaded.page.close()
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.mark.parametrize("folder", shared_library_params())
def test_every_shared_library(browser: Any, tmp_path: Path, folder: Path) -> None:
    """Zotero 5, 6 and 7 libraries, non-ASCII titles, 16 collections, 2,000 authors; metadata only (quick)."""
    settings = Settings(zotero_data_dir=folder, data_dir=tmp_path / "state")
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        update_index(ctx.library(), ctx.index_resources(), UpdateOptions(fulltext=False), graph=ctx.graph())
        papers = len(ctx.graph().local.find_nodes(NodeKind.PAPER, limit=10**9))
        data = library_view(ctx, ViewRequest())
    finally:
        ctx.close()
    assert papers > 5 and len(data.nodes) == papers
    path = tmp_path / "shared.html"
    path.write_text(render_page(data.to_json(), f"agent-zot · {folder.name}"), encoding="utf-8")
    loaded = Loaded(browser, path.as_uri())
    assert loaded.order() == papers
    assert f"{papers} papers" in loaded.page.locator("#summary").inner_text()
    first = data.nodes[0]
    loaded.page.evaluate("(key) => window.agentZotView.select(key)", first["key"])
    assert loaded.page.locator("#panel-title").inner_text() == first["title"]
    assert loaded.errors == []
    loaded.page.close()
