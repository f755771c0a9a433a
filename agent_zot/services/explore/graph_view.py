"""The library graph in the chat (MCP Apps): the papers around what a zot_explore_graph request named (a
paper, an author, a concept), drawn as `agent-zot view` draws them. Each function returns the view's maker,
which runs only for a client that renders views; when the graph cannot draw it (a paper added since the
last update-db) the client gets the text answer alone."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from agent_zot.errors import NotFoundError
from agent_zot.graph.model import EdgeKind, Node, paper_id
from agent_zot.graph.store import Direction
from agent_zot.services.explore.view_scope import Scope, expand

if TYPE_CHECKING:
    from agent_zot.graph.store import GraphStore
    from agent_zot.services.context import AppContext
    from agent_zot.zotero.models import Item

# Few enough that the chat lays the graph out in a moment and the view's data stays small; the named paper
# or author's papers are kept first, then the most connected.
IN_CHAT_MAX_NODES = 150
ABSTRACT_CHARS = 600

ViewMaker = Callable[[], dict[str, Any] | None]


def _store(ctx: AppContext) -> GraphStore:
    # `agent-zot view`'s data module reads the explore package: imported when a view is made, not before
    from agent_zot.services.explore.view_data import graph_store

    return graph_store(ctx)


def around_paper(ctx: AppContext, item: Item, hops: int = 1) -> ViewMaker:
    """The paper and the papers up to ``hops`` steps away (citations either way, shared authors)."""

    def make() -> dict[str, Any] | None:
        store = _store(ctx)
        seed = paper_id(item.key)
        if not store.get_nodes([seed]):
            return None
        steps = f"{hops} step{'s' if hops > 1 else ''}"
        scope = Scope(
            f"[{item.key}] {item.title} and the papers up to {steps} away",
            expand(store, {seed}, hops),
            [seed],
        )
        return _drawn(ctx, scope, {"key": item.key})

    return _or_none(make)


def around_author(ctx: AppContext, author: Node) -> ViewMaker:
    """The author's papers, marked, and the papers one step from them."""
    return _around_group(ctx, author, EdgeKind.AUTHORED_BY, f"by {author.name}")


def around_concept(ctx: AppContext, concept: Node) -> ViewMaker:
    """The papers that mention the concept, marked, and the papers one step from them."""
    return _around_group(ctx, concept, EdgeKind.MENTIONS, f"mentioning '{concept.name}'")


def _around_group(ctx: AppContext, node: Node, kind: EdgeKind, label: str) -> ViewMaker:
    """The papers linked to ``node`` by ``kind`` edges, marked, and the papers one step from them."""

    def make() -> dict[str, Any] | None:
        store = _store(ctx)
        papers = {e.source for e in store.edges_of([node.id], kinds=[kind], direction=Direction.IN)}
        if not papers:
            return None
        scope = Scope(
            f"papers {label} and the papers one step from them", expand(store, papers, 1), sorted(papers)
        )
        keys = sorted(p.removeprefix("paper:") for p in papers)
        return _drawn(ctx, scope, {"keys": keys, "label": label})

    return _or_none(make)


def _drawn(ctx: AppContext, scope: Scope, seed: dict[str, Any] | None) -> dict[str, Any]:
    from agent_zot.services.explore.view_data import view_of

    data = view_of(_store(ctx), ctx.library(), scope, IN_CHAT_MAX_NODES).to_json()
    for node in data["nodes"]:
        abstract = node.get("abstract") or ""
        if len(abstract) > ABSTRACT_CHARS:
            node["abstract"] = abstract[: ABSTRACT_CHARS - 1].rstrip() + "…"
    note = data["note"]
    if data["left_out"]:  # the page's advice names the CLI's flags; the chat's way to more is the CLI view
        note = (
            f"Showing the {len(data['nodes']):,} most connected of {data['total_papers']:,} papers. "
            "The `agent-zot view` command draws them all."
        )
    return {**data, "note": note, "renderer": "graph", "seed": seed}


def _or_none(make: Callable[[], dict[str, Any] | None]) -> ViewMaker:
    """No view, rather than an error, when the graph has nothing to draw: the text answer stands alone."""

    def guarded() -> dict[str, Any] | None:
        try:
            return make()
        except NotFoundError:
            return None

    return guarded
