"""A full disk, on a real small filesystem (a tmpfs mounted for the test). update-db stops before writing with
a message naming the space it needs, loses nothing, and once there is room the next plain run completes.
Searches, summaries and graph calls answer from a full disk, through a server in its own process (a SIGBUS
there ends the session instead of the tests); what cannot be opened for want of space says what it needs.
The zotero.sqlite bytes stay unchanged throughout (guard_database)."""

from __future__ import annotations

import errno
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from agent_zot.config import Settings
from agent_zot.index.integrity import check_index
from agent_zot.index.resources import IndexResources
from agent_zot.index.space import RESERVE_FILE, DiskFullError, allocates_on_read, free_bytes
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library


def _mount(folder: Path, size_mb: int, *, remount: bool = False) -> bool:
    options = f"{'remount,' if remount else ''}size={size_mb}m"
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, check=False
    )
    return result.returncode == 0


@pytest.fixture
def tmpfs(tmp_path: Path) -> Iterator[Callable[[int], Path]]:
    """Mount a filesystem of the given size (MB) on a new folder; unmounted after the test."""
    mounted: list[Path] = []

    def mount(size_mb: int) -> Path:
        folder = tmp_path / f"disk{len(mounted)}"
        folder.mkdir()
        if os.geteuid() != 0 or not _mount(folder, size_mb):
            pytest.skip("mounting a small filesystem needs root (CI and these machines run as root)")
        mounted.append(folder)
        return folder

    yield mount
    for folder in mounted:
        subprocess.run(["umount", "-l", str(folder)], check=False)


@pytest.fixture
def small_disk(tmpfs: Callable[[int], Path]) -> Path:
    return tmpfs(24)


@pytest.mark.slow
def test_update_db_on_a_full_disk_says_what_it_needs_and_the_next_run_continues(
    small_disk: Path, tmp_path: Path
) -> None:
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=small_disk / "state", export_dir=tmp_path / "out")
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        with pytest.raises(DiskFullError) as raised:
            update_index(ctx.library(), ctx.index_resources(), UpdateOptions())
        message = str(raised.value)
        assert f"The disk holding {small_disk / 'state' / 'index'} is full" in message
        assert "it needs about" in message and "run `agent-zot update-db` again" in message
    finally:
        ctx.close()
    assert _mount(small_disk, 512, remount=True)  # room made
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        summary = update_index(ctx.library(), ctx.index_resources(), UpdateOptions())
        assert summary.indexed == len(ctx.library().items) and not summary.failed
    finally:
        ctx.close()
    resources = IndexResources(settings)
    try:
        assert check_index(resources, thorough=True).ok
    finally:
        resources.close()


def test_a_write_that_fails_for_want_of_space_is_recognised_whoever_reports_it() -> None:
    import sqlite3

    from agent_zot.index.space import is_disk_full

    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert is_disk_full(Exception("Service runtime error: IO Error: No space left on device (os error 28)"))
    refused = Exception(
        "Service runtime error: Not enough space available for optimization, needed: 183.38 MiB"
    )
    assert is_disk_full(refused)
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not is_disk_full(ValueError("disk is full of papers"))  # not a write error at all


# -- reading from a full disk, and the store's own needs ---------------------------------------------------

SERVE_ENV = ("PATH", "HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME")


def _fill(folder: Path) -> None:
    """Write into ``folder`` until its filesystem refuses another byte, as another program might."""
    with (folder / "filler").open("wb", buffering=0) as fh:
        for block in (1 << 20, 4096, 1):
            try:
                while True:
                    fh.write(bytes(block))
            except OSError as err:
                assert err.errno == errno.ENOSPC
    assert free_bytes(folder) == 0


def _server(library: Path, data_dir: Path, home: Path) -> StdioTransport:
    """`agent-zot serve` over stdio in its own process: a crash there ends the session, not the tests."""
    env = {name: os.environ[name] for name in SERVE_ENV if name in os.environ}
    env |= {"HOME": str(home), "AGENT_ZOT_DATA_DIR": str(data_dir), "AGENT_ZOT_AUTO_UPDATE": "false"}
    return StdioTransport(sys.executable, ["-m", "agent_zot", "--library", str(library), "serve"], env=env)


def _update_db(library: Path, data_dir: Path) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, "-m", "agent_zot", "--library", str(library), "update-db"]
    env = {**os.environ, "AGENT_ZOT_DATA_DIR": str(data_dir)}
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.slow
async def test_searches_summaries_and_the_graph_answer_from_a_full_disk(
    tmpfs: Callable[[int], Path], tmp_path: Path
) -> None:
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    disk = tmpfs(200)
    settings = Settings(zotero_data_dir=db.parent, data_dir=disk / "state", export_dir=tmp_path / "out")
    index_library(settings, tmp_path / "home", graph=True)
    titles = {item.title: key for key, item in AppContext(settings).library().items.items()}
    reserve = disk / "state" / "index" / RESERVE_FILE
    assert reserve.is_file()  # set aside by the build while there was room
    _fill(disk)

    async with Client(_server(db.parent, disk / "state", tmp_path / "home")) as client:
        found = await client.call_tool("zot_search", {"query": "attention in transformer models"})
        assert "Attention Is All You Need" in [p["title"] for p in found.structured_content["papers"]]
        summary = await client.call_tool(
            "zot_summarize",
            {
                "query": "what corpus was it trained on",
                "item_key": titles["SciBERT: A Pretrained Language Model for Scientific Text"],
                "force_mode": "targeted",
            },
        )
        assert summary.structured_content["full_text"]["status"] == "indexed"
        assert summary.structured_content["passages"]
        graph = await client.call_tool("zot_explore_graph", {"query": "most influential papers"})
        assert "Attention Is All You Need" in [p["title"] for p in graph.structured_content["papers"]]
    assert not reserve.exists()  # given back so the index could be read


@pytest.mark.slow
async def test_an_index_the_disk_has_no_room_to_open_is_refused_with_what_it_needs(
    tmpfs: Callable[[int], Path], tmp_path: Path
) -> None:
    """A first update-db stopped for want of space leaves a created store whose memory-mapped parts are not
    allocated yet; opening it again reads them, so the next run and a server say what they need instead of
    dying of SIGBUS (exit 135, no message)."""
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    disk = tmpfs(48)
    first = _update_db(db.parent, disk / "state")
    assert first.returncode == 2 and "it needs about" in first.stderr
    again = _update_db(db.parent, disk / "state")
    assert again.returncode == 2, again.stderr
    assert "opening the full-text index needs about" in again.stderr

    async with Client(_server(db.parent, disk / "state", tmp_path / "home")) as client:
        found = await client.call_tool(
            "zot_search", {"query": "attention in transformers"}, raise_on_error=False
        )
        assert found.is_error and "opening the full-text index needs about" in found.content[0].text
        by_author = await client.call_tool("zot_search", {"query": "papers by Vaswani"})  # still serving
        assert [p["title"] for p in by_author.structured_content["papers"]] == ["Attention Is All You Need"]


@pytest.mark.slow
def test_a_first_build_into_a_too_small_folder_stops_with_a_message(
    tmpfs: Callable[[int], Path], tmp_path: Path
) -> None:
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    disk = tmpfs(10)
    done = _update_db(db.parent, disk / "state")
    assert done.returncode == 2, done.stderr  # not 135
    assert f"The disk holding {disk / 'state' / 'index' / 'vectors'} is full" in done.stderr
    assert "creating the full-text index needs about" in done.stderr


OPTIMIZE = """
import random, sys, uuid
from pathlib import Path
from agent_zot.index.store import Point, SparseVector
from agent_zot.index.store_edge import EdgeStore

rng = random.Random(3)
store = EdgeStore(Path(sys.argv[1]))
store.open_or_create(model="m", dense_dim=384, sparse="bm25")
store.upsert([
    Point(str(uuid.UUID(int=rng.getrandbits(128))), [rng.random() for _ in range(384)],
          SparseVector(sorted(rng.sample(range(30_000), 40)), [1.0] * 40),
          {"item_key": f"I{i // 10:05d}", "kind": "chunk", "text": "x" * 1000, "year": 2000})
    for i in range(2000)
])
store.delete_items([f"I{i:05d}" for i in range(0, 200, 3)])  # a third of the papers re-indexed: vacuum
store.optimize()
print(store.count())
store.close()
"""


def test_optimizing_without_room_is_skipped_not_a_crash(tmpfs: Callable[[int], Path]) -> None:
    """The engine checks for twice its segments' size (~67 MB here) and would start; on a memory-backed
    disk the segments it writes need their full size too, and running out midway is a SIGBUS."""
    disk = tmpfs(150)
    done = subprocess.run(
        [sys.executable, "-c", OPTIMIZE, str(disk / "vectors")],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["1330"]
    assert "skipped optimizing the vector store: it needs about" in done.stderr
    assert allocates_on_read(disk)
