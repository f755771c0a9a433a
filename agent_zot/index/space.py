"""Disk space for the index: checked before update-db writes, and a full disk named as such when a write
fails anyway (another program may fill the disk meanwhile).

Measured (docs/performance.md): an index takes about 9 KB per chunk (8.5 KB on the 5,183 SciFact abstracts,
9 KB on the 18 shared PDFs, page texts included), and the vector store's optimize step rewrites its
segments, needing about the size of the store again while it runs.
"""

from __future__ import annotations

import errno
import shutil
import sqlite3
from pathlib import Path

from agent_zot.errors import AgentZotError

BYTES_PER_CHUNK = 10_000  # a little over the measured 9 KB
CHUNKS_PER_FILE = 40  # a typical paper's chunks, for items not indexed yet
MARGIN = 64 * 1024 * 1024  # WAL files, the state database's journal, the OS
_FULL_ERRNOS = {errno.ENOSPC, errno.EDQUOT, errno.EFBIG}
# The embedded vector store (Rust) reports OS errors as text
_FULL_WORDS = ("no space left", "os error 28", "disk is full", "database or disk is full", "file too large")


class DiskFullError(AgentZotError):
    """The disk holding the data folder is (nearly) full."""


def free_bytes(path: Path) -> int:
    """Free space on the filesystem holding ``path`` (its nearest existing folder)."""
    probe = Path(path)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    return shutil.disk_usage(probe).free


def needed_bytes(new_files: int, new_items: int) -> int:
    """What indexing this many new files and file-less items may add, with the margin."""
    return MARGIN + BYTES_PER_CHUNK * (new_files * CHUNKS_PER_FILE + new_items)


def check_space(folder: Path, needed: int) -> None:
    """DiskFullError naming the space needed when the disk holding ``folder`` has less free."""
    free = free_bytes(folder)
    if free < needed:
        raise disk_full_error(folder, free, needed)


def disk_full_error(folder: Path, free: int, needed: int | None = None) -> DiskFullError:
    want = f"; it needs about {_mb(needed)} for this run" if needed else ""
    return DiskFullError(
        f"The disk holding {folder} is full ({_mb(free)} free){want}. Nothing was lost: the index is as the "
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


def _mb(size: int | None) -> str:
    return f"{(size or 0) / 1e6:,.0f} MB"
