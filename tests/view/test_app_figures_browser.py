"""The figure list as an MCP App, as a person meets it, on the host page of tests/app_host.py against a real
`agent-zot serve --transport http`: a paper's figures and tables are listed with their pictures (decoded by
the browser), pages and captions; the person chooses the figure with the keyboard and it is shown large,
from zot_summarize's image, with its caption and the sentence that cites it; the table, chosen by a click,
shows its rows, and its page in full; the numbered equation and the page picker show a page. Skipped with the reason when Chromium is missing on a developer machine; CI must run it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_zot.config import Settings
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.app_host import Hosted
from tests.conftest import fingerprint, guard_database
from tests.mcp.test_http_server import _serve
from tests.services.summarize.test_figures import TITLE, paper_pdf
from tests.view.view_fixtures import require_browser

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Settings, str]]:
    require_browser()  # before building a library no test would use
    root = tmp_path_factory.mktemp("app-figures")
    builder = ZoteroLibraryBuilder(root / "zotero")
    item = builder.add_item("journalArticle", title=TITLE, creators=[("Ada", "Grower")], date="2021")
    builder.add_attachment(item, filename="grower2021.pdf", content=paper_pdf())
    db = guard_database(builder.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    for url in _serve(settings, root, token=None):
        yield settings, url


def test_the_figures_are_listed_with_pictures_and_one_is_shown_large(
    served: tuple[Settings, str], browser: Any, tmp_path: Path
) -> None:
    settings, url = served
    database = Path(settings.zotero_data_dir) / "zotero.sqlite"
    before = fingerprint(database)
    call = {"query": f"list the figures and tables of '{TITLE}'", "force_mode": "figures"}
    hosted = Hosted(browser, url, {"name": "zot_summarize", "arguments": call, "theme": "light"})
    try:
        frame = hosted.frame
        frame.locator(".fig").first.wait_for(timeout=60_000)
        assert frame.locator(".fig").count() == 2
        figure = frame.locator('.fig[data-name="Figure 1"]')
        table = frame.locator('.fig[data-name="Table 1"]')
        assert "p. 1" in figure.inner_text() and "Growth rate of the first organism" in figure.inner_text()
        assert "Final sizes of the three organisms" in table.inner_text()
        widths = frame.locator(".fig img").evaluate_all("imgs => imgs.map(i => i.complete && i.naturalWidth)")
        assert len(widths) == 2 and all(w and w > 0 for w in widths), widths
        # The keyboard: focus the figure's button, Enter chooses it.
        figure.focus()
        hosted.page.keyboard.press("Enter")
        large = frame.locator("#figure img.large")
        large.wait_for(timeout=60_000)
        natural = large.evaluate("i => i.complete ? i.naturalWidth : 0")
        shown = large.evaluate("i => i.getBoundingClientRect().width")
        assert natural > 240 and shown > 240, (natural, shown)  # larger than any thumbnail
        assert figure.get_attribute("aria-pressed") == "true"
        text = frame.locator("#figure").inner_text()
        assert "Figure 1" in text and "Growth rate of the first organism per day" in text
        assert "null" not in text and "undefined" not in text
        assert "Cited in:" in text and "As shown in Figure 1, the growth rate" in text
        hosted.keep_screenshot("app-figures.png", tmp_path)
        # The table, by a click: its rows as text (the PDF's text layer reads them).
        table.click()
        frame.locator("#figure pre.rows").wait_for(timeout=60_000)
        assert "| Beta | 8.1 | 10 |" in frame.locator("#figure pre.rows").inner_text()
        assert "Table 1 lists the final sizes" in frame.locator("#figure").inner_text()
        # Its page in full, from the table's own button: a page image as wide as the page allows.
        frame.locator("#figure button.whole-page").click()
        page_image = frame.locator("#figure img.page-image")
        page_image.wait_for(timeout=60_000)
        assert "Page 1, with Table 1" in frame.locator("#figure h3").inner_text()
        assert page_image.evaluate("i => i.complete ? i.naturalWidth : 0") > 400
        assert frame.locator('.fig[aria-pressed="true"]').count() == 0
        # The numbered equation names its page; the page picker (the PDF has two pages) shows any page.
        equation = frame.locator('.eq[data-name="(1)"]')
        assert "g = r * t + c" in equation.inner_text() and "p. 1" in equation.inner_text()
        assert frame.locator("#page-number").get_attribute("max") == "2"
        frame.locator("#page-number").fill("7")  # past the end: the last page
        frame.locator("#page-number").press("Enter")
        frame.locator("#figure h3", has_text="Page 2").wait_for(timeout=60_000)
        assert frame.locator("#page-number").input_value() == "2"
        equation.click()
        frame.locator("#figure h3", has_text="Equation (1)").wait_for(timeout=60_000)
        assert frame.locator("#figure img.page-image").count() == 1
        assert "null" not in frame.locator("#root").inner_text()  # no optional part printed as null
        hosted.assert_clean()
    finally:
        hosted.close()
    assert fingerprint(database) == before
