"""Retrieval quality and latency of `zot_search`, end to end through an MCP client, on SciFact.

    .venv/bin/python scripts/bench_retrieval.py [--queries N] [--work DIR] [--json] [--latency]

1. Builds a Zotero library from ../shared/data/scifact/corpus.jsonl (one journal article per abstract: the
   title and the abstract; the corpus id in Extra) and indexes it with the default embedded stack
   (`update-db`: one metadata point per item, MiniLM + BM25 in the embedded Qdrant engine). With --work the
   library and index are kept there and reused by later runs.
2. Runs the train claims (queries.train.jsonl; relevance in qrels/train.tsv) through `zot_search` via
   fastmcp's in-memory client, once per retrieval setting (search_fusion = dense, sparse, rrf, dbsf) with
   force_mode="fast", and once as a user would call it (routed mode, escalation on) with the default fusion.
3. Reports nDCG@10, Recall@100, MRR@10 and p50/p95 latency per setting, and how often the routed run
   escalated with the quality of escalated vs other queries. Reranking is reported only when a
   cross-encoder is configured (reranker_model); none ships on PyPI.
4. With --latency, only the routed run at the usual limit=10, for the latency an assistant sees.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import math
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder

SCIFACT = Path(__file__).resolve().parents[2] / "shared" / "data" / "scifact"
SETTINGS = ("dense", "sparse", "rrf", "dbsf")


def build_library(folder: Path) -> Path:
    db = folder / "Zotero" / "zotero.sqlite"
    if db.is_file():
        return db.parent
    b = ZoteroLibraryBuilder(folder / "Zotero", shape="z7", seed=3)
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            b.add_item(
                "journalArticle",
                title=doc["title"] or f"SciFact {doc['_id']}",
                abstractNote=doc["text"],
                extra=f"SciFact: {doc['_id']}",
            )
    return b.build().parent


def corpus_ids(settings: Settings) -> dict[str, str]:
    ctx = AppContext(settings)
    ids = {k: i.extra.removeprefix("SciFact: ").strip() for k, i in ctx.library().items.items()}
    ctx.close()
    return ids


def index(settings: Settings) -> float:
    ctx = AppContext(settings)
    started = time.perf_counter()
    summary = update_index(ctx.library(), ctx.index(), UpdateOptions(fulltext=False))
    ctx.close()
    print(
        f"indexed {summary.indexed} items ({summary.unchanged} unchanged) in {summary.seconds:.1f} s",
        file=sys.stderr,
    )
    return time.perf_counter() - started


def load_queries(limit: int | None) -> tuple[list[tuple[str, str]], dict[str, set[str]]]:
    qrels: dict[str, set[str]] = {}
    with (SCIFACT / "qrels" / "train.tsv").open(encoding="utf-8") as fh:
        next(fh)
        for line in fh:
            qid, doc, score = line.split()
            if int(score) > 0:
                qrels.setdefault(qid, set()).add(doc)
    queries = []
    with (SCIFACT / "queries.train.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            q = json.loads(line)
            if q["_id"] in qrels:
                queries.append((q["_id"], q["text"]))
    return queries[:limit] if limit else queries, qrels


def ndcg_at(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    gain = sum(1 / math.log2(i + 2) for i, doc in enumerate(ranked[:k]) if doc in relevant)
    ideal = sum(1 / math.log2(i + 2) for i in range(min(k, len(relevant))))
    return gain / ideal if ideal else 0.0


def mrr_at(ranked: list[str], relevant: set[str], k: int = 10) -> float:
    return next((1 / (i + 1) for i, doc in enumerate(ranked[:k]) if doc in relevant), 0.0)


async def run_setting(
    settings: Settings,
    ids: dict[str, str],
    queries: list[tuple[str, str]],
    qrels: dict[str, set[str]],
    *,
    forced: bool,
    limit: int = 100,
) -> dict[str, Any]:
    ctx = AppContext(settings)
    rows = []
    async with Client(build_server(ctx)) as client:
        await client.call_tool("zot_search", {"query": "warm up the model", "force_mode": "fast"})
        for qid, text in queries:
            arguments: dict[str, Any] = {"query": text, "limit": limit}
            if forced:
                arguments["force_mode"] = "fast"
            started = time.perf_counter()
            result = await client.call_tool("zot_search", arguments, raise_on_error=False)
            elapsed = time.perf_counter() - started
            data = result.structured_content or {}
            ranked = [ids.get(p["key"], "") for p in data.get("papers", [])]
            route = data.get("route", {})
            rows.append(
                {
                    "ndcg": ndcg_at(ranked, qrels[qid]),
                    "recall": len(set(ranked[:100]) & qrels[qid]) / len(qrels[qid]),
                    "mrr": mrr_at(ranked, qrels[qid]),
                    "ms": elapsed * 1e3,
                    "escalated": bool(route.get("escalated")),
                    "mode": route.get("mode"),
                    "error": result.is_error,
                }
            )
    ctx.close()
    return summarise(rows)


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    def mean(key: str, subset: list[dict[str, Any]]) -> float:
        return statistics.fmean(r[key] for r in subset) if subset else float("nan")

    latencies = sorted(r["ms"] for r in rows)
    escalated = [r for r in rows if r["escalated"]]
    others = [r for r in rows if not r["escalated"]]
    return {
        "queries": len(rows),
        "errors": sum(r["error"] for r in rows),
        "ndcg@10": mean("ndcg", rows),
        "recall@100": mean("recall", rows),
        "mrr@10": mean("mrr", rows),
        "p50_ms": statistics.median(latencies),
        "p95_ms": latencies[int(0.95 * (len(latencies) - 1))],
        "escalated": len(escalated),
        "ndcg@10_escalated": mean("ndcg", escalated),
        "ndcg@10_not_escalated": mean("ndcg", others),
    }


async def main_async(args: argparse.Namespace) -> dict[str, Any]:
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-retrieval-"))
    library = build_library(work)
    base = Settings(zotero_data_dir=library, data_dir=work / "state", export_dir=work / "exports")
    seconds = index(base)
    ids = corpus_ids(base)
    queries, qrels = load_queries(args.queries)
    results: dict[str, Any] = {"corpus": len(ids), "index_seconds": seconds}
    if args.latency:  # the usual answer size: latency only (Recall@100 needs limit 100)
        results["routed, limit 10"] = await run_setting(base, ids, queries, qrels, forced=False, limit=10)
        return results
    for fusion in SETTINGS:
        settings = base.model_copy(update={"search_fusion": fusion})
        results[f"{fusion} (fast)"] = await run_setting(settings, ids, queries, qrels, forced=True)
        print(f"{fusion}: {results[f'{fusion} (fast)']}", file=sys.stderr)
    results["routed (default fusion, escalation on)"] = await run_setting(
        base, ids, queries, qrels, forced=False
    )
    return results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--queries", type=int, default=None, help="only the first N train queries")
    parser.add_argument("--work", type=Path, default=None, help="keep the library and index here")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--latency", action="store_true", help="only the routed run at limit=10, for latency")
    args = parser.parse_args()
    if not SCIFACT.is_dir():
        raise SystemExit(f"{SCIFACT} is not present")
    results = asyncio.run(main_async(args))
    if args.json:
        print(json.dumps(results, indent=2))
        return
    print(f"SciFact train: {results['corpus']} abstracts, indexed in {results['index_seconds']:.0f} s")
    print(f"{'setting':<42}{'nDCG@10':>9}{'R@100':>8}{'MRR@10':>8}{'p50 ms':>8}{'p95 ms':>8}{'escal.':>7}")
    for name, r in results.items():
        if isinstance(r, dict):
            print(
                f"{name:<42}{r['ndcg@10']:>9.3f}{r['recall@100']:>8.3f}{r['mrr@10']:>8.3f}"
                f"{r['p50_ms']:>8.1f}{r['p95_ms']:>8.1f}{r['escalated']:>7}"
            )
    routed = results["routed (default fusion, escalation on)"]
    print(
        f"escalated queries: nDCG@10 {routed['ndcg@10_escalated']:.3f} vs {routed['ndcg@10_not_escalated']:.3f} "
        "for the others"
    )


if __name__ == "__main__":
    main()
