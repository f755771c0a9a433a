"""The application context: settings plus the library, found and loaded on first use, reloaded on change."""

from __future__ import annotations

import logging
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from agent_zot.config import Settings
from agent_zot.errors import LibraryNotFoundError
from agent_zot.zotero.connection import FileState, file_state
from agent_zot.zotero.demo import ensure_demo_library
from agent_zot.zotero.discovery import Discovery, discover_library, read_zotero_prefs
from agent_zot.zotero.models import Library
from agent_zot.zotero.reader import ReadOptions, load_library

if TYPE_CHECKING:
    from agent_zot.graph.resources import GraphResources
    from agent_zot.index.resources import IndexResources

log = logging.getLogger(__name__)


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

    def __init__(self, settings: Settings, *, home: Path | None = None) -> None:
        self.settings = settings
        self._home = home  # tests point discovery at a fake home folder
        self._lock = threading.Lock()
        self._source: LibrarySource | None = None
        self._library: Library | None = None
        self._state: FileState | None = None
        self._index: IndexResources | None = None
        self._graph: GraphResources | None = None
        self.last_load_seconds: float | None = None

    def index(self) -> IndexResources:
        """The full-text index of this library (state, embedder, store), created on first use; an index
        built from another library is refused (update-db, which may rebuild it, uses `index_resources`)."""
        from agent_zot.services.indexing import check_library

        resources = self.index_resources()
        if resources.exists():  # reading never creates an index
            check_library(resources.state, self.library())
        return resources

    def index_resources(self) -> IndexResources:
        """The full-text index without the check that it belongs to this library."""
        if self._index is None:
            from agent_zot.index.resources import IndexResources  # models and stores load lazily

            self._index = IndexResources(self.settings)
        return self._index

    def graph(self) -> GraphResources:
        """The knowledge graph (its store loads on first use), kept in the index's state database."""
        if self._graph is None:
            from agent_zot.graph.resources import GraphResources

            self._graph = GraphResources(self.settings, self.settings.data_dir / "index" / "state.sqlite")
        return self._graph

    def close(self) -> None:
        if self._graph is not None:
            self._graph.close()
            self._graph = None
        if self._index is not None:
            self._index.close()
            self._index = None

    def serving_demo(self) -> bool:
        """Whether answers come from the built-in demo library (known once the library was located)."""
        return self._source is not None and self._source.is_demo

    def source(self) -> LibrarySource:
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
        """The current snapshot; re-read only when zotero.sqlite changed since the last read."""
        source = self.source()
        with self._lock:
            state = file_state(source.db_path)
            if self._library is None or state != self._state:
                started = time.perf_counter()
                self._library = load_library(source.db_path, source.data_dir, self._read_options(source))
                self.last_load_seconds = time.perf_counter() - started
                self._state = state
            return self._library

    def _read_options(self, source: LibrarySource) -> ReadOptions:
        ids = self.settings.library_ids
        return ReadOptions(
            include_trash=self.settings.include_trash,
            library_ids=frozenset(ids) if ids else None,
            base_attachment_dir=source.base_attachment_dir,
        )
