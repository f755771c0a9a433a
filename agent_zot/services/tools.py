"""The seven tools' behaviour, front-end neutral: route the request, run the mode, note the answer.

The MCP server and the CLI both call `call()` (or `run()` with a typed request); the tools themselves are
declared in services/catalog.py, and each tool's package dispatches its own modes (its `tool.py`, listed in
`HANDLERS`). Explicit arguments always win over what the router extracted from the natural-language query
(`ToolSpec.merged`), and an explicit argument picks the mode it implies over the query's words
(`ToolSpec.implied_mode`).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from typing import Any

from pydantic import ValidationError

from agent_zot.errors import AgentZotError, InvalidArgumentError
from agent_zot.services.answer_notes import note_answer, note_error
from agent_zot.services.argument_errors import invalid_arguments
from agent_zot.services.catalog import BY_NAME, WRITE_MODES
from agent_zot.services.context import AppContext
from agent_zot.services.explore import tool as explore
from agent_zot.services.export import tool as export
from agent_zot.services.notes import tool as notes
from agent_zot.services.organize import tool as organize
from agent_zot.services.response import ToolResponse
from agent_zot.services.routing import Route, resolve_tool, route
from agent_zot.services.search import tool as search
from agent_zot.services.spec import ToolRequest, ToolSpec
from agent_zot.services.summarize import tool as summarize

__all__ = ["HANDLERS", "WRITE_MODES", "call", "prepare", "request_for", "routed", "run"]

Handler = Callable[[AppContext, Any, Route], ToolResponse]

# Each tool's entry point: its request, the route's decision → the answer with its route. The heavy
# stacks (index, graph, OCR, exports) load inside them on the first call, not at startup.
HANDLERS: dict[str, Handler] = {
    "zot_search": search.handle,
    "zot_summarize": summarize.handle,
    "zot_explore_graph": explore.handle,
    "zot_manage_collections": organize.manage_collections,
    "zot_manage_tags": organize.manage_tags,
    "zot_manage_notes": notes.handle,
    "zot_export": export.handle,
}

# What a tool's first call imports on its way, loaded ahead by the server's warm-up.
PRELOADS: dict[str, Callable[[], None]] = {"zot_search": search.preload}

# The tools that answer from the full-text index, whose answers say when a rebuild is running.
INDEX_TOOLS = frozenset({"zot_search", "zot_summarize", "zot_explore_graph"})


def spec_for(tool: str) -> ToolSpec:
    """The spec of a tool by its name or a short alias ("tags", "export")."""
    try:
        return BY_NAME[resolve_tool(tool)]
    except ValueError as exc:
        raise InvalidArgumentError(str(exc)) from exc


def routed(tool: str, query: str, force_mode: str | None) -> Route:
    try:
        return route(tool, query or "", force_mode=force_mode)
    except ValueError as exc:
        raise InvalidArgumentError(str(exc)) from exc


def call(ctx: AppContext, tool: str, **arguments: Any) -> ToolResponse:
    """Run ``tool`` with keyword arguments as the MCP tool takes them; ``None`` means not given."""
    spec = spec_for(tool)
    return run(ctx, spec, request_for(spec, arguments))


def request_for(spec: ToolSpec, arguments: dict[str, Any]) -> ToolRequest:
    """The typed request of ``arguments`` (``None`` means not given), or a clear error."""
    given = {name: value for name, value in arguments.items() if value is not None}
    try:
        return spec.request.model_validate(given)
    except ValidationError as exc:
        known = list(spec.request.model_fields)
        raise invalid_arguments(spec.name, exc.errors(include_url=False), known) from exc


def run(ctx: AppContext, spec: ToolSpec, request: ToolRequest) -> ToolResponse:
    """Route a typed request and run the mode it lands on. Answers from the demo library say so, and
    answers from the index say when a rebuild is running (they come from the previous index)."""
    decision, request = prepare(spec, request)
    handler = HANDLERS[spec.name]
    try:
        with ctx.request():
            response = handler(ctx, request, decision)
    except AgentZotError as exc:
        note_error(ctx, exc)
        raise
    note_answer(ctx, response, from_index=spec.name in INDEX_TOOLS)
    return response


def prepare(spec: ToolSpec, request: ToolRequest) -> tuple[Route, Any]:
    """The route for a request, and the request with extracted values where the caller gave none. An
    argument that implies a mode picks it over the query's words (`ToolSpec.implied_mode`); only
    `force_mode` beats it. The route shows the arguments' values, not the query's, where both name one."""
    forced = getattr(request, "force_mode", None)
    decision = routed(spec.name, request.query, forced)
    if forced is None:
        implied = spec.implied_mode(request, decision.mode if decision.cued else None)
        if implied is not None and implied.mode != decision.mode:
            chosen = routed(spec.name, request.query, implied.mode)
            reason = f"argument {implied.field} → mode {implied.mode} (query: {decision.reason})"
            decision = replace(chosen, forced=False, reason=reason)
    decision = replace(decision, params=spec.shown(request, decision.params))
    return decision, spec.merged(request, decision.params)
