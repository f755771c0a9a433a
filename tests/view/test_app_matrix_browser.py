"""The review matrix as an MCP App, as a person meets it: a small host page on the official host-side SDK
(tests/assets: AppBridge + the MCP client) talks to a real `agent-zot serve --transport http` on loopback
and renders the view in a sandboxed iframe in Chromium (Playwright). A matrix is shown, a cell is chosen
with the keyboard, another edited to a number its quote does not state, Export writes the file and
the view shows the first verified and the second unverified with the reason; the next rows come from
the server; the host's dark theme is followed. The page Playwright serves at the server's own origin (so
the browser's calls are same-origin and the server's Origin guard stays strict) never reaches the server.
Skipped with the reason when Chromium is missing on a developer machine; CI must run it."""

from __future__ import annotations

import csv
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_zot.config import Settings
from tests.app_host import Hosted
from tests.conftest import fingerprint
from tests.matrix_library import build_trials_library
from tests.mcp.test_http_server import _serve
from tests.view.view_fixtures import require_browser

pytestmark = pytest.mark.slow

QUESTIONS = ["sample size", "primary outcome", "funding agency"]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, str, Path]]:
    require_browser()  # before building a library no test would use
    root = tmp_path_factory.mktemp("app-matrix")
    settings = build_trials_library(root)
    for url in _serve(settings, root, token=None):
        yield settings, url, root / "exports"


def test_a_chosen_cell_is_exported_and_shown_verified(
    served: tuple[Settings, str, Path], browser: Any, tmp_path: Path
) -> None:
    settings, url, exports = served
    database = Path(settings.zotero_data_dir) / "zotero.sqlite"
    before = fingerprint(database)
    call = {"questions": QUESTIONS, "collection": "Trials", "force_mode": "matrix"}
    hosted = Hosted(browser, url, {"name": "zot_summarize", "arguments": call, "theme": "light"})
    try:
        meta = hosted.page.evaluate("() => window.hostState.toolMeta")
        assert meta["ui"]["resourceUri"] == "ui://agent-zot/summarize.html"
        frame = hosted.frame
        frame.locator("table").wait_for(timeout=30_000)
        assert frame.locator("tbody tr").count() == 3  # the Trials collection's three papers
        assert "3 of 3 papers × 3 questions" in frame.locator(".bar").inner_text()
        # A cell nothing answers is marked, and the filter keeps only the rows that have one.
        assert frame.locator("td.missing").count() >= 1
        frame.locator("#only-missing").check()
        missing_rows = frame.locator("tbody tr").count()
        assert 1 <= missing_rows < 3
        frame.locator("#only-missing").uncheck()
        # Sorting by Q1 puts the largest sample first when descending.
        q1 = frame.locator("thead th").nth(1).locator("button")
        q1.click()
        q1.click()
        assert frame.locator("thead th").nth(1).get_attribute("aria-sort") == "descending"
        assert "Metformin" in frame.locator("tbody tr").first.inner_text()  # 120 patients
        # Choose Metformin's sample size with the keyboard.
        row = frame.locator("tbody tr", has_text="Metformin and glycaemic control")
        candidate = row.locator("td").nth(0).locator(".cand").first
        assert "120 patients" in candidate.inner_text() and "[p. 2]" in candidate.inner_text()
        candidate.focus()
        hosted.page.keyboard.press("Enter")
        row = frame.locator("tbody tr", has_text="Metformin and glycaemic control")
        assert row.locator(".cand").first.get_attribute("aria-pressed") == "true"
        assert row.locator(".answer").input_value() == "120"
        row.locator(".answer").fill("120 patients")
        # An edited number the quote does not state is exported unverified, with the reason.
        walking = frame.locator("tbody tr", has_text="Walking and blood pressure")
        walking.locator("td").nth(0).locator(".cand").first.click()
        walking = frame.locator("tbody tr", has_text="Walking and blood pressure")
        assert walking.locator(".answer").input_value() == "48"
        walking.locator(".answer").fill("84 participants")
        frame.locator("#export").click()
        deadline = time.monotonic() + 60
        while "Wrote" not in hosted.status() and "failed" not in hosted.status():
            assert time.monotonic() < deadline, "the export never answered"
            time.sleep(0.05)
        status = hosted.status()
        assert "1 verified, 1 unverified" in status, status
        verdict = frame.locator("tbody tr", has_text="Metformin and glycaemic control").locator(".verdict")
        assert verdict.inner_text() == "✓ verified"
        wrong = frame.locator("tbody tr", has_text="Walking and blood pressure").locator(".verdict")
        assert wrong.inner_text() == "✗ unverified: the value 84 is not among the quoted words"
        written = Path(status.split("Wrote ", 1)[1].split(":", 1)[0])
        assert written.parent == exports and written.name == "review-matrix.csv"
        rows = list(csv.DictReader(written.read_text("utf-8-sig").splitlines()))
        metformin = next(r for r in rows if r["title"].startswith("Metformin"))
        assert (metformin["Q1 sample size"], metformin["Q1 check"]) == ("120 patients", "verified")
        assert metformin["Q1 citation"].endswith("p. 2]")
        assert "null" not in frame.locator("#root").inner_text()
        hosted.keep_screenshot("app-matrix.png", tmp_path)
        # The chosen passage on its page: the whole page's text, the passage marked.
        metformin = frame.locator("tbody tr", has_text="Metformin and glycaemic control")
        metformin.locator("td").nth(0).locator(".ctx").first.click()
        mark = frame.locator("#context mark")
        mark.wait_for(timeout=60_000)
        assert "p. 2" in frame.locator("#context h3").inner_text()
        assert "We enrolled 120 patients" in mark.inner_text()
        page = frame.locator("#context .page-text").inner_text()
        assert len(page) > len(mark.inner_text())  # the words around it too
        frame.locator("#context .close").click()
        assert frame.locator("#context").count() == 0
        hosted.assert_clean()
    finally:
        hosted.close()
    assert fingerprint(database) == before


def test_next_rows_come_from_the_server_and_the_dark_theme_is_followed(
    served: tuple[Settings, str, Path], browser: Any
) -> None:
    _, url, _ = served
    call = {"questions": ["sample size"], "collection": "Cohort", "force_mode": "matrix"}
    hosted = Hosted(browser, url, {"name": "zot_summarize", "arguments": call, "theme": "dark"})
    try:
        frame = hosted.frame
        frame.locator("table").wait_for(timeout=30_000)
        first = frame.locator("tbody tr").count()
        assert 1 <= first < 12
        frame.locator("#next-rows").click()
        deadline = time.monotonic() + 60
        while frame.locator("tbody tr").count() == first:
            assert time.monotonic() < deadline, hosted.status()
            time.sleep(0.05)
        assert "added" in hosted.status()
        background = frame.locator("body").evaluate("b => getComputedStyle(b).backgroundColor")
        assert background == "rgb(22, 25, 31)"  # --bg of the dark theme
        assert not hosted.errors, hosted.errors
    finally:
        hosted.close()


def test_another_mode_is_shown_as_its_text(served: tuple[Settings, str, Path], browser: Any) -> None:
    _, url, _ = served
    call = {"query": "Metformin and glycaemic control", "force_mode": "quick"}
    hosted = Hosted(browser, url, {"name": "zot_summarize", "arguments": call, "theme": "light"})
    try:
        text = hosted.frame.locator("pre.plain")
        text.wait_for(timeout=30_000)
        assert "Metformin and glycaemic control" in text.inner_text()
        assert not hosted.errors, hosted.errors
    finally:
        hosted.close()
