"""The application context: settings plus the library, found and loaded on first use, reloaded on change."""

from __future__ import annotations

import logging
import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_zot.config import Settings
from agent_zot.errors import AgentZotError, LibraryNotFoundError
from agent_zot.index.generations import IndexLayout, RebuildStatus
from agent_zot.zotero.connection import FileState, file_state
from agent_zot.zotero.demo import ensure_demo_library
from agent_zot.zotero.discovery import Discovery, discover_library, read_zotero_prefs
from agent_zot.zotero.file_metadata import with_file_metadata
from agent_zot.zotero.models import Library, ReadOptions
from agent_zot.zotero.reader import attach_marks, library_identity, load_library, read_stamp
from agent_zot.zotero.saved import load_snapshot, save_snapshot

if TYPE_CHECKING:
    from agent_zot.graph.resources import GraphResources
    from agent_zot.index.resources import IndexResources

log = logging.getLogger(__name__)

_QUIET_POLL_S = 0.05
_QUIET_S = 0.3  # no request ended for this long: its answer is out


@dataclass(frozen=True, slots=True)
class LibrarySource:
    """Where the library comes from, as shown by `status` and `doctor`."""

    db_path: Path
    data_dir: Path
    how: str
    is_demo: bool
    base_attachment_dir: Path | None


class AppContext:
    """Shared by the MCP server and the CLI. Nothing is opened until a tool needs it."""

    def __init__(
        self, settings: Settings, *, home: Path | None = None, follows_library: bool = False
    ) -> None:
        self.settings = settings
        self._home = home  # tests point discovery at a fake home folder
        # A process that lives through the user's edits (a server, the watcher's update process) reads
        # only what changed after each one; a one-off command reads the library once.
        self.follows_library = follows_library
        self._lock = threading.Lock()
        self._source: LibrarySource | None = None
        self._source_lock = threading.Lock()
        self._library: Library | None = None
        # Set while a thread (the server's warm-up) has the first read of the library ahead of it: a
        # request that can answer without the library does not wait for that read (`library_if_read`).
        self._read_ahead = threading.Event()
        self._identity: tuple[FileState, str] | None = None  # read alone, before the library
        self._read: Library | None = None  # the snapshot as zotero.sqlite has it, before _file_metadata
        self._file_metadata_stamp: str | None = None
        self._state: FileState | None = None
        self._index: IndexResources | None = None
        self._graph: GraphResources | None = None
        self._index_lock = threading.RLock()
        self._calls = 0  # requests in progress (they may run in threads)
        self._last_request_end = time.monotonic()
        self._retired: list[tuple[IndexResources, GraphResources | None]] = []
        self._intact: set[str] = set()  # index generations whose parts were found to agree
        # The warm-up and a first request may both ask: one checks (a second of reads at 100,000 items)
        self._integrity_lock = threading.Lock()
        self.last_load_seconds: float | None = None
        # How the current snapshot came (for status lines and tests): "full" (all of zotero.sqlite read),
        # "changes" (what changed since this process's last read), "saved" (the snapshot a server kept,
        # unchanged since), "saved, then changes" (that snapshot with what changed read on top).
        self.last_read: str | None = None
        # Why write modes are refused in this process, whatever the settings (an HTTP server without a
        # token); None when they follow writes_enabled.
        self.write_block: str | None = None

    def index(self) -> IndexResources:
        """The full-text index of this library (state, embedder, store), created on first use; an index
        built from another library is refused (update-db, which may rebuild it, uses `index_resources`)."""
        from agent_zot.index.owner import check_identity

        resources = self.index_resources()
        if resources.exists():  # reading never creates an index
            library = self.library_if_read()
            identity = library.identity if library is not None else self._identity_alone()
            check_identity(resources.state, identity, self.source().db_path)
        return resources

    def index_ready(self) -> bool:
        """True when an index with at least one item was built (checked without creating one), and it is
        intact (see check_integrity)."""
        resources = self.index()
        if not resources.exists():
            return False
        self.check_integrity()
        return resources.state.has_indexed_items()

    def check_integrity(self) -> None:
        """Refuse to answer from a damaged index: the quick integrity check (index/integrity.py), once per
        generation while it finds the index intact, and again on every call while it does not."""
        from agent_zot.index.integrity import damaged_error, quick_verdict

        resources = self.index_resources()
        key = str(resources.folder)
        with self._integrity_lock:
            if key in self._intact or not resources.exists():
                return
            report = quick_verdict(resources)
            if report is None:
                return
            if not report.ok:
                raise damaged_error(report)
            self._intact.add(key)

    def index_resources(self) -> IndexResources:
        """The live generation of the full-text index, without the check that it belongs to this library.
        When a rebuild has made another generation live since the last call, this moves to it; the old one
        is closed once no request uses it."""
        from agent_zot.index.resources import IndexResources  # models and stores load lazily

        with self._index_lock:
            for _ in range(5):
                live = self.index_layout().live()
                current = self._index
                if current is not None and current.generation == live:
                    return current
                fresh = IndexResources(self.settings, live, models_from=current)
                if fresh.exists() and not fresh.acquire():
                    continue  # retired between reading the pointer and holding it: read again
                if current is not None:
                    log.info("moving to index generation %s", live.label)
                    self._retired.append((current, self._graph))
                    self._graph = None
                self._index = fresh
                if self._calls == 0:
                    self._close_retired()
                return fresh
        raise AgentZotError(
            "The index changed generation repeatedly while being opened.",
            hint="Ask again once `agent-zot update-db --force-rebuild` has finished.",
        )

    def index_layout(self) -> IndexLayout:
        return IndexLayout(self.settings.data_dir / "index")

    def rebuild_status(self) -> RebuildStatus | None:
        """The rebuild of the index in progress (in any process), if one is."""
        return self.index_layout().rebuild_status()

    def graph(self) -> GraphResources:
        """The knowledge graph (its store loads on first use), kept in the live index's state database."""
        resources = self.index_resources()
        with self._index_lock:
            if self._graph is None:
                from agent_zot.graph.resources import GraphResources

                self._graph = GraphResources(self.settings, resources.folder / "state.sqlite")
            return self._graph

    @contextmanager
    def request(self) -> Iterator[None]:
        """One request being served: generations it may still use are closed only after it ends."""
        with self._index_lock:
            self._calls += 1
        try:
            yield
        finally:
            with self._index_lock:
                self._calls -= 1
                self._last_request_end = time.monotonic()
                if self._calls == 0 and self._retired:
                    self._close_retired()

    def requests_in_progress(self) -> int:
        """How many requests are being served now (the warm-up counts as one while it runs)."""
        with self._index_lock:
            return self._calls

    def seconds_since_a_request_ended(self) -> float:
        """Time since the last request ended (since this context was made, before any did)."""
        return time.monotonic() - self._last_request_end

    def _close_retired(self) -> None:
        retired, self._retired = self._retired, []
        for resources, graph in retired:
            if graph is not None:
                graph.close()
            resources.close()
        if retired and self._index is not None:
            self._index.sweep()  # the generations just left are deleted if no other process uses them

    def close(self) -> None:
        with self._index_lock:
            if self._graph is not None:
                self._graph.close()
                self._graph = None
            if self._index is not None:
                self._retired.append((self._index, None))
                self._index = None
            retired, self._retired = self._retired, []
            for resources, graph in retired:
                if graph is not None:
                    graph.close()
                resources.close()

    def serving_demo(self) -> bool:
        """Whether answers come from the built-in demo library (known once the library was located)."""
        return self._source is not None and self._source.is_demo

    def source(self) -> LibrarySource:
        # `serve`'s warm-up and its watcher ask at once: one locates (and may build the demo library)
        with self._source_lock:
            if self._source is None:
                self._source = self._locate()
            return self._source

    def _locate(self) -> LibrarySource:
        prefs = read_zotero_prefs(self._home)
        base_dir = self.settings.linked_attachment_base_dir or prefs.base_attachment_path
        try:
            found: Discovery = discover_library(self.settings.zotero_data_dir, home=self._home)
        except LibraryNotFoundError:
            if self.settings.zotero_data_dir is not None or not self.settings.demo_when_missing:
                raise
            demo_db = ensure_demo_library(self.settings.data_dir / "demo-library")
            log.warning("No Zotero library found; serving the built-in demo library (%s).", demo_db)
            return LibrarySource(
                demo_db, demo_db.parent, "demo library (no Zotero library found)", True, None
            )
        return LibrarySource(found.db_path, found.data_dir, found.how, False, base_dir)

    def library(self) -> Library:
        """The current snapshot; re-read only when zotero.sqlite changed since the last read. Documents that
        are items of their own carry the title and authors update-db read from their files."""
        source = self.source()
        with self._lock:
            state = file_state(source.db_path)
            if self._read is None or state != self._state:
                started = time.perf_counter()
                options = self._read_options(source)
                previous = self._read if self.follows_library else None
                read = self._read_saved(source, options) if self._read is None else None
                if read is None:
                    read = load_library(source.db_path, source.data_dir, options, previous=previous)
                    self.last_read = "changes" if previous is not None and _on_top(read, previous) else "full"
                self._read = read
                self.last_load_seconds = time.perf_counter() - started
                self._state = state
                self._file_metadata_stamp = None
                if self.follows_library and self.last_read != "saved":
                    self._keep_later(read, options)
            self._library = self._file_metadata(self._read)
            return self._library

    @contextmanager
    def reading_library(self) -> Iterator[None]:
        """The first read of the library is ahead of this thread (the server's warm-up, from its start
        until it has read it): meanwhile a request that can answer without the library does not wait."""
        self._read_ahead.set()
        try:
            yield
        finally:
            self._read_ahead.clear()

    def library_if_read(self) -> Library | None:
        """As `library`, except None while the first read is still ahead of another thread
        (`reading_library`): at 100,000 items that read takes 0.5-1 s a first answer need not wait for."""
        if self._read is None and self._read_ahead.is_set():
            return None
        return self.library()

    def _identity_alone(self) -> str:
        """The library's identity read on its own (milliseconds), for checking the index before the
        library is read; read again when zotero.sqlite changed."""
        db_path = self.source().db_path
        state = file_state(db_path)
        known = self._identity
        if known is None or known[0] != state:
            known = self._identity = (state, library_identity(db_path))
        return known[1]

    def _file_metadata(self, library: Library) -> Library:
        """``library`` with what the index read from its parentless PDFs (zotero/file_metadata.py); the
        last such snapshot while the index holds the same (one cheap query a call)."""
        try:
            resources = self.index_resources()
            if not resources.exists():
                return library
            state = resources.state
            stamp = f"{resources.generation.label}:{state.front_matter_stamp()}"
            if stamp == self._file_metadata_stamp and self._library is not None:
                return self._library
            found = state.front_matter() if state.get_meta("library") == library.identity else {}
        except (AgentZotError, sqlite3.Error) as err:  # a damaged index: answers say so; the library stands
            log.info("file metadata not read: %s", err)
            return library
        self._file_metadata_stamp = stamp
        return with_file_metadata(library, found)

    def _read_saved(self, source: LibrarySource, options: ReadOptions) -> Library | None:
        """A new process's first read: the snapshot a server saved (zotero/saved.py), as it is when the
        library did not change since, else with what changed read on top; None when none is usable."""
        saved = load_snapshot(self._snapshots, source.db_path, source.data_dir, options)
        if saved is None:
            return None
        if saved.read_stamp == read_stamp(file_state(source.db_path), source.data_dir, options):
            self.last_read = "saved"
            return saved
        read = load_library(source.db_path, source.data_dir, options, previous=saved)
        self.last_read = "saved, then changes" if _on_top(read, saved) else "full"
        return read

    @property
    def _snapshots(self) -> Path:
        return self.settings.data_dir / "library"

    def _keep_later(self, library: Library, options: ReadOptions) -> None:
        """Once no request is being served: read the marks the next (incremental) read compares, if this
        read did not, and save the snapshot for the next process."""

        def keep() -> None:
            self.wait_for_quiet(others=0)
            try:
                if library.marks is None and not attach_marks(library, options):
                    return  # the library changed meanwhile: the next read is a full one, and saves
            except AgentZotError as err:  # the next read is then a full one, as this was
                log.info("library marks not read: %s", err.message)
                return
            if library is self._read:  # not when a later read replaced it (that read saves its own)
                save_snapshot(library, options, self._snapshots)

        threading.Thread(target=keep, name="agent-zot-library-marks", daemon=True).start()

    def wait_for_quiet(self, *, others: int) -> None:
        """Until no request but ``others`` (a caller counting itself) has run for a moment: an answer is
        written by the server's event loop after its handler returns, and a thread busy in Python
        meanwhile held it back (measured over stdio)."""
        while self.requests_in_progress() > others or self.seconds_since_a_request_ended() < _QUIET_S:
            time.sleep(_QUIET_POLL_S)

    @property
    def library_state(self) -> FileState | None:
        """zotero.sqlite's state when the current snapshot was read (None before the first read)."""
        return self._state

    def _read_options(self, source: LibrarySource) -> ReadOptions:
        ids = self.settings.library_ids
        return ReadOptions(
            include_trash=self.settings.include_trash,
            library_ids=frozenset(ids) if ids else None,
            base_attachment_dir=source.base_attachment_dir,
        )


def _on_top(read: Library, previous: Library) -> bool:
    """Whether ``read`` was read on top of ``previous`` (only what changed), not in full."""
    return bool(read.lineage) and read.lineage[0][0] == previous.read_stamp
