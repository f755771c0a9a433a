"""Disk space for the index, in one place: checked before update-db writes, before the vector store is
opened or optimized, and a full disk named as such when a write fails anyway (another program may fill the
disk meanwhile).

Measured (docs/performance.md): an index takes about 9 KB per chunk (8.5 KB on the 5,183 SciFact abstracts,
9 KB on the 18 shared PDFs, page texts included). The embedded engine refuses to optimize unless twice the
size of the segments it rewrites is free. It keeps parts of each segment in memory by reading them through
memory maps of files it sized but did not fill (sparse files); on a memory-backed filesystem (tmpfs) reading
a hole allocates a page, and a page it cannot get kills the process with SIGBUS. So on such a filesystem a
store is opened only with room for its holes, and they are allocated when it is closed, while there is room
(a later reader then needs none). Reading the index otherwise writes only a few pages (SQLite's shared-memory
file, the engine's config, the owner's address), for which a small reserve is set aside.
"""

from __future__ import annotations

import errno
import logging
import os
import re
import shutil
import sqlite3
import stat
from collections.abc import Iterator
from pathlib import Path

from agent_zot.errors import AgentZotError

log = logging.getLogger(__name__)

MB = 1024 * 1024
BYTES_PER_CHUNK = 10_000  # a little over the measured 9 KB
CHUNKS_PER_FILE = 40  # a typical paper's chunks, for items not indexed yet
MARGIN = 64 * MB  # WAL files, the state database's journal, the OS
# What a reader writes (SQLite's 32 KiB -shm, the engine's config and segment descriptions, owner.json):
# about 64 KB measured, so reads answer with this much free.
READ_MARGIN = 256 * 1024
RESERVE_FILE = "space.reserve"  # set aside while there is room, released when a reader finds the disk full
RESERVE_BYTES = MB
# Creating a store on a memory-backed filesystem reads two 1 MiB flag files per indexed payload field and
# two for deleted points (17.2 MiB measured for 8 fields) through memory maps.
FLAGS_PER_FIELD = 2 * MB
# Filesystems where reading a never-written page of a memory-mapped file allocates it.
_ALLOCATE_ON_READ = frozenset({"tmpfs", "ramfs", "hugetlbfs"})
# Store files the engine does not read into memory when it loads a shard (measured): the write-ahead log,
# the on-disk payload and sparse vector stores, and the bitmasks of its page stores.
_NOT_LOADED_DIRS = frozenset({"wal", "payload_storage", "store"})
_NOT_LOADED_FILES = frozenset({"bitmask.dat"})
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
# The embedded vector store (Rust) reports OS errors, and its own space check, as text
_FULL_WORDS = (
    "no space left",
    "os error 28",
    "disk is full",
    "database or disk is full",
    "file too large",
    "not enough space",
)


class DiskFullError(AgentZotError):
    """The disk holding the data folder is (nearly) full."""


def free_bytes(path: Path) -> int:
    """Free space on the filesystem holding ``path`` (its nearest existing folder)."""
    return shutil.disk_usage(_existing(path)).free


def needed_bytes(new_files: int, new_items: int) -> int:
    """What indexing this many new files and file-less items may add, with the margin."""
    return MARGIN + BYTES_PER_CHUNK * (new_files * CHUNKS_PER_FILE + new_items)


def check_space(folder: Path, needed: int) -> None:
    """DiskFullError naming the space needed when the disk holding ``folder`` has less free."""
    free = free_bytes(folder)
    if free < needed:
        raise disk_full_error(folder, free, needed)


def disk_full_error(folder: Path, free: int, needed: int | None = None) -> DiskFullError:
    want = f"; it needs about {_size(needed)} for this run" if needed else ""
    return DiskFullError(
        f"The disk holding {folder} is full ({_size(free)} free){want}. Nothing was lost: the index is as the "
        "last completed step left it.",
        hint="Free some space (or set data_dir to a roomier disk) and run `agent-zot update-db` again: it "
        "continues where it stopped.",
    )


def is_disk_full(err: BaseException) -> bool:
    """Whether an error from a write is the disk (or a file size limit) being full."""
    if isinstance(err, OSError) and err.errno in _FULL_ERRNOS:
        return True
    if isinstance(err, (sqlite3.OperationalError, OSError)) or type(err) is Exception:
        text = str(err).lower()
        return any(words in text for words in _FULL_WORDS)
    return False


# -- the embedded store ---------------------------------------------------------------------------


def allocates_on_read(path: Path) -> bool:
    """Whether the filesystem holding ``path`` allocates space when a hole of a memory-mapped file is read
    (memory-backed ones; Linux only: elsewhere reading a hole maps zeros)."""
    try:
        mounts = Path("/proc/self/mounts").read_text(encoding="utf-8", errors="replace").splitlines()
    except OSError:
        return False
    target = _existing(path).resolve()
    depth, kind = -1, ""
    for line in mounts:
        fields = line.split()
        if len(fields) < 3:
            continue
        point = Path(re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), fields[1]))
        if (point == target or point in target.parents) and len(point.parts) >= depth:
            depth, kind = len(point.parts), fields[2]  # the deepest mount, the last one when stacked
    return kind in _ALLOCATE_ON_READ


def load_holes(shard: Path) -> int:
    """Bytes a load of the shard may allocate on a memory-backed filesystem: the holes of the files it reads
    into memory."""
    return sum(_hole(st) for _, st in _loaded_files(shard))


def open_needed_bytes(shard: Path, *, creating: bool, indexed_fields: int = 0) -> int:
    """Free space opening (or creating) the shard needs, so that nothing it maps is short of a page."""
    if not allocates_on_read(shard):
        return READ_MARGIN
    if creating:
        return READ_MARGIN + FLAGS_PER_FIELD * (indexed_fields + 1)
    return READ_MARGIN + load_holes(shard)


def check_room_to_open(shard: Path, *, creating: bool, indexed_fields: int = 0) -> None:
    """DiskFullError, before the engine touches anything, when the disk lacks what opening the shard needs."""
    needed = open_needed_bytes(shard, creating=creating, indexed_fields=indexed_fields)
    free = free_bytes(shard)
    if free >= needed:
        return
    if creating:
        raise DiskFullError(
            f"The disk holding {shard.parent} is full ({_size(free)} free); creating the full-text index "
            f"needs about {_size(needed)}.",
            hint="Free some space (or set data_dir to a roomier disk) and run `agent-zot update-db` again.",
        )
    raise DiskFullError(
        f"The disk holding {shard.parent} is full ({_size(free)} free); opening the full-text index needs "
        f"about {_size(needed)}. Nothing was changed.",
        hint="Free some space (or set data_dir to a roomier disk) and try again.",
    )


def fill_load_holes(shard: Path) -> int:
    """Allocate the holes a later load would (memory-backed filesystems only, and only with room for them):
    the next process then opens the store on a full disk. Returns the bytes allocated."""
    if not allocates_on_read(shard):
        return 0
    files = [(file, _hole(st)) for file, st in _loaded_files(shard) if _hole(st)]
    holes = sum(hole for _, hole in files)
    if not holes or free_bytes(shard) < holes + READ_MARGIN:
        return 0
    for file, _ in files:
        try:
            fd = os.open(file, os.O_RDWR)
        except FileNotFoundError:
            continue
        try:
            os.posix_fallocate(fd, 0, os.fstat(fd).st_size)
        except OSError as err:  # another program took the room meanwhile: the next load checks again
            log.debug("could not allocate %s: %s", file, err)
            return 0
        finally:
            os.close(fd)
    return holes


def optimize_shortfall(shard: Path) -> str | None:
    """Why the disk lacks room to optimize the shard, or None. The engine checks for twice the size of the
    segments it rewrites, enough on a disk (the peak measured is half the store's size). On a memory-backed
    filesystem it reads the old segments' holes and fills the new ones as well (up to 3.9x the store's size
    measured): there it takes their full (apparent) size free, and the holes it will read."""
    if not allocates_on_read(shard):
        return None
    needed = READ_MARGIN + sum(st.st_size for _, st in _files(shard / "segments")) + load_holes(shard)
    free = free_bytes(shard)
    if free >= needed:
        return None
    return f"it needs about {_size(needed)} free and the disk holding {shard.parent} has {_size(free)}"


def optimize_refused(err: BaseException) -> bool:
    """Whether the engine declined to optimize for want of space (it asks for twice the size of the segments
    it would rewrite, before writing anything)."""
    return "not enough space available for optimization" in str(err).lower()


# -- the reserve ----------------------------------------------------------------------------------


def keep_reserve(folder: Path) -> None:
    """Set aside RESERVE_BYTES in ``folder`` (the index folder) while the disk has room, for readers of a
    full disk; it never leaves less than a reader needs."""
    reserve = folder / RESERVE_FILE
    if not folder.is_dir() or reserve.exists() or free_bytes(folder) < RESERVE_BYTES + READ_MARGIN:
        return
    partial = reserve.with_name(RESERVE_FILE + ".part")
    try:
        # Random bytes: a compressing filesystem would keep zeros in no space at all.
        partial.write_bytes(os.urandom(RESERVE_BYTES))
        partial.replace(reserve)
    except OSError as err:
        partial.unlink(missing_ok=True)
        log.debug("no space reserve in %s: %s", folder, err)


def make_room_to_read(folder: Path) -> bool:
    """Before a reader's first writes: on a disk with less than READ_MARGIN free, give back the reserve.
    True when it was released."""
    reserve = folder / RESERVE_FILE
    if not reserve.is_file() or free_bytes(folder) >= READ_MARGIN:
        return False
    reserve.unlink(missing_ok=True)
    log.warning(
        "The disk holding %s is full: released agent-zot's %s reserve so the index can still be read. "
        "Free some space: updating the index needs it.",
        folder,
        _size(RESERVE_BYTES),
    )
    return True


def _loaded_files(shard: Path) -> Iterator[tuple[Path, os.stat_result]]:
    for file, st in _files(shard):
        folders = file.relative_to(shard).parts[:-1]
        if file.name not in _NOT_LOADED_FILES and _NOT_LOADED_DIRS.isdisjoint(folders):
            yield file, st


def _files(folder: Path) -> Iterator[tuple[Path, os.stat_result]]:
    for file in folder.rglob("*"):
        try:
            st = file.lstat()
        except FileNotFoundError:  # replaced while we walk (the engine swaps segment files)
            continue
        if stat.S_ISREG(st.st_mode):
            yield file, st


def disk_usage(path: Path) -> int:
    """Bytes allocated under ``path``: preallocated sparse files (WAL, mmap chunks) count what they use."""
    total = 0
    for _, st in _files(path):
        blocks = getattr(st, "st_blocks", None)  # absent on Windows
        total += blocks * 512 if blocks is not None else st.st_size
    return total


def _hole(st: os.stat_result) -> int:
    blocks = getattr(st, "st_blocks", None)  # absent on Windows
    return max(0, st.st_size - blocks * 512) if blocks is not None else 0


def _existing(path: Path) -> Path:
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return probe


def _size(size: int | None) -> str:
    size = size or 0
    return f"{size / 1e3:,.0f} KB" if size < 1e6 else f"{size / 1e6:,.0f} MB"
