"""Zero-downtime rebuilds: `update-db --force-rebuild` writes a new generation of the index beside the live
one; searches keep answering from the live one (and say a rebuild is running) until the new one is
complete and replaces it in one step. Real demo library, real embedded store and model, real MCP client."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastmcp import Client

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.index.generations import IndexLayout, RebuildRunningError
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import Progress, UpdateOptions, UpdateSummary, update_index
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

QUERY = "how are citation links resolved when building a corpus of papers?"
RUNNING = "rebuild of the index is running"


@pytest.fixture
def settings(tmp_path: Path) -> Settings:
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    built = Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state", export_dir=tmp_path / "exports")
    return index_library(built, tmp_path / "home", graph=True)


def _titles(result: Any) -> list[str]:
    return [p["title"] for p in result.structured_content["papers"]]


class PausedRebuild:
    """`update_index(force_rebuild=True)` in a thread, stopped at its first progress report until resumed."""

    def __init__(self, settings: Settings, home: Path) -> None:
        self.ctx = AppContext(settings, home=home)
        self.reached, self.resume = threading.Event(), threading.Event()
        self.summary: UpdateSummary | None = None
        self.thread = threading.Thread(target=self._run, daemon=True)

    def _pause(self, progress: Progress) -> None:
        if not self.reached.is_set():
            self.reached.set()
            self.resume.wait(120)

    def _run(self) -> None:
        try:
            self.summary = update_index(
                self.ctx.library(),
                self.ctx.index_resources(),
                UpdateOptions(force_rebuild=True),
                on_progress=self._pause,
                graph=self.ctx.graph(),
            )
        finally:
            self.reached.set()
            self.ctx.close()

    def __enter__(self) -> PausedRebuild:
        self.thread.start()
        assert self.reached.wait(300), "the rebuild never reported progress"
        return self

    def __exit__(self, *exc: object) -> None:
        self.resume.set()
        self.thread.join(300)


@pytest.mark.slow
async def test_searches_answer_from_the_live_index_during_a_rebuild(
    settings: Settings, tmp_path: Path
) -> None:
    index_dir = settings.data_dir / "index"
    ctx = AppContext(settings, home=tmp_path / "home")
    async with Client(build_server(ctx)) as client:
        before = await client.call_tool("zot_search", {"query": QUERY})
        assert RUNNING not in before.content[0].text and "rebuild" not in before.structured_content

        with PausedRebuild(settings, tmp_path / "home") as rebuild:
            during = await client.call_tool("zot_search", {"query": QUERY}, raise_on_error=False)
            assert not during.is_error, during.content[0].text
            assert _titles(during) == _titles(before)  # the old index answers, whole
            assert RUNNING in during.content[0].text
            assert during.structured_content["rebuild"]["running"] is True
            explored = await client.call_tool(
                "zot_explore_graph", {"query": "which venues publish most of my papers"}
            )
            assert RUNNING in explored.content[0].text
            # tools that do not read the index carry no note
            tags = await client.call_tool("zot_manage_tags", {"query": "list my tags"})
            assert RUNNING not in tags.content[0].text
            status = CliRunner().invoke(
                cli,
                ["status"],
                env={
                    "AGENT_ZOT_DATA_DIR": str(settings.data_dir),
                    "AGENT_ZOT_ZOTERO_DATA_DIR": str(settings.zotero_data_dir),
                },
            )
            assert RUNNING in status.output, status.output
            # the live index is untouched: still the one in the folder itself
            assert IndexLayout(index_dir).live().name == ""
        assert rebuild.summary is not None and rebuild.summary.indexed > 0

        after = await client.call_tool("zot_search", {"query": QUERY})
        assert RUNNING not in after.content[0].text
        assert _titles(after) == _titles(before)
        live = IndexLayout(index_dir).live()
        assert live.name and ctx.index_resources().generation == live
        # the server left the old generation after that call, and no one else uses it: it is deleted
        assert not (index_dir / "state.sqlite").exists() and not (index_dir / "vectors").exists()
        assert sorted(p.name for p in (index_dir / "generations").iterdir()) == [live.name]
    ctx.close()


@pytest.mark.slow
async def test_a_second_rebuild_is_refused_while_one_runs(settings: Settings, tmp_path: Path) -> None:
    with PausedRebuild(settings, tmp_path / "home"):
        env = {
            "AGENT_ZOT_DATA_DIR": str(settings.data_dir),
            "AGENT_ZOT_ZOTERO_DATA_DIR": str(settings.zotero_data_dir),
        }
        second = CliRunner().invoke(cli, ["update-db", "--force-rebuild"], env=env)
        assert second.exit_code != 0
        assert "Another rebuild" in second.output and "searches keep answering" in second.output
        # an ordinary update goes on, on the live index
        plain = CliRunner().invoke(cli, ["update-db"], env=env)
        assert plain.exit_code == 0, plain.output


def test_a_generation_in_use_is_kept_until_released(tmp_path: Path) -> None:
    layout = IndexLayout(tmp_path / "index")
    old = layout.generation("")
    hold = layout.hold(old)
    (old.folder / "state.sqlite").write_bytes(b"old")
    with layout.rebuild() as job:
        (job.generation.folder / "state.sqlite").write_bytes(b"new")
        assert layout.sweep() == []  # the one being built and the live one stay
        job.publish()
    assert layout.live() == job.generation
    assert layout.sweep() == []  # still held by this "process"
    assert (old.folder / "state.sqlite").exists()
    assert hold is not None
    hold.release()
    assert layout.sweep() == ["original"]
    assert not (old.folder / "state.sqlite").exists()
    assert (job.generation.folder / "state.sqlite").read_bytes() == b"new"
    assert layout.hold(old) is not None  # the folder itself is the root: holding it again is harmless


def test_a_retired_generation_cannot_be_held(tmp_path: Path) -> None:
    layout = IndexLayout(tmp_path / "index")
    with layout.rebuild() as first:
        first.publish()
    with layout.rebuild() as second:
        second.publish()
    assert layout.sweep() == [first.generation.name]
    assert layout.hold(first.generation) is None  # a process that read the old pointer reads it again


def test_an_abandoned_or_killed_rebuild_leaves_nothing_behind(tmp_path: Path) -> None:
    layout = IndexLayout(tmp_path / "index")
    with pytest.raises(KeyboardInterrupt), layout.rebuild() as job:
        raise KeyboardInterrupt
    assert layout.live().name == "" and layout.rebuild_status() is None
    assert layout.sweep() == [job.generation.name]

    # kill -9 mid-rebuild: its lock dies with it, so the status says no rebuild and the debris goes
    script = (
        "import sys, time; from pathlib import Path; from agent_zot.index.generations import IndexLayout\n"
        "with IndexLayout(Path(sys.argv[1])).rebuild() as job:\n"
        "    job.report(3, 10, every_s=0); print('ready', flush=True); time.sleep(600)\n"
    )
    child = subprocess.Popen(
        [sys.executable, "-c", script, str(layout.root)], stdout=subprocess.PIPE, text=True
    )
    try:
        assert child.stdout is not None and child.stdout.readline().strip() == "ready"
        running = layout.rebuild_status()
        assert running is not None and (running.items_done, running.items_total, running.pid) == (
            3,
            10,
            child.pid,
        )
        with pytest.raises(RebuildRunningError, match="3 of 10 items"), layout.rebuild():
            pass
    finally:
        os.kill(child.pid, signal.SIGKILL)
        child.wait()
    time.sleep(0.05)
    assert layout.rebuild_status() is None
    assert len(layout.sweep()) == 1 and not any((layout.root / "generations").iterdir())


def test_an_unreadable_pointer_falls_back_to_a_complete_generation_and_a_rebuild_repairs_it(
    tmp_path: Path,
) -> None:
    layout = IndexLayout(tmp_path / "index")
    with layout.rebuild() as complete:
        (complete.generation.folder / "state.sqlite").write_bytes(b"")
        complete.publish()
    with layout.rebuild() as empty:
        empty.publish()
    (layout.root / "current.json").write_text("{not json", encoding="utf-8")
    assert layout.live() == complete.generation  # the newest one with a state database
    assert layout.sweep() == [empty.generation.label]  # the one without is debris
    assert layout.repair_pointer() and layout.pointed() == complete.generation
    (layout.root / "current.json").write_text("{not json", encoding="utf-8")
    shutil.rmtree(complete.generation.folder)
    assert layout.live() == layout.generation("")  # nothing complete: update-db builds afresh
    with layout.rebuild() as repair:
        repair.publish()
    assert layout.live() == repair.generation
