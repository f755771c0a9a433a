"""The claim worksheet as an MCP App, as a person meets it, on the host page of tests/app_host.py against a
real `agent-zot serve --transport http`: a claim check is shown (the claim, its passages by paper with
pages), the person marks passages (one with the keyboard), edits one quote to words the page does not
print, and sends them; the review package is written, says the person in the view judged, and the view
shows each verdict verified, or unverified with the reason. Another zot_search mode is shown as its text.
Skipped with the reason when Chromium is missing on a developer machine; CI must run it."""

from __future__ import annotations

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

CLAIM = "Metformin lowers HbA1c in type 2 diabetes"


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, str, Path]]:
    require_browser()  # before building a library no test would use
    root = tmp_path_factory.mktemp("app-worksheet")
    settings = build_trials_library(root)
    for url in _serve(settings, root, token=None):
        yield settings, url, root / "exports"


def _answered(hosted: Hosted) -> str:
    deadline = time.monotonic() + 60
    while "Wrote" not in hosted.status() and "failed" not in hosted.status():
        assert time.monotonic() < deadline, "zot_export never answered"
        time.sleep(0.05)
    return hosted.status()


def test_the_person_judges_passages_and_the_package_says_so(
    served: tuple[Settings, str, Path], browser: Any, tmp_path: Path
) -> None:
    settings, url, exports = served
    database = Path(settings.zotero_data_dir) / "zotero.sqlite"
    before = fingerprint(database)
    call = {"query": CLAIM, "force_mode": "evidence"}
    hosted = Hosted(browser, url, {"name": "zot_search", "arguments": call, "theme": "light"})
    try:
        meta = hosted.page.evaluate("() => window.hostState.toolMeta")
        assert meta["ui"]["resourceUri"] == "ui://agent-zot/search.html"
        frame = hosted.frame
        frame.locator(".passage").first.wait_for(timeout=30_000)
        assert CLAIM in frame.locator(".bar").inner_text()
        metformin = frame.locator(".paper", has_text="Metformin and glycaemic control")
        assert metformin.count() == 1 and frame.locator(".passage").count() >= 3
        first = metformin.locator(".passage").first
        assert "p. " in first.locator(".page").inner_text()
        # Supports, with the keyboard: the group's first radio ("not judged"), then the arrow key.
        first.locator("input[type=radio]").first.focus()
        hosted.page.keyboard.press("ArrowRight")
        assert first.locator("input[value=supports]").is_checked()
        first.locator(".reason").fill("states the fall in HbA1c")
        numbers = frame.locator(".passage").evaluate_all("ps => ps.map(p => p.dataset.n)")
        rest = [n for n in numbers if n != first.get_attribute("data-n")]
        second, third = (frame.locator(f'.passage[data-n="{n}"]') for n in rest[:2])
        second.locator("input[value=unrelated]").check()
        third.locator("input[value=contradicts]").check()
        third.locator(".quote").fill("words this page never prints")
        frame.locator("#send").click()
        status = _answered(hosted)
        assert "Judged by the person in the view: 3 verdicts, 2 verified, 1 unverified" in status, status
        assert first.locator(".verdict").inner_text() == "✓ supports: verified"
        assert second.locator(".verdict").inner_text() == "✓ unrelated: verified"
        wrong = third.locator(".verdict").inner_text()
        assert wrong.startswith("✗ contradicts: unverified: ") and "quoted words" in wrong, wrong
        written = Path(status.split("Wrote ", 1)[1].split(". ", 1)[0])
        assert written.parent == exports and written.name == "claim-review.md"
        body = written.read_text(encoding="utf-8")
        assert "Judged by the person in the view: 3 verdicts, 2 verified, 1 unverified" in body
        assert "**Supports (the person's verdicts, checked):**" in body and "states the fall in HbA1c" in body
        assert "Judged by the assistant" not in body and "the assistant's verdicts" not in body
        # Sending again replaces the file this view wrote (and nothing else).
        frame.locator("#send").click()
        assert "Wrote" in _answered(hosted)
        hosted.keep_screenshot("app-worksheet.png", tmp_path)
        hosted.assert_clean()
    finally:
        hosted.close()
    assert fingerprint(database) == before


def test_another_search_mode_is_shown_as_its_text(served: tuple[Settings, str, Path], browser: Any) -> None:
    _, url, _ = served
    call = {"query": "metformin", "force_mode": "fast"}
    hosted = Hosted(browser, url, {"name": "zot_search", "arguments": call, "theme": "dark"})
    try:
        text = hosted.frame.locator("pre.plain")
        text.wait_for(timeout=30_000)
        assert "Metformin and glycaemic control" in text.inner_text()
        assert not hosted.errors, hosted.errors
    finally:
        hosted.close()


def test_the_worksheet_reads_well_in_the_dark_theme(served: tuple[Settings, str, Path], browser: Any) -> None:
    _, url, _ = served
    call = {"query": CLAIM, "force_mode": "evidence"}
    hosted = Hosted(browser, url, {"name": "zot_search", "arguments": call, "theme": "dark"})
    try:
        frame = hosted.frame
        frame.locator(".passage").first.wait_for(timeout=30_000)
        background = frame.locator("body").evaluate("b => getComputedStyle(b).backgroundColor")
        assert background == "rgb(22, 25, 31)", background  # the dark theme's --bg
        passage = frame.locator(".passage").first
        passage.locator("input[value=supports]").check()
        for part in (".bar", ".passage > div", ".passage .page", ".passage label.stance", ".reason", "#send"):
            ratio = hosted.contrast(frame.locator(part).first)
            assert ratio >= 4.5, f"{part}: contrast {ratio:.1f}"  # WCAG AA for body text
        hosted.assert_clean()
    finally:
        hosted.close()
