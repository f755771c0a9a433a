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

from agent_zot.services.argument_errors import invalid_arguments
from agent_zot.services.catalog import SPECS

_ARGUMENTS = {spec.name: list(spec.request.model_fields) for spec in SPECS}


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
    exc = invalid_arguments(tool, error.errors(include_url=False), _ARGUMENTS.get(tool, []))
    structured = {"error": {"type": "InvalidArgumentError", "message": exc.message, "hint": exc.hint}}
    return ToolResult(content=f"{exc.message}\n{exc.hint}", structured_content=structured, is_error=True)
