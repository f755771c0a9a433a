"""The library snapshot kept in the data folder, so that a new process does not read the whole library.

Every new process used to read all of zotero.sqlite before its first answer (1.5-3 s at 20,000 items,
4-7 s at 100,000). A process that follows the library (a server, the watcher) saves its snapshot with its
marks (zotero/marks.py) after a read; the next process loads it, and uses it as it is when zotero.sqlite
is in the state the snapshot was read at, or reads on top of it only the items whose marks changed (the
incremental read a server makes after an edit, which falls back to a full read when much changed). So a
saved snapshot is never the answer for a library that changed since.

The file holds a header (the format, the Python version and a digest of the code that shapes a snapshot:
every module of this package) and a pickle. It is written to a temporary name and renamed, so a reader
sees a whole file or none; a damaged file, or one an older agent-zot wrote, is ignored and replaced by the
next save. Attachment files may come and go without zotero.sqlite changing: whether each one is on disk
is looked up again on every load, as a read looks it up.
"""

from __future__ import annotations

import functools
import hashlib
import io
import logging
import os
import pickle
import sys
import tempfile
from collections.abc import Callable
from dataclasses import fields, is_dataclass
from pathlib import Path
from typing import Any

from agent_zot.zotero import models
from agent_zot.zotero.attachments import StorageIndex
from agent_zot.zotero.gc_pause import gc_paused
from agent_zot.zotero.marks import LibraryMarks
from agent_zot.zotero.models import Library, ReadOptions
from agent_zot.zotero.reader import options_stamp

log = logging.getLogger(__name__)

_FORMAT = "agent-zot library snapshot 1"
# What unpickling a file damaged or written by other code raises (pickle's own list, in its docs)
_UNREADABLE = (
    pickle.UnpicklingError,
    EOFError,
    AttributeError,
    ImportError,
    IndexError,
    KeyError,
    TypeError,
    ValueError,
)


@functools.cache
def _header() -> bytes:
    """The first line of a snapshot file: the format, the Python version, and a digest of this package's
    code, so that a snapshot made by other code is never read as one made by this code."""
    digest = hashlib.sha1(usedforsecurity=False)
    for module in sorted(Path(__file__).parent.glob("*.py")):
        digest.update(module.name.encode() + b"\0" + module.read_bytes())
    version = ".".join(map(str, sys.version_info[:2]))
    return f"{_FORMAT}|py{version}|{digest.hexdigest()[:16]}\n".encode()


def snapshot_file(folder: Path, db_path: Path, data_dir: Path, options: ReadOptions) -> Path:
    """Where the snapshot of this database, read with these options, is kept (one file each)."""
    what = f"{db_path.resolve()}|{options_stamp(data_dir, options)}"
    return folder / f"{hashlib.sha1(what.encode(), usedforsecurity=False).hexdigest()[:16]}.snapshot"


def save_snapshot(library: Library, options: ReadOptions, folder: Path) -> bool:
    """Keep ``library`` (read with ``options``) for the next process; only a snapshot with its marks
    (without them the next process could not tell what changed). Returns whether it was written."""
    if library.marks is None or not library.read_stamp:
        return False
    target = snapshot_file(folder, library.db_path, library.data_dir, options)
    with gc_paused():
        buffer = io.BytesIO()
        pickler = pickle.Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL)
        pickler.dispatch_table = _by_fields()
        pickler.dump(library)
        data = buffer.getbuffer()
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=folder, prefix=target.stem, suffix=".tmp")
        try:
            with os.fdopen(handle, "wb") as out:
                out.write(_header())
                out.write(data)
            Path(temporary).replace(target)
        finally:
            Path(temporary).unlink(missing_ok=True)
    except OSError as err:  # a full disk or a read-only data folder: the next process reads the library
        log.info("library snapshot not saved: %s", err)
        return False
    return True


@functools.cache
def _by_fields() -> dict[type, Callable[[Any], tuple[type, tuple[object, ...]]]]:
    """Each snapshot class pickled as its class and field values, so that loading calls its constructor:
    a third quicker than dataclasses' own state, read field by field (0.6 against 0.8 s at 100,000 items)."""
    classes = [c for c in vars(models).values() if isinstance(c, type) and is_dataclass(c)]
    names = {c: tuple(f.name for f in fields(c)) for c in [*classes, LibraryMarks]}

    def by_fields(value: Any) -> tuple[type, tuple[object, ...]]:
        return type(value), tuple(getattr(value, name) for name in names[type(value)])

    return dict.fromkeys(names, by_fields)


def load_snapshot(folder: Path, db_path: Path, data_dir: Path, options: ReadOptions) -> Library | None:
    """The snapshot saved for this database and these options, with its attachments' files looked up
    again; None when there is none, or it cannot be used (damaged, made by other code, of another file)."""
    path = snapshot_file(folder, db_path, data_dir, options)
    try:
        blob = path.read_bytes()
    except OSError:
        return None
    header = _header()
    if not blob.startswith(header):
        log.info("library snapshot %s was made by other code: not used", path.name)
        return None
    try:
        with gc_paused():
            library = pickle.loads(memoryview(blob)[len(header) :])
    except _UNREADABLE as err:
        log.info("library snapshot %s is damaged (%s): not used", path.name, err)
        return None
    if not _fits(library, db_path, data_dir, options):
        log.info("library snapshot %s is of another library: not used", path.name)
        return None
    _look_up_files(library)
    return library


def _fits(library: object, db_path: Path, data_dir: Path, options: ReadOptions) -> bool:
    if not isinstance(library, Library) or library.marks is None or not library.read_stamp:
        return False
    if (library.db_path, library.data_dir) != (db_path, data_dir):
        return False
    # The stamp's first part is the file's state, the rest what it was read with
    return library.read_stamp.split("|", 1)[-1] == options_stamp(data_dir, options)


def _look_up_files(library: Library) -> None:
    storage = StorageIndex(library.data_dir)
    for attachment in library.attachments:
        attachment.exists = storage.exists(attachment.key, attachment.path)
        attachment.fulltext_cache = storage.fulltext_cache(attachment.key)
