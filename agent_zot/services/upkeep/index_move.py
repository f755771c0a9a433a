"""Moving the full-text index between the embedded store and a Qdrant server without re-embedding
(`agent-zot index move --to qdrant|edge`).

Every point of the live generation is copied with its vectors and payload, page by page, into the target
store (the collection or folder that generation would have there). The copy is resumable: the offset of
the next page is kept in the index state after each page, so a move that was interrupted continues where it
stopped (points are upserted by id, so a page copied twice is harmless). It ends verified: the same number
of points, and for a sample of points spread over the index the same payload and a search with the point's
own vector finding it first. The state database is shared by both stores, so once the settings name the
target store, `update-db` finds nothing to do.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

from agent_zot.errors import AgentZotError, ConfigError
from agent_zot.index.resources import server_collection
from agent_zot.index.store import Point, VectorStore
from agent_zot.index.store_choice import open_store
from agent_zot.services.context import AppContext

PAGE = 512
SPOT_CHECKS = 32
_RESUME_KEY = "move_offset:{target}"


class MoveError(AgentZotError):
    """The copy did not verify; the source index is untouched."""


@dataclass(frozen=True, slots=True)
class MoveResult:
    target: str  # where the points went, in words
    points: int
    copied: int  # points copied in this run (fewer than points when it resumed)
    checked: int  # points spot-checked
    seconds: float
    resumed: bool

    def to_dict(self) -> dict[str, object]:
        return {
            "target": self.target,
            "points": self.points,
            "copied": self.copied,
            "checked": self.checked,
            "seconds": round(self.seconds, 2),
            "resumed": self.resumed,
        }


def target_store(
    ctx: AppContext, to: str, *, qdrant_url: str | None = None, qdrant_path: Path | None = None
) -> tuple[VectorStore, str]:
    """The store the live generation moves to, and a description of it."""
    settings = ctx.settings
    resources = ctx.index()
    if to == settings.vector_store and not (to == "qdrant" and (qdrant_url or qdrant_path)):
        raise ConfigError(
            f"The index is already in the {to} store.", hint="Name the other store: --to edge or --to qdrant."
        )
    options = {
        "hnsw_m": settings.hnsw_m,
        "ef_construct": settings.hnsw_ef_construct,
        "quantization": None if settings.quantization in (None, "none", "") else settings.quantization,
    }
    if to == "edge":
        folder = resources.folder / "vectors"
        folder.mkdir(parents=True, exist_ok=True)
        return open_store("edge", path=folder, **options), f"the embedded store in {folder}"
    url = qdrant_url or (None if qdrant_path else settings.qdrant_url)
    if url is None and qdrant_path is None:
        raise ConfigError(
            "Which Qdrant server? No qdrant_url is configured.",
            hint="Pass --qdrant-url http://host:6333 or set qdrant_url (AGENT_ZOT_QDRANT_URL).",
        )
    secret = settings.qdrant_api_key
    collection = server_collection(resources.generation)
    store = open_store(
        "qdrant",
        url=url,
        path=qdrant_path,
        api_key=secret.get_secret_value() if secret else None,
        collection=collection,
        shard_number=settings.qdrant_shard_number,
        replication_factor=settings.qdrant_replication_factor,
        **options,
    )
    where = url or f"qdrant-client local mode in {qdrant_path}"
    return store, f"collection {collection} on {where}"


def move_index(
    ctx: AppContext,
    target: VectorStore,
    description: str,
    *,
    page: int = PAGE,
    progress: Callable[[int, int], None] | None = None,
) -> MoveResult:
    """Copy every point of the live index into ``target``, resuming an interrupted move, then verify."""
    started = time.perf_counter()
    resources = ctx.index()
    info = resources.open()
    source = resources.store
    target.open_or_create(model=info.model, dense_dim=info.dense_dim, sparse=info.sparse)
    total = source.count()
    key = _RESUME_KEY.format(target=description)
    offset = resources.state.get_meta(key) or None
    resumed = offset is not None

    def saved(following: str, done: int) -> None:
        resources.state.set_meta(key, following)
        if progress is not None:
            progress(done, total)

    copied, sample = copy_points(source, target, offset=offset, page=page, on_page=saved)
    target.optimize()
    checked = _verify(source, target, sample, total)
    resources.state.set_meta(key, "")
    return MoveResult(description, total, copied, checked, time.perf_counter() - started, resumed)


def copy_points(
    source: VectorStore,
    target: VectorStore,
    *,
    offset: str | None = None,
    page: int = PAGE,
    on_page: Callable[[str, int], None] | None = None,
) -> tuple[int, list[Point]]:
    """Copy every point from ``offset`` on, a page at a time; ``on_page(next_offset, copied)`` runs after
    each page but the last. Returns how many were copied and a random sample of them (for checks)."""
    copied, seen = 0, 0
    sample: list[Point] = []
    rng = random.Random(7)
    while True:
        points, following = source.points(offset=offset, limit=page)
        if points:
            target.upsert(points)
        for point in points:  # reservoir sampling: every point equally likely to be checked
            seen += 1
            if len(sample) < SPOT_CHECKS:
                sample.append(point)
            elif (slot := rng.randrange(seen)) < SPOT_CHECKS:
                sample[slot] = point
        copied += len(points)
        if following is None:
            return copied, sample
        if on_page is not None:
            on_page(following, copied)
        offset = following


def _verify(source: VectorStore, target: VectorStore, sample: list[Point], total: int) -> int:
    moved = target.count()
    if moved > total:
        raise MoveError(
            f"The target holds {moved:,} points, more than the index's {total:,}: it already held other points.",
            hint="Move into an empty collection or folder (drop the old one first). The current index is unchanged.",
        )
    if moved != total or source.count() != total:
        raise MoveError(
            f"The copy holds {moved:,} points; the index holds {total:,}.",
            hint="Run the move again: it continues where it stopped. The current index is unchanged.",
        )
    for point in sample:
        stored = {hit.id: hit for hit in target.get_by_item(point.payload.get("item_key", ""))}
        hit = stored.get(point.id)
        if hit is None or hit.payload != point.payload:
            raise MoveError(
                f"Point {point.id} did not arrive intact.",
                hint="Run the move again; the current index is unchanged.",
            )
        top = target.search(point.dense, None, limit=5)
        if not top or top[0].id not in {point.id, *_twins(source, point)}:
            raise MoveError(
                f"Point {point.id} is not found by its own vector in the copy.",
                hint="Run the move again; the current index is unchanged.",
            )
    return len(sample)


def _twins(source: VectorStore, point: Point) -> set[str]:
    """Points with the very same vector as ``point`` (a chunk indexed twice): any of them may come first."""
    return {hit.id for hit in source.search(point.dense, None, limit=5) if hit.score >= 0.9999}
