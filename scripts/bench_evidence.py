"""Claim check (`zot_search` mode `evidence`) on SciFact, end to end through an MCP client.

    .venv/bin/python scripts/bench_evidence.py [--split dev|test|all] [--work DIR] [--limit N] [--json]

The library is the SciFact corpus (one journal article per abstract, built and indexed as
scripts/bench_retrieval.py does; --work keeps and reuses it). The claims are SciFact's train claims with
SUPPORT or CONTRADICT evidence (../shared/data/scifact/claims_train.csv). A third of them, chosen by a hash
of the claim id before anything was tuned, is the test split; tuning used the dev split only.

Per claim: is a gold evidence abstract among the first 5 papers of plain `zot_search` (force_mode fast)
and of `evidence` mode, and anywhere in the default claim-check answer (no limit given), with its size; for evidence mode also the stance given to a found gold paper against the gold
label (supports / contradicts; unjudged counts as wrong and is reported as coverage), and the latency.

`--client-model oracle` answers the claim check's request to the client's model (the stance judge that
reorders the pool by bearing) with a scripted model that knows SciFact's gold evidence, wrong on a share
`--judge-error` of passages: an upper bound on what a client's model adds, and how it degrades.
"""

from __future__ import annotations

import argparse
import asyncio
import csv
import hashlib
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

from bench_retrieval import SCIFACT, build_library, corpus_ids, index
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext

TOP = 5
GOLD_STANCE = {"SUPPORT": "supports", "CONTRADICT": "contradicts"}


def split_of(claim_id: str) -> str:
    """Fixed before tuning: a third of the claims, by hash, is the test split."""
    return "test" if int(hashlib.sha1(claim_id.encode()).hexdigest(), 16) % 3 == 0 else "dev"


def load_claims(split: str) -> list[dict[str, Any]]:
    claims: dict[str, dict[str, Any]] = {}
    with (SCIFACT / "claims_train.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            label = row["evidence_label"]
            if label not in GOLD_STANCE:
                continue
            entry = claims.setdefault(row["id"], {"id": row["id"], "claim": row["claim"], "gold": {}})
            entry["gold"][row["evidence_doc_id"]] = GOLD_STANCE[label]
    chosen = [c for c in claims.values() if split == "all" or split_of(c["id"]) == split]
    return sorted(chosen, key=lambda c: int(c["id"]))


_PASSAGE = re.compile(r"^\[(\d+)\] (.+)$", re.MULTILINE)


def _flat(text: str) -> str:
    return " ".join(re.sub(r"[^\w]+", " ", text.lower()).split())


class OracleModel:
    """A client's model that knows the gold evidence: a passage from a gold abstract takes the gold side,
    any other is unrelated; a share ``error`` of passages (chosen by hash) gets the wrong answer."""

    def __init__(self, claims: list[dict[str, Any]], error: float) -> None:
        corpus = {}
        with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                doc = json.loads(line)
                corpus[doc["_id"]] = _flat(doc.get("title", "") + " " + doc.get("text", ""))
        self.gold = {
            c["claim"]: [(corpus.get(d, ""), label) for d, label in c["gold"].items()] for c in claims
        }
        self.error = error

    async def __call__(self, messages: Any, params: Any, context: Any) -> str:
        prompt = messages[0].content.text
        claim = prompt.split("\n", 1)[0].removeprefix("Claim: ").strip()
        lines = []
        for number, text in _PASSAGE.findall(prompt):
            probe = _flat(text.rstrip("…"))[:80]
            side = next((label for doc, label in self.gold.get(claim, []) if probe and probe in doc), None)
            wrong = int(hashlib.sha1(f"{claim}|{number}".encode()).hexdigest(), 16) % 1000 < self.error * 1000
            if wrong:
                side = None if side else "supports"
            lines.append(json.dumps({"n": int(number), "stance": side or "unrelated", "confidence": 0.9}))
        return "\n".join(lines)


async def run(
    settings: Settings, ids: dict[str, str], claims: list[dict[str, Any]], model: OracleModel | None = None
) -> list[dict[str, Any]]:
    ctx = AppContext(settings)
    rows = []
    async with Client(build_server(ctx), sampling_handler=model) as client:
        await client.call_tool("zot_search", {"query": "warm up", "force_mode": "evidence"})
        for claim in claims:
            plain = await client.call_tool(
                "zot_search",
                {"query": claim["claim"], "force_mode": "fast", "limit": 10},
                raise_on_error=False,
            )
            started = time.perf_counter()
            checked = await client.call_tool(
                "zot_search",
                {"query": claim["claim"], "force_mode": "evidence", "limit": 10},
                raise_on_error=False,
            )
            elapsed = time.perf_counter() - started
            default = await client.call_tool(  # the answer the assistant gets: every argument left out
                "zot_search", {"query": claim["claim"], "force_mode": "evidence"}, raise_on_error=False
            )
            shown = [ids.get(p["key"], "") for p in (default.structured_content or {}).get("papers", [])]
            plain_top = [ids.get(p["key"], "") for p in (plain.structured_content or {}).get("papers", [])][
                :TOP
            ]
            papers = (checked.structured_content or {}).get("papers", [])[:TOP]
            found = [(ids.get(p["key"], ""), p.get("stance", "unjudged")) for p in papers]
            gold_found = [(doc, stance) for doc, stance in found if doc in claim["gold"]]
            rows.append(
                {
                    "id": claim["id"],
                    "label": next(iter(claim["gold"].values())),
                    "plain_hit": any(doc in claim["gold"] for doc in plain_top),
                    "evidence_hit": bool(gold_found),
                    "in_answer": any(doc in claim["gold"] for doc in shown),
                    "answer_chars": sum(len(b.text) for b in default.content if hasattr(b, "text")),
                    "stance_right": bool(gold_found) and gold_found[0][1] == claim["gold"][gold_found[0][0]],
                    "judged": bool(gold_found) and gold_found[0][1] != "unjudged",
                    "ms": elapsed * 1000,
                    "error": checked.is_error,
                }
            )
    ctx.close()
    return rows


def summarise(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {"claims": len(rows), "errors": sum(r["error"] for r in rows)}
    for label in ("supports", "contradicts"):
        part = [r for r in rows if r["label"] == label]
        found = [r for r in part if r["evidence_hit"]]
        out[label] = {
            "claims": len(part),
            f"plain_top{TOP}": round(sum(r["plain_hit"] for r in part) / max(len(part), 1), 3),
            f"evidence_top{TOP}": round(len(found) / max(len(part), 1), 3),
            "in_default_answer": round(sum(r["in_answer"] for r in part) / max(len(part), 1), 3),
            "stance_accuracy_on_found": round(sum(r["stance_right"] for r in found) / max(len(found), 1), 3),
            "stance_coverage_on_found": round(sum(r["judged"] for r in found) / max(len(found), 1), 3),
        }
    sizes = sorted(r["answer_chars"] for r in rows)
    out["default_answer_chars_p50"] = sizes[len(sizes) // 2] if sizes else 0
    times = sorted(r["ms"] for r in rows)
    out["evidence_p50_ms"] = round(statistics.median(times), 1) if times else 0
    out["evidence_p95_ms"] = round(times[int(0.95 * (len(times) - 1))], 1) if times else 0
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--work", type=Path, default=None, help="Keep the library and index here (reused).")
    parser.add_argument("--limit", type=int, default=None, help="Only the first N claims of the split.")
    parser.add_argument("--nli-model", type=Path, default=None, help="Judge with this NLI folder.")
    parser.add_argument("--stance", default="auto", choices=("auto", "nli", "none"))
    parser.add_argument(
        "--client-model", choices=("oracle",), default=None, help="Script the client's model."
    )
    parser.add_argument("--judge-error", type=float, default=0.0, help="Share of passages it gets wrong.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not (SCIFACT / "claims_train.csv").is_file():
        sys.exit(f"SciFact not found in {SCIFACT}")
    work = args.work or Path(tempfile.mkdtemp(prefix="bench-evidence-"))
    library = build_library(work)
    settings = Settings(
        zotero_data_dir=library,
        data_dir=work / "state",
        export_dir=work / "exports",
        nli_model=args.nli_model,
        stance="client" if args.client_model else args.stance,  # the client's model is asked only on opt-in
    )
    if not (work / "state" / "index").exists():
        index(settings)
    claims = load_claims(args.split)[: args.limit]
    model = OracleModel(claims, args.judge_error) if args.client_model else None
    rows = asyncio.run(run(settings, corpus_ids(settings), claims, model))
    summary = {
        "split": args.split,
        "stance": settings.stance,
        "nli_model": str(args.nli_model),
        "client_model": f"{args.client_model} (error {args.judge_error})" if args.client_model else None,
        **summarise(rows),
    }
    print(json.dumps(summary, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
