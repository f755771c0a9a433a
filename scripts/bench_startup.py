"""Measure server startup (process start -> `tools/list` answered over stdio) and library load times.

    .venv/bin/python scripts/bench_startup.py [--runs 7] [--synthetic 10000] [--json]
    .venv/bin/python scripts/bench_startup.py --first-search WORK [--runs 5]

Libraries: every real library in ../shared/data/zotero (when present), the demo library, and a synthetic
library of N items built with the fixture builder (a stand-in for a large personal library).

`--first-search WORK` measures what a researcher waits for: a new `agent-zot serve` process started, its
tools listed, then a `zot_search` sent at once and answered, on the 18 shared PDFs indexed in WORK (built
there on the first run). It compares the server as shipped (ONNX query model + warm-up), without the
warm-up, and without the ONNX query model (torch loads on the first query).
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.demo import ensure_demo_library
from agent_zot.zotero.reader import load_library

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "zotero"


async def _time_tools_list(library: Path, state: Path) -> float:
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(state), "AGENT_ZOT_DATA_DIR": str(state)}
    transport = StdioTransport(
        sys.executable, ["-m", "agent_zot", "--library", str(library), "serve"], env=env
    )
    started = time.perf_counter()
    async with Client(transport) as client:
        await client.list_tools()
        elapsed = time.perf_counter() - started
    return elapsed


async def _time_first_call(library: Path, state: Path) -> float:
    """Startup plus the first tool call, which is when the library is read."""
    env = {"PATH": os.environ.get("PATH", ""), "HOME": str(state), "AGENT_ZOT_DATA_DIR": str(state)}
    transport = StdioTransport(
        sys.executable, ["-m", "agent_zot", "--library", str(library), "serve"], env=env
    )
    started = time.perf_counter()
    async with Client(transport) as client:
        await client.call_tool("zot_manage_collections", {"force_mode": "list"})
        elapsed = time.perf_counter() - started
    return elapsed


FIRST_QUERIES = (
    "how are citation links resolved when building a corpus?",
    "which datasets were used to evaluate the parser?",
    "what limits the accuracy of header extraction?",
)


async def _time_first_search(
    library: Path, data_dir: Path, query: str, *, warm_up: bool, onnx: bool, pause: float
) -> dict[str, float]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(data_dir),
        "AGENT_ZOT_DATA_DIR": str(data_dir),
        "AGENT_ZOT_WARM_UP": "true" if warm_up else "false",
        # minilm-st is the same model and index, with queries embedded by torch as before the ONNX copy
        "AGENT_ZOT_EMBEDDER": "minilm" if onnx else "minilm-st",
    }
    transport = StdioTransport(
        sys.executable, ["-m", "agent_zot", "--library", str(library), "serve"], env=env
    )
    started = time.perf_counter()
    async with Client(transport) as client:
        await client.list_tools()
        listed = time.perf_counter() - started
        await asyncio.sleep(pause)  # the user reading the client, then typing a question
        asked = time.perf_counter()
        result = await client.call_tool("zot_search", {"query": query, "limit": 3})
        latency = time.perf_counter() - asked
    if result.is_error or "[p. " not in result.content[0].text:
        raise SystemExit(
            f"the first search did not answer from the full text: {result.content[0].text[:300]}"
        )
    return {"tools_list": listed, "first_search": listed + latency, "latency": latency}


def first_search(work: Path, runs: int) -> dict[str, dict[str, float]]:
    sys.path.insert(0, str(Path(__file__).parent))
    from bench_passages import prepare

    settings = prepare(work)
    library, data_dir = settings.zotero_data_dir, settings.data_dir
    assert library is not None
    variants = {}
    for name, warm, onnx, pause in (
        ("shipped", True, True, 0.0),
        ("no warm-up", False, True, 0.0),
        ("torch queries", True, False, 0.0),
        ("before", False, False, 0.0),
        ("shipped, 3 s", True, True, 3.0),
        ("before, 3 s", False, False, 3.0),
    ):
        timings = [
            asyncio.run(
                _time_first_search(
                    library, data_dir, FIRST_QUERIES[i % 3], warm_up=warm, onnx=onnx, pause=pause
                )
            )
            for i in range(runs)
        ]
        variants[name] = {
            key: statistics.median(t[key] for t in timings)
            for key in ("tools_list", "first_search", "latency")
        } | {"latency_max": max(t["latency"] for t in timings)}
    return variants


def _synthetic(folder: Path, n: int) -> Path:
    b = ZoteroLibraryBuilder(folder, shape="z7", seed=1)
    collections = [b.add_collection(f"Topic {i}") for i in range(50)]
    for i in range(n):
        key = b.add_item(
            "journalArticle",
            title=f"Synthetic paper number {i} on topic {i % 50}",
            publicationTitle=f"Journal {i % 300}",
            date=f"{1990 + i % 35}-01-00 {1990 + i % 35}",
            DOI=f"10.1234/synthetic.{i}",
            abstractNote="An abstract of moderate length. " * 8,
            creators=[
                (f"Given{i % 997}", f"Family{i % 1499}"),
                (f"G{i % 31}", f"F{i % 577}"),
                ("A.", f"B{i % 89}"),
            ],
            tags=[f"tag{i % 200}", f"topic{i % 37}"],
            collections=[collections[i % 50]],
        )
        attachment = b.add_attachment(key, filename=f"paper{i}.pdf", content=None)
        if i % 4 == 0:
            b.add_note(key, f"<p>Reading note {i} with <b>bold</b> text.</p>")
        if i % 5 == 0:
            b.add_annotation(attachment, text=f"highlight {i}", page_label=str(i % 30 + 1), page_index=i % 30)
    return b.build()


def _median_load(db: Path, runs: int) -> tuple[float, int]:
    times, count = [], 0
    for _ in range(runs):
        started = time.perf_counter()
        library = load_library(db)
        times.append(time.perf_counter() - started)
        count = len(library.items)
    return statistics.median(times), count


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument(
        "--synthetic", type=int, default=10000, help="items in the synthetic library (0: skip)"
    )
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--first-search", type=Path, metavar="WORK", help="time the first search instead")
    args = parser.parse_args()
    if args.first_search:
        variants = first_search(args.first_search, args.runs)
        if args.json:
            print(json.dumps(variants, indent=2))
            return
        print(
            f"new stdio server on the 18 shared PDFs, median of {args.runs}; the first zot_search is sent as "
            "soon as the tools are listed, or after a pause (', 3 s'):"
        )
        for name, row in variants.items():
            print(
                f"  {name:<14} start -> tools/list {row['tools_list'] * 1000:6.0f} ms   first zot_search: "
                f"{row['latency'] * 1000:6.0f} ms (max {row['latency_max'] * 1000:.0f})"
            )
        return

    with tempfile.TemporaryDirectory() as tmp:
        tmp_path = Path(tmp)
        libraries = {p.name: p / "zotero.sqlite" for p in sorted(SHARED.iterdir())} if SHARED.is_dir() else {}
        libraries["demo"] = ensure_demo_library(tmp_path / "demo")
        if args.synthetic:
            started = time.perf_counter()
            libraries[f"synthetic-{args.synthetic}"] = _synthetic(tmp_path / "synthetic", args.synthetic)
            print(f"(built synthetic library in {time.perf_counter() - started:.1f} s)", file=sys.stderr)

        startup = [
            asyncio.run(_time_tools_list(libraries["demo"], tmp_path / "state")) for _ in range(args.runs)
        ]
        biggest = next(reversed(libraries.values()))
        first_call = [asyncio.run(_time_first_call(biggest, tmp_path / "state")) for _ in range(args.runs)]
        loads = {name: _median_load(db, args.runs) for name, db in libraries.items()}

    result = {
        "runs": args.runs,
        "stdio_tools_list_seconds": {
            "median": statistics.median(startup),
            "min": min(startup),
            "max": max(startup),
        },
        "stdio_first_tool_call_seconds": {
            "library": next(reversed(libraries)),
            "median": statistics.median(first_call),
        },
        "library_load_seconds": {name: {"items": n, "median": t} for name, (t, n) in loads.items()},
    }
    if args.json:
        print(json.dumps(result, indent=2))
        return
    s = result["stdio_tools_list_seconds"]
    print(
        f"stdio start -> tools/list: median {s['median'] * 1000:.0f} ms "
        f"(min {s['min'] * 1000:.0f}, max {s['max'] * 1000:.0f}; {args.runs} runs)"
    )
    f = result["stdio_first_tool_call_seconds"]
    print(f"stdio start -> first tool call on {f['library']}: median {f['median'] * 1000:.0f} ms")
    print("library load (median):")
    for name, row in result["library_load_seconds"].items():
        print(f"  {name:<24} {row['items']:>6} items  {row['median'] * 1000:8.1f} ms")


if __name__ == "__main__":
    main()
