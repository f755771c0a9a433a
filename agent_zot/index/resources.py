"""The index's parts, built from Settings on first use: state database, embedder, sparse encoder, store."""

from __future__ import annotations

import threading
from functools import cached_property
from pathlib import Path
from typing import Any

from agent_zot.config import Settings
from agent_zot.index.embed import Embedder, make_embedder
from agent_zot.index.shared import SharedIndex
from agent_zot.index.sparse import Bm25Encoder
from agent_zot.index.store import IndexInfo, SparseVector, VectorStore
from agent_zot.index.stores import open_store
from agent_zot.state.index import IndexState


class IndexResources:
    """Nothing here loads until asked for: the MCP server starts without touching models or stores."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.folder = settings.data_dir / "index"
        self._lock = threading.Lock()
        self._opened: IndexInfo | None = None

    @cached_property
    def state(self) -> IndexState:
        return IndexState(self.folder / "state.sqlite")

    @cached_property
    def embedder(self) -> Embedder:
        options: dict[str, Any] = {}
        kind = self.settings.embedder
        if kind == "ollama":
            options = {
                "model": self.settings.embedder_model or "nomic-embed-text",
                "url": self.settings.ollama_url,
            }
        elif kind == "bge-m3" and self.settings.embedder_model:
            options = {"model_dir": Path(self.settings.embedder_model)}
        return make_embedder(kind, **options)

    @cached_property
    def bm25(self) -> Bm25Encoder:
        return Bm25Encoder()

    @property
    def sparse_kind(self) -> str:
        return "bge-m3" if self.settings.embedder == "bge-m3" else "bm25"

    def sparse_documents(self, texts: list[str]) -> list[SparseVector]:
        lexical = self.embedder.sparse_documents(texts)
        return lexical if lexical is not None else self.bm25.encode_documents(texts)

    def sparse_query(self, text: str) -> SparseVector:
        lexical = self.embedder.sparse_query(text)
        return lexical if lexical is not None else self.bm25.encode_query(text)

    @cached_property
    def store(self) -> VectorStore:
        kind = self.settings.vector_store
        if kind != "edge":  # a server handles concurrent clients itself
            secret = self.settings.qdrant_api_key
            api_key = secret.get_secret_value() if secret else None
            return open_store(kind, url=self.settings.qdrant_url, api_key=api_key, **self._index_options())

        def open_edge() -> VectorStore:
            (self.folder / "vectors").mkdir(parents=True, exist_ok=True)
            return open_store("edge", path=self.folder / "vectors", **self._index_options())

        # Several agent-zot processes may use the embedded store at once; see agent_zot/index/shared.py.
        return SharedIndex(self.folder, open_edge)  # type: ignore[return-value]

    def _index_options(self) -> dict[str, Any]:
        quantization = self.settings.quantization
        return {
            "hnsw_m": self.settings.hnsw_m,
            "ef_construct": self.settings.hnsw_ef_construct,
            "quantization": None if quantization in (None, "none", "") else quantization,
        }

    def open(self) -> IndexInfo:
        """Open (or create) the vector collection for the configured model; mismatches raise clearly."""
        with self._lock:
            if self._opened is None:
                self._opened = self.store.open_or_create(
                    model=self.embedder.name, dense_dim=self.embedder.dim, sparse=self.sparse_kind
                )
            return self._opened

    def drop(self) -> None:
        """Delete every point and all recorded state (for --force-rebuild); the next open() recreates."""
        with self._lock:
            self.store.drop()
            self.state.clear()
            self._opened = None

    def exists(self) -> bool:
        return (self.folder / "state.sqlite").is_file()

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()
        if "state" in self.__dict__:
            self.state.close()
