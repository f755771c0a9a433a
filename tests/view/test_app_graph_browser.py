"""The library graph as an MCP App, as a person meets it, on the host page of tests/app_host.py against a
real `agent-zot serve --transport http` over the demo library: "which papers cite BERT?" draws BERT and the
papers around it with BERT's panel open; the person follows a citing paper from the panel and re-centres the
graph on it, which asks zot_explore_graph again through the host; an author's graph, in the dark theme, marks
the author's papers and labels the drawing in the theme's colours; the search box chooses a paper with the
keyboard. Skipped with the reason when Chromium is missing on a developer machine; CI must run it."""

from __future__ import annotations

import time
from collections.abc import Iterator
from io import BytesIO
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from PIL import Image

from agent_zot.config import Settings
from tests.app_host import Hosted
from tests.conftest import fingerprint
from tests.mcp.test_http_server import _serve
from tests.view.view_fixtures import DEMO_TITLES, demo_settings, require_browser

pytestmark = pytest.mark.slow

GRAPH_READY = "b => Boolean(window.agentZotApp && window.agentZotApp.graph && window.agentZotApp.graph.ready)"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, str]]:
    require_browser()  # before indexing a library no test would use
    settings = demo_settings(tmp_path_factory)
    for url in _serve(settings, tmp_path_factory.mktemp("app-graph"), token=None):
        yield settings, url


def _wait_drawn(hosted: Hosted, timeout: float = 120.0) -> None:
    """Until the view says its graph is drawn (layout done, first frame shown); on a loaded machine the
    layout's slices and WebGL on the CPU take their time. A failure to draw is reported with its words."""
    body = hosted.frame.locator("body")
    deadline = time.monotonic() + timeout
    while not body.evaluate(GRAPH_READY):
        failure = hosted.frame.locator("#graph .failure")
        assert failure.count() == 0, failure.first.inner_text()
        shown_as = body.evaluate("b => window.agentZotApp && window.agentZotApp.rendered")
        assert shown_as != "text", f"the result was shown as text: {body.inner_text()[:400]!r}"
        assert time.monotonic() < deadline, (
            f"the graph was never drawn; the view shows: {body.inner_text()[:400]!r}; {hosted.errors}"
        )
        hosted.page.wait_for_timeout(100)
    assert hosted.frame.locator("#graph canvas").count() > 0


def _drawn_pixels(hosted: Hosted, least: int, timeout: float = 30.0) -> int:
    """The graph's coloured pixels once more than ``least`` are painted, or when ``timeout`` passes (WebGL
    paints a frame or two after "ready")."""
    deadline = time.monotonic() + timeout
    while True:
        count = _coloured_pixels(hosted.frame.locator("#graph").screenshot())
        if count > least or time.monotonic() > deadline:
            return count
        hosted.page.wait_for_timeout(200)


def _coloured_pixels(png: bytes) -> int:
    """Pixels with a clear hue: the papers' discs (the background, links and labels are grey)."""
    pixels = np.asarray(Image.open(BytesIO(png)).convert("RGB"), dtype=np.int16)
    return int(((pixels.max(axis=2) - pixels.min(axis=2)) > 60).sum())


def test_a_papers_graph_opens_at_the_paper_and_recentres_on_a_citing_paper(
    served: tuple[Settings, str], browser: Any, tmp_path: Path
) -> None:
    settings, url = served
    database = Path(settings.zotero_data_dir) / "zotero.sqlite"
    before = fingerprint(database)
    call = {"query": "which papers in my library cite BERT?"}
    hosted = Hosted(browser, url, {"name": "zot_explore_graph", "arguments": call, "theme": "light"})
    try:
        frame = hosted.frame
        _wait_drawn(hosted)
        assert frame.locator("#panel").is_visible()
        assert frame.locator("#panel-title").inner_text() == DEMO_TITLES["bert"]
        summary = frame.locator("#summary").inner_text()
        assert summary.startswith("[") and "BERT" in summary and "3 papers" in summary, summary
        cited_by = frame.locator("#panel-cited-by li").all_inner_texts()
        assert any(DEMO_TITLES["scibert"] in t for t in cited_by), cited_by
        assert frame.locator("#panel-centre").is_hidden()  # the graph is already centred on BERT
        assert _drawn_pixels(hosted, least=3 * 50) > 3 * 50  # three papers
        hosted.keep_screenshot("app-graph.png", tmp_path)
        # Follow SciBERT from the panel, then re-centre the graph on it (each step waits for the view to
        # show it: the panel and the graph are redrawn after the click returns).
        frame.locator("#panel-cited-by a", has_text="SciBERT").click()
        frame.locator("#panel-title", has_text=DEMO_TITLES["scibert"]).wait_for(timeout=30_000)
        centre = frame.locator("#panel-centre")
        centre.wait_for(state="visible", timeout=30_000)
        centre.click()
        frame.locator("#summary", has_text="SciBERT").wait_for(timeout=60_000)
        _wait_drawn(hosted)
        assert frame.locator("#panel-title").inner_text() == DEMO_TITLES["scibert"]
        centre.wait_for(state="hidden", timeout=30_000)
        assert frame.locator("#graph canvas").count() > 0
        hosted.assert_clean()
    finally:
        hosted.close()
    assert fingerprint(database) == before


def test_an_authors_graph_in_the_dark_theme_marks_the_authors_papers(
    served: tuple[Settings, str], browser: Any
) -> None:
    _, url = served
    call = {"query": "who does Kyle Lo work with?"}
    hosted = Hosted(browser, url, {"name": "zot_explore_graph", "arguments": call, "theme": "dark"})
    try:
        frame = hosted.frame
        _wait_drawn(hosted)
        assert frame.locator("#status").inner_text().startswith("2 papers by Kyle Lo are marked")
        assert frame.locator("#panel").is_hidden()
        body = frame.locator("body")
        background = body.evaluate("b => getComputedStyle(b).backgroundColor")
        assert background == "rgb(22, 25, 31)", background  # the dark theme's --bg
        for part in ("#summary", "#status", "#controls label", "#legend li"):
            ratio = hosted.contrast(frame.locator(part).first)
            assert ratio >= 4.5, f"{part}: contrast {ratio:.1f}"  # WCAG AA for body text
        label = body.evaluate("() => window.agentZotApp.graph.renderer.getSetting('labelColor').color")
        assert label == "#e6e9ef"  # the dark theme's text colour, not sigma's black
        # The keyboard: the search box finds a paper, Enter opens it.
        search = frame.locator("#search")
        search.fill("s2orc")
        search.press("Enter")
        frame.locator("#panel").wait_for(state="visible", timeout=10_000)
        assert frame.locator("#panel-title").inner_text() == DEMO_TITLES["s2orc"]
        hosted.assert_clean()
    finally:
        hosted.close()


def test_a_mode_without_a_graph_shows_its_text(served: tuple[Settings, str], browser: Any) -> None:
    _, url = served
    call = {"query": "most influential papers on language models", "force_mode": "influence"}
    hosted = Hosted(browser, url, {"name": "zot_explore_graph", "arguments": call, "theme": "light"})
    try:
        text = hosted.frame.locator("pre.plain")
        text.wait_for(timeout=60_000)
        assert "influential" in text.inner_text().casefold()
        assert hosted.frame.locator("#graph").count() == 0
        hosted.assert_clean()
    finally:
        hosted.close()
