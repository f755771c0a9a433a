"""The index's parts, built from Settings on first use: state database, embedder, sparse encoder, store.

One `IndexResources` serves one generation of the index (index/generations.py): the live one, or the one
a rebuild writes. It holds the generation (so no process deletes it) from the first use of its state or
store until `close`.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Sequence
from functools import cached_property
from pathlib import Path
from typing import Any

import numpy as np

from agent_zot.config import Settings
from agent_zot.errors import AgentZotError
from agent_zot.hardware import torch_device
from agent_zot.index.chunk_sentences import ReadChunks
from agent_zot.index.embed import Embedder, make_embedder
from agent_zot.index.generations import Generation, GenerationHold, IndexLayout
from agent_zot.index.shared import SharedIndex
from agent_zot.index.space import keep_reserve, make_room_to_read
from agent_zot.index.sparse import Bm25Encoder
from agent_zot.index.store import IndexInfo, SparseVector, VectorStore
from agent_zot.index.store_choice import open_store
from agent_zot.state.index import IndexState

DEFAULT_BGE_M3 = "BAAI/bge-m3"
# Query vectors kept: one request may embed its query in more than one step (a title lookup, then the
# search it decides; a claim's check after the question whether it is a title).
QUERY_VECTORS_KEPT = 16


class IndexResources:
    """Nothing here loads until asked for: the MCP server starts without touching models or stores."""

    def __init__(
        self,
        settings: Settings,
        generation: Generation | None = None,
        *,
        models_from: IndexResources | None = None,
    ) -> None:
        """``generation`` defaults to the live one; ``models_from`` lends its loaded models (no reload)."""
        self.settings = settings
        self.layout = IndexLayout(settings.data_dir / "index")
        self.generation = generation or self.layout.live()
        self.folder = self.generation.folder
        self._lock = threading.Lock()
        # The server's warm-up and a first request may both ask for the store (cached_property stopped
        # locking in Python 3.12): one of them opens it.
        self._store_lock = threading.Lock()
        self._store: VectorStore | None = None
        self._embedder_lock = threading.Lock()  # likewise: two embedders would each load their model
        self._embedder: Embedder | None = None
        self._query_vectors: OrderedDict[str, np.ndarray] = OrderedDict()
        self._query_lock = threading.Lock()
        self.read_chunks = ReadChunks()  # chunks' sentences read by recent requests (chunk_sentences.py)
        self._opened: IndexInfo | None = None
        self._hold: GenerationHold | None = None
        if models_from is not None:
            for name in ("embedder", "bm25"):
                if name in models_from.__dict__:
                    self.__dict__[name] = models_from.__dict__[name]

    def acquire(self) -> bool:
        """Hold this generation (the sweeper leaves it alone); False when it was retired meanwhile."""
        if self._hold is None:
            # Before the first use's few writes (SQLite's shared memory, the store's config): on a full
            # disk the reserve set aside by `close` gives them room (index/space.py)
            make_room_to_read(self.layout.root)
            self._hold = self.layout.hold(self.generation)
        return self._hold is not None

    def _require_hold(self) -> None:
        if not self.acquire():
            raise AgentZotError(
                "The index was replaced by a rebuild while this request ran.",
                hint="Ask again: the next request reads the new index.",
            )

    @cached_property
    def state(self) -> IndexState:
        self._require_hold()
        return IndexState(self.folder / "state.sqlite")

    @cached_property
    def embedder(self) -> Embedder:
        with self._embedder_lock:
            if self._embedder is None:
                self._embedder = self._make_embedder()
            return self._embedder

    def query_vector(self, text: str) -> np.ndarray:
        """The embedder's query vector of ``text``, computed once for the last few queries (read-only)."""
        return self.query_vectors([text])[0]

    def query_vectors(self, texts: Sequence[str]) -> np.ndarray:
        """The query vectors of ``texts`` (one row each): those of the last few queries kept, the others
        embedded in one run."""
        with self._query_lock:
            kept = {text: self._query_vectors[text] for text in texts if text in self._query_vectors}
            for text in kept:
                self._query_vectors.move_to_end(text)
        missing = list(dict.fromkeys(text for text in texts if text not in kept))
        if missing:
            found = self.embedder.embed_queries(missing)
            with self._query_lock:
                for text, vector in zip(missing, found, strict=True):
                    vector = np.array(vector)
                    vector.setflags(write=False)
                    kept[text] = self._query_vectors[text] = vector
                while len(self._query_vectors) > QUERY_VECTORS_KEPT:
                    self._query_vectors.popitem(last=False)
        rows = np.stack([kept[text] for text in texts])
        rows.setflags(write=False)
        return rows

    def _make_embedder(self) -> Embedder:
        options: dict[str, Any] = {}
        kind = self.settings.embedder
        if kind == "ollama":
            options = {
                "model": self.settings.embedder_model or "nomic-embed-text",
                "url": self.settings.ollama_url,
            }
        elif kind == "bge-m3":
            options = {"model_dir": self._model_folder(self.settings.embedder_model or DEFAULT_BGE_M3)}
            if self.settings.bge_m3_int8 and torch_device(self.settings.embed_device) == "cpu":
                kind = "bge-m3-int8"
                options["threads"] = self.settings.embed_threads
            else:
                options["device"] = self.settings.embed_device
        elif kind in ("minilm", "minilm-st"):
            options = {"threads": self.settings.embed_threads, "device": self.settings.embed_device}
            if kind == "minilm":
                # Queries run on an ONNX copy of the model: a new server answers without importing torch
                # (minilm-st keeps torch for both).
                options["query_cache"] = self.settings.data_dir / "models" / "query-onnx"
        elif kind == "minilm-onnx":
            options = {"threads": self.settings.embed_threads}
        return make_embedder(kind, **options)

    def _model_folder(self, name: str) -> Path:
        """A local folder as it is; a hub id ("BAAI/bge-m3") fetched once into the data folder."""
        from agent_zot.index.model_fetch import ensure_model, is_hub_id

        if not is_hub_id(name):
            return Path(name).expanduser()
        return ensure_model(name, self.settings.data_dir, hub_url=self.settings.model_hub_url)

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
        with self._store_lock:
            if self._store is None:
                self._store = self._open_store()
            return self._store

    def _open_store(self) -> VectorStore:
        self._require_hold()
        kind = self.settings.vector_store
        if kind != "edge":  # a server handles concurrent clients itself
            return self._server_store(self.generation)

        def open_edge() -> VectorStore:
            (self.folder / "vectors").mkdir(parents=True, exist_ok=True)
            return open_store("edge", path=self.folder / "vectors", **self._index_options())

        # Several agent-zot processes may use the embedded store at once; see agent_zot/index/shared.py.
        return SharedIndex(self.folder, open_edge)  # type: ignore[return-value]

    def _server_store(self, generation: Generation) -> VectorStore:
        secret = self.settings.qdrant_api_key
        return open_store(
            self.settings.vector_store,
            url=self.settings.qdrant_url,
            api_key=secret.get_secret_value() if secret else None,
            collection=server_collection(generation),
            shard_number=self.settings.qdrant_shard_number,
            replication_factor=self.settings.qdrant_replication_factor,
            **self._index_options(),
        )

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

    def exists(self) -> bool:
        return (self.folder / "state.sqlite").is_file()

    def sweep(self) -> list[str]:
        """Delete retired generations no process uses (with a server store, their collections too)."""
        drop = self._drop_server_collection if self.settings.vector_store != "edge" else None
        return self.layout.sweep(on_delete=drop)

    def _drop_server_collection(self, generation: Generation) -> None:
        store = self._server_store(generation)
        try:
            store.drop()
        finally:
            store.close()

    def close(self) -> None:
        if "store" in self.__dict__:
            self.store.close()
            del self.__dict__["store"]
            self._store = None
        if "state" in self.__dict__:
            self.state.close()
            del self.__dict__["state"]
        self._opened = None
        if self._hold is not None:
            self._hold.release()
            self._hold = None
        keep_reserve(self.layout.root)


def server_collection(generation: Generation) -> str:
    """The Qdrant server collection of a generation (the first index kept the plain name)."""
    return f"agent_zot_{generation.name.replace('-', '_')}" if generation.name else "agent_zot"
