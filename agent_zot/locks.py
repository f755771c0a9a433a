"""Advisory OS file locks, released by the OS when the process dies however it dies.

POSIX has shared and exclusive locks (``flock``). Windows' ``msvcrt`` has only exclusive byte-range locks,
so there a shared lock is taken as an exclusive one on a byte of its own per holder: callers that need
readers side by side on Windows do not rely on it (see index/generations.py).
"""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import IO, Any


def open_lock_file(path: Path) -> IO[bytes]:
    """The lock file at ``path``, created if missing (its folder must exist)."""
    return path.open("a+b")


def same_file(path: Path, handle: IO[bytes]) -> bool:
    """Whether ``path`` still names the file ``handle`` has open (it may have been moved or replaced)."""
    try:
        named = path.stat()
    except OSError:
        return False
    opened = os.fstat(handle.fileno())
    return (named.st_dev, named.st_ino) == (opened.st_dev, opened.st_ino)


if sys.platform == "win32":  # pragma: no cover - exercised on Windows only
    import msvcrt

    def try_lock(handle: Any, *, shared: bool = False) -> bool:
        try:
            msvcrt.locking(handle.fileno(), msvcrt.LK_NBLCK, 1)
        except OSError:
            return False
        return True

    def unlock(handle: Any) -> None:
        with contextlib.suppress(OSError):
            msvcrt.locking(handle.fileno(), msvcrt.LK_UNLCK, 1)

else:
    import fcntl

    def try_lock(handle: Any, *, shared: bool = False) -> bool:
        """Take the lock without waiting; False when another holder's lock conflicts."""
        try:
            fcntl.flock(handle.fileno(), (fcntl.LOCK_SH if shared else fcntl.LOCK_EX) | fcntl.LOCK_NB)
        except OSError:
            return False
        return True

    def unlock(handle: Any) -> None:
        with contextlib.suppress(OSError):
            fcntl.flock(handle.fileno(), fcntl.LOCK_UN)
