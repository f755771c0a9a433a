"""Do requests reach the works the library cites, by every name people use? Measured end to end, through the tools.

    .venv/bin/python scripts/bench_works.py --set scripts/data/works_heldout.jsonl [--set ...]
        [--work /tmp/agent-zot-works] [--show-misses]

The labelled requests (scripts/data/works_*.jsonl, written by a helper who never read the resolver; see
docs/performance.md) name a library of ../shared/data (as scripts/bench_resolve.py does) and one of five
classes:

- ``external_cites``: which library papers cite a work the library does not hold. Right when the answer
  names that work (title, else first author and year) and, for ``absent``, when it finds nothing. The
  citing papers the answer lists are scored apart (recall of the labelled citers).
- ``reading_gap``: what the papers cite most that the library lacks. Right when a labelled top work is
  listed first, or as often cited as the first (ties are ordered by year), or, for ``gap_none_twice``, when
  the answer says that no work is cited twice.
- ``reading_gap_phrasing``: any wording of the reading gap; right when the answer is the reading gap, of
  the collection the request names.
- ``author_acronym``, ``author_list_year``, ``description``: a library paper named by its authors' initials,
  by an author list with a year, or by what it is; scored as scripts/bench_resolve.py scores requests.

Each library is indexed once with its full text (reference lists are read from the PDFs), kept under
``--work``. Prints accuracy overall and per class and library, the citer recall, and the time per request.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

sys.path.insert(0, str(Path(__file__).resolve().parent))

from bench_resolve import context_for, judge, load, report, run_request

from agent_zot.errors import AgentZotError, AmbiguousNameError
from agent_zot.services.tools import call
from agent_zot.text import fold

RESOLVING = ("author_acronym", "author_list_year", "description")


def run(ctx: Any, row: dict[str, Any]) -> dict[str, Any]:
    """What the answer reached: the resolver's record for a library paper, or the work / reading gap."""
    if row["class"] in RESOLVING:
        return run_request(ctx, row)
    try:
        response = call(ctx, row["tool"], query=row["query"])
    except AmbiguousNameError as err:
        return {"outcome": "ambiguous", "message": str(err), "candidates": err.candidates}
    except AgentZotError as err:
        return {"outcome": "none", "message": str(err)}
    data = response.data
    resolved = data.get("resolved") or {}
    return {
        "outcome": "work" if resolved.get("work") else "resolved" if resolved.get("papers") else "answered",
        "work": resolved.get("work"),
        "papers": [p["key"] for p in resolved.get("papers", [])],
        "direction": resolved.get("direction"),
        "citers": [r["item_key"] for r in data.get("cited_by", []) if isinstance(r, dict)],
        "sentences": sum(1 for r in data.get("cited_by", []) if isinstance(r, dict) and r.get("sentence")),
        "missing": data.get("missing"),
        "field": data.get("field"),
        "twice": data.get("cited_twice_or_more"),
        "mode": (data.get("route") or {}).get("mode"),
        "message": response.text.splitlines()[0][:160] if response.text else "",
    }


def same_work(expected: dict[str, Any], got: dict[str, Any] | None) -> bool:
    if not got:
        return False
    if fuzz.token_set_ratio(fold(expected.get("title") or ""), fold(got.get("title") or "")) >= 85:
        return True
    first = fold(expected.get("first_author") or "")
    authors = [fold(a) for a in got.get("authors") or []]
    return bool(first) and bool(authors) and first in authors[0] and expected.get("year") == got.get("year")


def judge_work(row: dict[str, Any], got: dict[str, Any]) -> tuple[bool, bool | None]:
    kind, expect = row["class"], row.get("expect")
    if kind in RESOLVING:
        return judge(row, got)
    if kind == "external_cites":
        if expect == "absent":
            return got["outcome"] in ("none",), None
        ok = got["outcome"] == "work" and same_work(row["expect_work"], got["work"])
        wanted = row.get("expect_direction")
        return ok, (None if not wanted or not ok else got.get("direction") in (wanted, "both"))
    missing = got.get("missing")
    if kind == "reading_gap_phrasing":  # the request reaches the reading gap (of the collection it names)
        scope = got.get("field") or ""
        wanted = row.get("expect_collection")
        return missing is not None and (not wanted or fold(wanted) in fold(scope)), None
    if expect == "gap_none_twice":
        return got.get("twice") == 0, None
    if not missing:
        return False, None
    top = [*(row.get("expect_top") or []), *(row.get("expect_also_tied") or [])]
    # right when a labelled top work leads, or is listed as often cited as the one that leads (a tie the
    # labeller did not count: the answer orders ties by year)
    leading = missing[0].get("cited_by")
    return any(
        fuzz.token_set_ratio(fold(t), fold(row.get("title") or "")) >= 85
        for row in missing
        if row.get("cited_by") == leading
        for t in top
    ), None


def titled_keys(ctx: Any, rows: list[dict[str, Any]]) -> None:
    """Rows that name their papers by title (a library whose keys the writer could not see) get the keys."""
    by_title = {fold(item.title): key for key, item in ctx.library().items.items()}
    for row in rows:
        if row.get("expect_titles"):
            row["expect_items"] = [by_title[fold(t)] for t in row["expect_titles"] if fold(t) in by_title]


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--set", dest="sets", type=Path, action="append", required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/agent-zot-works"))
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument(
        "--split", choices=("dev", "test"), help="only the rows of this split (sets that mark one)"
    )
    args = parser.parse_args()
    rows = [r for r in load(args.sets) if args.split is None or r.get("split") == args.split]
    by_library: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_library[row["library"]].append(row)
    times: list[float] = []
    for name, part in by_library.items():
        ctx = context_for(name, args.work, fulltext=True)
        titled_keys(ctx, part)
        for row in part:
            started = time.perf_counter()
            row["_got"] = run(ctx, row)
            times.append((time.perf_counter() - started) * 1000)
            row["_got"].setdefault("keys", row["_got"].get("papers", []))
        ctx.close()
    results = [judge_work(row, row["_got"]) for row in rows]
    report(rows, results, show_misses=args.show_misses)
    cited = [r for r in rows if r["class"] == "external_cites" and r.get("expect") == "external"]
    wanted = sum(len(r.get("expect_citers") or []) for r in cited)
    found = sum(len(set(r.get("expect_citers") or []) & set(r["_got"].get("citers") or [])) for r in cited)
    listed = sum(len(r["_got"].get("citers") or []) for r in cited)
    sentences = sum(r["_got"].get("sentences") or 0 for r in cited)
    if wanted:
        print(
            f"\nciting papers found: {found}/{wanted} = {found / wanted:.3f} (of {listed} listed, "
            f"{sentences} with their citing sentence)"
        )
    times.sort()
    print(
        f"time per request: median {statistics.median(times):.1f} ms, p95 {times[int(0.95 * (len(times) - 1))]:.1f} ms"
    )


if __name__ == "__main__":
    main()
