"""The one wording of a bad tool argument, for every front end: the MCP server (whose arguments fastmcp
checks against the tool's signature) and the CLI (whose `--arg` values the tool's request model checks)
say the same thing about the same mistake: what was wrong with which argument, what it takes, and the
tool's arguments when one does not exist."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_zot.errors import InvalidArgumentError

_SHOWN_INPUT = 60  # characters of a rejected value quoted back
# pydantic's codes for an argument the tool does not have: from a signature, from a model
_UNKNOWN = frozenset({"unexpected_keyword_argument", "extra_forbidden"})


def invalid_arguments(tool: str, errors: Sequence[Any], known: Sequence[str]) -> InvalidArgumentError:
    """The error for pydantic's ``errors`` (``ValidationError.errors(include_url=False)``) on ``tool``'s
    arguments; ``known``: the arguments it takes."""
    problems = [_problem(tool, detail) for detail in errors]
    hint = "Fix the argument and call again; each parameter's description says what it takes."
    if any(detail.get("type") in _UNKNOWN for detail in errors) and known:
        hint = f"{tool} takes: {', '.join(known)}."
    message = f"Invalid argument{'s' if len(problems) > 1 else ''} for {tool}: " + "; ".join(problems) + "."
    return InvalidArgumentError(message, hint=hint)


def _problem(tool: str, detail: Any) -> str:
    name = ".".join(str(part) for part in detail.get("loc", ())) or "arguments"
    kind = detail.get("type", "")
    if kind in _UNKNOWN:
        return f"{name} is not an argument of {tool}"
    if kind == "missing" or kind == "missing_argument":
        return f"{name} is required"
    said = detail.get("msg", "is not valid").removeprefix("Input ")
    value = repr(detail.get("input"))
    if len(value) > _SHOWN_INPUT:
        value = value[: _SHOWN_INPUT - 1] + "…"
    return f"{name} {said} (got {value})"
