"""`agent-zot demo`: build the demo library, index it, and show a few tool calls, in one command.

The demo has its own data folder (``<data_dir>/demo``), so it never mixes with the user's own index.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent_zot.config import Settings
from agent_zot.errors import LibraryNotFoundError
from agent_zot.services import tools
from agent_zot.services.context import AppContext
from agent_zot.services.resolve.match import match_items
from agent_zot.services.upkeep.update_db import Progress, UpdateOptions, update_index
from agent_zot.zotero.demo import ensure_demo_library
from agent_zot.zotero.discovery import discover_library

GRAPH_EXAMPLE = "which papers in my library cite BERT?"
SEARCH_EXAMPLE = "how are citation links resolved when building a corpus of papers?"


@dataclass(slots=True)
class DemoSection:
    title: str
    text: str


def run_demo(
    settings: Settings, *, on_progress: Callable[[Progress], None] | None = None
) -> list[DemoSection]:
    demo_dir = settings.data_dir / "demo"
    db = ensure_demo_library(demo_dir / "library")
    demo_settings = settings.model_copy(update={"data_dir": demo_dir, "zotero_data_dir": db.parent})
    ctx = AppContext(demo_settings)
    try:
        library = ctx.library()
        summary = update_index(
            library, ctx.index_resources(), UpdateOptions(), on_progress=on_progress, graph=ctx.graph()
        )
        s2orc = match_items(list(library.items.values()), "S2ORC")[0]
        sections = [
            DemoSection(
                "Demo library",
                f"{db}\n{len(library.items)} items, {len(library.collections)} "
                f"collections, {len(library.attachments)} PDFs.",
            ),
            DemoSection(
                "update-db",
                f"Indexed {summary.indexed} items ({summary.pages} pages, {summary.chunks} "
                f"chunks) in {summary.seconds:.1f} s; {summary.unchanged} unchanged. "
                f"Model {summary.model}, store {summary.store}.",
            ),
            DemoSection(
                'zot_manage_collections "list my collections"',
                tools.call(ctx, "zot_manage_collections", query="list my collections").text,
            ),
            DemoSection(
                'zot_manage_tags "papers tagged to-read"',
                tools.call(ctx, "zot_manage_tags", query="papers tagged to-read").text,
            ),
            DemoSection(
                f'zot_manage_notes "what did I highlight in {s2orc.key}?"',
                tools.call(ctx, "zot_manage_notes", query=f"what did I highlight in {s2orc.key}?").text,
            ),
            DemoSection(f'zot_search "{SEARCH_EXAMPLE}"', _search_preview(ctx, SEARCH_EXAMPLE)),
            DemoSection(
                f'zot_explore_graph "{GRAPH_EXAMPLE}"',
                tools.call(ctx, "zot_explore_graph", query=GRAPH_EXAMPLE).text,
            ),
            DemoSection("Your own library", _your_library(settings)),
        ]
    finally:
        ctx.close()
    return sections


def _search_preview(ctx: AppContext, query: str) -> str:
    """What zot_search answers: hybrid (dense + BM25) full-text search with page citations."""
    return tools.call(ctx, "zot_search", query=query, limit=3).text


def _your_library(settings: Settings) -> str:
    try:
        found = discover_library(settings.zotero_data_dir)
    except LibraryNotFoundError as exc:
        return f"{exc.message}\n{exc.hint}"
    return (
        f"Found {found.db_path} ({found.how}).\nIndex it with: agent-zot update-db\n"
        "Then add agent-zot to Claude (see the README)."
    )
