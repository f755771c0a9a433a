"""The embedded vector store: Qdrant's engine in-process through ``qdrant-edge-py``.

Layout of the store folder: ``shard/`` is the Edge shard (segments, WAL, its own config) and
``index.json`` records the model, dense dimension and sparse kind the index was built with, so a changed
configuration is caught before anything is written.

One process at a time: the engine locks the shard's write-ahead log, and a second open (from another
process, or a second instance in this one) fails; that is reported as StoreLockedError.
"""

from __future__ import annotations

import json
import logging
import shutil
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import qdrant_edge as qe

from agent_zot.index.space import (
    check_room_to_open,
    disk_usage,
    fill_load_holes,
    optimize_refused,
    optimize_shortfall,
)
from agent_zot.index.store import (
    DENSE,
    IDF_SPARSE_KINDS,
    INTEGER_FIELDS,
    KEYWORD_FIELDS,
    RRF_K,
    SPARSE,
    Condition,
    DenseVector,
    Hit,
    IndexInfo,
    Point,
    SearchFilter,
    SearchRequest,
    SparseVector,
    StoreLockedError,
    as_floats,
    check_compatible,
    check_search_args,
    filter_conditions,
    info_from_dict,
    info_to_dict,
    reading_order,
    unknown_index_error,
)

INFO_FILE = "index.json"
SHARD_DIR = "shard"
_UPSERT_BATCH = 1024  # points per engine call: bounds the memory of one converted batch
_SCROLL_PAGE = 512
_FLUSH_EVERY = 20_000  # points written between flushes during bulk loads
# Qdrant's default: segments smaller than this (in KB of vectors) are searched by brute force.
_FULL_SCAN_THRESHOLD_KB = 10_000
QUANTIZATIONS = ("int8", None)
_INDEXED_FIELDS = len(KEYWORD_FIELDS) + len(INTEGER_FIELDS)

log = logging.getLogger(__name__)


class EdgeStore:
    """A ``VectorStore`` in a local folder. Cheap to construct: nothing is opened until ``open_or_create``."""

    def __init__(
        self, path: Path, *, hnsw_m: int = 16, ef_construct: int = 100, quantization: str | None = "int8"
    ) -> None:
        if quantization not in QUANTIZATIONS:
            raise ValueError(f"unknown quantization {quantization!r}; expected one of {QUANTIZATIONS}")
        self.path = Path(path)
        self.hnsw_m = hnsw_m
        self.ef_construct = ef_construct
        self.quantization = quantization
        self._shard: qe.EdgeShard | None = None
        self._unflushed = 0

    @property
    def _shard_path(self) -> Path:
        return self.path / SHARD_DIR

    @property
    def _info_path(self) -> Path:
        return self.path / INFO_FILE

    # -- lifecycle ------------------------------------------------------------------------------

    def open_or_create(self, *, model: str, dense_dim: int, sparse: str) -> IndexInfo:
        stored = self._read_info()
        exists = (self._shard_path / "segments").is_dir()
        if stored is not None:
            check_compatible(stored, model=model, dense_dim=dense_dim, sparse=sparse, where=str(self.path))
        elif exists:
            raise unknown_index_error(str(self.path), model=model, dense_dim=dense_dim, sparse=sparse)
        if stored is None:  # described before the shard exists, so an interrupted create is still ours
            self._write_info(IndexInfo(model, dense_dim, sparse, 0))
        if self._shard is None:
            if exists and self._interrupted_create():
                # killed inside the engine's create: an empty shard without its config holds nothing
                shutil.rmtree(self._shard_path)
                exists = False
            self._shard = self._load() if exists else self._create(dense_dim, sparse)
            _ensure_payload_indexes(self._shard)
        return IndexInfo(model, dense_dim, sparse, self.count())

    def close(self) -> None:
        if self._shard is not None:
            self._close_shard()
            # What the next process's load would allocate on a memory-backed disk, allocated now while
            # there is room: it then opens the store on a full disk (space.py).
            fill_load_holes(self._shard_path)

    def _close_shard(self) -> None:
        if self._shard is not None:
            shard, self._shard = self._shard, None
            shard.close()  # flushes
            self._unflushed = 0

    def drop(self) -> None:
        if self._shard is None and (self._shard_path / "segments").is_dir():
            self._shard = self._load()  # refuses while another process has the index open
        self._close_shard()
        shutil.rmtree(self._shard_path, ignore_errors=True)
        self._info_path.unlink(missing_ok=True)

    def optimize(self) -> None:
        """Optimize, or skip it with a warning when the disk lacks room: searches work unoptimized."""
        shard = self._require()
        shortfall = optimize_shortfall(self._shard_path)
        if shortfall is not None:  # the engine's own check would let it run out of pages (a SIGBUS)
            log.warning("skipped optimizing the vector store: %s", shortfall)
            return
        try:
            shard.optimize()
        except Exception as err:  # the engine raises bare Exceptions
            if not optimize_refused(err):
                raise
            log.warning("skipped optimizing the vector store: %s", err)  # refused before writing anything
            return
        shard.flush()

    def disk_size_bytes(self) -> int:
        return disk_usage(self.path)

    # -- writes -----------------------------------------------------------------------------------

    def upsert(self, points: Sequence[Point]) -> None:
        shard = self._require()
        for start in range(0, len(points), _UPSERT_BATCH):
            batch = [_to_edge_point(p) for p in points[start : start + _UPSERT_BATCH]]
            shard.update(qe.UpdateOperation.upsert_points(batch))
            self._unflushed += len(batch)
        if self._unflushed >= _FLUSH_EVERY:
            # The engine truncates its WAL only on flush: without this a bulk load keeps a second copy of
            # every point in the (memory-mapped) WAL, ~3.5 kB per chunk.
            shard.flush()
            self._unflushed = 0

    def delete_items(self, item_keys: Sequence[str], *, kinds: Sequence[str] = ()) -> None:
        self._delete_where("item_key", item_keys, kinds)

    def delete_attachments(self, attachment_keys: Sequence[str]) -> None:
        self._delete_where("attachment_key", attachment_keys)

    def _delete_where(self, key: str, values: Sequence[str], kinds: Sequence[str] = ()) -> None:
        shard = self._require()
        if values:
            must: list[qe.ConditionType] = [qe.FieldCondition(key, match=qe.MatchAny(list(values)))]
            if kinds:
                must.append(qe.FieldCondition("kind", match=qe.MatchAny(list(kinds))))
            shard.update(qe.UpdateOperation.delete_points_by_filter(qe.Filter(must=must)))

    def set_payloads(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        shard = self._require()
        for item_key, fields in updates.items():
            only_item = qe.Filter(must=[qe.FieldCondition("item_key", match=qe.MatchValue(item_key))])
            values = {key: value for key, value in fields.items() if value is not None}
            if values:
                shard.update(qe.UpdateOperation.set_payload_by_filter(only_item, values))
            if cleared := [key for key, value in fields.items() if value is None]:
                shard.update(qe.UpdateOperation.delete_payload_by_filter(only_item, cleared))
        self._unflushed += len(updates)

    # -- reads ------------------------------------------------------------------------------------

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
        return self.search_batch([SearchRequest(dense, sparse, limit, filter, fusion, prefetch, payload)])[0]

    def search_batch(self, requests: Sequence[SearchRequest]) -> list[list[Hit]]:
        shard = self._require()
        # A batch's lists share most of their hits (a query's two channels, a claim check's variants: a
        # quarter of the hits are distinct), and reading payloads is most of a query's time: the searches
        # read none, then each distinct hit's payload is read once.
        inline = len(requests) == 1
        planned = [_to_query(r, with_payload=inline) for r in requests]  # all checked before any runs
        asked = [q for q in planned if q is not None]
        if not asked:
            return [[] for _ in requests]
        if inline:
            return [[Hit(str(p.id), float(p.score), p.payload or {}) for p in shard.query(asked[0])]]
        found = iter(shard.query_batch(qe.QueryBatchRequest(asked)))
        # (the binding makes a new UUID each time a point's id is read: each is read once)
        answers = [
            [(str(p.id), float(p.score)) for p in next(found)] if q is not None else [] for q in planned
        ]
        wanted: dict[tuple[str, ...] | None, set[str]] = {}
        for request, scored in zip(requests, answers, strict=True):
            fields = None if request.payload is None else tuple(request.payload)
            wanted.setdefault(fields, set()).update(point for point, _ in scored)
        read: dict[tuple[str, ...] | None, dict[str, dict[str, Any]]] = {}
        for fields, ids in wanted.items():
            selector: Any = True if fields is None else qe.PayloadSelector.Include(list(fields))
            read[fields] = {str(r.id): r.payload or {} for r in shard.retrieve(sorted(ids), selector, False)}
        # the hits of one point share its payload dict (nothing writes to a hit's payload)
        by_fields = [read[None if r.payload is None else tuple(r.payload)] for r in requests]
        return [
            [Hit(point, score, payloads.get(point, {})) for point, score in scored]
            for payloads, scored in zip(by_fields, answers, strict=True)
        ]

    def count(self, filter: SearchFilter | None = None) -> int:
        return int(self._require().count(qe.CountRequest(exact=True, filter=_to_filter(filter))))

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        records = self._require().retrieve(list(ids), False, False)
        return {str(record.id) for record in records}

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        records = self._require().retrieve(list(ids), True, False)
        return {str(record.id): record.payload or {} for record in records}

    def points_per_item(self) -> dict[str, int]:
        shard = self._require()
        # One hit per key, so the limit is the number of points (an upper bound on the keys)
        request = qe.FacetRequest("item_key", limit=max(1, self.count()), exact=True)
        return {str(hit.value): hit.count for hit in shard.facet(request).hits if hit.count}  # 0: all deleted

    def points(self, *, offset: str | None = None, limit: int = 256) -> tuple[list[Point], str | None]:
        shard = self._require()
        request = qe.ScrollRequest(offset=offset, limit=limit, with_payload=True, with_vector=True)
        records, following = shard.scroll(request)
        found = [_from_edge_record(r.id, r.vector, r.payload) for r in records]
        return found, str(following) if following is not None else None

    def get_by_item(self, item_key: str) -> list[Hit]:
        shard = self._require()
        match = qe.Filter(must=[qe.FieldCondition("item_key", match=qe.MatchValue(item_key))])
        hits: list[Hit] = []
        offset: Any = None
        while True:
            request = qe.ScrollRequest(offset=offset, limit=_SCROLL_PAGE, filter=match, with_payload=True)
            records, offset = shard.scroll(request)
            hits.extend(Hit(str(r.id), 0.0, r.payload or {}) for r in records)
            if offset is None:
                return reading_order(hits)

    def open_existing(self) -> IndexInfo | None:
        """Open the store as it was created (its recorded model, size and sparse kind); None when there is
        none yet. For a process that takes over an index it never opened itself."""
        stored = self._read_info()
        if stored is None or not (self._shard_path / "segments").is_dir():
            return None
        return self.open_or_create(model=stored.model, dense_dim=stored.dense_dim, sparse=stored.sparse)

    # -- internals --------------------------------------------------------------------------------

    def _require(self) -> qe.EdgeShard:
        if self._shard is None:
            raise RuntimeError("EdgeStore is not open: call open_or_create() first")
        return self._shard

    def _config(self, dense_dim: int, sparse: str) -> qe.EdgeConfig:
        modifier = qe.Modifier.Idf if sparse in IDF_SPARSE_KINDS else None
        quantization = None
        if self.quantization == "int8":
            quantization = qe.ScalarQuantizationConfig(
                type=qe.ScalarType.Int8, quantile=0.99, memory=qe.Memory.Pinned
            )
        return qe.EdgeConfig(
            vectors={DENSE: qe.EdgeVectorParams(size=dense_dim, distance=qe.Distance.Cosine)},
            sparse_vectors={SPARSE: qe.EdgeSparseVectorParams(modifier=modifier)},
            hnsw_config=qe.HnswIndexConfig(
                m=self.hnsw_m, ef_construct=self.ef_construct, full_scan_threshold=_FULL_SCAN_THRESHOLD_KB
            ),
            quantization_config=quantization,
        )

    def _create(self, dense_dim: int, sparse: str) -> qe.EdgeShard:
        check_room_to_open(self._shard_path, creating=True, indexed_fields=_INDEXED_FIELDS)
        with _translate_lock_error(self.path):
            return qe.EdgeShard.create(str(self._shard_path), self._config(dense_dim, sparse))

    def _interrupted_create(self) -> bool:
        """The shard's folders exist but neither its config nor any segment was written."""
        segments = self._shard_path / "segments"
        return not (self._shard_path / "edge_config.json").exists() and not any(segments.iterdir())

    def _load(self) -> qe.EdgeShard:
        # Before the engine maps anything: a page it cannot get for a map is a SIGBUS, not an error
        check_room_to_open(self._shard_path, creating=False)
        with _translate_lock_error(self.path):
            return qe.EdgeShard.load(str(self._shard_path))

    def _read_info(self) -> IndexInfo | None:
        try:
            data = json.loads(self._info_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError):
            data = {}  # unreadable: treated like a missing description
        return info_from_dict(data) if isinstance(data, dict) else None

    def _write_info(self, info: IndexInfo) -> None:
        # Written to a temporary name and renamed, so a crash never leaves half a file.
        self.path.mkdir(parents=True, exist_ok=True)
        tmp = self._info_path.with_suffix(".tmp")
        tmp.write_text(json.dumps(info_to_dict(info), indent=2) + "\n", encoding="utf-8")
        tmp.replace(self._info_path)


@contextmanager
def _translate_lock_error(path: Path) -> Iterator[None]:
    """The engine raises a bare Exception; the one for a held WAL lock becomes StoreLockedError."""
    try:
        yield
    except Exception as err:
        if "WouldBlock" not in str(err):
            raise
        raise StoreLockedError(
            f"The vector index at {path} is open in another agent-zot process.",
            hint="Close the other process (an MCP server or `agent-zot update-db`) or wait for it to finish.",
        ) from err


def _ensure_payload_indexes(shard: qe.EdgeShard) -> None:
    """Index the filtered fields; on every open, so a shard whose creation was interrupted gets them too."""
    present = set(shard.info().payload_schema)
    wanted = [(f, qe.PayloadSchemaType.Keyword) for f in KEYWORD_FIELDS]
    wanted += [(f, qe.PayloadSchemaType.Integer) for f in INTEGER_FIELDS]
    missing = [(field, schema) for field, schema in wanted if field not in present]
    for field, schema in missing:
        shard.update(qe.UpdateOperation.create_field_index(field, schema))
    if missing:
        shard.flush()


def _to_edge_point(point: Point) -> qe.Point:
    vectors: dict[str, Any] = {DENSE: as_floats(point.dense)}
    if point.sparse is not None and point.sparse.indices:
        vectors[SPARSE] = qe.SparseVector(list(point.sparse.indices), [float(v) for v in point.sparse.values])
    return qe.Point(point.id, vectors, point.payload)


def _from_edge_record(point_id: Any, vectors: Any, payload: dict[str, Any] | None) -> Point:
    named = vectors if isinstance(vectors, dict) else {DENSE: vectors}
    sparse = named.get(SPARSE)
    return Point(
        str(point_id),
        list(named[DENSE]),
        SparseVector(list(sparse.indices), list(sparse.values)) if sparse is not None else None,
        payload or {},
    )


def _to_query(request: SearchRequest, *, with_payload: bool = True) -> qe.QueryRequest | None:
    """The engine's request for one search (``with_payload`` False: its hits' ids and scores only); None
    when it can find nothing (no dense vector, no terms)."""
    r = request
    sparse = check_search_args(r.dense, r.sparse, r.fusion, r.limit)
    if r.dense is None and sparse is None:
        return None
    engine_filter = _to_filter(r.filter)
    fields: Any = with_payload and (
        True if r.payload is None else qe.PayloadSelector.Include(list(r.payload))
    )
    queries = []
    if r.dense is not None:
        queries.append(qe.Query.Nearest(as_floats(r.dense), using=DENSE))
    if sparse is not None:
        queries.append(
            qe.Query.Nearest(qe.SparseVector(list(sparse.indices), list(sparse.values)), using=SPARSE)
        )
    if len(queries) == 1:
        return qe.QueryRequest(limit=r.limit, query=queries[0], filter=engine_filter, with_payload=fields)
    # The filter goes on each prefetch too, so every candidate list is drawn from matching points.
    stages = [qe.Prefetch(limit=max(r.prefetch, r.limit), query=q, filter=engine_filter) for q in queries]
    # the stub declares the variants apart from Fusion; at run time they subclass it
    fused: qe.Fusion = qe.Fusion.Rrf(k=RRF_K) if r.fusion == "rrf" else qe.Fusion.Dbsf()  # type: ignore[assignment]
    return qe.QueryRequest(
        limit=r.limit, prefetches=stages, query=fused, filter=engine_filter, with_payload=fields
    )


def _to_filter(search_filter: SearchFilter | None) -> qe.Filter | None:
    conditions: list[qe.ConditionType] = [_to_condition(c) for c in filter_conditions(search_filter)]
    return qe.Filter(must=conditions) if conditions else None


def _to_condition(condition: Condition) -> qe.FieldCondition:
    if condition.any_of:
        return qe.FieldCondition(condition.key, match=qe.MatchAny(list(condition.any_of)))
    return qe.FieldCondition(condition.key, range=qe.RangeFloat(gte=condition.gte, lte=condition.lte))
