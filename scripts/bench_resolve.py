"""Does a request reach the paper, author and citation direction it names? Measured end to end, through the tools.

    .venv/bin/python scripts/bench_resolve.py --set scripts/data/resolve_heldout.jsonl [--set ...]
        [--work /tmp/agent-zot-resolve] [--show-misses] [--speed]

Each labelled request (written by people who never read the resolver; see docs/performance.md) names a library
of ../shared/data (a Zotero data folder there, or ``pdfs``: a library built from the 18 shared PDFs), a tool,
the query, and what it names: ``expect`` is ``resolve`` (the item keys of the paper, any of a duplicate group,
or an author's surname), ``ambiguous`` (a careful reader could not tell which of the listed papers is meant: the
right answer asks back) or ``absent`` (no such paper: the right answer says so). Citation requests also name
their direction (in: papers citing it; out: what it cites; both).

Every library gets a metadata-only index (``update-db --no-fulltext``) once, kept under ``--work``. Each
request then runs through the tool as the MCP server runs it (routing included); what the answer reached is
read from its ``resolved`` data (older versions: the tool's own fields). Prints accuracy overall, per class,
per tool and per library; ``--speed`` also times the resolver alone on a 5,183-item library built from
../shared/data/scifact (milliseconds per request; its tables, built once per library snapshot by the server's
warm-up, are timed apart).
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import re
import statistics
import subprocess
import sys
import time
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))
sys.path.insert(0, str(REPO_ROOT / "scripts"))

from agent_zot.config import Settings  # noqa: E402
from agent_zot.errors import AgentZotError, AmbiguousNameError  # noqa: E402
from agent_zot.services.context import AppContext  # noqa: E402
from agent_zot.services.tools import call  # noqa: E402

SHARED = REPO_ROOT.parent / "shared" / "data"
_KEY = re.compile(r"\b[A-Z0-9]{8}\b")


def load(paths: list[Path]) -> list[dict[str, Any]]:
    rows: list[dict[str, Any]] = []
    for path in paths:
        with path.open(encoding="utf-8") as fh:
            rows += [json.loads(line) for line in fh if line.strip()]
    return rows


def library_folder(name: str, work: Path) -> Path:
    if name == "pdfs":
        from bench_index import build_pdf_library

        folder = work / "libraries" / "pdfs"
        if not (folder / "zotero.sqlite").is_file():
            build_pdf_library(folder)
        return folder
    return SHARED / "zotero" / name


def context_for(name: str, work: Path, *, fulltext: bool = False) -> AppContext:
    """The library's context over an index kept under ``work``: metadata only, or with the full text and the
    graph it gives (reference lists, for the cited-works requests of bench_works.py). Brought up to date
    first, which costs little when nothing changed and rebuilds a graph an older agent-zot made."""
    library = library_folder(name, work)
    state = work / ("state-fulltext" if fulltext else "state") / name
    env = {**os.environ, "AGENT_ZOT_DATA_DIR": str(state)}
    command = [sys.executable, "-m", "agent_zot", "--library", str(library), "update-db"]
    command += [] if fulltext else ["--no-fulltext"]
    subprocess.run(command, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    settings = Settings(zotero_data_dir=library, data_dir=state, export_dir=work / "exports" / name)
    return AppContext(settings)


def run_request(ctx: AppContext, row: dict[str, Any]) -> dict[str, Any]:
    """What the answer reached: {"outcome": resolved|ambiguous|none|error, "keys", "author", "direction"}."""
    tool, query = row["tool"], row["query"]
    try:
        if tool == "view":
            return _view(ctx, query)
        extra: dict[str, Any] = {"overwrite": True} if tool == "zot_export" else {}
        response = call(ctx, tool, query=query, **extra)
    except AmbiguousNameError as err:
        return {"outcome": "ambiguous", "keys": _KEY.findall(" ".join(err.candidates)), "message": str(err)}
    except AgentZotError as err:
        return {"outcome": "none", "keys": [], "message": str(err)}
    data = response.data
    reached = _reached(tool, data, response.text)
    reached["mode"] = (data.get("route") or {}).get("mode")
    reached["message"] = response.text.splitlines()[0][:160] if response.text else ""
    if response.is_error:
        reached["outcome"] = "error"
    return reached


def _view(ctx: AppContext, query: str) -> dict[str, Any]:
    from agent_zot.services.explore.view_scope import ViewRequest, resolve_scope

    try:
        scope = resolve_scope(ctx.graph().store, ctx.library(), ViewRequest(item=query))
    except AmbiguousNameError as err:
        return {"outcome": "ambiguous", "keys": _KEY.findall(" ".join(err.candidates)), "message": str(err)}
    except AgentZotError as err:
        return {"outcome": "none", "keys": [], "message": str(err)}
    keys = [p.removeprefix("paper:") for p in scope.pinned]
    return {"outcome": "resolved" if keys else "none", "keys": keys, "message": scope.description}


def _reached(tool: str, data: dict[str, Any], text: str) -> dict[str, Any]:
    resolved = data.get("resolved")
    if isinstance(resolved, dict):  # the one resolver's record, in every tool's answer
        keys = [p["key"] for p in resolved.get("papers", [])]
        return {
            "outcome": "resolved" if keys or resolved.get("author") else "none",
            "keys": keys,
            "author": resolved.get("author"),
            "direction": resolved.get("direction"),
        }
    # Answers of versions before the one resolver: each tool's own fields.
    keys: list[str] = []
    author = None
    if tool == "zot_summarize" and data.get("item_key"):
        keys = [data["item_key"]]
    elif tool == "zot_explore_graph":
        paper = data.get("paper") or (data.get("citation") or {}).get("paper")
        if paper:
            keys = [paper["key"]]
        author = data.get("author") if isinstance(data.get("author"), str) else None
    elif tool == "zot_export":
        keys = list(data.get("item_keys") or [])
        if not keys:
            keys = _KEY.findall(text)[:5]
        keys = keys if len(keys) == 1 else []
    elif tool == "zot_manage_notes":
        first = text.splitlines()[0] if text else ""
        keys = _KEY.findall(first)[:1]
    direction = None
    if tool == "zot_explore_graph" and ("cites" in data or "cited_by" in data):
        direction = {(True, False): "out", (False, True): "in"}.get(
            ("cites" in data, "cited_by" in data), "both"
        )
    return {
        "outcome": "resolved" if keys or author else "none",
        "keys": keys,
        "author": author,
        "direction": direction,
    }


def judge(row: dict[str, Any], got: dict[str, Any]) -> tuple[bool, bool | None]:
    """(reached what the request names, right direction or None when the request names none)."""
    expect = row.get("expect", "resolve")
    wanted = set(row.get("expect_items") or [])
    if expect == "absent":
        ok = got["outcome"] == "none"
    elif expect == "ambiguous":
        ok = got["outcome"] == "ambiguous" and len(wanted & set(got["keys"])) >= 2
    elif wanted:
        ok = got["outcome"] == "resolved" and bool(got["keys"]) and got["keys"][0] in wanted
    else:
        author = (row.get("expect_author") or "").casefold()
        ok = got["outcome"] == "resolved" and author in (got.get("author") or "").casefold()
    direction = row.get("expect_direction") if expect == "resolve" else None  # shown with the paper it is of
    return ok, (None if not direction else got.get("direction") == direction)


def report(rows: list[dict[str, Any]], results: list[tuple[bool, bool | None]], *, show_misses: bool) -> None:
    def table(title: str, key: str) -> None:
        right: Counter[str] = Counter()
        total: Counter[str] = Counter()
        for row, (ok, _) in zip(rows, results, strict=True):
            total[row.get(key, "?")] += 1
            right[row.get(key, "?")] += ok
        print(f"\n{title:22} {'right':>5} {'total':>5} {'accuracy':>8}")
        for name in sorted(total):
            print(f"{name:22} {right[name]:5d} {total[name]:5d} {right[name] / total[name]:8.3f}")

    resolved = sum(ok for ok, _ in results)
    directions = [d for _, d in results if d is not None]
    print(f"requests: {len(rows)}")
    print(f"reached what they name: {resolved}/{len(rows)} = {resolved / len(rows):.3f}")
    if directions:
        print(
            f"right citation direction: {sum(directions)}/{len(directions)} = {sum(directions) / len(directions):.3f}"
        )
    table("class", "class")
    table("tool", "tool")
    table("library", "library")
    if show_misses:
        print("\nmisses:")
        for row, (ok, direction) in zip(rows, results, strict=True):
            if not ok or direction is False:
                got = row["_got"]
                print(
                    f"  {row['id']} [{row['tool']}] {row['query']!r}\n"
                    f"     expected {row.get('expect')} {row.get('expect_items') or row.get('expect_author')}"
                    f" dir={row.get('expect_direction')} | got {got['outcome']} {got['keys'][:4]}"
                    f" author={got.get('author')} dir={got.get('direction')} mode={got.get('mode')}"
                    f" | {got.get('message', '')[:150]!r}"
                )


def speed(work: Path, rows: list[dict[str, Any]]) -> None:
    """The resolver alone on the 5,183-item SciFact library: each labelled query (library-specific names
    mostly miss there, which is the slow path: every clue is looked up), plus named SciFact titles."""
    from bench_retrieval import build_library

    from agent_zot.services.resolve.paper_index import warm_paper_index
    from agent_zot.services.resolve.papers import PaperRequest, resolve_papers
    from agent_zot.services.routing import route
    from agent_zot.zotero.reader import load_library

    folder = build_library(work / "libraries" / "scifact")
    library = load_library(folder / "zotero.sqlite", folder)
    started = time.perf_counter()
    warm_paper_index(library)  # what the server's warm-up does
    built = time.perf_counter() - started
    titles = [i.title for i in list(library.items.values())[:200]]
    queries = [(r["tool"] if r["tool"] != "view" else "zot_summarize", r["query"]) for r in rows]
    queries += [("zot_explore_graph", f"who cites {' '.join(t.split()[:5])}") for t in titles]
    samples = []
    for tool, query in queries:
        decision = route(tool, query)
        start = time.perf_counter()
        with contextlib.suppress(AgentZotError):  # "ambiguous" and "not found" are answers too
            resolve_papers(library, PaperRequest.of(query, decision.params))
        samples.append((time.perf_counter() - start) * 1000)
    samples.sort()
    print(
        f"\nresolver on {len(library.items):,} items: index built once in {built * 1000:.0f} ms; "
        f"{len(samples)} requests: median {statistics.median(samples):.2f} ms, "
        f"p95 {samples[int(0.95 * (len(samples) - 1))]:.2f} ms, max {samples[-1]:.2f} ms"
    )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--set", dest="sets", type=Path, action="append", required=True)
    parser.add_argument("--work", type=Path, default=Path("/tmp/agent-zot-resolve"))
    parser.add_argument("--show-misses", action="store_true")
    parser.add_argument("--speed", action="store_true")
    args = parser.parse_args()
    rows = load(args.sets)
    by_library: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_library[row["library"]].append(row)
    for name, part in by_library.items():
        ctx = context_for(name, args.work)
        for row in part:
            row["_got"] = run_request(ctx, row)
        ctx.close()
    results = [judge(row, row["_got"]) for row in rows]
    report(rows, results, show_misses=args.show_misses)
    if args.speed:
        speed(args.work, rows)


if __name__ == "__main__":
    main()
