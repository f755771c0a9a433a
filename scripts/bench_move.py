"""Moving an index between stores (`agent-zot index move`) at scale: N synthetic points (384-d dense, a
BM25-like sparse vector and a chunk-sized payload each) written into the embedded store, then copied into
qdrant-client's local mode (the Qdrant stand-in available here: no Qdrant server can run on these machines)
by the same `copy_points` the move uses, and verified by counts and spot checks.

    .venv/bin/python scripts/bench_move.py [--points 200000] [--page 512] [--work DIR]
"""

from __future__ import annotations

import argparse
import json
import resource
import tempfile
import time
import uuid
from pathlib import Path

import numpy as np

from agent_zot.index.store import Point, SparseVector
from agent_zot.index.store_choice import open_store
from agent_zot.services.upkeep.index_move import copy_points

DIM = 384
TEXT = "word " * 180  # about a chunk's worth of characters


def synthetic(count: int, start: int, rng: np.random.Generator) -> list[Point]:
    vectors = rng.standard_normal((count, DIM)).astype(np.float32)
    points = []
    for i, vector in enumerate(vectors, start):
        terms = sorted(set(rng.integers(0, 30_000, 40).tolist()))
        points.append(
            Point(
                str(uuid.UUID(int=i + 1)),
                vector,
                SparseVector(terms, [1.0] * len(terms)),
                {"item_key": f"I{i // 40:07d}", "kind": "chunk", "text": TEXT, "page_start": i % 30 + 1},
            )
        )
    return points


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--points", type=int, default=200_000)
    parser.add_argument("--page", type=int, default=512)
    parser.add_argument("--work", type=Path, default=None)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        source = open_store("edge", path=work / "edge", quantization="int8")
        source.open_or_create(model="bench", dense_dim=DIM, sparse="bm25")
        rng = np.random.default_rng(3)
        started = time.perf_counter()
        for start in range(0, args.points, 5000):
            source.upsert(synthetic(min(5000, args.points - start), start, rng))
        source.optimize()
        filled = time.perf_counter() - started
        target = open_store("qdrant", path=work / "qdrant", collection="agent_zot", quantization="int8")
        target.open_or_create(model="bench", dense_dim=DIM, sparse="bm25")
        started = time.perf_counter()
        copied, sample = copy_points(source, target, page=args.page)
        seconds = time.perf_counter() - started
        assert target.count() == source.count() == copied == args.points
        intact = sum(
            1
            for p in sample
            if any(h.id == p.id and h.payload == p.payload for h in target.get_by_item(p.payload["item_key"]))
        )
        print(
            json.dumps(
                {
                    "points": args.points,
                    "fill_embedded_s": round(filled, 1),
                    "move_s": round(seconds, 1),
                    "points_per_s": round(copied / seconds),
                    "spot_checked": len(sample),
                    "spot_intact": intact,
                    "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024),
                },
                indent=2,
            )
        )
        target.close()
        source.close()


if __name__ == "__main__":
    main()
