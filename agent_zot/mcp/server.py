"""The MCP server: tool signatures and descriptions only; all behaviour lives in agent_zot.services."""

from __future__ import annotations

import logging
from collections.abc import Callable
from types import ModuleType
from typing import Annotated, Any, Literal

from fastmcp import FastMCP
from fastmcp.tools import ToolResult
from mcp.types import ToolAnnotations
from pydantic import Field

from agent_zot import __version__
from agent_zot.errors import AgentZotError, AmbiguousNameError
from agent_zot.services.context import AppContext
from agent_zot.services.response import ToolResponse

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "agent-zot reads the user's Zotero library (it never writes zotero.sqlite; changes, when the user enabled "
    "them, go through Zotero's API). Each tool takes a natural-language `query` and "
    "routes it to a mode; explicit arguments override what the query implies. Every result carries a `route` "
    "saying which mode ran and why. Item keys look like ABCD2345."
)

READ_ONLY = ToolAnnotations(
    read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)
# The manage tools write to Zotero (through its API) when writes are enabled; remove modes are destructive.
MAY_WRITE = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True
)
MAY_REMOVE = ToolAnnotations(
    read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
)
ItemKeys = Annotated[list[str] | None, Field(description="Items to change.")]
WRITES_FILES = ToolAnnotations(
    read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
)

Query = Annotated[str, Field(description="What you want, in plain words.")]
Limit = Annotated[int | None, Field(description="Max results (default 20).", ge=1, le=200)]
MODE = "Skip detection and run this mode."


def _result(call: Callable[[], ToolResponse]) -> ToolResult:
    """Run a service call; turn our errors into tool errors the assistant can act on."""
    try:
        response = call()
    except AgentZotError as exc:
        error: dict[str, Any] = {"type": type(exc).__name__, "message": exc.message, "hint": exc.hint}
        if isinstance(exc, AmbiguousNameError):
            error["candidates"] = exc.candidates
        return ToolResult(content=str(exc), structured_content={"error": error}, is_error=True)
    return ToolResult(content=response.text, structured_content=response.data, is_error=response.is_error)


def _tools() -> ModuleType:
    """The tool implementations (routing tables, services), imported on the first call, not at startup."""
    from agent_zot.services import tools

    return tools


def build_server(ctx: AppContext) -> FastMCP:
    server = FastMCP("agent-zot", instructions=INSTRUCTIONS, version=__version__, mask_error_details=True)

    @server.tool(annotations=READ_ONLY, output_schema=None)
    def zot_search(
        query: Query = "",
        authors: Annotated[list[str] | None, Field(description="Only papers by these authors.")] = None,
        year_min: Annotated[int | None, Field(description="Published in or after this year.")] = None,
        year_max: Annotated[int | None, Field(description="Published in or before this year.")] = None,
        collection: Annotated[str | None, Field(description="Only this collection (and below).")] = None,
        tags: Annotated[list[str] | None, Field(description="Only items with any of these tags.")] = None,
        item_type: Annotated[str | None, Field(description="Zotero item type, e.g. journalArticle.")] = None,
        limit: Annotated[int | None, Field(description="Max papers (default 10).", ge=1, le=200)] = None,
        detail: Annotated[
            Literal["sentences", "full"] | None,
            Field(description="Passages as the best sentences (default) or whole chunks."),
        ] = None,
        force_mode: Annotated[
            Literal["fast", "entity", "graph", "metadata", "comprehensive"] | None, Field(description=MODE)
        ] = None,
    ) -> ToolResult:
        """Find papers: hybrid full-text search giving each paper's best page-cited sentences, or
        metadata (authors, years, collection, tags) when no topic. More of one paper: zot_summarize."""
        return _result(
            lambda: _tools().search(
                ctx,
                query,
                force_mode=force_mode,
                limit=limit,
                year_min=year_min,
                year_max=year_max,
                authors=authors,
                collection=collection,
                tags=tags,
                item_type=item_type,
                detail=detail,
            )
        )

    @server.tool(annotations=READ_ONLY, output_schema=None)
    def zot_summarize(
        query: Query = "",
        item_key: Annotated[str | None, Field(description="The paper; else named in the query.")] = None,
        pages: Annotated[str | None, Field(description="Full text: pages '3' or '3-5'.")] = None,
        offset: Annotated[int | None, Field(description="Full text: read on from this page.")] = None,
        max_tokens: Annotated[int | None, Field(description="Size budget of the answer.")] = None,
        force_mode: Annotated[
            Literal["quick", "targeted", "comprehensive", "full"] | None, Field(description=MODE)
        ] = None,
    ) -> ToolResult:
        """One paper (by key, DOI, citation key or title words): overview, passages answering a question,
        aspect summary (question, method, findings, limits), or full text by pages."""
        return _result(
            lambda: _tools().summarize(
                ctx,
                query,
                force_mode=force_mode,
                item_key=item_key,
                pages=pages,
                offset=offset,
                max_tokens=max_tokens,
            )
        )

    @server.tool(annotations=READ_ONLY, output_schema=None)
    def zot_explore_graph(
        query: Query = "",
        item_key: Annotated[str | None, Field(description="The paper to start from.")] = None,
        author: Annotated[str | None, Field(description="The author to start from.")] = None,
        concept: Annotated[str | None, Field(description="Concept or topic (field filter).")] = None,
        year_min: Annotated[int | None, Field(description="Temporal: first year.")] = None,
        year_max: Annotated[int | None, Field(description="Temporal: last year.")] = None,
        hops: Annotated[int | None, Field(description="Citation 1-3, collaboration 1-2.", ge=1, le=3)] = None,
        direction: Annotated[Literal["out", "in", "both"] | None, Field(description="out = cites.")] = None,
        limit: Limit = None,
        force_mode: Annotated[
            Literal[
                "citation",
                "influence",
                "content_similarity",
                "related",
                "collaboration",
                "concept",
                "temporal",
                "venue",
                "comprehensive",
            ]
            | None,
            Field(description=MODE),
        ] = None,
    ) -> ToolResult:
        """Knowledge graph of citations (from reference lists), co-authors, concepts and venues: citation
        chains, influence, related or similar papers, collaborators, concepts over time, venues."""
        return _result(
            lambda: _tools().explore_graph(
                ctx,
                query,
                force_mode=force_mode,
                item_key=item_key,
                author=author,
                concept=concept,
                year_min=year_min,
                year_max=year_max,
                hops=hops,
                direction=direction,
                limit=limit,
            )
        )

    @server.tool(annotations=MAY_REMOVE, output_schema=None)
    def zot_manage_collections(
        query: Query = "",
        collection: Annotated[str | None, Field(description="Collection name, path (A/B) or key.")] = None,
        item_keys: ItemKeys = None,
        days: Annotated[
            int | None, Field(description="For recent: only items added in the last N days.", ge=1)
        ] = None,
        recursive: Annotated[bool, Field(description="Include sub-collections' items.")] = False,
        limit: Limit = None,
        force_mode: Annotated[
            Literal["list", "show_items", "recent", "create", "add", "remove"] | None, Field(description=MODE)
        ] = None,
    ) -> ToolResult:
        """Zotero collections: list the tree, show items, recent items; create (A/B nested), add/remove
        items (needs writes enabled). Fuzzy names; ambiguous ones return candidates."""
        return _result(
            lambda: _tools().manage_collections(
                ctx,
                query,
                force_mode=force_mode,
                collection=collection,
                limit=limit,
                days=days,
                recursive=recursive,
                item_keys=item_keys,
            )
        )

    @server.tool(annotations=MAY_REMOVE, output_schema=None)
    def zot_manage_tags(
        query: Query = "",
        tags: Annotated[
            str | list[str] | None,
            Field(
                description='Tag expression: "a || b" = a or b; "-c" = not c; commas join conditions (and).'
            ),
        ] = None,
        item_keys: ItemKeys = None,
        limit: Limit = None,
        force_mode: Annotated[
            Literal["list", "search", "add", "remove"] | None, Field(description=MODE)
        ] = None,
    ) -> ToolResult:
        """Zotero tags: list with counts, find items by tags (a || b, -c), or add/remove tags on items
        (literal names; needs writes enabled)."""
        return _result(
            lambda: _tools().manage_tags(
                ctx, query, force_mode=force_mode, tags_expression=tags, limit=limit, item_keys=item_keys
            )
        )

    @server.tool(annotations=MAY_WRITE, output_schema=None)
    def zot_manage_notes(
        query: Query = "",
        item_key: Annotated[
            str | None, Field(description="Item whose notes to list, or a new note's parent.")
        ] = None,
        note: Annotated[str | None, Field(description="Text of a new note (Markdown).")] = None,
        limit: Limit = None,
        force_mode: Annotated[
            Literal["list_notes", "list_annotations", "search", "create"] | None, Field(description=MODE)
        ] = None,
    ) -> ToolResult:
        """Zotero notes and PDF annotations: list them for an item (with page labels), search their text, or
        create a child note from Markdown (needs writes enabled)."""
        return _result(
            lambda: _tools().manage_notes(
                ctx, query, force_mode=force_mode, item_key=item_key, limit=limit, note=note
            )
        )

    @server.tool(annotations=WRITES_FILES, output_schema=None)
    def zot_export(
        query: Query = "",
        path: Annotated[
            str | None,
            Field(
                description="File under the export folder; .bib, .json (CSL-JSON) or .md picks the format; a "
                "folder name with markdown writes one file per item."
            ),
        ] = None,
        collection: Annotated[
            str | None, Field(description="Export this collection (with sub-collections).")
        ] = None,
        item_keys: Annotated[list[str] | None, Field(description="Export these items.")] = None,
        search: Annotated[str | None, Field(description="Only items whose metadata has these words.")] = None,
        overwrite: Annotated[bool, Field(description="Replace an existing file.")] = False,
        node_types: Annotated[list[str] | None, Field(description="GraphML: e.g. Paper, Author.")] = None,
        max_nodes: Annotated[int | None, Field(description="GraphML: node cap.", ge=1)] = None,
        force_mode: Annotated[
            Literal["bibtex", "markdown", "csljson", "graphml"] | None, Field(description=MODE)
        ] = None,
    ) -> ToolResult:
        """Export items to BibTeX, CSL-JSON, Markdown (notes, annotations) or the knowledge graph to
        GraphML (Gephi, networkx), as files in the export folder."""
        return _result(
            lambda: _tools().export_library(
                ctx,
                query,
                force_mode=force_mode,
                path=path,
                collection=collection,
                item_keys=item_keys,
                search=search,
                overwrite=overwrite,
                node_types=node_types,
                max_nodes=max_nodes,
            )
        )

    return server
