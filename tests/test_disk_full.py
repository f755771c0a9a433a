"""update-db on a full disk, on a real small filesystem (a tmpfs mounted for the test): it stops before
writing with a message naming the space it needs, loses nothing, and once there is room the next plain run
completes. The zotero.sqlite bytes stay unchanged throughout (guard_database)."""

from __future__ import annotations

import os
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.index.integrity import check_index
from agent_zot.index.resources import IndexResources
from agent_zot.index.space import DiskFullError
from agent_zot.services.context import AppContext
from agent_zot.services.indexing import UpdateOptions, update_index
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database


def _mount(folder: Path, size_mb: int, *, remount: bool = False) -> bool:
    options = f"{'remount,' if remount else ''}size={size_mb}m"
    result = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", options, "tmpfs", str(folder)], capture_output=True, check=False
    )
    return result.returncode == 0


@pytest.fixture
def small_disk(tmp_path: Path) -> Iterator[Path]:
    folder = tmp_path / "small"
    folder.mkdir()
    if os.geteuid() != 0 or not _mount(folder, 24):
        pytest.skip("mounting a small filesystem needs root (CI and these machines run as root)")
    try:
        yield folder
    finally:
        subprocess.run(["umount", "-l", str(folder)], check=False)


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
    import errno
    import sqlite3

    from agent_zot.index.space import is_disk_full

    assert is_disk_full(OSError(errno.ENOSPC, "No space left on device"))
    assert is_disk_full(sqlite3.OperationalError("database or disk is full"))
    assert is_disk_full(Exception("Service runtime error: IO Error: No space left on device (os error 28)"))
    assert not is_disk_full(OSError(errno.EACCES, "Permission denied"))
    assert not is_disk_full(ValueError("disk is full of papers"))  # not a write error at all
