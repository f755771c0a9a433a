"""The vector store interface: value types, the ``VectorStore`` Protocol and helpers both engines share.

A point is one chunk of a paper (or its metadata record) with a dense vector, an optional sparse vector and
a payload. Payload keys: ``item_key`` (str), ``attachment_key`` (str | None), ``kind`` ("chunk" |
"metadata"), ``text`` (str), ``page_start``/``page_end`` (int | None), ``section`` (str | None), ``year``
(int, absent when unknown), ``item_type`` (str), ``collections`` (collection keys), ``tags``, ``creators``
(last names) and ``title`` (str).

Notes and annotations share the store as points of kind "note" | "annotation" (index/notes.py): their
``item_key`` is their own Zotero key (so deleting an item's points never touches them, and theirs are
deleted by that key), ``parent_key`` the paper's, and they carry ``page_label``, ``page_index`` and
``color``. Searches for papers filter on ``PAPER_KINDS`` so notes never show up as papers.

Implementations: ``store_edge.EdgeStore`` (embedded Qdrant engine) and ``store_qdrant.QdrantStore``
(``qdrant-client``: a server, or local mode); ``stores.open_store`` picks one by name.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol, TypeAlias

from agent_zot.errors import AgentZotError
from agent_zot.index.identity import backend_mismatch
from agent_zot.zotero.models import Item

if TYPE_CHECKING:  # numpy is imported where vectors are made, not to read this module
    import numpy as np

# A dense vector as the embedders make it (a numpy array) or as a list of floats.
DenseVector: TypeAlias = "Sequence[float] | np.ndarray"

DENSE = "dense"
SPARSE = "sparse"
FUSIONS = ("rrf", "dbsf")
# The usual constant from the RRF paper; Qdrant's default (2) lets one list's top hit dominate the fusion.
RRF_K = 60
# Sparse kinds whose document weights are term frequencies: the engine multiplies in IDF at query time.
IDF_SPARSE_KINDS = frozenset({"bm25"})
REBUILD_HINT = "Rebuild the index with `agent-zot update-db --force-rebuild`."

PAPER_KINDS = ("chunk", "metadata")
NOTE_KINDS = ("note", "annotation")

KEYWORD_FIELDS = ("item_key", "attachment_key", "kind", "item_type", "collections", "tags", "creators")
INTEGER_FIELDS = ("year",)


class IndexMismatchError(AgentZotError):
    """The index on disk was built with another embedding model, dimension or sparse kind."""


class StoreLockedError(AgentZotError):
    """An embedded store is already open in another process (or another instance in this one)."""


@dataclass(frozen=True, slots=True)
class SparseVector:
    indices: list[int]
    values: list[float]


@dataclass(slots=True)
class Point:
    id: str  # a UUID string
    dense: DenseVector
    sparse: SparseVector | None
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class SearchFilter:
    """Every non-empty field must hold; within a tuple field any value may match."""

    item_keys: tuple[str, ...] = ()
    year_min: int | None = None
    year_max: int | None = None
    item_types: tuple[str, ...] = ()
    collections: tuple[str, ...] = ()
    tags: tuple[str, ...] = ()
    creators: tuple[str, ...] = ()  # last names, exact
    kinds: tuple[str, ...] = ()


@dataclass(frozen=True, slots=True)
class SearchRequest:
    """One search of a batch (``VectorStore.search_batch``): the arguments of ``search``."""

    dense: DenseVector | None
    sparse: SparseVector | None
    limit: int
    filter: SearchFilter | None = None
    fusion: str = "rrf"
    prefetch: int = 100
    payload: Sequence[str] | None = None


@dataclass(frozen=True, slots=True)
class Hit:
    id: str
    score: float
    payload: dict[str, Any]


@dataclass(frozen=True, slots=True)
class IndexInfo:
    model: str
    dense_dim: int
    sparse: str  # "bm25" | "bge-m3" | ...
    points: int


class VectorStore(Protocol):
    def open_or_create(self, *, model: str, dense_dim: int, sparse: str) -> IndexInfo:
        """Open the index, creating it on first use; raise IndexMismatchError if it was built otherwise."""
        ...

    def upsert(self, points: Sequence[Point]) -> None:
        """Insert or replace points by id."""
        ...

    def delete_items(self, item_keys: Sequence[str], *, kinds: Sequence[str] = ()) -> None:
        """Delete every point of these items (only those of these kinds, when given)."""
        ...

    def set_payloads(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        """For each item key, set these payload fields on every point of that item (other fields stay); a
        field given as None is removed (engines differ on storing nulls, so none are stored)."""
        ...

    def delete_attachments(self, attachment_keys: Sequence[str]) -> None:
        """Delete every point of these attachments."""
        ...

    def search(
        self,
        dense: DenseVector | None,
        sparse: SparseVector | None,
        *,
        limit: int,
        filter: SearchFilter | None = None,
        fusion: str = "rrf",
        prefetch: int = 100,
        payload: Sequence[str] | None = None,
    ) -> list[Hit]:
        """Dense only, sparse only, or both fused ("rrf" | "dbsf"), best first; filters run in the engine.
        ``payload``: only these fields of each hit's payload (None: all). Reading whole payloads is most
        of a query's time; a ranking needs a few fields, and ``payloads`` reads the rest for the hits kept."""
        ...

    def search_batch(self, requests: Sequence[SearchRequest]) -> list[list[Hit]]:
        """Each request's hits as ``search`` gives them, in order, from one call: the engine plans the
        batch as a whole (one pass over its segments), and a shared index crosses its socket once."""
        ...

    def count(self, filter: SearchFilter | None = None) -> int: ...

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        """Which of these point ids the store holds."""
        ...

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        """The whole payload of each of these points the store holds, by id."""
        ...

    def points_per_item(self) -> dict[str, int]:
        """How many points each item (or note) key has, counted by the engine (the integrity check)."""
        ...

    def points(self, *, offset: str | None = None, limit: int = 256) -> tuple[list[Point], str | None]:
        """One page of stored points with their vectors and payloads, from ``offset`` (None: the first),
        and the offset of the next page (None after the last): for moving an index between stores."""
        ...

    def get_by_item(self, item_key: str) -> list[Hit]:
        """All points of an item, in reading order (see ``reading_order``), with score 0."""
        ...

    def optimize(self) -> None:
        """Build indexes after a bulk load (a no-op where the engine does it by itself)."""
        ...

    def disk_size_bytes(self) -> int: ...

    def close(self) -> None: ...

    def drop(self) -> None:
        """Delete the whole index; ``open_or_create`` starts a new one."""
        ...


def item_payload(item: Item) -> dict[str, Any]:
    """The payload fields every point of an item carries beside its own text, page and kind: what a
    metadata edit rewrites in place (``VectorStore.set_payloads``) without embedding anything again.
    A field that is None here is not stored (see ``set_payloads``)."""
    return {
        "year": item.year,
        "item_type": item.item_type,
        "collections": list(item.collection_keys),
        "tags": item.tag_names(),
        "creators": [c.last_name for c in item.creators],
        "title": item.title,
    }


# -- helpers shared by the implementations ------------------------------------------------------


@dataclass(frozen=True, slots=True)
class Condition:
    """One engine-neutral filter clause: a keyword field matching any of ``any_of``, or an integer range."""

    key: str
    any_of: tuple[str, ...] = ()
    gte: int | None = None
    lte: int | None = None


def filter_conditions(search_filter: SearchFilter | None) -> list[Condition]:
    """The clauses a filter stands for (all must hold); empty for no filter."""
    if search_filter is None:
        return []
    f = search_filter
    keyword = (
        ("item_key", f.item_keys),
        ("item_type", f.item_types),
        ("collections", f.collections),
        ("tags", f.tags),
        ("creators", f.creators),
        ("kind", f.kinds),
    )
    conditions = [Condition(key, any_of=tuple(values)) for key, values in keyword if values]
    if f.year_min is not None or f.year_max is not None:
        conditions.append(Condition("year", gte=f.year_min, lte=f.year_max))
    return conditions


def check_compatible(stored: IndexInfo, *, model: str, dense_dim: int, sparse: str, where: str) -> None:
    """Raise IndexMismatchError unless the stored index was built with this model, dimension and sparse kind."""
    if (stored.model, stored.dense_dim, stored.sparse) == (model, dense_dim, sparse):
        return
    message = (
        f"The vector index at {where} was built with {describe(stored.model, stored.dense_dim, stored.sparse)}, "
        f"but the configuration asks for {describe(model, dense_dim, sparse)}."
    )
    precision = backend_mismatch(stored.model, model)
    if precision is not None:  # the same model at another precision: say so, and how to keep this index
        raise IndexMismatchError(f"{message} {precision[0]}", hint=precision[1])
    raise IndexMismatchError(message, hint=REBUILD_HINT)


def unknown_index_error(where: str, *, model: str, dense_dim: int, sparse: str) -> IndexMismatchError:
    """For an index whose description is missing (an interrupted first build, or not made by agent-zot)."""
    return IndexMismatchError(
        f"The vector index at {where} does not say which embedding model built it, "
        f"so it cannot be used with {describe(model, dense_dim, sparse)}.",
        hint=REBUILD_HINT,
    )


def describe(model: str, dense_dim: int, sparse: str) -> str:
    return f"model '{model}' ({dense_dim}-d dense vectors, '{sparse}' sparse vectors)"


def info_to_dict(info: IndexInfo) -> dict[str, Any]:
    return {"model": info.model, "dense_dim": info.dense_dim, "sparse": info.sparse}


def info_from_dict(data: dict[str, Any]) -> IndexInfo | None:
    """None when the dict is not one ``info_to_dict`` wrote."""
    try:
        return IndexInfo(str(data["model"]), int(data["dense_dim"]), str(data["sparse"]), 0)
    except (KeyError, TypeError, ValueError):
        return None


def check_search_args(
    dense: DenseVector | None, sparse: SparseVector | None, fusion: str, limit: int
) -> SparseVector | None:
    """Validate a search call. Returns the sparse vector, or None when it has no terms: a query made of
    stopwords only matches nothing lexically, and a sparse-only search then returns no hits."""
    if fusion not in FUSIONS:
        raise ValueError(f"unknown fusion {fusion!r}; expected one of {FUSIONS}")
    if limit < 1:
        raise ValueError(f"limit must be at least 1, got {limit}")
    if dense is None and sparse is None:
        raise ValueError("search needs a dense vector, a sparse vector, or both")
    return sparse if sparse is not None and sparse.indices else None


def as_floats(vector: DenseVector) -> list[float]:
    """A plain list of floats from a list or a numpy array (the engines' bindings want lists)."""
    tolist = getattr(vector, "tolist", None)
    return tolist() if tolist is not None else [float(x) for x in vector]


def reading_order(hits: list[Hit]) -> list[Hit]:
    """Metadata first, then chunks by page and position, so both engines return an item's text alike."""

    def key(hit: Hit) -> tuple[int, int, int, str]:
        p = hit.payload
        page = p.get("page_start")
        position = p.get("chunk_index")
        return (
            0 if p.get("kind") == "metadata" else 1,
            page if isinstance(page, int) else -1,
            position if isinstance(position, int) else -1,
            hit.id,
        )

    return sorted(hits, key=key)
