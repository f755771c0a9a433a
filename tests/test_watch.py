"""The index follows Zotero: the updater election, the watcher, the "index is behind" note, and a real
server updating its index while another process changes zotero.sqlite; a watcher killed mid-update."""

from __future__ import annotations

import asyncio
import os
import signal
import subprocess
import sys
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
from agent_zot.services.updater import UpdateOutcome, UpdaterElection, Watcher, updater_active
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.demo_pdf import write_text_pdf
from agent_zot.zotero.edits import LocalEdits
from tests.conftest import index_library

FIRST = "Glacier mass balance is measured with stakes drilled into the ice every spring."
ADDED = "Sourdough fermentation depends on lactic acid bacteria and wild yeasts in the starter."


class ZoteroStandIn:
    """A library that changes the way Zotero changes it: rows written into the same zotero.sqlite file (its
    header counter, size and time move, the inode stays) and new files under storage/."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.builder = ZoteroLibraryBuilder(folder, shape="z7", seed=11)
        self.add_paper("Measuring glaciers", FIRST)
        self.db = self.builder.build()

    def add_paper(self, title: str, text: str) -> str:
        key = self.builder.add_item("journalArticle", title=title, creators=[("Ada", "Lovelace")])
        attachment = self.builder.add_attachment(key, filename="paper.pdf", content=None)
        write_text_pdf(self.folder / "storage" / attachment / "paper.pdf", title, [text] * 6)
        return key

    def commit(self) -> None:
        """Write the new state of the library over the old bytes, in place."""
        staging = self.folder.parent / f"{self.folder.name}-staging"
        self.builder.data_dir = staging
        try:
            fresh = self.builder.build().read_bytes()
        finally:
            self.builder.data_dir = self.folder
        with self.db.open("r+b") as fh:
            fh.write(fresh)
            fh.truncate()


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
        preexec_fn=_ctrl_c_as_in_a_terminal,
    )


def _ctrl_c_as_in_a_terminal() -> None:
    # A test run started in the background by a non-interactive shell inherits SIGINT ignored, and Python
    # keeps it ignored: the watcher would never see the test's Ctrl-C.
    signal.signal(signal.SIGINT, signal.SIG_DFL)


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


def test_watch_prints_each_update(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    settings = index_library(_settings(zotero, tmp_path), tmp_path / "home")
    watcher = _watch(zotero, settings, tmp_path / "home", stdout=subprocess.PIPE)
    try:
        assert watcher.stdout is not None
        first = watcher.stdout.readline()  # the catch-up run at start
        assert "indexed 0" in first and "unchanged 1" in first
        bread = zotero.add_paper("Bread", ADDED)
        zotero.commit()
        second = watcher.stdout.readline()
        assert "indexed 1" in second, second
        LocalEdits(zotero.db).add_tag([bread], "baking")  # a retag, as Zotero writes it
        third = watcher.stdout.readline()
        assert "indexed 0, updated in place 1," in third, third
    finally:
        watcher.send_signal(signal.SIGINT)
        _stopped(watcher)
    assert not updater_active(settings.data_dir)


def _stopped(watcher: subprocess.Popen[str]) -> None:
    """Ctrl-C ends the watcher (and an update it runs); if not, its process group is killed and the
    failure shows what the watcher wrote."""
    try:
        watcher.wait(timeout=60)
    except subprocess.TimeoutExpired:
        os.killpg(watcher.pid, signal.SIGKILL)
        _, errors = watcher.communicate(timeout=30)
        pytest.fail(f"watch did not stop on Ctrl-C within 60 s; its stderr:\n{errors[-3000:]}")


def test_one_update_at_a_time_per_index(zotero: ZoteroStandIn, tmp_path: Path) -> None:
    from agent_zot.index.locks import open_lock_file, try_lock, unlock
    from agent_zot.services.indexing import UPDATE_LOCK

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
