"""The vector store on ``qdrant-client``: a Qdrant server (``url``), or local mode (``path`` or in memory).

The collection has the same layout as the embedded store: named vectors "dense" (cosine, HNSW, scalar int8
quantization) and "sparse" (IDF modifier for BM25), and keyword/integer payload indexes for the filters.
Local mode is exact brute force in Python and ignores quantization, HNSW and payload indexes: fine for
tests and small libraries.

The model, dense dimension and sparse kind the index was built with live in the collection's metadata
(``metadata["agent_zot_index"]``). Metadata is stored by the server itself and by local mode in its
``meta.json``, so one mechanism serves both, survives snapshots and needs no marker point that searches,
counts and filters would have to skip. It needs a server with collection metadata (Qdrant 1.16 or later);
an older server drops it, and the next open then reports the index as undescribed.
"""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from qdrant_client import QdrantClient, models
from qdrant_client.http.exceptions import ResponseHandlingException, UnexpectedResponse

from agent_zot.errors import AgentZotError
from agent_zot.index.space import disk_usage
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
    IndexMismatchError,
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

METADATA_KEY = "agent_zot_index"
QUANTIZATIONS = ("int8", None)
_UPSERT_BATCH = 256  # points per request: keeps server requests well under its size limit
_SCROLL_PAGE = 512
_OPTIMIZE_TIMEOUT_S = 3600.0
_OPTIMIZE_POLL_S = 1.0


class QdrantStore:
    """A ``VectorStore`` on a Qdrant server or in qdrant-client's local mode.

    With neither ``url`` nor ``path`` the collection lives in memory. Nothing connects until
    ``open_or_create``.
    """

    def __init__(
        self,
        url: str | None = None,
        *,
        path: Path | None = None,
        api_key: str | None = None,
        collection: str = "agent_zot",
        hnsw_m: int = 16,
        ef_construct: int = 100,
        quantization: str | None = "int8",
        shard_number: int | None = None,
        replication_factor: int | None = None,
    ) -> None:
        if quantization not in QUANTIZATIONS:
            raise ValueError(f"unknown quantization {quantization!r}; expected one of {QUANTIZATIONS}")
        if url is not None and path is not None:
            raise ValueError("give either a server url or a local path, not both")
        self.url = url
        self.path = Path(path) if path is not None else None
        self.api_key = api_key
        self.collection = collection
        self.hnsw_m = hnsw_m
        self.ef_construct = ef_construct
        self.quantization = quantization
        # Qdrant's distributed mode: how a new collection is split and copied across the cluster's nodes.
        self.shard_number = shard_number
        self.replication_factor = replication_factor
        self._client: QdrantClient | None = None

    @property
    def _where(self) -> str:
        place = self.url or (str(self.path) if self.path is not None else "memory")
        return f"{place} (collection '{self.collection}')"

    # -- lifecycle ------------------------------------------------------------------------------

    def open_or_create(self, *, model: str, dense_dim: int, sparse: str) -> IndexInfo:
        client = self._connect()
        if self._reachable_collection_exists(client):
            try:
                stored = self._stored_info(client)
                if stored is None:
                    raise unknown_index_error(self._where, model=model, dense_dim=dense_dim, sparse=sparse)
                check_compatible(stored, model=model, dense_dim=dense_dim, sparse=sparse, where=self._where)
            except IndexMismatchError:
                self.close()  # release local mode's folder lock, so a rebuild can open it
                raise
        else:
            self._create(client, IndexInfo(model, dense_dim, sparse, 0))
        return IndexInfo(model, dense_dim, sparse, self.count())

    def _reachable_collection_exists(self, client: QdrantClient) -> bool:
        """Whether the collection exists; a server that does not answer is a clear error, not a trace."""
        try:
            return client.collection_exists(self.collection)
        except (ResponseHandlingException, UnexpectedResponse) as err:
            self.close()
            raise StoreUnavailableError(
                f"Cannot reach the Qdrant server at {self.url}: {_reason(err)}.",
                hint="Check that it is running and that qdrant_url (and qdrant_api_key) are right; "
                "`agent-zot doctor` checks it.",
            ) from err

    def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            client.close()

    def drop(self) -> None:
        client = self._connect()
        client.delete_collection(self.collection)
        self.close()

    def optimize(self) -> None:
        """A server indexes in the background: wait until it reports the collection optimized (green)."""
        client = self._require()
        if self.url is None:
            return  # local mode has no index to build
        deadline = time.monotonic() + _OPTIMIZE_TIMEOUT_S
        while client.get_collection(self.collection).status != models.CollectionStatus.GREEN:
            if time.monotonic() > deadline:
                raise TimeoutError(
                    f"Qdrant did not finish optimizing {self._where} in {_OPTIMIZE_TIMEOUT_S:.0f} s"
                )
            time.sleep(_OPTIMIZE_POLL_S)

    def disk_size_bytes(self) -> int:
        """Local mode's folder; 0 in memory and for a server (its files are not ours to see)."""
        return disk_usage(self.path) if self.path is not None else 0

    # -- writes -----------------------------------------------------------------------------------

    def upsert(self, points: Sequence[Point]) -> None:
        client = self._require()
        for start in range(0, len(points), _UPSERT_BATCH):
            batch = [_to_point_struct(p) for p in points[start : start + _UPSERT_BATCH]]
            client.upsert(self.collection, points=batch, wait=True)

    def delete_items(self, item_keys: Sequence[str], *, kinds: Sequence[str] = ()) -> None:
        self._delete_where("item_key", item_keys, kinds)

    def delete_attachments(self, attachment_keys: Sequence[str]) -> None:
        self._delete_where("attachment_key", attachment_keys)

    def _delete_where(self, key: str, values: Sequence[str], kinds: Sequence[str] = ()) -> None:
        client = self._require()
        if values:
            must: list[models.Condition] = [
                models.FieldCondition(key=key, match=models.MatchAny(any=list(values)))
            ]
            if kinds:
                must.append(models.FieldCondition(key="kind", match=models.MatchAny(any=list(kinds))))
            match = models.Filter(must=must)
            client.delete(self.collection, points_selector=models.FilterSelector(filter=match), wait=True)

    def set_payloads(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        client = self._require()
        operations: list[Any] = []
        for key, fields in updates.items():
            only_item = models.Filter(
                must=[models.FieldCondition(key="item_key", match=models.MatchValue(value=key))]
            )
            values = {name: value for name, value in fields.items() if value is not None}
            if values:
                operations.append(
                    models.SetPayloadOperation(
                        set_payload=models.SetPayload(payload=values, filter=only_item)
                    )
                )
            if cleared := [name for name, value in fields.items() if value is None]:
                operations.append(
                    models.DeletePayloadOperation(
                        delete_payload=models.DeletePayload(keys=cleared, filter=only_item)
                    )
                )
        for start in range(0, len(operations), _UPSERT_BATCH):  # one request per batch of items
            client.batch_update_points(self.collection, operations[start : start + _UPSERT_BATCH], wait=True)

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
        client = self._require()
        planned = [_to_query(r) for r in requests]  # every request checked before any runs
        asked = [q for q in planned if q is not None]
        answers = client.query_batch_points(self.collection, asked) if asked else []
        found = iter(answers)
        return [
            [Hit(str(p.id), float(p.score), p.payload or {}) for p in next(found).points]
            if q is not None
            else []
            for q in planned
        ]

    def count(self, filter: SearchFilter | None = None) -> int:
        client = self._require()
        return client.count(self.collection, count_filter=_to_filter(filter), exact=True).count

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        if not ids:
            return set()
        found = self._require().retrieve(self.collection, list(ids), with_payload=False, with_vectors=False)
        return {str(record.id) for record in found}

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        if not ids:
            return {}
        found = self._require().retrieve(self.collection, list(ids), with_payload=True, with_vectors=False)
        return {str(record.id): record.payload or {} for record in found}

    def points_per_item(self) -> dict[str, int]:
        client = self._require()
        found = client.facet(self.collection, "item_key", limit=max(1, self.count()), exact=True)
        return {str(hit.value): hit.count for hit in found.hits if hit.count}

    def points(self, *, offset: str | None = None, limit: int = 256) -> tuple[list[Point], str | None]:
        client = self._require()
        records, following = client.scroll(
            self.collection, limit=limit, offset=offset, with_payload=True, with_vectors=True
        )
        found = []
        for record in records:
            named = record.vector if isinstance(record.vector, dict) else {DENSE: record.vector}
            sparse = named.get(SPARSE)
            found.append(
                Point(
                    str(record.id),
                    list(named[DENSE]),  # type: ignore[arg-type]
                    SparseVector(list(sparse.indices), list(sparse.values)) if sparse is not None else None,  # type: ignore[union-attr]
                    record.payload or {},
                )
            )
        return found, str(following) if following is not None else None

    def get_by_item(self, item_key: str) -> list[Hit]:
        client = self._require()
        match = models.Filter(
            must=[models.FieldCondition(key="item_key", match=models.MatchValue(value=item_key))]
        )
        hits: list[Hit] = []
        offset: Any = None
        while True:
            records, offset = client.scroll(
                self.collection, scroll_filter=match, limit=_SCROLL_PAGE, offset=offset, with_payload=True
            )
            hits.extend(Hit(str(r.id), 0.0, r.payload or {}) for r in records)
            if offset is None:
                return reading_order(hits)

    # -- internals --------------------------------------------------------------------------------

    def _connect(self) -> QdrantClient:
        if self._client is None:
            self._client = self._new_client()
        return self._client

    def _new_client(self) -> QdrantClient:
        if self.url is not None:
            # check_compatibility off: an unreachable server is reported by open_or_create, clearly.
            return QdrantClient(url=self.url, api_key=self.api_key, check_compatibility=False)
        if self.path is None:
            return QdrantClient(location=":memory:")
        try:
            return QdrantClient(path=str(self.path))
        except RuntimeError as err:  # local mode locks its folder with an OS file lock
            if "already accessed" not in str(err):
                raise
            raise StoreLockedError(
                f"The vector index at {self.path} is open in another agent-zot process.",
                hint="Close the other process (an MCP server or `agent-zot update-db`) or wait for it to finish.",
            ) from err

    def _require(self) -> QdrantClient:
        if self._client is None:
            raise RuntimeError("QdrantStore is not open: call open_or_create() first")
        return self._client

    def _stored_info(self, client: QdrantClient) -> IndexInfo | None:
        metadata = client.get_collection(self.collection).config.metadata or {}
        data = metadata.get(METADATA_KEY)
        return info_from_dict(data) if isinstance(data, dict) else None

    def _create(self, client: QdrantClient, info: IndexInfo) -> None:
        modifier = models.Modifier.IDF if info.sparse in IDF_SPARSE_KINDS else None
        quantization = None
        if self.quantization == "int8":
            # always_ram rather than the newer `memory`: older servers understand it too.
            quantization = models.ScalarQuantization(
                scalar=models.ScalarQuantizationConfig(
                    type=models.ScalarType.INT8, quantile=0.99, always_ram=True
                )
            )
        cluster = self._cluster_options()
        client.create_collection(
            self.collection,
            vectors_config={DENSE: models.VectorParams(size=info.dense_dim, distance=models.Distance.COSINE)},
            sparse_vectors_config={SPARSE: models.SparseVectorParams(modifier=modifier)},
            hnsw_config=models.HnswConfigDiff(m=self.hnsw_m, ef_construct=self.ef_construct),
            quantization_config=quantization,
            metadata={METADATA_KEY: info_to_dict(info)},
            shard_number=cluster.get("shard_number"),
            replication_factor=cluster.get("replication_factor"),
        )
        if self.url is not None:  # local mode has no payload indexes (and warns when asked for one)
            self._create_payload_indexes(client)

    def _cluster_options(self) -> dict[str, int]:
        if self.url is None:  # local mode is one process: nothing to shard or replicate
            return {}
        options = {"shard_number": self.shard_number, "replication_factor": self.replication_factor}
        return {name: value for name, value in options.items() if value is not None}

    def _create_payload_indexes(self, client: QdrantClient) -> None:
        for field in KEYWORD_FIELDS:
            client.create_payload_index(self.collection, field, models.PayloadSchemaType.KEYWORD, wait=True)
        for field in INTEGER_FIELDS:
            client.create_payload_index(self.collection, field, models.PayloadSchemaType.INTEGER, wait=True)


class StoreUnavailableError(AgentZotError):
    """The Qdrant server did not answer, or refused the request."""


def _reason(err: Exception) -> str:
    text = str(err).strip() or type(err).__name__
    return text.splitlines()[0][:200]


def _to_point_struct(point: Point) -> models.PointStruct:
    vectors: dict[str, Any] = {DENSE: as_floats(point.dense)}
    if point.sparse is not None and point.sparse.indices:
        vectors[SPARSE] = models.SparseVector(
            indices=list(point.sparse.indices), values=[float(v) for v in point.sparse.values]
        )
    return models.PointStruct(id=point.id, vector=vectors, payload=point.payload)


def _to_query(request: SearchRequest) -> models.QueryRequest | None:
    """The client's request for one search; None when it can find nothing (no dense vector, no terms)."""
    r = request
    sparse = check_search_args(r.dense, r.sparse, r.fusion, r.limit)
    if r.dense is None and sparse is None:
        return None
    query_filter = _to_filter(r.filter)
    fields: Any = True if r.payload is None else list(r.payload)
    stages: list[tuple[Any, str]] = []
    if r.dense is not None:
        stages.append((as_floats(r.dense), DENSE))
    if sparse is not None:
        stages.append((models.SparseVector(indices=list(sparse.indices), values=list(sparse.values)), SPARSE))
    if len(stages) == 1:
        query, using = stages[0]
        return models.QueryRequest(
            query=query, using=using, filter=query_filter, limit=r.limit, with_payload=fields
        )
    # The filter goes on each prefetch too, so every candidate list is drawn from matching points.
    prefetches = [
        models.Prefetch(query=q, using=u, limit=max(r.prefetch, r.limit), filter=query_filter)
        for q, u in stages
    ]
    fused: Any = (
        models.RrfQuery(rrf=models.Rrf(k=RRF_K))
        if r.fusion == "rrf"
        else models.FusionQuery(fusion=models.Fusion.DBSF)
    )
    return models.QueryRequest(
        prefetch=prefetches, query=fused, filter=query_filter, limit=r.limit, with_payload=fields
    )


def _to_filter(search_filter: SearchFilter | None) -> models.Filter | None:
    conditions: list[Any] = [_to_condition(c) for c in filter_conditions(search_filter)]
    return models.Filter(must=conditions) if conditions else None


def _to_condition(condition: Condition) -> models.FieldCondition:
    if condition.any_of:
        return models.FieldCondition(key=condition.key, match=models.MatchAny(any=list(condition.any_of)))
    return models.FieldCondition(key=condition.key, range=models.Range(gte=condition.gte, lte=condition.lte))
