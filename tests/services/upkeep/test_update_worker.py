"""The watcher's update process (services/upkeep/update_worker.py): a real `agent-zot update-worker` child kept
between updates, answering each with update-db's summary; replaced when it exits idle or is killed; its
failures reported with their reason; zotero.sqlite never written."""

from __future__ import annotations

import io
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.errors import NotFoundError
from agent_zot.services.upkeep.update_worker import UpdateWorker, serve_updates
from agent_zot.zotero.edits import LocalEdits
from tests.conftest import fingerprint, index_library
from tests.services.upkeep.follow_zotero import ADDED, ZoteroStandIn


def _worker(folder: Path, settings: Settings, *extra: str) -> UpdateWorker:
    command = [sys.executable, "-m", "agent_zot", "--library", str(folder), "update-worker", *extra]
    env = {**os.environ, "AGENT_ZOT_DATA_DIR": str(settings.data_dir), "HOME": str(settings.data_dir.parent)}
    return UpdateWorker(command, env=env, timeout_s=300)


@pytest.mark.slow
def test_one_process_runs_update_after_update(tmp_path: Path) -> None:
    zotero = ZoteroStandIn(tmp_path / "Zotero")
    settings = index_library(
        Settings(zotero_data_dir=zotero.folder, data_dir=tmp_path / "state"), tmp_path / "home"
    )
    worker = _worker(zotero.folder, settings)
    try:
        first = worker()
        assert first.ok and first.summary["indexed"] == 0 and first.summary["unchanged"] == 1, first
        bread = zotero.add_paper("Bread", ADDED)
        zotero.commit()
        second = worker()
        assert second.ok and second.summary["indexed"] == 1, second
        LocalEdits(zotero.db).add_tag([bread], "baking")  # a retag, as Zotero writes it
        before = fingerprint(zotero.db)
        third = worker()
        assert third.ok and third.summary["updated_in_place"] == 1 and third.summary["indexed"] == 0, third
        assert fingerprint(zotero.db) == before  # read, never written
        assert worker.started == 1  # the same process all along
    finally:
        worker.close()
    assert worker._proc is None


@pytest.mark.slow
def test_a_worker_gone_idle_or_killed_is_replaced_at_the_next_update(tmp_path: Path) -> None:
    zotero = ZoteroStandIn(tmp_path / "Zotero")
    settings = index_library(
        Settings(zotero_data_dir=zotero.folder, data_dir=tmp_path / "state"), tmp_path / "home"
    )
    worker = _worker(zotero.folder, settings, "--idle-exit", "1")
    try:
        assert worker().ok
        proc = worker._proc
        assert proc is not None
        deadline = time.monotonic() + 60
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.1)
        assert proc.returncode == 0  # it left on its own, idle
        zotero.add_paper("Bread", ADDED)
        zotero.commit()
        after_idle = worker()
        assert after_idle.ok and after_idle.summary["indexed"] == 1, after_idle
        assert worker.started == 2
        assert worker._proc is not None
        os.kill(worker._proc.pid, signal.SIGKILL)
        worker._proc.wait()
        after_kill = worker()
        assert after_kill.ok and after_kill.summary["unchanged"] == 2, after_kill
        assert worker.started == 3
    finally:
        worker.close()


def test_a_worker_that_cannot_start_says_why(tmp_path: Path) -> None:
    settings = Settings(zotero_data_dir=tmp_path / "nowhere", data_dir=tmp_path / "state")
    worker = _worker(tmp_path / "nowhere", settings)
    try:
        outcome = worker()
    finally:
        worker.close()
    assert not outcome.ok and "nowhere" in outcome.error, outcome


def test_a_user_error_is_an_answer_and_the_worker_goes_on() -> None:
    calls: list[int] = []

    def update() -> dict[str, object]:
        calls.append(1)
        if len(calls) == 1:
            raise NotFoundError("No Zotero library at /x.", hint="Point AGENT_ZOT_ZOTERO_DATA_DIR at it.")
        return {"indexed": 2}

    replies = io.StringIO()
    assert serve_updates(update, io.StringIO("update\nupdate\n"), replies, idle_exit_s=5) == 2
    first, second = replies.getvalue().splitlines()
    assert '"ok": false' in first and "No Zotero library at /x." in first
    assert second == '{"ok": true, "summary": {"indexed": 2}}'
