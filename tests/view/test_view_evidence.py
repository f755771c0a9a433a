"""`agent-zot view --claim/--audit`: claims checked against the demo library (and a draft's citation audit)
drawn as claim nodes linked to the papers, with the data the page embeds, through the CLI and in Chromium."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.errors import InvalidArgumentError
from agent_zot.services.audit.graph_view import audit_view
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.graph_view import STANCES, claims_view
from agent_zot.services.explore.view_data import ViewData
from agent_zot.view.page import render_page
from tests.view.view_fixtures import DEMO_TITLES, chromium, demo_settings, require_browser, wait_ready

CLAIM = "SciBERT is pretrained on a large corpus of scientific papers"
DRAFT = """# Notes

Pretraining a BERT model on scientific papers improves scientific NLP tasks (Beltagy et al., 2019).
A corpus of English academic papers with citation links supports scholarly text mining (Lo et al., 2020, p. 40).
"""


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return demo_settings(tmp_path_factory)


def _view(settings: Settings, build: Any, *args: Any) -> ViewData:
    ctx = AppContext(settings)
    try:
        return build(ctx, *args)
    finally:
        ctx.close()


def _paper_key(view: ViewData, title: str) -> str:
    return next(n["key"] for n in view.nodes if n["title"] == title)


def test_a_claim_is_drawn_with_the_papers_that_bear_on_it(demo: Settings) -> None:
    view = _view(demo, claims_view, [CLAIM])
    assert [c["label"] for c in view.claims] == ["Claim 1"] and view.claims[0]["text"] == CLAIM
    scibert = _paper_key(view, DEMO_TITLES["scibert"])
    links = view.claims[0]["links"]
    assert links[0]["key"] == scibert  # the paper the claim restates comes first
    assert links[0]["passage"] and re.fullmatch(r"pp?\. \d+(-\d+)?|abstract", links[0]["where"])
    assert {link["stance"] for link in links} <= set(STANCES)
    drawn = {n["key"]: i for i, n in enumerate(view.nodes)}
    assert view.edges["evidence"] == [
        [0, drawn[link["key"]], STANCES.index(link["stance"])] for link in links if link["key"] in drawn
    ]
    assert view.counts()["claims"] == 1 and view.counts()["evidence"] == len(links)
    assert "1 claim" in view.scope


def test_a_sentence_with_no_claim_is_refused(demo: Settings) -> None:
    with pytest.raises(InvalidArgumentError, match="states no claim"):
        _view(demo, claims_view, ["is there evidence that"])


def test_an_audit_links_each_citing_sentence_to_its_papers(demo: Settings) -> None:
    view = _view(demo, audit_view, DRAFT)
    by_line = {c["label"]: c for c in view.claims}
    assert set(by_line) == {"Line 3", "Line 4"}
    scibert = by_line["Line 3"]["links"]
    assert [(link["key"], link["stance"]) for link in scibert] == [
        (_paper_key(view, DEMO_TITLES["scibert"]), "cited")
    ]
    s2orc = by_line["Line 4"]["links"][0]
    assert s2orc["key"] == _paper_key(view, DEMO_TITLES["s2orc"])
    assert s2orc["stance"] == "fault" and "40" in s2orc["note"]  # the paper has no page 40
    assert s2orc["where"] == "p. 40"
    assert by_line["Line 4"]["verdict"] == "1 fault"


def test_the_cli_writes_an_evidence_page(demo: Settings, tmp_path: Path) -> None:
    env = {"AGENT_ZOT_DATA_DIR": str(demo.data_dir)}
    library = str(demo.zotero_data_dir)
    out = tmp_path / "claim.html"
    result = CliRunner().invoke(
        cli, ["--library", library, "view", "--claim", CLAIM, "--out", str(out), "--no-open"], env=env
    )
    assert result.exit_code == 0, result.output
    assert result.stdout.startswith("Evidence for 1 claim: 1 claim drawn with")
    embedded = re.search(r'id="view-data">(.*?)</script>', out.read_text(encoding="utf-8"), re.S)
    assert embedded and json.loads(embedded.group(1))["claims"][0]["text"] == CLAIM
    draft = tmp_path / "draft.md"
    draft.write_text(DRAFT, encoding="utf-8")
    audited = CliRunner().invoke(
        cli, ["--library", library, "view", "--audit", str(draft), "--out", str(tmp_path / "a.html"), "--no-open"],
        env=env,
    )  # fmt: skip
    assert audited.exit_code == 0, audited.output
    assert "2 claims drawn" in audited.output and "1 fault" in audited.output
    mixed = CliRunner().invoke(
        cli, ["--library", library, "view", "--claim", CLAIM, "--author", "Lo"], env=env
    )
    assert mixed.exit_code == 2 and "use one, without scopes" in mixed.output


@pytest.mark.slow
def test_the_evidence_page_in_a_browser(demo: Settings, tmp_path: Path) -> None:
    require_browser()
    view = _view(demo, claims_view, [CLAIM, "Transformers rely on attention instead of recurrence"])
    path = tmp_path / "evidence.html"
    path.write_text(render_page(view.to_json(), f"agent-zot · {view.scope}"), encoding="utf-8")
    errors: list[str] = []
    with chromium() as browser:
        page = browser.new_page()
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: errors.append(f"uncaught: {e}"))
        page.goto(path.as_uri())
        wait_ready(page)
        assert page.evaluate("window.agentZotView.graph.order") == len(view.nodes) + 2
        assert page.locator("#summary").inner_text().startswith("Evidence for 2 claims: 2 claims linked to")
        assert page.locator("#evidence-toggle").is_visible()
        page.evaluate("window.agentZotView.select('claim:0')")
        assert page.locator("#panel-title").inner_text() == CLAIM
        assert page.locator("#panel-paper").is_hidden()
        first = page.locator("#panel-evidence li").first
        assert DEMO_TITLES["scibert"] in first.inner_text() and first.locator("blockquote").inner_text()
        first.locator("a").click()  # to the paper, whose panel names the claims it bears on
        assert page.locator("#panel-title").inner_text() == DEMO_TITLES["scibert"]
        assert CLAIM in page.locator("#panel-claims").inner_text()
        page.close()
    assert errors == []
