"""The MCP server: one registration per tool spec (services/catalog.py); all behaviour lives in
agent_zot.services."""

from __future__ import annotations

import base64
import inspect
import logging
import threading
from collections.abc import Callable
from types import ModuleType
from typing import Annotated, Any

from fastmcp import FastMCP
from fastmcp.server.auth import AuthProvider
from fastmcp.tools import ToolResult
from mcp.types import ImageContent, TextContent, ToolAnnotations
from pydantic import Field

from agent_zot import __version__
from agent_zot.errors import AgentZotError, AmbiguousNameError
from agent_zot.mcp.apps import client_renders_apps, for_client, register_apps, tool_app
from agent_zot.mcp.arguments import ReadableArgumentErrors
from agent_zot.mcp.progress import progress_sink
from agent_zot.mcp.prompts import register_prompts
from agent_zot.mcp.resources import register_resources
from agent_zot.services.catalog import SPECS
from agent_zot.services.context import AppContext
from agent_zot.services.progress import reporting_to
from agent_zot.services.response import ToolResponse
from agent_zot.services.spec import Access, ToolSpec
from agent_zot.services.spec import described as spec_described

log = logging.getLogger(__name__)

INSTRUCTIONS = (
    "agent-zot reads the user's Zotero library (it never writes zotero.sqlite; changes, when the user enabled "
    "them, go through Zotero's API). Each tool takes a natural-language `query` and "
    "routes it to a mode; explicit arguments override what the query implies. Every result carries a `route` "
    "saying which mode ran and why. Item keys look like ABCD2345."
)

ANNOTATIONS: dict[Access, ToolAnnotations] = {
    Access.READ: ToolAnnotations(
        read_only_hint=True, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
    # The manage tools write to Zotero (through its API) when writes are enabled; remove modes are destructive.
    Access.WRITE: ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=False, open_world_hint=True
    ),
    Access.REMOVE: ToolAnnotations(
        read_only_hint=False, destructive_hint=True, idempotent_hint=False, open_world_hint=True
    ),
    Access.FILES: ToolAnnotations(
        read_only_hint=False, destructive_hint=False, idempotent_hint=True, open_world_hint=False
    ),
}


def _result(call: Callable[[], ToolResponse], renders_apps: bool = False) -> ToolResult:
    """Run a service call; turn our errors into tool errors the assistant can act on. An answer that needs
    the client's model first (the claim check's stance judge) becomes MCP's request for input. A client
    that renders apps also gets what the tool's view reads (mcp/apps.py)."""
    try:
        response = call()
    except AgentZotError as exc:
        error: dict[str, Any] = {"type": type(exc).__name__, "message": exc.message, "hint": exc.hint}
        if isinstance(exc, AmbiguousNameError):
            error["candidates"] = exc.candidates
        return ToolResult(content=str(exc), structured_content={"error": error}, is_error=True)
    if response.ask_client is not None:
        from agent_zot.mcp.sampling import input_required

        return input_required(response.ask_client)
    if response.images:
        content: list[Any] = [TextContent(type="text", text=response.text)]
        content += [
            ImageContent(type="image", data=base64.b64encode(png).decode("ascii"), mime_type="image/png")
            for png in response.images
        ]
        return ToolResult(content=content, structured_content=response.data, is_error=response.is_error)
    structured = for_client(response, renders_apps)
    return ToolResult(content=response.text, structured_content=structured, is_error=response.is_error)


def _tools() -> ModuleType:
    """The tool implementations (routing tables, services), imported on the first call, not at startup."""
    from agent_zot.services import tools

    return tools


def _parameters(spec: ToolSpec) -> list[inspect.Parameter]:
    """The MCP parameters of a tool, from its request model. Every one defaults to None ("not given"), so
    the request knows what the caller chose; the model's own default is stated in the description."""
    found = []
    for name, info in spec.request.model_fields.items():
        described = Field(description=spec_described(info))
        # a type built at run time from the request model, which a static checker cannot read as a type
        annotation = Annotated[info.annotation | None, *info.metadata, described]  # type: ignore[name-defined]
        found.append(
            inspect.Parameter(name, inspect.Parameter.KEYWORD_ONLY, default=None, annotation=annotation)
        )
    return found


class _Shared:
    """What all tool calls of one server share: the questions put to clients' models whose answers have
    not come back (services/evidence/client_judge.py), made on the first call (the evidence stack loads
    then, not at startup)."""

    def __init__(self) -> None:
        self._ledger: Any = None
        self._lock = threading.Lock()

    def ledger(self) -> Any:
        with self._lock:
            if self._ledger is None:
                from agent_zot.services.evidence.client_judge import AskLedger

                self._ledger = AskLedger()
            return self._ledger


def _tool_function(ctx: AppContext, spec: ToolSpec, shared: _Shared) -> Callable[..., ToolResult]:
    def tool(**arguments: Any) -> ToolResult:
        from agent_zot.mcp.sampling import client_sampling  # the evidence stack loads on the first call

        with client_sampling(shared.ledger()), reporting_to(progress_sink()):
            return _result(lambda: _tools().call(ctx, spec.name, **arguments), client_renders_apps())

    parameters = _parameters(spec)
    tool.__name__ = tool.__qualname__ = spec.name
    tool.__doc__ = spec.description
    tool.__signature__ = inspect.Signature(parameters, return_annotation=ToolResult)  # type: ignore[attr-defined]
    tool.__annotations__ = {p.name: p.annotation for p in parameters} | {"return": ToolResult}
    return tool


def build_server(ctx: AppContext, *, auth: AuthProvider | None = None) -> FastMCP:
    """The MCP server over ``ctx``; ``auth`` checks every HTTP request (see mcp/http.py). Nothing loads
    here: `serve` starts the warm-up (services/upkeep/warmup.py) beside it."""
    server = FastMCP(
        "agent-zot",
        instructions=INSTRUCTIONS,
        version=__version__,
        mask_error_details=True,
        auth=auth,
        middleware=[ReadableArgumentErrors()],
    )
    shared = _Shared()
    for spec in SPECS:
        server.tool(
            _tool_function(ctx, spec, shared),
            name=spec.name,
            description=spec.description,
            annotations=ANNOTATIONS[spec.access],
            output_schema=None,
            app=tool_app(spec.name),
        )
    register_prompts(server)
    register_resources(server, ctx)
    register_apps(server)
    return server
