"""Scale benchmark of the vector stores on synthetic chunk points.

    .venv/bin/python scripts/bench_store.py [--points 200000] [--compare-points 20000] [--json]

Points look like real ones: a 384-d normalised float32 dense vector, a sparse vector of about 40 terms drawn
from a Zipf-like vocabulary of 30k hashed term ids (as the BM25 encoder produces), and a payload with ~1 kB of
text, year, type, collections, tags and creators. Points are generated a batch at a time, so the benchmark
holds one batch, not the corpus: the build's RSS is the store's. Measured per run, store calls only (data
generation is not timed): upsert rate in batches, optimize (index build) time in wall and CPU seconds,
one-call hybrid RRF query latency p50/p95 with and without a selective filter, zot_search's store queries per
request class (plain, collection, tag, author, year: the scope filter as ``Filters.store_filter`` makes it,
limited to the papers' kinds, one dense and one sparse query of 80 hits fused as ``retrieval.fuse`` does), the
time to open an empty and a full store, disk size, and peak RSS after loading and after optimizing.

Runs: EdgeStore at --points, and EdgeStore and QdrantStore (local mode) at --compare-points (0 skips them).
Each run is a fresh process, so peak RSS belongs to that run alone.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import sys
import tempfile
import time
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_zot.index.query_vectors import papers_only
from agent_zot.index.retrieval import CHUNKS_PER_PAPER, MIN_FETCH, fuse
from agent_zot.index.store import Point, SearchFilter, SparseVector, VectorStore
from agent_zot.index.store_choice import open_store
from agent_zot.services.resolve.scope import Filters

DIM = 384
VOCAB = 30_000
TERMS = 40
CHUNKS_PER_ITEM = 50
MODEL = "bench-minilm"
NS = uuid.UUID("0b5e7c1a-3d2f-4e6a-9c8b-7a6f5e4d3c2b")
ITEM_TYPES = ["journalArticle"] * 6 + ["conferencePaper"] * 2 + ["book", "bookSection", "thesis", "report"]
SECTIONS = [
    "Abstract",
    "Introduction",
    "Related work",
    "Methods",
    "Results",
    "Discussion",
    "Conclusion",
    None,
]


class Corpus:
    """Deterministic synthetic points and queries; everything derives from one seed."""

    def __init__(self, seed: int = 7) -> None:
        self.rng = np.random.default_rng(seed)
        ranks = np.arange(1, VOCAB + 1, dtype=np.float64)
        self.term_cdf = np.cumsum(1.0 / ranks**1.07)
        self.term_cdf /= self.term_cdf[-1]
        # Hashed ids like the BM25 encoder's: spread over 31 bits, not 0..VOCAB.
        self.term_ids = self.rng.choice(2**31 - 1, size=VOCAB, replace=False)
        words = [
            "".join(self.rng.choice(list("abcdefghijklmnopqrstuvwxyz"), size=n)) for n in self._lengths(3000)
        ]
        self.texts = [" ".join(self.rng.choice(words, size=160)) for _ in range(500)]
        self.surnames = [f"{w.capitalize()}" for w in words[:2000]]
        self.collections = [f"C{i:07d}" for i in range(60)]
        self.tags = [f"tag-{w}" for w in words[2000:2300]]

    def _lengths(self, n: int) -> np.ndarray:
        return np.clip(self.rng.poisson(6, size=n), 2, 14)

    def dense(self, n: int) -> np.ndarray:
        vectors = self.rng.standard_normal((n, DIM), dtype=np.float32)
        return vectors / np.linalg.norm(vectors, axis=1, keepdims=True)

    def sparse_document(self) -> SparseVector:
        draws = np.searchsorted(self.term_cdf, self.rng.random(int(TERMS * 1.6)))
        ranks, counts = np.unique(draws, return_counts=True)
        keep = np.argsort(-counts, kind="stable")[:TERMS]
        tf = counts[keep].astype(np.float64)
        weights = tf * 2.2 / (tf + 1.2)  # BM25 tf saturation with k1=1.2 at average length
        order = np.argsort(self.term_ids[ranks[keep]])
        return SparseVector(self.term_ids[ranks[keep]][order].tolist(), weights[order].tolist())

    def sparse_query(self) -> SparseVector:
        # Queries use a few mid-frequency terms: skip the head of the distribution (stopword-like terms).
        ranks = np.unique(self.rng.integers(20, 3000, size=int(self.rng.integers(3, 8))))
        ids = np.sort(self.term_ids[ranks])
        return SparseVector(ids.tolist(), [1.0] * len(ids))

    def payload(self, i: int) -> dict[str, Any]:
        item = i // CHUNKS_PER_ITEM
        rng = np.random.default_rng(item)  # the same item metadata on every chunk of the item
        kind = "metadata" if i % CHUNKS_PER_ITEM == 0 else "chunk"
        page = (i % CHUNKS_PER_ITEM) // 3 + 1
        return {
            "item_key": f"I{item:07d}",
            "attachment_key": None if kind == "metadata" else f"A{item:07d}",
            "kind": kind,
            "text": self.texts[i % len(self.texts)],
            "page_start": page,
            "page_end": page + int(i % 3 == 2),
            "section": SECTIONS[i % len(SECTIONS)],
            "year": int(rng.integers(1980, 2026)),
            "item_type": str(rng.choice(ITEM_TYPES)),
            "collections": rng.choice(self.collections, size=int(rng.integers(0, 4)), replace=False).tolist(),
            "tags": rng.choice(self.tags, size=int(rng.integers(0, 6)), replace=False).tolist(),
            "creators": rng.choice(self.surnames, size=int(rng.integers(1, 7)), replace=False).tolist(),
            "title": " ".join(self.texts[item % len(self.texts)].split()[:10]),
        }

    def batches(self, total: int, size: int) -> Iterator[list[Point]]:
        for start in range(0, total, size):
            n = min(size, total - start)
            dense = self.dense(n)
            yield [
                Point(
                    str(uuid.uuid5(NS, str(start + j))),
                    dense[j],
                    self.sparse_document(),
                    self.payload(start + j),
                )
                for j in range(n)
            ]


def percentile(samples: list[float], q: float) -> float:
    return float(np.percentile(np.asarray(samples), q))


def time_queries(
    store: VectorStore, queries: list[tuple[np.ndarray, SparseVector]], f: SearchFilter | None
) -> list[float]:
    """Milliseconds per hybrid RRF query (limit 10, prefetch 100), store call only."""
    times = []
    for dense, sparse in queries:
        started = time.perf_counter()
        store.search(dense, sparse, limit=10, filter=f, fusion="rrf", prefetch=100)
        times.append((time.perf_counter() - started) * 1000)
    return times


SCOPES = ("plain", "collection", "tag", "author", "year")
SEARCH_FETCH = max(MIN_FETCH, 10 * CHUNKS_PER_PAPER)  # zot_search's default of 10 papers


def scope_filter(corpus: Corpus, scope: str, n: int) -> SearchFilter:
    """The store filter of the ``n``-th request of a class, as zot_search sends it (values vary by request)."""
    filters = {
        "plain": Filters(),
        # a collection with two sub-collections; a tag in two spellings; one author; a six-year span
        "collection": Filters(collection_keys=tuple(corpus.collections[(3 * n + j) % 60] for j in range(3))),
        "tag": Filters(tags=(corpus.tags[n % 50], corpus.tags[n % 50].upper())),
        "author": Filters(authors=(corpus.surnames[n % 500],)),
        "year": Filters(year_min=1990 + n % 30, year_max=1995 + n % 30),
    }[scope]
    return papers_only(filters.store_filter())


def time_scoped(
    store: VectorStore, corpus: Corpus, queries: list[tuple[np.ndarray, SparseVector]], scope: str
) -> list[float]:
    """Milliseconds per request for zot_search's store part: a dense and a sparse query, then the fusion."""
    times = []
    for n, (dense, sparse) in enumerate(queries):
        f = scope_filter(corpus, scope, n)
        started = time.perf_counter()
        lists = {
            "dense": store.search(dense, None, limit=SEARCH_FETCH, filter=f),
            "sparse": store.search(None, sparse, limit=SEARCH_FETCH, filter=f),
        }
        fuse(lists, method="rrf")
        times.append((time.perf_counter() - started) * 1000)
    return times


def make_store(kind: str, folder: Path) -> VectorStore:
    return open_store("edge" if kind == "edge" else "qdrant", path=folder)


def peak_rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024  # KB on Linux


def build_phase(kind: str, folder: Path, points: int, batch: int) -> dict[str, Any]:
    """Create (timing an empty reopen), bulk load and optimize."""
    store = make_store(kind, folder)
    store.open_or_create(model=MODEL, dense_dim=DIM, sparse="bm25")
    store.close()
    store = make_store(kind, folder)  # constructing imports the engine; only the open is timed
    started = time.perf_counter()
    store.open_or_create(model=MODEL, dense_dim=DIM, sparse="bm25")
    open_empty_ms = (time.perf_counter() - started) * 1000

    upsert_s = 0.0
    for chunk in Corpus().batches(points, batch):
        started = time.perf_counter()
        store.upsert(chunk)
        upsert_s += time.perf_counter() - started
    load_rss_mb = peak_rss_mb()
    started, cpu_started = time.perf_counter(), time.process_time()
    store.optimize()
    # CPU seconds of all the engine's threads: on a shared machine the wall time measures the neighbours too
    optimize_cpu_s = time.process_time() - cpu_started
    optimize_s = time.perf_counter() - started
    store.close()
    return {
        "upsert_pts_s": points / upsert_s,
        "optimize_s": optimize_s,
        "optimize_cpu_s": optimize_cpu_s,
        "open_empty_ms": open_empty_ms,
        "load_rss_mb": load_rss_mb,
        "build_rss_mb": peak_rss_mb(),
    }


def serve_phase(kind: str, folder: Path, n_queries: int) -> dict[str, Any]:
    """What a freshly started server sees: open time, first query, latencies, memory."""
    corpus = Corpus(seed=11)
    queries = [(corpus.dense(1)[0], corpus.sparse_query()) for _ in range(n_queries)]
    # Filter values come from the built corpus's names: another seed's tags and authors match no point.
    built = Corpus()
    store = make_store(kind, folder)
    started = time.perf_counter()
    store.open_or_create(model=MODEL, dense_dim=DIM, sparse="bm25")
    open_ms = (time.perf_counter() - started) * 1000
    first_query_ms = time_queries(store, queries[:1], None)[0]
    hybrid = time_queries(store, queries, None)
    selective = SearchFilter(year_min=2000, tags=(built.tags[0],), kinds=("chunk",))
    filtered = time_queries(store, queries, selective)
    scoped = {scope: time_scoped(store, built, queries, scope) for scope in SCOPES}
    disk = store.disk_size_bytes()
    store.close()
    return {
        **{f"{scope}_p{q}_ms": percentile(scoped[scope], q) for scope in SCOPES for q in (50, 95)},
        "open_ms": open_ms,
        "first_query_ms": first_query_ms,
        "hybrid_p50_ms": percentile(hybrid, 50),
        "hybrid_p95_ms": percentile(hybrid, 95),
        "filtered_p50_ms": percentile(filtered, 50),
        "filtered_p95_ms": percentile(filtered, 95),
        "disk_mb": disk / 2**20,
        "serve_rss_mb": peak_rss_mb(),
    }


def run_case(kind: str, points: int, args: argparse.Namespace, workdir: str) -> dict[str, Any]:
    """Each phase in a fresh process: peak RSS is the phase's own, and serving starts from a cold process."""
    folder = Path(workdir) / f"{kind}-{points}"
    n_queries = args.compare_queries if kind == "qdrant" else args.queries
    row: dict[str, Any] = {"store": "edge" if kind == "edge" else "qdrant-local", "points": points}
    ctx = multiprocessing.get_context("spawn")
    for phase, phase_args in (
        (build_phase, (kind, folder, points, args.batch)),
        (serve_phase, (kind, folder, n_queries)),
    ):
        with ctx.Pool(1) as pool:
            row |= pool.apply(phase, phase_args)
    return row


def print_table(rows: list[dict[str, Any]]) -> None:
    columns = [
        ("store", "store", "{}"),
        ("points", "points", "{:,}"),
        ("upsert pts/s", "upsert_pts_s", "{:,.0f}"),
        ("optimize s wall/CPU", ("optimize_s", "optimize_cpu_s"), "{:.1f} / {:.1f}"),
        ("hybrid p50/p95 ms", ("hybrid_p50_ms", "hybrid_p95_ms"), "{:.2f} / {:.2f}"),
        ("filtered p50/p95 ms", ("filtered_p50_ms", "filtered_p95_ms"), "{:.2f} / {:.2f}"),
        ("open empty ms", "open_empty_ms", "{:.0f}"),
        ("open full ms", "open_ms", "{:.0f}"),
        ("1st query ms", "first_query_ms", "{:.2f}"),
        ("disk MB", "disk_mb", "{:.0f}"),
        ("RSS load/build/serve MB", ("load_rss_mb", "build_rss_mb", "serve_rss_mb"), "{:.0f}/{:.0f}/{:.0f}"),
        *((f"{scope} p50/p95", (f"{scope}_p50_ms", f"{scope}_p95_ms"), "{:.1f}/{:.1f}") for scope in SCOPES),
    ]
    cells = [[title for title, _, _ in columns]]
    for row in rows:
        cells.append(
            [
                fmt.format(*(row[k] for k in ((key,) if isinstance(key, str) else key)))
                for _, key, fmt in columns
            ]
        )
    widths = [max(len(r[i]) for r in cells) for i in range(len(columns))]
    for n, line in enumerate(cells):
        print("  ".join(cell.rjust(w) for cell, w in zip(line, widths, strict=True)))
        if n == 0:
            print("  ".join("-" * w for w in widths))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--points", type=int, default=200_000, help="EdgeStore size (default 200000)")
    parser.add_argument(
        "--compare-points",
        type=int,
        default=20_000,
        help="size of the edge vs qdrant-client local run (0: skip)",
    )
    parser.add_argument("--batch", type=int, default=1000, help="points per upsert call")
    parser.add_argument("--queries", type=int, default=200, help="queries per latency figure")
    parser.add_argument(
        "--compare-queries", type=int, default=50, help="queries per figure for qdrant-client local (slow)"
    )
    parser.add_argument("--dir", type=Path, default=None, help="work folder (default: a temporary one)")
    parser.add_argument("--json", action="store_true", help="print the results as JSON too")
    args = parser.parse_args()

    cases = [("edge", args.points)]
    if args.compare_points:
        if args.compare_points != args.points:
            cases.append(("edge", args.compare_points))
        cases.append(("qdrant", args.compare_points))
    with tempfile.TemporaryDirectory(dir=args.dir, prefix="bench_store-") as workdir:
        rows = []
        for kind, points in cases:
            print(f"running {kind} at {points:,} points ...", file=sys.stderr, flush=True)
            rows.append(run_case(kind, points, args, workdir))
            print(json.dumps(rows[-1]), file=sys.stderr, flush=True)  # kept even if a later case fails
    print_table(rows)
    if args.json:
        print(json.dumps(rows, indent=2))


if __name__ == "__main__":
    main()
