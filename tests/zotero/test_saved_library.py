"""A new process starts from the library snapshot a server saved in the data folder (zotero/saved.py):
as it is when zotero.sqlite did not change, with what changed read on top when it did, never a stale one.

Real libraries from the fixture builder, edits as Zotero writes them, real processes where the point is
that a snapshot is read by another interpreter than the one that wrote it."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

from agent_zot.config import Settings
from agent_zot.services import tools
from agent_zot.services.context import AppContext
from agent_zot.zotero.edits import LocalEdits
from agent_zot.zotero.models import ReadOptions
from agent_zot.zotero.reader import load_library
from tests.factories import FullLibrary
from tests.zotero.test_incremental_read import _as_read, _copy

_SAVE = """
import sys, time
from pathlib import Path
from agent_zot.config import Settings
from agent_zot.services.context import AppContext
ctx = AppContext(Settings(zotero_data_dir=Path(sys.argv[1]), data_dir=Path(sys.argv[2])), follows_library=True)
ctx.library()
deadline = time.monotonic() + 60
while not list((Path(sys.argv[2]) / "library").glob("*.snapshot")) and time.monotonic() < deadline:
    time.sleep(0.05)
"""
_FIRST_READ = """
import json, sys
from pathlib import Path
from agent_zot.config import Settings
from agent_zot.services.context import AppContext
ctx = AppContext(Settings(zotero_data_dir=Path(sys.argv[1]), data_dir=Path(sys.argv[2])))
library = ctx.library()
print(json.dumps({
    "read": ctx.last_read,
    "changed": sorted(library.lineage[0][1]) if library.lineage else None,
    "tags": {key: sorted(t.name for t in item.tags) for key, item in library.items.items()},
}))
"""


def _in_a_new_process(code: str, db: Path, data_dir: Path, seed: str) -> str:
    """``code`` run by a new interpreter, with its own seed for Python's string hashes."""
    env = {**os.environ, "PYTHONHASHSEED": seed}
    return subprocess.run(
        [sys.executable, "-c", code, str(db.parent), str(data_dir)],
        capture_output=True,
        text=True,
        check=True,
        env=env,
    ).stdout


def _saved(data_dir: Path) -> list[Path]:
    return sorted((data_dir / "library").glob("*.snapshot"))


def _serve_once(settings: Settings) -> AppContext:
    """A server's context after its first read, once it saved the snapshot (replacing one it found)."""
    before = [path.read_bytes() for path in _saved(settings.data_dir)]
    ctx = AppContext(settings, follows_library=True)
    ctx.library()
    deadline = time.monotonic() + 30
    while [p.read_bytes() for p in _saved(settings.data_dir)] in ([], before) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert len(_saved(settings.data_dir)) == 1, "a server saves its snapshot once no request is served"
    return ctx


def _settings(db: Path, tmp_path: Path) -> Settings:
    return Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state")


def test_a_new_process_starts_from_the_saved_snapshot_without_reading_the_library(
    full_lib: FullLibrary, tmp_path: Path
) -> None:
    db = _copy(full_lib.data_dir, tmp_path)
    settings = _settings(db, tmp_path)
    _serve_once(settings).close()
    ctx = AppContext(settings)
    try:
        library = ctx.library()
        assert ctx.last_read == "saved"
        assert _as_read(library) == _as_read(load_library(db, db.parent, ReadOptions()))
        # the first answer of the new process comes from it
        answer = tools.call(ctx, "zot_search", query="papers by Beltagy")
        assert "SciBERT" in answer.text and ctx.last_read == "saved"
    finally:
        ctx.close()


def test_a_snapshot_saved_by_one_process_shows_another_what_changed_since(
    full_lib: FullLibrary, tmp_path: Path
) -> None:
    """Marks compare across processes (each has its own string hashes): after an edit, the next process
    reads only the edited item on top of the saved snapshot, and shows the edit."""
    db = _copy(full_lib.data_dir, tmp_path)
    data_dir = tmp_path / "state"
    _in_a_new_process(_SAVE, db, data_dir, seed="1")
    assert _saved(data_dir)
    unchanged = json.loads(_in_a_new_process(_FIRST_READ, db, data_dir, seed="2"))
    assert unchanged["read"] == "saved"
    key = full_lib.keys["s2orc"]
    LocalEdits(db).add_tag([key], "read on top")
    after = json.loads(_in_a_new_process(_FIRST_READ, db, data_dir, seed="3"))
    assert after["read"] == "saved, then changes" and after["changed"] == [key]
    assert "read on top" in after["tags"][key]
    assert after["tags"] == {
        k: sorted(t.name for t in item.tags) for k, item in load_library(db, db.parent).items.items()
    }


def test_a_snapshot_made_stale_by_edits_gives_the_edited_library(
    full_lib: FullLibrary, tmp_path: Path
) -> None:
    db = _copy(full_lib.data_dir, tmp_path)
    settings = _settings(db, tmp_path)
    _serve_once(settings).close()
    edits = LocalEdits(db)
    edits.set_field(full_lib.keys["scibert"], "title", "SciBERT, retitled")
    edits.remove_tag([full_lib.keys["s2orc"]], "corpus")
    ctx = AppContext(settings)
    try:
        library = ctx.library()
        assert ctx.last_read == "saved, then changes"
        assert library.items[full_lib.keys["scibert"]].title == "SciBERT, retitled"
        assert _as_read(library) == _as_read(load_library(db, db.parent, ReadOptions()))
        answer = tools.call(ctx, "zot_search", query="papers by Beltagy")
        assert "SciBERT, retitled" in answer.text
    finally:
        ctx.close()


def test_a_file_gone_from_disk_is_missing_in_a_saved_snapshot_too(
    full_lib: FullLibrary, tmp_path: Path
) -> None:
    """Files come and go without zotero.sqlite changing: a loaded snapshot looks them up as a read does."""
    db = _copy(full_lib.data_dir, tmp_path)
    settings = _settings(db, tmp_path)
    _serve_once(settings).close()
    stored = [a.path for a in load_library(db).attachments if a.exists and a.path is not None]
    stored = [path for path in stored if path.is_relative_to(db.parent)]  # the copy's own files
    assert stored
    for path in stored:
        path.unlink()
    ctx = AppContext(settings)
    try:
        library = ctx.library()
        assert ctx.last_read == "saved"
        assert not any(a.exists for a in library.attachments if a.path in stored)
        assert _as_read(library) == _as_read(load_library(db, db.parent, ReadOptions()))
    finally:
        ctx.close()


def test_a_damaged_or_old_snapshot_is_ignored_and_saved_again(full_lib: FullLibrary, tmp_path: Path) -> None:
    db = _copy(full_lib.data_dir, tmp_path)
    settings = _settings(db, tmp_path)
    _serve_once(settings).close()
    (saved,) = _saved(settings.data_dir)
    whole = saved.read_bytes()
    header, body = whole.split(b"\n", 1)
    for damaged in (
        header + b"\n" + body[: len(body) // 2],  # cut short
        header + b"\n" + b"\x80\x05not a pickle at all",
        header.replace(b"snapshot 1", b"snapshot 0") + b"\n" + body,  # an older format
        header[:-4] + b"0000\n" + body,  # made by other code
    ):
        saved.write_bytes(damaged)
        ctx = AppContext(settings)
        try:
            library = ctx.library()
            assert ctx.last_read == "full"
            assert _as_read(library) == _as_read(load_library(db, db.parent, ReadOptions()))
        finally:
            ctx.close()
    _serve_once(settings).close()  # a server reads in full, and saves a good one again
    ctx = AppContext(settings)
    try:
        ctx.library()
        assert ctx.last_read == "saved"
    finally:
        ctx.close()


def test_a_snapshot_of_other_read_options_is_not_used(full_lib: FullLibrary, tmp_path: Path) -> None:
    db = _copy(full_lib.data_dir, tmp_path)
    settings = _settings(db, tmp_path)
    _serve_once(settings).close()
    ctx = AppContext(settings.model_copy(update={"include_trash": True}))
    try:
        library = ctx.library()
        assert ctx.last_read == "full"
        assert any(item.deleted for item in library.items.values())
    finally:
        ctx.close()
