"""The index follows Zotero: a watcher notices when zotero.sqlite changes (its header's change counter,
size and time) or files appear in storage/, and runs the incremental update in the background.

- One updater per data folder: every `serve` and `watch` process on it tries for an OS file lock
  (``index/updater.lock``); the holder watches, the others try again each interval and take over when the
  holder exits, however it exits.
- The update runs as a separate `agent-zot update-db` process at low priority with one parse worker, so it
  never holds the server's interpreter and a tool call is never blocked. update-db is already safe to kill
  at any point: the next run finishes the work.
- A change is acted on once it has settled (the same signature on two polls in a row), so a burst of
  writes while the user imports ten papers makes one update, not ten.
- Failures are written down (``index/updater.json``: since when, how many tries, the last reason), so
  answers, `status` and `doctor` can say the index is behind *because* updates fail, and why, instead of
  "indexing now" for as long as the servers run.
"""

from __future__ import annotations

import json
import logging
import os
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import IO

from agent_zot.errors import AgentZotError
from agent_zot.locks import open_lock_file, try_lock, unlock
from agent_zot.zotero.connection import FileState, file_state

log = logging.getLogger(__name__)

LOCK_NAME = "updater.lock"
RECORD_NAME = "updater.json"
UPDATE_TIMEOUT_S = 6 * 3600  # a first index of a very large library; a stuck run is stopped after it
RETRY_AFTER_S = 300.0  # a failed update is not re-run every poll
# storage/ folders looked at between two pauses: the walk is Python (about 50 ms per 20,000 folders)
_SCAN_BATCH = 2000


def _lock_path(data_dir: Path) -> Path:
    return data_dir / "index" / LOCK_NAME


def _record_path(data_dir: Path) -> Path:
    return data_dir / "index" / RECORD_NAME


def updater_active(data_dir: Path) -> bool:
    """Whether a watcher (in this process or another) holds the updater lock of ``data_dir``."""
    path = _lock_path(data_dir)
    if not path.is_file():
        return False
    with open_lock_file(path) as handle:
        if try_lock(handle):
            unlock(handle)
            return False
    return True


class UpdaterElection:
    """The updater lock: held by at most one process per data folder, released by the OS if it dies."""

    def __init__(self, data_dir: Path) -> None:
        self.path = _lock_path(data_dir)
        self._handle: IO[bytes] | None = None

    @property
    def elected(self) -> bool:
        return self._handle is not None

    def try_acquire(self) -> bool:
        if self._handle is None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            handle = open_lock_file(self.path)
            if try_lock(handle):
                self._handle = handle
            else:
                handle.close()
        return self._handle is not None

    def release(self) -> None:
        if self._handle is not None:
            unlock(self._handle)
            self._handle.close()
            self._handle = None


@dataclass(frozen=True, slots=True)
class LibrarySignature:
    """What changes when the library does: the database header and the storage folder's entries."""

    database: FileState
    storage: tuple[int, int]


def library_signature(
    db_path: Path, storage: Path, pause: Callable[[], None] = lambda: None
) -> LibrarySignature:
    """``pause`` is called between batches of storage folders (a server's requests go first)."""
    state = file_state(db_path)
    count, newest = 0, 0
    try:
        with os.scandir(storage) as entries:
            for entry in entries:  # one folder per attachment; its mtime moves when a file lands in it
                count += 1
                newest = max(newest, entry.stat(follow_symlinks=False).st_mtime_ns)
                if count % _SCAN_BATCH == 0:
                    pause()
    except OSError:
        pass  # no storage folder (linked files only): the database alone tells
    return LibrarySignature(state, (count, newest))


@dataclass(slots=True)
class UpdateOutcome:
    ok: bool
    summary: dict[str, object]
    error: str = ""


@dataclass(frozen=True, slots=True)
class UpdateFailure:
    """Background updates failing in a row: since when, how many tries, and the latest reason."""

    since: float  # seconds since the epoch
    last: float
    attempts: int
    reason: str

    def describe(self) -> str:
        tries = f"{self.attempts} tr{'ies' if self.attempts != 1 else 'y'}"
        return f"background updates are failing ({tries} since {_clock(self.since)}): {self.reason}"

    def to_dict(self) -> dict[str, object]:
        return {
            "since": _iso(self.since),
            "last": _iso(self.last),
            "attempts": self.attempts,
            "reason": self.reason,
        }


def _clock(stamp: float) -> str:
    same_day = time.localtime(stamp)[:3] == time.localtime()[:3]
    return time.strftime("%H:%M" if same_day else "%Y-%m-%d %H:%M", time.localtime(stamp))


def _iso(stamp: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(stamp))


def record_outcome(data_dir: Path, outcome: UpdateOutcome, *, now: float | None = None) -> None:
    """Write down a background update's outcome: a success clears the record, a failure extends it."""
    path = _record_path(data_dir)
    if outcome.ok:
        path.unlink(missing_ok=True)
        return
    stamp = time.time() if now is None else now
    previous = update_failure(data_dir)
    since, attempts = (previous.since, previous.attempts + 1) if previous else (stamp, 1)
    record = {"since": since, "last": stamp, "attempts": attempts, "reason": outcome.error or "unknown"}
    tmp = path.with_suffix(".tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(record), encoding="utf-8")
        tmp.replace(path)
    except OSError as err:  # a full disk may be why the update failed: the log still says it
        log.warning("could not record the failed update in %s: %s", path, err)


def update_failure(data_dir: Path, *, indexed_at: str | None = None) -> UpdateFailure | None:
    """The background updates failing now, if they are. ``indexed_at`` (the state's ``updated_at``, local
    time) hides failures older than the last complete update, e.g. one run by hand since."""
    try:
        data = json.loads(_record_path(data_dir).read_text(encoding="utf-8"))
        failure = UpdateFailure(
            float(data["since"]), float(data["last"]), int(data["attempts"]), str(data["reason"])
        )
    except (OSError, ValueError, KeyError, TypeError):  # none, or torn by a crash: nothing to report
        return None
    if indexed_at is not None:
        try:
            if failure.last < time.mktime(time.strptime(indexed_at, "%Y-%m-%d %H:%M:%S")):
                return None
        except (ValueError, OverflowError):
            pass
    return failure


class Watcher:
    """Polls the library every ``interval`` seconds while elected, and runs ``update`` when it changed."""

    def __init__(
        self,
        db_path: Path,
        data_dir: Path,
        update: Callable[[], UpdateOutcome],
        *,
        interval: float,
        on_update: Callable[[UpdateOutcome], None] | None = None,
        pause: Callable[[], None] = lambda: None,
    ) -> None:
        """``pause``: called before each look at the library and between its batches; a server's waits
        until no request is being served, so that its look never holds an answer back."""
        self.db_path = db_path
        self.pause = pause
        self.storage = db_path.parent / "storage"
        self.data_dir = data_dir
        self.election = UpdaterElection(data_dir)
        self.update = update
        self.interval = interval
        self.on_update = on_update
        self._indexed: LibrarySignature | None = None  # what the last successful update saw
        self._seen: LibrarySignature | None = None  # the previous poll
        self._failed: LibrarySignature | None = None  # the library as the last failed update saw it
        self._failed_at = 0.0
        self.updates = 0

    def poll(self) -> UpdateOutcome | None:
        """One step: take the lock if free, then update when the library changed and has settled. The
        first elected poll always updates (the library may have changed while no watcher ran); a failed
        update is retried when the library changes again or after ``RETRY_AFTER_S``."""
        if not self.election.try_acquire():
            return None
        try:
            self.pause()
            current = library_signature(self.db_path, self.storage, self.pause)
        except AgentZotError as err:
            log.warning("cannot read the library to watch it: %s", err.message)
            return None
        previous, self._seen = self._seen, current
        if self.updates:
            if current == self._indexed or current != previous:
                return None  # nothing new, or still changing: wait for it to settle
            if current == self._failed and time.monotonic() - self._failed_at < RETRY_AFTER_S:
                return None
        outcome = self.update()
        self.updates += 1
        record_outcome(self.data_dir, outcome)
        if outcome.ok:
            self._indexed = current  # changes made during the run differ from it: the next poll sees them
            self._failed = None
        else:
            log.warning("background index update failed: %s", outcome.error)
            self._failed, self._failed_at = current, time.monotonic()
        if self.on_update is not None:
            self.on_update(outcome)
        return outcome

    def run(self, stop: threading.Event) -> None:
        try:
            while not stop.is_set():
                self.poll()
                stop.wait(self.interval)
        finally:
            self.close()

    def close(self) -> None:
        """Let another process watch, and end the update process if one is kept (UpdateWorker)."""
        self.election.release()
        close_updater = getattr(self.update, "close", None)
        if callable(close_updater):
            close_updater()


def start_watcher(watcher: Watcher) -> tuple[threading.Thread, threading.Event]:
    stop = threading.Event()
    thread = threading.Thread(target=watcher.run, args=(stop,), name="agent-zot-watch", daemon=True)
    thread.start()
    return thread, stop
