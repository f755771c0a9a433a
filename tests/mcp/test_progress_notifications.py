"""MCP progress notifications from long tool calls (issue 58, item 3): a comprehensive summary reports as it
reads the paper's pages and fills each aspect, an audit as it checks each sentence of the draft. Through
fastmcp's in-memory Client with a progress handler, over the indexed trials library."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from tests.matrix_library import build_trials_library

Seen = list[tuple[float, float | None, str | None]]


@pytest.fixture(scope="module")
def trials(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    root = tmp_path_factory.mktemp("progress")
    return build_trials_library(root), root / "home"


async def _progress_of(trials: tuple[Settings, Path], arguments: dict[str, object]) -> tuple[Seen, object]:
    settings, home = trials
    seen: Seen = []

    async def handler(progress: float, total: float | None, message: str | None) -> None:
        seen.append((progress, total, message))

    ctx = AppContext(settings, home=home)
    try:
        async with Client(build_server(ctx)) as client:
            result = await client.call_tool("zot_summarize", arguments, progress_handler=handler)
    finally:
        ctx.close()
    assert not result.is_error, result.content
    return seen, result.structured_content


def _increasing_to_done(seen: Seen) -> None:
    assert len(seen) >= 2, seen  # the start and the end at least
    done = [progress for progress, _, _ in seen]
    assert done == sorted(done) and done[0] < done[-1], seen
    totals = {total for _, total, _ in seen}
    assert len(totals) == 1 and seen[-1][0] == seen[-1][1], seen  # one total, reached at the end
    assert all(message for _, _, message in seen)


@pytest.mark.slow
async def test_a_comprehensive_summary_reports_its_pages_and_aspects(trials: tuple[Settings, Path]) -> None:
    seen, data = await _progress_of(
        trials, {"query": "Metformin and glycaemic control", "force_mode": "comprehensive"}
    )
    assert isinstance(data, dict) and data["route"]["mode"] == "comprehensive"
    _increasing_to_done(seen)
    aspects = len(data["aspects"])
    assert seen[-1][1] == 3 + aspects  # the paper's 3 pages read, then each aspect filled
    assert "page" in (seen[0][2] or "") and f"{aspects} aspects" in (seen[-1][2] or ""), seen


@pytest.mark.slow
async def test_an_audit_reports_each_sentence_it_checks(trials: tuple[Settings, Path]) -> None:
    draft = (
        "Metformin lowered HbA1c by 0.8 points over 12 weeks (Adams, 2021). "
        "The trial enrolled 120 patients at three hospitals (Adams, 2021). "
        "Brisk walking lowers systolic blood pressure (Brown, 2022). "
        "A total of 48 participants took part in the walking trial (Brown, 2022)."
    )
    seen, data = await _progress_of(trials, {"draft": draft})
    assert isinstance(data, dict) and data["route"]["mode"] == "audit"
    _increasing_to_done(seen)
    assert seen[-1][1] == 4 and "4 sentences" in (seen[-1][2] or ""), seen
