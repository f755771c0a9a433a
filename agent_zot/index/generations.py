"""Index generations: a rebuild is written beside the live index and replaces it in one atomic step.

Searches must keep answering while `update-db --force-rebuild` runs, so a rebuild never touches the index
in use. The index folder (``data_dir/index``) holds:

- ``current.json``: ``{"generation": NAME}``, the live generation. Without it the folder itself is the
  live generation (named ""), as every index was before generations existed, so old indexes keep working.
- ``generations/NAME/``: one generation's state database (``state.sqlite``: items, pages, graph) and
  embedded vector store (``vectors/``), with the owner files of shared.py.
- ``rebuild.json`` and ``rebuild.lock``: the rebuild in progress (its generation and progress); the
  rebuilding process holds an OS lock on ``rebuild.lock``, so a rebuild killed midway is seen as over.

A rebuild publishes its generation by replacing ``current.json`` (``os.replace`` is atomic); every process
reads the pointer on each tool call and moves to the new generation. A retired generation is deleted once
no process uses it: each process using a generation holds a shared lock on its ``in_use.lock``, and the
sweeper needs the exclusive lock to move it to a trash folder (Windows, which cannot move open files,
needs no lock: an open handle blocks the move).
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import secrets
import shutil
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agent_zot.errors import AgentZotError
from agent_zot.locks import open_lock_file, same_file, try_lock, unlock

log = logging.getLogger(__name__)

POINTER = "current.json"
GENERATIONS = "generations"
REBUILD_INFO = "rebuild.json"
REBUILD_LOCK = "rebuild.lock"
IN_USE = "in_use.lock"
_TRASH_PREFIX = ".trash-"
# What a generation kept in the index folder itself (before generations) consists of.
_LEGACY_MEMBERS = (
    "state.sqlite",
    "state.sqlite-wal",
    "state.sqlite-shm",
    "vectors",
    "owner.json",
    "owner.lock",
)
_WINDOWS = sys.platform == "win32"


class RebuildRunningError(AgentZotError):
    """Another process is rebuilding this index."""


@dataclass(frozen=True, slots=True)
class Generation:
    """One complete index: ``name`` is "" for the index kept in the folder itself."""

    name: str
    folder: Path

    @property
    def label(self) -> str:
        return self.name or "original"


@dataclass(frozen=True, slots=True)
class RebuildStatus:
    generation: str
    started_at: str
    pid: int
    items_done: int
    items_total: int

    def describe(self) -> str:
        progress = f", {self.items_done} of {self.items_total} items" if self.items_total else ""
        return f"a rebuild of the index is running (started {self.started_at}{progress})"


class GenerationHold:
    """This process uses a generation: the sweeper leaves it alone until ``release``."""

    def __init__(self, handle: IO[bytes]) -> None:
        self._handle: IO[bytes] | None = handle

    def release(self) -> None:
        if self._handle is not None:
            unlock(self._handle)
            self._handle.close()
            self._handle = None


class IndexLayout:
    """The generations in one index folder."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def generation(self, name: str) -> Generation:
        return Generation(name, self.root / GENERATIONS / name if name else self.root)

    def live(self) -> Generation:
        """The generation searches read now (cheap: one small file read per call). A pointer that cannot
        be read, or names a generation that is gone (a bad copy, a sync tool), falls back to the newest
        complete generation there is: the sweeper would otherwise take that one for debris."""
        pointed = self.pointed()
        if pointed is not None and (not pointed.name or pointed.folder.is_dir()):
            return pointed
        fallback = self._last_complete()
        if fallback is not None:
            log.warning(
                "the index pointer is damaged or names a missing generation; using %s", fallback.label
            )
            return fallback
        if pointed is None:  # nothing complete to fall back to: a plain update-db builds here afresh
            log.warning("the index pointer cannot be read and no complete index is left")
            return self.generation("")
        return pointed

    def pointed(self) -> Generation | None:
        """The generation the pointer names ("" without a pointer), or None when it cannot be read."""
        try:
            name = str(json.loads((self.root / POINTER).read_text(encoding="utf-8"))["generation"])
        except FileNotFoundError:
            return self.generation("")
        except (OSError, ValueError, KeyError, TypeError):
            return None
        return self.generation(name)

    def repair_pointer(self) -> str | None:
        """Point at the generation `live` fell back to, when the pointer is damaged; what was done."""
        pointed = self.pointed()
        if pointed is not None and (not pointed.name or pointed.folder.is_dir()):
            return None
        live = self._last_complete()
        if live is None:
            return None
        self._publish(live)
        return f"the index pointer was damaged; it names {live.label} again"

    def _last_complete(self) -> Generation | None:
        """The generation with the newest state database, leaving out one a rebuild is still writing."""
        running = self.rebuild_status()
        candidates = [
            g
            for g in self._generations()
            if (g.folder / "state.sqlite").is_file() and (running is None or g.name != running.generation)
        ]
        return max(candidates, key=lambda g: (g.folder / "state.sqlite").stat().st_mtime, default=None)

    # -- using a generation -------------------------------------------------------------------

    def hold(self, generation: Generation) -> GenerationHold | None:
        """Mark ``generation`` as used by this process; None when it is gone or being deleted (read the
        live generation again). The folder of a generation not created yet is created."""
        if generation.name and not generation.folder.is_dir():
            return None
        generation.folder.mkdir(parents=True, exist_ok=True)
        path = generation.folder / IN_USE
        try:
            handle = open_lock_file(path)
        except FileNotFoundError:  # moved to the trash since the check above
            return None
        if not _WINDOWS and not try_lock(handle, shared=True):
            handle.close()
            return None
        if not same_file(path, handle):  # moved to the trash between our open and our lock
            unlock(handle)
            handle.close()
            return None
        return GenerationHold(handle)

    # -- rebuilding ------------------------------------------------------------------------

    @contextlib.contextmanager
    def rebuild(self) -> Iterator[Rebuild]:
        """A new generation to build into; one rebuild at a time. Leaving the block without `publish`
        abandons it (the sweeper deletes it)."""
        self.root.mkdir(parents=True, exist_ok=True)
        lock = open_lock_file(self.root / REBUILD_LOCK)
        if not try_lock(lock):
            lock.close()
            running = self.rebuild_status()
            detail = f" ({running.describe()}, process {running.pid})" if running else ""
            raise RebuildRunningError(
                f"Another rebuild of the index in {self.root} is running{detail}.",
                hint="Wait for it to finish: searches keep answering from the current index meanwhile.",
            )
        name = time.strftime("%Y%m%d-%H%M%S") + "-" + secrets.token_hex(3)
        job = Rebuild(self, self.generation(name))
        try:
            job.report(0, 0)  # named before its folder exists, so the sweeper never takes it for debris
            job.generation.folder.mkdir(parents=True)
            yield job
        finally:
            with contextlib.suppress(OSError):
                if not job.published:
                    (self.root / REBUILD_INFO).unlink()
            unlock(lock)
            lock.close()

    def rebuild_status(self) -> RebuildStatus | None:
        """The rebuild in progress, or None (also when a rebuild died: its lock is free then)."""
        try:
            data = json.loads((self.root / REBUILD_INFO).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not self._rebuild_lock_held():
            return None
        try:
            return RebuildStatus(
                str(data["generation"]),
                str(data["started_at"]),
                int(data["pid"]),
                int(data["items_done"]),
                int(data["items_total"]),
            )
        except (KeyError, TypeError, ValueError):
            return None

    def _rebuild_lock_held(self) -> bool:
        try:
            probe = open_lock_file(self.root / REBUILD_LOCK)
        except OSError:
            return False
        try:
            if try_lock(probe):
                unlock(probe)
                return False
            return True
        finally:
            probe.close()

    def _publish(self, generation: Generation) -> None:
        _write_json(self.root / POINTER, {"generation": generation.name})
        with contextlib.suppress(OSError):
            (self.root / REBUILD_INFO).unlink()
        log.info("index generation %s is live", generation.label)

    # -- deleting retired generations ------------------------------------------------------------

    def sweep(self, on_delete: Callable[[Generation], None] | None = None) -> list[str]:
        """Delete the generations neither live, nor being built, nor used by any process; their names.
        ``on_delete`` runs first for each (to drop what lives outside the folder, e.g. a server collection)."""
        try:
            live = self.live().name
        except AgentZotError:  # unsure which generation is live: delete nothing (a rebuild rewrites it)
            return []
        running = self.rebuild_status()
        keep = {live, running.generation if running else live}
        deleted = []
        for generation in self._generations():
            if generation.name not in keep and self._delete_if_unused(generation, on_delete):
                deleted.append(generation.label)
        for debris in self._trash():
            shutil.rmtree(debris, ignore_errors=True)
        return deleted

    def _generations(self) -> list[Generation]:
        found = []
        if any((self.root / member).exists() for member in _LEGACY_MEMBERS):
            found.append(self.generation(""))
        folder = self.root / GENERATIONS
        if folder.is_dir():
            found += [
                self.generation(p.name)
                for p in sorted(folder.iterdir())
                if p.is_dir() and not p.name.startswith(".")
            ]
        return found

    def _trash(self) -> list[Path]:
        folder = self.root / GENERATIONS
        return [p for p in folder.iterdir() if p.name.startswith(_TRASH_PREFIX)] if folder.is_dir() else []

    def _delete_if_unused(
        self, generation: Generation, on_delete: Callable[[Generation], None] | None
    ) -> bool:
        trash = self.root / GENERATIONS / f"{_TRASH_PREFIX}{generation.label}-{secrets.token_hex(3)}"
        try:
            handle = open_lock_file(generation.folder / IN_USE)
        except OSError:
            return False
        try:
            if not _WINDOWS and not try_lock(handle):
                return False  # a process still answers from it
            if on_delete is not None:
                on_delete(generation)
            trash.mkdir(parents=True)
            members = (
                [generation.folder]
                if generation.name
                else [generation.folder / m for m in (*_LEGACY_MEMBERS, IN_USE)]
            )
            for member in members:
                if member.exists():
                    member.replace(trash / member.name)
        except PermissionError:  # Windows: a process has a file of it open
            return False
        finally:
            unlock(handle)
            handle.close()
        shutil.rmtree(trash, ignore_errors=True)
        log.info("deleted the retired index generation %s", generation.label)
        return True


class Rebuild:
    """A generation being built; `publish` makes it live."""

    def __init__(self, layout: IndexLayout, generation: Generation) -> None:
        self.layout = layout
        self.generation = generation
        self.started_at = time.strftime("%Y-%m-%d %H:%M:%S")
        self.published = False
        self._last_report = 0.0

    def report(self, items_done: int, items_total: int, *, every_s: float = 1.0) -> None:
        """Progress for `rebuild_status` (written at most once per ``every_s``, and always at 0)."""
        now = time.monotonic()
        if items_done and now - self._last_report < every_s:
            return
        self._last_report = now
        info: dict[str, Any] = {
            "generation": self.generation.name,
            "started_at": self.started_at,
            "pid": os.getpid(),
            "items_done": items_done,
            "items_total": items_total,
        }
        _write_json(self.layout.root / REBUILD_INFO, info)

    def publish(self) -> None:
        self.layout._publish(self.generation)
        self.published = True


def _write_json(path: Path, data: dict[str, Any]) -> None:
    """Write atomically: readers see the old content or the new, never a part."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    tmp.write_text(json.dumps(data), encoding="utf-8")
    tmp.replace(path)
