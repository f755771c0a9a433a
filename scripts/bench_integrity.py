"""What the index integrity check costs (agent_zot/index/integrity.py), quick and thorough.

    .venv/bin/python scripts/bench_integrity.py --work DIR [--repeat 5] [--json]

DIR is a work folder of scripts/bench_retrieval.py or bench_evidence.py (the SciFact library of 5,183
abstracts, built and indexed there; built here when missing). Each check runs in a fresh
IndexResources, as a new process's first answer would: the quick check (store count and a sample of
items) and the thorough one (SQLite quick_check and every point counted), median of --repeat runs.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from pathlib import Path

from bench_retrieval import build_library, index

from agent_zot.config import Settings
from agent_zot.index.integrity import check_index
from agent_zot.index.resources import IndexResources


def timed(settings: Settings, *, thorough: bool) -> tuple[float, bool]:
    resources = IndexResources(settings)
    try:
        started = time.perf_counter()
        report = check_index(resources, thorough=thorough)
        return time.perf_counter() - started, report.ok
    finally:
        resources.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    library = build_library(args.work)
    settings = Settings(
        zotero_data_dir=library, data_dir=args.work / "state", export_dir=args.work / "exports"
    )
    if not (args.work / "state" / "index").exists():
        index(settings)
    resources = IndexResources(settings)
    counts = resources.state.counts()
    resources.close()
    out: dict[str, object] = {"items": counts.items_indexed, "chunks": counts.chunks}
    for kind in ("quick", "thorough"):
        runs = [timed(settings, thorough=kind == "thorough") for _ in range(args.repeat)]
        out[f"{kind}_median_s"] = round(statistics.median(t for t, _ in runs), 3)
        out[f"{kind}_ok"] = all(ok for _, ok in runs)
    print(json.dumps(out, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in out.items()))


if __name__ == "__main__":
    main()
