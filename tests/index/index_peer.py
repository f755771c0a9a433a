"""A process that uses the shared index like an agent-zot server or indexer would; driven over stdin.

python -m tests.index.index_peer FOLDER     then JSON lines: {"op": "count"|"upsert"|"search"|"owner"|"exit", ...}
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from agent_zot.index.shared import SharedIndex
from agent_zot.index.store import Point, SparseVector
from agent_zot.index.store_edge import EdgeStore

DIM = 8


def vector(seed: int) -> list[float]:
    values = [
        ((seed * 7919 + i * 104729) % 1000) / 1000.0 + (1.0 if i == seed % DIM else 0.0) for i in range(DIM)
    ]
    norm = sum(v * v for v in values) ** 0.5
    return [v / norm for v in values]


def make_point(n: int) -> Point:
    return Point(
        id=f"00000000-0000-4000-8000-{n:012d}",
        dense=vector(n),
        sparse=SparseVector([n % 50 + 1], [1.0]),
        payload={"item_key": f"ITEM{n:04d}", "kind": "chunk", "text": f"chunk {n}", "attachment_key": None},
    )


def open_index(folder: Path) -> SharedIndex:
    def factory() -> EdgeStore:
        (folder / "shard").mkdir(parents=True, exist_ok=True)
        store = EdgeStore(folder / "shard")
        store.open_or_create(model="test-model", dense_dim=DIM, sparse="bm25")
        return store

    return SharedIndex(folder, factory)


def main() -> None:
    index = open_index(Path(sys.argv[1]))
    for line in sys.stdin:
        command = json.loads(line)
        op = command["op"]
        if op == "exit":
            break
        if op == "upsert":
            index.upsert([make_point(n) for n in range(command["start"], command["stop"])])
            reply = {"ok": True}
        elif op == "count":
            reply = {"count": index.count()}
        elif op == "search":
            hits = index.search(vector(command["seed"]), None, limit=1)
            reply = {"top": hits[0].payload["item_key"] if hits else None}
        elif op == "owner":
            reply = {"owner": index.is_owner}
        else:
            reply = {"error": op}
        print(json.dumps(reply), flush=True)
    index.close()


if __name__ == "__main__":
    main()
