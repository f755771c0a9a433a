"""`zot_explore_graph`: the mode the route chose, over the knowledge graph (explore/walks.py). networkx and
the graph load on the first call, not at startup."""

from __future__ import annotations

from agent_zot.services.catalog import ExploreRequest
from agent_zot.services.context import AppContext
from agent_zot.services.response import ToolResponse, with_route
from agent_zot.services.routing import Route


def handle(ctx: AppContext, req: ExploreRequest, decision: Route) -> ToolResponse:
    from agent_zot.services.explore.walks import explore_graph

    arguments = req.model_dump(exclude={"force_mode"})
    return with_route(explore_graph(ctx, decision, **arguments), decision)
