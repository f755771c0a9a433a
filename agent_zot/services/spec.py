"""What a tool is, declared once: its request model, its modes, what each mode may change, and how
explicit arguments combine with what the router read in the query.

The seven tools are declared in `services/catalog.py`. From those specs come the MCP registration, the
`force_mode` choices, the write modes, the `route` CLI and the tool-list snapshot; nothing else lists a
tool's modes or parameters.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.fields import FieldInfo

MODE_DESCRIPTION = "Force this mode."


class Access(StrEnum):
    """What the tool may do; the MCP annotations follow from it."""

    READ = "read"  # reads the library and the index
    WRITE = "write"  # some modes change the library through Zotero's API
    REMOVE = "remove"  # some modes take things out of the library
    FILES = "files"  # writes files in the export folder


@dataclass(frozen=True, slots=True)
class Mode:
    name: str
    writes: str | None = None  # what a write mode does ("adding tags"); None for a read mode


@dataclass(frozen=True, slots=True)
class Implied:
    """An explicit argument that picks a mode: ``field`` set → ``mode``, whatever the query's words imply,
    unless they name one of the ``shared`` modes, which take the argument too (tags given with "add the tag
    ..." are the tags to add). Only `force_mode` beats it."""

    field: str
    mode: str
    shared: tuple[str, ...] = ()
    when: Callable[[Any], bool] | None = None  # the value decides, not its presence: a path's extension

    def takes(self, mode: str) -> bool:
        return mode == self.mode or mode in self.shared

    def applies(self, value: Any) -> bool:
        return self.when is None or self.when(value)


class ToolRequest(BaseModel):
    """The arguments every tool takes; each tool's model adds its own and a `force_mode` of its modes."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    query: str = Field("", description="What you want.")

    def explicit(self) -> set[str]:
        """The fields the caller set (a default is not a choice)."""
        return {name for name in self.model_fields_set if getattr(self, name) not in (None, "", [])}


def described(info: FieldInfo) -> str:
    """A field's description with its default stated ("Max papers (default 10)."), as the assistant sees it."""
    text = info.description or ""
    if info.default in (None, False, "") or "default" in text:
        return text
    body, stop = (text[:-1], ".") if text.endswith(".") else (text, "")
    return f"{body} (default {info.default}){stop}"


def modes_literal(modes: tuple[Mode, ...]) -> Any:
    """``Literal["a", "b", ...] | None`` for a `force_mode` field."""
    return Literal[tuple(m.name for m in modes)] | None


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    description: str  # what the assistant reads; the tool-list budget applies to it
    request: type[ToolRequest]
    modes: tuple[Mode, ...]  # the first is the default
    access: Access
    fills: Mapping[str, str] = field(default_factory=dict)  # request field ← route parameter
    implies: tuple[Implied, ...] = ()

    @property
    def mode_names(self) -> tuple[str, ...]:
        return tuple(m.name for m in self.modes)

    @property
    def write_modes(self) -> dict[str, str]:
        return {m.name: m.writes for m in self.modes if m.writes}

    def implied_mode(self, request: ToolRequest, query_mode: str | None) -> Implied | None:
        """The rule whose mode the explicit arguments pick, or None when they pick none or the query's mode
        (``query_mode``: the mode its words named, if any) takes them. A mode that takes every given argument
        wins, else the one taking most; ties go to the query's mode, then to the first declared rule."""
        given = request.explicit()
        rules = [r for r in self.implies if r.field in given and r.applies(getattr(request, r.field))]
        if not rules:
            return None
        candidates = [query_mode] if query_mode is not None else []
        candidates += [rule.mode for rule in rules if rule.mode not in candidates]
        best = max(candidates, key=lambda mode: (sum(r.takes(mode) for r in rules), -candidates.index(mode)))
        if best == query_mode:
            return None
        return next(rule for rule in rules if rule.mode == best)

    def shown(self, request: ToolRequest, params: Mapping[str, Any]) -> dict[str, Any]:
        """The route's parameters as the tool runs them: an explicit argument replaces the value read from
        the query for the same parameter, so the route never shows a value the tool did not use."""
        shown = dict(params)
        for name in request.explicit():
            source = self.fills.get(name, name)
            if name in self.fills or source in params:
                shown[source] = getattr(request, name)
        return shown

    def merged(self, request: ToolRequest, params: Mapping[str, Any]) -> ToolRequest:
        """The request with what the router extracted filled in where the caller gave nothing:
        explicit arguments always beat extracted ones."""
        given = request.explicit()
        update = {
            name: params[source]
            for name, source in self.fills.items()
            if name not in given and params.get(source) not in (None, "", [], ())
        }
        if not update:
            return request
        # Extracted values come from the router's own parsers, so they are not validated again; the set
        # of fields the caller chose stays as it was (extracted values are not explicit).
        values = {**dict(request), **update}
        return type(request).model_construct(_fields_set=set(request.model_fields_set), **values)
