"""Argument errors the assistant can act on. fastmcp validates a call's arguments against the tool's
signature before agent-zot sees them, and answers a bad one with pydantic's own text (error codes and a
documentation link). This middleware answers instead with what was wrong with which argument, what it
takes, and the tool's arguments when one does not exist."""

from __future__ import annotations

from typing import Any

from fastmcp.exceptions import ValidationError
from fastmcp.server.middleware import CallNext, Middleware, MiddlewareContext
from fastmcp.tools import ToolResult
from pydantic import ValidationError as PydanticValidationError

from agent_zot.services.catalog import SPECS

_ARGUMENTS = {spec.name: list(spec.request.model_fields) for spec in SPECS}
_SHOWN_INPUT = 60  # characters of a rejected value quoted back


class ReadableArgumentErrors(Middleware):
    """A call whose arguments fail validation gets a tool error naming each bad argument and the fix."""

    async def on_call_tool(self, context: MiddlewareContext[Any], call_next: CallNext[Any, Any]) -> Any:
        try:
            return await call_next(context)
        except ValidationError as exc:
            cause = exc.__cause__
            if not isinstance(cause, PydanticValidationError):
                raise
            return argument_error(context.message.name, cause)


def argument_error(tool: str, error: PydanticValidationError) -> ToolResult:
    """The tool error for ``error``: one line per problem, then how to call the tool right."""
    problems = [_problem(tool, detail) for detail in error.errors(include_url=False)]
    known = _ARGUMENTS.get(tool, [])
    hint = "Fix the argument and call again; each parameter's description says what it takes."
    if any(d["type"] == "unexpected_keyword_argument" for d in error.errors(include_url=False)) and known:
        hint = f"{tool} takes: {', '.join(known)}."
    message = f"Invalid argument{'s' if len(problems) > 1 else ''} for {tool}: " + "; ".join(problems) + "."
    structured = {"error": {"type": "InvalidArgumentError", "message": message, "hint": hint}}
    return ToolResult(content=f"{message}\n{hint}", structured_content=structured, is_error=True)


def _problem(tool: str, detail: Any) -> str:
    name = ".".join(str(part) for part in detail.get("loc", ())) or "arguments"
    kind = detail.get("type", "")
    if kind == "unexpected_keyword_argument":
        return f"{name} is not an argument of {tool}"
    if kind == "missing" or kind == "missing_argument":
        return f"{name} is required"
    said = detail.get("msg", "is not valid").removeprefix("Input ")
    value = repr(detail.get("input"))
    if len(value) > _SHOWN_INPUT:
        value = value[: _SHOWN_INPUT - 1] + "…"
    return f"{name} {said} (got {value})"
