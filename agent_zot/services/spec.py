"""What a tool is, declared once: its request model, its modes, what each mode may change, and how
explicit arguments combine with what the router read in the query.

The seven tools are declared in `services/catalog.py`. From those specs come the MCP registration, the
`force_mode` choices, the write modes, the `route` CLI and the tool-list snapshot; nothing else lists a
tool's modes or parameters.
"""

from __future__ import annotations

from collections.abc import Mapping
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
    """An explicit argument that picks a mode: ``field`` set → ``mode``, when the query names no mode
    (or always, with ``over_query``: only that mode can use the argument)."""

    field: str
    mode: str
    over_query: bool = False


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
    return Literal[tuple(m.name for m in modes)] | None  # type: ignore[valid-type]


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

    def implied_mode(self, request: ToolRequest, *, query_named_mode: bool) -> Implied | None:
        """The mode an explicit argument picks, if any (the first declared wins)."""
        given = request.explicit()
        for rule in self.implies:
            if rule.field in given and (rule.over_query or not query_named_mode):
                return rule
        return None

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
