"""The index follows Zotero: the updater election, the watcher, the "index is behind" note, and a real
server updating its index while another process changes zotero.sqlite; a watcher killed mid-update."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
from click.testing import CliRunner
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.watch.watcher import (
    UpdateOutcome,
    UpdaterElection,
    Watcher,
    record_outcome,
    update_failure,
    updater_active,
)
from agent_zot.zotero.edits import LocalEdits
from tests.conftest import index_library
from tests.services.upkeep.follow_zotero import ADDED, ZoteroStandIn, ctrl_c_as_in_a_terminal


@pytest.fixture
def zotero(tmp_path: Path) -> ZoteroStandIn:
    return ZoteroStandIn(tmp_path / "Zotero")


def _settings(zotero: ZoteroStandIn, tmp_path: Path) -> Settings:
    return Settings(zotero_data_dir=zotero.folder, data_dir=tmp_path / "state")


def test_one_updater_per_data_folder_and_the_next_takes_over(tmp_path: Path) -> None:
    first, second = UpdaterElection(tmp_path), UpdaterElection(tmp_path)
    assert not updater_active(tmp_path)
    assert first.try_acquire() and not second.try_acquire()
    assert updater_active(tmp_path)
    first.release()
    assert second.try_acquire() and updater_active(tmp_path)
    second.release()
    assert not updater_active(tmp_path)


def test_the_watcher_updates_once_per_settled_change(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    runs: list[int] = []

    def update() -> UpdateOutcome:
        runs.append(1)
        return UpdateOutcome(True, {"indexed": 0})

    watcher = Watcher(zotero.db, tmp_path / "state", update, interval=0.1)
    try:
        assert watcher.poll() is not None  # the first look always updates: Zotero may have changed meanwhile
        assert watcher.poll() is None and len(runs) == 1  # nothing changed
        zotero.add_paper("Bread", ADDED)
        zotero.commit()
        assert watcher.poll() is None  # changed just now: wait until it settles
        assert watcher.poll() is not None and len(runs) == 2
        assert watcher.poll() is None and len(runs) == 2
        other = Watcher(zotero.db, tmp_path / "state", update, interval=0.1)
        assert other.poll() is None and not other.election.elected  # one updater per data folder
    finally:
        watcher.election.release()


def test_a_change_made_during_an_update_gets_its_own_update(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    runs: list[int] = []

    def update() -> UpdateOutcome:
        runs.append(1)
        if len(runs) == 1:  # Zotero imports a paper while the first update runs
            zotero.add_paper("Bread", ADDED)
            zotero.commit()
        return UpdateOutcome(True, {"indexed": 0})

    watcher = Watcher(zotero.db, tmp_path / "state", update, interval=0.1)
    try:
        watcher.poll()
        watcher.poll()  # the library differs from what the update saw: wait for it to settle
        assert len(runs) == 1
        watcher.poll()  # settled: the paper imported meanwhile is indexed
        assert len(runs) == 2
        watcher.poll()
        assert len(runs) == 2
    finally:
        watcher.election.release()


def test_a_failed_update_is_not_rerun_at_every_poll(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    runs: list[int] = []

    def update() -> UpdateOutcome:
        runs.append(1)
        return UpdateOutcome(False, {}, "disk full")

    watcher = Watcher(zotero.db, tmp_path / "state", update, interval=0.1)
    try:
        for _ in range(4):
            watcher.poll()
        assert len(runs) == 1
        zotero.add_paper("Bread", ADDED)
        zotero.commit()
        watcher.poll()
        watcher.poll()  # a new change is worth another try
        assert len(runs) == 2
    finally:
        watcher.election.release()


@pytest.mark.slow
def test_answers_status_and_doctor_say_when_updates_keep_failing_and_why(
    zotero: ZoteroStandIn, tmp_path: Path
) -> None:
    """The index is behind because every background update fails: answers say so with the reason (not
    "indexing now"), and so do `status` and `doctor`, until an update succeeds."""
    from agent_zot.services import tools

    settings = index_library(_settings(zotero, tmp_path), tmp_path / "home")
    zotero.add_paper("Bread", ADDED)
    zotero.commit()
    reason = "Error: The index in /x is held by another process (pid 4242) that does not answer."
    watcher = Watcher(zotero.db, settings.data_dir, lambda: UpdateOutcome(False, {}, reason), interval=0.1)
    command = ["--library", str(zotero.folder)]
    try:
        watcher.poll()
        ctx = AppContext(settings)
        try:
            answer = tools.call(ctx, "zot_search", query="glacier stakes")
        finally:
            ctx.close()
        assert (
            "1 item added in Zotero since the last index: background updates are failing (1 try since"
            in answer.text
        )
        assert "pid 4242" in answer.text and "indexing now" not in answer.text
        failing = answer.data["index_behind"]["update_failing"]
        assert failing["attempts"] == 1 and failing["reason"] == reason
        status = CliRunner().invoke(cli, [*command, "status"], env=_env(settings))
        assert "behind Zotero: background updates have failed 1 time(s) since" in status.output, status.output
        assert reason in status.output
        doctor = CliRunner().invoke(cli, [*command, "doctor", "--json"], env=_env(settings))
        (updates,) = [c for c in json.loads(doctor.output)["checks"] if c["name"] == "updates"]
        assert (
            updates["status"] == "fail" and "pid 4242" in updates["detail"] and "update-db" in updates["fix"]
        )
        zotero.add_paper("More bread", ADDED)
        zotero.commit()
        watcher.poll()
        watcher.poll()  # settled: tried again, failed again; the count goes on from the first failure
        status = CliRunner().invoke(cli, [*command, "status", "--json"], env=_env(settings))
        again = json.loads(status.output)["index"]["update_failing"]
        assert again["attempts"] == 2 and again["since"] == failing["since"]
    finally:
        watcher.election.release()
    fixed = CliRunner().invoke(cli, [*command, "update-db", "--json"], env=_env(settings))  # by hand
    assert fixed.exit_code == 0, fixed.output
    status = CliRunner().invoke(cli, [*command, "status", "--json"], env=_env(settings))
    assert json.loads(status.output)["index"]["update_failing"] is None
    doctor = CliRunner().invoke(cli, [*command, "doctor", "--json"], env=_env(settings))
    (updates,) = [c for c in json.loads(doctor.output)["checks"] if c["name"] == "updates"]
    assert updates["status"] == "ok" and "up to date" in updates["detail"]


def test_a_successful_update_clears_the_failure_record(tmp_path: Path) -> None:
    record_outcome(tmp_path, UpdateOutcome(False, {}, "disk full"), now=100.0)
    record_outcome(tmp_path, UpdateOutcome(False, {}, "still full"), now=200.0)
    failure = update_failure(tmp_path)
    assert failure is not None and (failure.since, failure.last, failure.attempts) == (100.0, 200.0, 2)
    assert failure.reason == "still full"
    assert update_failure(tmp_path, indexed_at="2999-01-01 00:00:00") is None  # an update ran since
    record_outcome(tmp_path, UpdateOutcome(True, {}))
    assert update_failure(tmp_path) is None


@pytest.mark.slow
async def test_answers_say_when_the_index_is_behind(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    settings = index_library(_settings(zotero, tmp_path), tmp_path / "home")
    ctx = AppContext(settings)
    try:
        async with Client(build_server(ctx)) as client:
            fresh = await client.call_tool("zot_search", {"query": "glacier stakes"})
            assert "since the last index" not in fresh.content[0].text
            zotero.add_paper("Bread", ADDED)
            zotero.add_paper("More bread", ADDED)
            zotero.commit()
            behind = await client.call_tool("zot_search", {"query": "glacier stakes"})
            text = behind.content[0].text
            assert text.startswith("[Note: 2 items added in Zotero since the last index")
            assert "agent-zot update-db" in text
            assert behind.structured_content["index_behind"] == {
                "added": 2,
                "changed": 0,
                "removed": 0,
                "updating": False,
            }
            election = UpdaterElection(settings.data_dir)  # as a server or `watch` elsewhere would hold it
            assert election.try_acquire()
            try:
                updating = await client.call_tool("zot_summarize", {"query": "Measuring glaciers"})
                assert "indexing now" in updating.content[0].text
            finally:
                election.release()
    finally:
        ctx.close()
    result = CliRunner().invoke(
        cli, ["--library", str(zotero.folder), "update-db", "--json"], env=_env(settings)
    )
    assert result.exit_code == 0, result.output
    ctx = AppContext(settings)
    try:
        async with Client(build_server(ctx)) as client:
            caught_up = await client.call_tool("zot_search", {"query": "sourdough starter bacteria"})
            assert "since the last index" not in caught_up.content[0].text
            assert "Bread" in caught_up.content[0].text
    finally:
        ctx.close()


def _env(settings: Settings) -> dict[str, str]:
    return {"AGENT_ZOT_DATA_DIR": str(settings.data_dir)}


def _server(zotero: ZoteroStandIn, settings: Settings, home: Path) -> StdioTransport:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "AGENT_ZOT_DATA_DIR": str(settings.data_dir),
        "AGENT_ZOT_WATCH_INTERVAL_S": "0.3",
    }
    return StdioTransport(
        sys.executable, ["-m", "agent_zot", "--library", str(zotero.folder), "serve"], env=env
    )


@pytest.mark.slow
async def test_a_running_server_indexes_what_zotero_adds(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    settings = index_library(_settings(zotero, tmp_path), tmp_path / "home")
    async with Client(_server(zotero, settings, tmp_path / "home")) as client:
        before = await client.call_tool("zot_search", {"query": "sourdough lactic acid bacteria"})
        assert "Bread" not in before.content[0].text
        zotero.add_paper("Bread", ADDED)
        zotero.commit()
        written = zotero.db.read_bytes()
        text = ""
        for _ in range(240):  # the server keeps answering while it updates in the background
            result = await client.call_tool("zot_search", {"query": "sourdough lactic acid bacteria"})
            text = result.content[0].text
            if "Bread" in text and "[p. 1" in text and "since the last index" not in text:
                break
            await asyncio.sleep(0.5)
        assert "Bread" in text and "[p. 1" in text, text
    assert zotero.db.read_bytes() == written  # agent-zot only read it


def _watch(
    zotero: ZoteroStandIn, settings: Settings, home: Path, *, stdout: int | None
) -> subprocess.Popen[str]:
    """`agent-zot watch` as its own process group (so a test can end it with its update-db child)."""
    env = {**os.environ, "AGENT_ZOT_DATA_DIR": str(settings.data_dir), "HOME": str(home)}
    command = [
        sys.executable,
        "-m",
        "agent_zot",
        "--library",
        str(zotero.folder),
        "watch",
        "--interval",
        "0.2",
    ]
    return subprocess.Popen(
        command,
        env=env,
        stdout=stdout,
        stderr=subprocess.PIPE,
        text=True,
        start_new_session=True,
        preexec_fn=ctrl_c_as_in_a_terminal,
    )


@pytest.mark.slow
def test_a_watcher_killed_mid_update_loses_nothing(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    settings = index_library(_settings(zotero, tmp_path), tmp_path / "home")
    for n in range(6):
        zotero.add_paper(f"Bread {n}", f"{ADDED} Loaf number {n}.")
    zotero.commit()
    watcher = _watch(zotero, settings, tmp_path / "home", stdout=None)
    try:
        time.sleep(6)  # inside its first update (model load, parsing) on a 2-core machine
    finally:
        os.killpg(watcher.pid, signal.SIGKILL)  # the watcher and its update-db child, mid-work
        watcher.wait()
    assert not updater_active(settings.data_dir)  # the OS released the lock with the process
    result = CliRunner().invoke(
        cli, ["--library", str(zotero.folder), "update-db", "--json"], env=_env(settings)
    )
    assert result.exit_code == 0, result.output
    ctx = AppContext(settings)
    try:
        from agent_zot.services import tools

        for n in range(6):
            answer = tools.call(ctx, "zot_search", query=f"sourdough loaf number {n}", limit=3)
            assert f"Bread {n}" in answer.text
        assert "since the last index" not in answer.text
        assert ctx.index().state.item_keys() >= set(ctx.library().items)
    finally:
        ctx.close()


@pytest.mark.slow
def test_watch_prints_each_update(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    settings = index_library(_settings(zotero, tmp_path), tmp_path / "home")
    watcher = _watch(zotero, settings, tmp_path / "home", stdout=subprocess.PIPE)
    try:
        assert watcher.stdout is not None
        first = watcher.stdout.readline()  # the catch-up run at start
        assert "indexed 0" in first and "unchanged 1" in first
        bread = zotero.add_paper("Bread", ADDED)
        zotero.commit()
        # The new PDF lands in storage a moment before the database commit, as in Zotero: a busy machine may
        # let the watcher run once in between (nothing new in the database yet), then again for the commit.
        second = _report_with(watcher, "indexed 1")
        assert "indexed 1" in second, second
        LocalEdits(zotero.db).add_tag([bread], "baking")  # a retag, as Zotero writes it
        third = _report_with(watcher, "updated in place 1,")
        assert "indexed 0, updated in place 1," in third, third
    finally:
        watcher.send_signal(signal.SIGINT)
        _stopped(watcher)
    assert not updater_active(settings.data_dir)


def _report_with(watcher: subprocess.Popen[str], wanted: str, *, reports: int = 3) -> str:
    """The first of the watcher's next few report lines that holds ``wanted`` (else the last one read)."""
    assert watcher.stdout is not None
    line = ""
    for _ in range(reports):
        line = watcher.stdout.readline()
        if wanted in line or not line:
            break
    return line


def _stopped(watcher: subprocess.Popen[str]) -> None:
    """Ctrl-C ends the watcher (and an update it runs); if not, its process group is killed and the
    failure shows what the watcher wrote."""
    try:
        watcher.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(watcher.pid, signal.SIGKILL)
        _, errors = watcher.communicate(timeout=30)
        pytest.fail(f"watch did not stop on Ctrl-C within 60 s; its stderr:\n{errors[-3000:]}")


@pytest.mark.slow
def test_one_update_at_a_time_per_index(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    from agent_zot.locks import open_lock_file, try_lock, unlock
    from agent_zot.services.upkeep.update_db import UPDATE_LOCK

    settings = index_library(_settings(zotero, tmp_path), tmp_path / "home")
    runner = CliRunner()
    command = ["--library", str(zotero.folder), "update-db", "--json"]
    with open_lock_file(settings.data_dir / "index" / UPDATE_LOCK) as held:  # an update elsewhere
        assert try_lock(held)
        try:
            busy = runner.invoke(cli, [*command, "--background"], env=_env(settings))
        finally:
            unlock(held)
    assert busy.exit_code == 2 and "Another update of this index is running" in busy.output
    free = runner.invoke(cli, [*command, "--background"], env=_env(settings))
    assert free.exit_code == 0, free.output


def test_a_request_in_progress_goes_before_the_watchers_look_at_the_library(
    zotero: ZoteroStandIn, tmp_path: Path
) -> None:
    """Its look walks storage/ in Python (about 50 ms per 20,000 attachment folders, every interval): run
    while a request was served, it held that answer back (they share the interpreter). It waits for a
    quiet moment, and pauses between batches of folders."""
    for n in range(5000):
        (zotero.folder / "storage" / f"K{n:07d}").mkdir(parents=True, exist_ok=True)
    ctx = AppContext(_settings(zotero, tmp_path))
    serving, done = threading.Event(), threading.Event()
    pauses: list[int] = []

    def request() -> None:
        with ctx.request():
            serving.set()
            done.wait(60)

    def pause() -> None:
        pauses.append(1)
        ctx.wait_for_quiet(others=0)

    runs: list[int] = []
    watcher = Watcher(
        zotero.db,
        tmp_path / "state",
        lambda: runs.append(1) or UpdateOutcome(True, {}),
        interval=0.1,
        pause=pause,
    )
    requester = threading.Thread(target=request)
    requester.start()
    serving.wait(10)
    looker = threading.Thread(target=watcher.poll)
    looker.start()
    try:
        time.sleep(0.5)
        assert looker.is_alive() and not runs  # the request goes first
        done.set()
        looker.join(30)
        assert runs == [1]
        assert len(pauses) >= 3  # before the look, and between batches of the 5,000 folders
    finally:
        done.set()
        requester.join(10)
        looker.join(30)
        watcher.close()
        ctx.close()
