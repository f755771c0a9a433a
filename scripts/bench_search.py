"""zot_search latency over MCP (fastmcp's in-process client) on an indexed library: p50 and p95 over N
queries after a warm-up, in all and per routed mode.

    .venv/bin/python scripts/bench_search.py --library ZOTERO_DIR --data-dir STATE_DIR [--n 150]

The queries are SciFact's training claims (../shared/data/scifact/queries.train.jsonl) unless --queries
names another JSON-lines file with a "text" field. Used for issue 41 (costs that grow with the library on
every request); run it before and after a change on the same warm machine and compare.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext

SCIFACT_QUERIES = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact" / "queries.train.jsonl"


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


async def measure(ctx: AppContext, queries: list[str], warm: int) -> dict[str, list[float]]:
    by_mode: dict[str, list[float]] = defaultdict(list)
    async with Client(build_server(ctx)) as client:
        for query in queries[:warm]:
            await client.call_tool("zot_search", {"query": query})
        for query in queries[warm:]:
            started = time.perf_counter()
            result = await client.call_tool("zot_search", {"query": query})
            seconds = time.perf_counter() - started
            route = (result.structured_content or {}).get("route") or {}
            by_mode[str(route.get("mode", "?"))].append(seconds)
            by_mode["all"].append(seconds)
    return by_mode


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, required=True, help="the Zotero data folder")
    parser.add_argument("--data-dir", type=Path, required=True, help="agent-zot's data folder (indexed)")
    parser.add_argument("--queries", type=Path, default=SCIFACT_QUERIES)
    parser.add_argument("--n", type=int, default=150, help="queries timed")
    parser.add_argument("--warm", type=int, default=10, help="queries sent first, not timed")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    with args.queries.open(encoding="utf-8") as fh:
        queries = [json.loads(line)["text"] for line in fh][: args.warm + args.n]
    ctx = AppContext(Settings(zotero_data_dir=args.library, data_dir=args.data_dir))
    try:
        by_mode = asyncio.run(measure(ctx, queries, args.warm))
    finally:
        ctx.close()
    rows = {
        mode: {
            "n": len(times),
            "p50_ms": round(statistics.median(times) * 1000, 1),
            "p95_ms": round(_percentile(times, 0.95) * 1000, 1),
        }
        for mode, times in sorted(by_mode.items(), key=lambda kv: -len(kv[1]))
    }
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    for mode, row in rows.items():
        print(f"{mode:<12} n={row['n']:>4}  p50 {row['p50_ms']:7.1f} ms  p95 {row['p95_ms']:7.1f} ms")


if __name__ == "__main__":
    main()
