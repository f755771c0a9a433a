"""How many tokens each tool's default answer costs the assistant, on the shared libraries.

    .venv/bin/python scripts/bench_answer_size.py [--work DIR] [--json]

For each of the four shared Zotero libraries and the 18-PDF library (built as scripts/bench_index.py does),
indexes it (`update-db`; kept in --work and reused) and calls every tool once through fastmcp's in-memory
client with a request a researcher would make, using no optional arguments. Reports the text the assistant
reads and the structured content, each in tokens (characters / 4), and their sum. The text carries the
words; the structured content carries keys, pages, scores and provenance, so nothing is paid for twice.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_index import SHARED, build_pdf_library

LIBRARIES = ("gglin001-z5", "hsteinshiromoto-z6", "pthemis5-z7", "yuanluochen-z7")


def calls(first_title: str) -> list[tuple[str, dict[str, Any]]]:
    """One default call per tool; the title words of the library's first paper pick a paper to ask about."""
    return [
        ("zot_search", {"query": "what method do the authors propose and how is it evaluated"}),
        ("zot_summarize", {"query": f"summarize {first_title}"}),
        (
            "zot_summarize",
            {"query": f"what are the main findings of {first_title}", "force_mode": "targeted"},
        ),
        ("zot_explore_graph", {"query": "most influential papers in my library"}),
        ("zot_manage_collections", {"query": "list my collections"}),
        ("zot_manage_tags", {"query": "list my tags"}),
        ("zot_manage_notes", {"query": "list my notes"}),
    ]


def tokens(result: Any) -> tuple[int, int]:
    text = sum(len(block.text) for block in result.content if hasattr(block, "text"))
    structured = len(json.dumps(result.structured_content or {}, ensure_ascii=False))
    return text // 4, structured // 4


async def measure(settings: Settings) -> list[dict[str, Any]]:
    ctx = AppContext(settings)
    items = sorted(ctx.library().items.values(), key=lambda i: i.key)
    paper = next((i.key for i in items if i.attachments), items[0].key)
    rows = []
    async with Client(build_server(ctx)) as client:
        for tool, arguments in calls(paper):
            result = await client.call_tool(tool, arguments, raise_on_error=False)
            text, structured = tokens(result)
            mode = (result.structured_content or {}).get("route", {}).get("mode", "error")
            rows.append({"tool": tool, "mode": mode, "text": text, "structured": structured})
    ctx.close()
    return rows


def prepare(work: Path, name: str) -> Settings:
    if name == "pdfs":
        library = work / name / "library"
        if not (library / "zotero.sqlite").is_file():
            build_pdf_library(library)
    else:
        library = SHARED / "zotero" / name
    settings = Settings(zotero_data_dir=library, data_dir=work / name / "state", export_dir=work / name / "x")
    ctx = AppContext(settings)
    update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
    ctx.close()
    return settings


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=None, help="keep the libraries' indexes here")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    results: dict[str, list[dict[str, Any]]] = {}
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        for name in ("pdfs", *LIBRARIES):
            results[name] = asyncio.run(measure(prepare(work, name)))
            print(f"measured {name}", file=sys.stderr)
    if args.json:
        print(json.dumps(results, indent=2))
        return
    keys = [(r["tool"], r["mode"]) for r in results["pdfs"]]
    print("tool / mode: text + structured tokens per library, then the median text")
    for n, (tool, mode) in enumerate(keys):
        cells = [f"{rows[n]['text']}+{rows[n]['structured']}" for rows in results.values()]
        median = statistics.median(rows[n]["text"] for rows in results.values())
        print(f"{tool} {mode}: {' | '.join(cells)} (median text {median:.0f})")


if __name__ == "__main__":
    main()
