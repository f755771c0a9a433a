"""`kill -9` in the middle of `update-db`, at several points of a first build and of a rebuild: the next
plain run finishes the job, and the index ends identical to an uninterrupted build (the same points, no
duplicate or orphan), as the integrity check confirms.

What crashes is the pipeline, the state database and the vector store, which every embedder shares: the
library is indexed with the built-in int8 ONNX MiniLM and 32-token chunks (both settings users have), so a
run costs seconds of CPU instead of torch's import and forward pass over 256-token chunks."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.index.integrity import check_index
from agent_zot.index.resources import IndexResources
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.demo_pdf import write_text_pdf

pytestmark = [pytest.mark.slow]

ITEMS = (
    60  # six chunks an item: three embedding batches (22, 22, 16 items); kills land before, in, between them
)
SETTINGS = {"embedder": "minilm-onnx", "chunk_tokens": 32, "chunk_overlap_tokens": 0}


def _library(folder: Path) -> Path:
    b = ZoteroLibraryBuilder(folder, shape="z7", seed=5)
    for i in range(ITEMS):
        key = b.add_item("journalArticle", title=f"Study {i} of page-aware indexing", date="2020-00-00 2020")
        attachment = b.add_attachment(key, filename=f"s{i}.pdf", content=None)
        body = [
            f"Section {s}. Finding {i}-{s}: " + "indexing keeps page numbers for citations. " * 3
            for s in range(4)
        ]
        write_text_pdf(folder / "storage" / attachment / f"s{i}.pdf", f"Study {i}", body)
    return b.build()


def _recorded_items(state_db: Path) -> int:
    if not state_db.exists():
        return 0
    conn = sqlite3.connect(f"file:{state_db}?mode=ro", uri=True, timeout=5)
    try:
        return conn.execute("SELECT count(*) FROM items").fetchone()[0]
    except sqlite3.OperationalError:
        return 0
    finally:
        conn.close()


def _points(state_dir: Path) -> dict[str, int]:
    """Every point id with its item, and the integrity verdict, of the index in ``state_dir``."""
    resources = IndexResources(Settings(data_dir=state_dir, **SETTINGS))
    try:
        resources.open()
        assert check_index(resources, thorough=True).ok
        found: dict[str, int] = {}
        offset = None
        while True:
            points, offset = resources.store.points(offset=offset, limit=512)
            found.update((p.id, len(p.payload.get("text", ""))) for p in points)
            if offset is None:
                return found
    finally:
        resources.close()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _library(tmp_path_factory.mktemp("crash") / "Zotero")


@pytest.fixture(scope="module")
def built(library: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The data folder of an uninterrupted build."""
    state_dir = tmp_path_factory.mktemp("whole") / "state"
    done = subprocess.run(
        _command(library), env=_env(state_dir), capture_output=True, text=True, timeout=600, check=False
    )
    assert done.returncode == 0, done.stderr
    return state_dir


@pytest.fixture(scope="module")
def uninterrupted(built: Path) -> dict[str, int]:
    return _points(built)


def _command(db: Path, *extra: str) -> list[str]:
    return [sys.executable, "-m", "agent_zot", "--library", str(db.parent), "update-db", *extra]


def _env(state_dir: Path) -> dict[str, str]:
    settings = {f"AGENT_ZOT_{name.upper()}": str(value) for name, value in SETTINGS.items()}
    return {**os.environ, **settings, "AGENT_ZOT_DATA_DIR": str(state_dir), "HOME": str(state_dir.parent)}


def _kill_when(command: list[str], env: dict[str, str], reached: Callable[[], bool]) -> bool:
    """Start ``command`` and kill -9 it at the first check where ``reached()`` holds; False if it ended
    first. Each check is made with the process stopped (SIGSTOP), so it cannot run on between what was
    checked and the kill, however late a busy machine wakes this poll."""
    run = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 240
    try:
        while run.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
            run.send_signal(signal.SIGSTOP)
            if reached():
                return True
            run.send_signal(signal.SIGCONT)
        return False
    finally:
        run.send_signal(signal.SIGKILL)
        run.wait()


@pytest.mark.parametrize("kill_at", [0, 1, 22])
def test_a_first_build_killed_anywhere_ends_identical_to_an_uninterrupted_one(
    library: Path, uninterrupted: dict[str, int], tmp_path: Path, kill_at: int
) -> None:
    state_dir = tmp_path / "state"
    state_db = state_dir / "index" / "state.sqlite"

    def reached() -> bool:  # 0: the state database exists, nothing stored yet (mid-parse or mid-embed)
        return state_db.exists() if kill_at == 0 else _recorded_items(state_db) >= kill_at

    assert _kill_when(_command(library), _env(state_dir), reached), "the build ended before the kill"
    partial = _recorded_items(state_db)
    assert partial < ITEMS and (partial > 0) == (kill_at > 0), "the kill should land mid-run"
    finish = subprocess.run(
        _command(library), env=_env(state_dir), capture_output=True, text=True, timeout=600, check=False
    )
    assert finish.returncode == 0, finish.stderr
    assert _points(state_dir) == uninterrupted


def test_a_rebuild_killed_midway_leaves_the_live_index_whole_and_the_next_rebuild_completes(
    built: Path, library: Path, uninterrupted: dict[str, int], tmp_path: Path
) -> None:
    state_dir = tmp_path / "state"
    shutil.copytree(built, state_dir)  # an index built before, as the uninterrupted build left it
    env = _env(state_dir)
    index = state_dir / "index"

    def reached() -> bool:  # the new generation holds some items, not all
        new = list((index / "generations").glob("*/state.sqlite")) if (index / "generations").is_dir() else []
        return bool(new) and 10 <= _recorded_items(new[0]) < ITEMS

    assert _kill_when(_command(library, "--force-rebuild"), env, reached), "the rebuild ended before the kill"
    assert _points(state_dir) == uninterrupted  # the live index never changed
    plain = subprocess.run(
        _command(library), env=env, capture_output=True, text=True, timeout=600, check=False
    )
    assert plain.returncode == 0, plain.stderr
    assert _points(state_dir) == uninterrupted
    again = subprocess.run(
        _command(library, "--force-rebuild"),
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert again.returncode == 0, again.stderr
    assert _points(state_dir) == uninterrupted
    assert len([p for p in (index / "generations").iterdir() if not p.name.startswith(".")]) == 1
