"""Does a paper's title, typed as the query, find that paper first? Measured through `zot_search` on the
shared libraries.

    .venv/bin/python scripts/bench_titles.py [--work /tmp/agent-zot-titles] [--library NAME ...] [--misses]
        [--sample N]

Every regular item of each library of ../shared/data/zotero (no attachments, notes or placeholder titles) is
searched for by its whole title and, where the title has one, by its main title (before the colon or question
mark), through the tool as the MCP server runs it, routing included. A search counts as first when its first
paper is the item or a copy of it under the same title (a library may hold a paper twice). Each library is
indexed once under ``--work`` (as `agent-zot update-db` builds it) and read in place, read-only. Prints, per
library and overall, how often the paper came first and how often it was among the ten papers listed.
``--library scifact`` is the 5,183 SciFact abstracts as a library of records without files (bench_retrieval.py
builds it; no title there was looked at while the rules were written); ``--sample N`` searches N items of
each library, drawn with a fixed seed.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import sys
from pathlib import Path
from typing import Any

from fastmcp import Client

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_passages import SHARED_ZOTERO, prepare_corpus

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.text import fold
from agent_zot.zotero.file_metadata import is_placeholder_title

_MAIN_TITLE = re.compile(r"[:?]\s")


def titles_of(ctx: AppContext) -> list[tuple[str, str]]:
    """(item key, title) of the library's regular items with a title of their own."""
    library = ctx.library()
    return [
        (item.key, item.title)
        for item in library.items.values()
        if item.title.strip() and not is_placeholder_title(item)
    ]


def prepare(name: str, work: Path) -> Settings:
    """The library ``name`` indexed under ``work``: a shared Zotero library, or the SciFact one."""
    if name != "scifact":
        return prepare_corpus(name, work)
    from bench_retrieval import build_library

    folder = build_library(work / "libraries" / "scifact")
    settings = Settings(zotero_data_dir=folder, data_dir=work / name / "state", export_dir=work / "exports")
    ctx = AppContext(settings, home=work / "home")
    try:
        update_index(ctx.library(), ctx.index(), UpdateOptions())
    finally:
        ctx.close()
    return settings


async def run_library(name: str, work: Path, show_misses: bool, sample: int | None) -> dict[str, Any]:
    settings = prepare(name, work)
    ctx = AppContext(settings, home=work / "home")
    try:
        titles = titles_of(ctx)
        searched = random.Random(54).sample(titles, sample) if sample and sample < len(titles) else titles
        same_title: dict[str, set[str]] = {}
        for key, title in titles:
            same_title.setdefault(fold(title), set()).add(key)
        counts = {kind: {"searches": 0, "first": 0, "listed": 0} for kind in ("title", "main title")}
        async with Client(build_server(ctx)) as client:
            for _key, title in searched:
                main = _MAIN_TITLE.split(title, maxsplit=1)[0].strip()
                asked = [("title", title)] + ([("main title", main)] if main != title.strip() else [])
                for kind, query in asked:
                    result = await client.call_tool("zot_search", {"query": query}, raise_on_error=False)
                    papers = (result.structured_content or {}).get("papers", [])
                    keys = [paper["key"] for paper in papers]
                    right = same_title[fold(title)]
                    tally = counts[kind]
                    tally["searches"] += 1
                    tally["first"] += bool(keys) and keys[0] in right
                    tally["listed"] += bool(right.intersection(keys))
                    if show_misses and not (keys and keys[0] in right):
                        print(f"  {name} {kind}: {query[:90]!r} -> {keys[:3]}")
    finally:
        ctx.close()
    return counts


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/agent-zot-titles"))
    parser.add_argument("--library", action="append", help="a folder of ../shared/data/zotero (default: all)")
    parser.add_argument(
        "--misses", action="store_true", help="print each search whose first paper was another"
    )
    parser.add_argument("--sample", type=int, default=None, help="search this many items of each library")
    args = parser.parse_args()
    if not SHARED_ZOTERO.is_dir():
        sys.exit(f"no shared libraries at {SHARED_ZOTERO}")
    names = args.library or sorted(p.name for p in SHARED_ZOTERO.iterdir() if (p / "zotero.sqlite").is_file())
    overall = {kind: {"searches": 0, "first": 0, "listed": 0} for kind in ("title", "main title")}
    for name in names:
        counts = asyncio.run(run_library(name, args.work, args.misses, args.sample))
        for kind, tally in counts.items():
            for field, value in tally.items():
                overall[kind][field] += value
            if tally["searches"]:
                print(f"{name:22s} {kind:10s} {_line(tally)}")
    for kind, tally in overall.items():
        print(f"{'all':22s} {kind:10s} {_line(tally)}")
    print(json.dumps(overall))


def _line(tally: dict[str, int]) -> str:
    n = tally["searches"]
    return f"n={n:4d}  first {tally['first'] / n:.3f} ({tally['first']})  listed {tally['listed'] / n:.3f}"


if __name__ == "__main__":
    main()
