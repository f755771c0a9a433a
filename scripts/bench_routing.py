"""Benchmark the query router on the labelled set: time per route() call and accuracy per tool.

    python scripts/bench_routing.py [--repeat 200] [--data tests/data/routing_queries.jsonl]
    python scripts/bench_routing.py --unseen scripts/data/routing_unseen2.jsonl
    python scripts/bench_routing.py --calibrate

Prints the median and p99 microseconds per call (every labelled query, routed `--repeat` times), the
same for 10,000-character queries, and mode accuracy per tool. `--unseen FILE` (repeatable) reports
accuracy per split and per class of request on sets written by people who never saw the rules
(scripts/data/routing_unseen*.jsonl; see docs/performance.md for which parts were tuned on). `--calibrate`
chooses the nearest-request fallback's similarity floor, leaving each unseen set out in turn (sets held out
whole are left out of the choice).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from agent_zot.services.routing import TOOLS, route  # noqa: E402

DEFAULT_DATA = REPO_ROOT / "tests" / "data" / "routing_queries.jsonl"


def load(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


def time_calls(cases: list[tuple[str, str]], repeat: int) -> list[float]:
    """Microseconds per call, one sample per call."""
    samples: list[float] = []
    for _ in range(repeat):
        for tool, query in cases:
            start = time.perf_counter_ns()
            route(tool, query)
            samples.append((time.perf_counter_ns() - start) / 1000)
    return samples


def percentile(samples: list[float], pct: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, round(pct / 100 * (len(ordered) - 1)))]


def report_timing(label: str, samples: list[float]) -> None:
    print(
        f"{label:28} calls={len(samples):7d}  median={statistics.median(samples):8.1f} µs"
        f"  p99={percentile(samples, 99):8.1f} µs  max={max(samples):8.1f} µs"
    )


def report_accuracy(rows: list[dict[str, Any]]) -> None:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    for row in rows:
        total[row["tool"]] += 1
        right[row["tool"]] += route(row["tool"], row["query"]).mode == row["mode"]
    print(f"\n{'tool':26} {'right':>5} {'total':>5} {'accuracy':>8}")
    for tool in TOOLS:
        if total[tool]:
            print(f"{tool:26} {right[tool]:5d} {total[tool]:5d} {right[tool] / total[tool]:8.3f}")
    all_right, all_total = sum(right.values()), sum(total.values())
    print(f"{'overall':26} {all_right:5d} {all_total:5d} {all_right / all_total:8.3f}")


def report_unseen(path: Path, *, show_misses: bool) -> None:
    rows = load(path)
    print(f"\n{path.name}")
    for split in sorted({row.get("split", "all") for row in rows}):
        part = [row for row in rows if row.get("split", "all") == split]
        right: Counter[str] = Counter()
        total: Counter[str] = Counter()
        misses = []
        for row in part:
            got = route(row["tool"], row["query"]).mode
            total[row["class"]] += 1
            right[row["class"]] += got == row["mode"]
            if got != row["mode"]:
                misses.append(f"  {row['tool']} want {row['mode']} got {got}: {row['query']}")
        classes = "  ".join(f"{c} {right[c]}/{total[c]}" for c in sorted(total))
        print(f"  {split:5} {sum(right.values()) / len(part):.3f} of {len(part)}  ({classes})")
        if show_misses:
            print("\n".join(misses))


def calibrate(floors: list[float]) -> None:
    """The fallback floor, set by leaving each unseen set out in turn: its requests are routed with the
    labelled requests of every other set as the fallback's examples (never its own), once per floor, for
    zot_search and for the other tools separately. Prints right/total per set and floor."""
    from agent_zot.services.routing import router
    from agent_zot.services.routing.examples import NearestExamples

    rules_set = load(DEFAULT_DATA)
    sets = {p.name: load(p) for p in sorted((REPO_ROOT / "scripts" / "data").glob("routing_unseen*.jsonl"))}
    held_out = {name for name, rows in sets.items() if all(r.get("split") == "test" for r in rows)}
    original = router.nearest_mode, router.FALLBACK_FLOOR, router._DEFAULT_FLOOR
    router.FALLBACK_FLOOR, router._DEFAULT_FLOOR = {}, 0.0  # the floor under test is applied below
    try:
        for search in (True, False):
            print(
                f"\n{'zot_search' if search else 'other tools'}: floor " + " ".join(f"{f:>8}" for f in floors)
            )
            totals = [[0, 0] for _ in floors]
            for name, rows in sets.items():
                if name in held_out:
                    continue  # a set never tuned on stays out of every choice
                pool = [(r["tool"], r["query"], r["mode"]) for r in rules_set]
                for other, other_rows in sets.items():
                    if other != name and other not in held_out:
                        pool += [
                            (r["tool"], r["query"], r["mode"]) for r in other_rows if r.get("split") != "test"
                        ]
                examples = NearestExamples(pool)
                part = [r for r in rows if (r["tool"] == "zot_search") == search]
                cells = []
                for i, floor in enumerate(floors):

                    def nearest(
                        tool: str, query: str, floor: float = floor, examples: NearestExamples = examples
                    ) -> tuple[str, float] | None:
                        found = examples.nearest_mode(tool, query)
                        return found if found is not None and found[1] >= floor else None

                    router.nearest_mode = nearest
                    right = sum(route(r["tool"], r["query"]).mode == r["mode"] for r in part)
                    totals[i][0] += right
                    totals[i][1] += len(part)
                    cells.append(f"{right}/{len(part)}")
                print(f"  {name:26}" + " ".join(f"{c:>8}" for c in cells))
            print(f"  {'all':26}" + " ".join(f"{r}/{t}".rjust(8) for r, t in totals))
    finally:
        router.nearest_mode, router.FALLBACK_FLOOR, router._DEFAULT_FLOOR = original


def long_queries() -> list[tuple[str, str]]:
    prose = "We study slow-wave sleep and memory consolidation in adolescents (Smith et al., 2019). "
    texts = [
        ("find papers similar to this abstract: " + prose * 200)[:10_000],
        ("in my " * 1700)[:10_000],
        ("by Smith and " * 800)[:10_000],
        "a" * 10_000,
    ]
    return [(tool, text) for tool in TOOLS for text in texts]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=200)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--unseen", type=Path, action="append", default=[], help="a set with class and split")
    parser.add_argument("--misses", action="store_true", help="list the misses of --unseen sets")
    parser.add_argument(
        "--calibrate",
        action="store_true",
        help="choose the fallback floor, leaving each unseen set out in turn",
    )
    args = parser.parse_args()
    if args.calibrate:
        calibrate([0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6])
        return
    if args.unseen:
        for path in args.unseen:
            report_unseen(path, show_misses=args.misses)
        return

    rows = load(args.data)
    cases = [(row["tool"], row["query"]) for row in rows]
    time_calls(cases, 1)  # warm up caches before measuring
    report_timing(f"labelled set ({len(cases)} queries)", time_calls(cases, args.repeat))
    report_timing("10,000-character queries", time_calls(long_queries(), max(1, args.repeat // 10)))
    report_accuracy(rows)


if __name__ == "__main__":
    main()
