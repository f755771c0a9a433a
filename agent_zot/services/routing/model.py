"""The routing vocabulary: tools, their modes, and the `Route` decision object."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_zot.services.catalog import TOOL_MODES as CATALOG_MODES

TOOL_MODES: dict[str, tuple[str, ...]] = CATALOG_MODES
"""Each tool's modes (declared in services/catalog.py); the first one is the default."""

TOOLS: tuple[str, ...] = tuple(TOOL_MODES)

INTENTS: tuple[str, ...] = ("semantic", "entity", "relationship", "metadata", "management", "export")

MANAGEMENT_TOOLS: frozenset[str] = frozenset(
    {"zot_manage_collections", "zot_manage_tags", "zot_manage_notes"}
)

_ALL = ("vector", "sparse", "graph", "zotero")

# (tool, mode) -> (intent, backends). Tools not listed fall back to _TOOL_DEFAULTS.
_MODE_FACTS: dict[tuple[str, str], tuple[str, tuple[str, ...]]] = {
    ("zot_search", "fast"): ("semantic", ("vector", "sparse")),
    ("zot_search", "entity"): ("entity", ("vector", "sparse", "graph")),
    ("zot_search", "graph"): ("relationship", ("vector", "sparse", "graph")),
    ("zot_search", "metadata"): ("metadata", ("zotero", "vector", "sparse")),
    ("zot_search", "comprehensive"): ("semantic", _ALL),
    ("zot_search", "evidence"): ("semantic", ("vector", "sparse")),
    ("zot_summarize", "quick"): ("metadata", ("zotero",)),
    ("zot_summarize", "targeted"): ("semantic", ("vector", "sparse")),
    ("zot_summarize", "comprehensive"): ("semantic", ("zotero", "vector", "sparse")),
    ("zot_summarize", "full"): ("semantic", ("zotero", "fulltext")),
    ("zot_summarize", "figures"): ("semantic", ("zotero", "fulltext")),
    ("zot_summarize", "audit"): ("semantic", ("zotero", "vector", "sparse", "fulltext")),
    ("zot_summarize", "matrix"): ("semantic", ("zotero", "vector", "sparse")),
    ("zot_explore_graph", "content_similarity"): ("semantic", ("vector",)),
    ("zot_explore_graph", "comprehensive"): ("relationship", ("graph", "vector")),
    ("zot_export", "graphml"): ("export", ("graph",)),
    ("zot_export", "review"): ("export", ("zotero", "vector", "sparse")),
}

_TOOL_DEFAULTS: dict[str, tuple[str, tuple[str, ...]]] = {
    "zot_explore_graph": ("relationship", ("graph",)),
    "zot_manage_collections": ("management", ("zotero",)),
    "zot_manage_tags": ("management", ("zotero",)),
    "zot_manage_notes": ("management", ("zotero",)),
    "zot_export": ("export", ("zotero",)),
}


def mode_facts(tool: str, mode: str) -> tuple[str, tuple[str, ...]]:
    """Intent and backends a (tool, mode) pair implies."""
    return _MODE_FACTS.get((tool, mode)) or _TOOL_DEFAULTS[tool]


@dataclass(frozen=True)
class Route:
    """One routing decision: which mode a tool should run for a query, and why."""

    tool: str
    intent: str
    mode: str
    confidence: float
    compound: bool = False
    subqueries: tuple[str, ...] = ()
    backends: tuple[str, ...] = ()
    escalated: bool = False
    forced: bool = False  # the caller chose the mode (force_mode)
    cued: bool = False  # a cue in the query chose it (not the default for an empty or cue-less query)
    reason: str = ""
    # hash=False keeps the frozen dataclass hashable although params is a dict.
    params: dict[str, Any] = field(default_factory=dict, hash=False)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready copy: tuples become lists, params are copied so callers cannot mutate us."""
        return {
            "tool": self.tool,
            "intent": self.intent,
            "mode": self.mode,
            "confidence": self.confidence,
            "compound": self.compound,
            "subqueries": list(self.subqueries),
            "backends": list(self.backends),
            "escalated": self.escalated,
            "forced": self.forced,
            "reason": self.reason,
            "params": _json_copy(self.params),
        }


def _json_copy(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _json_copy(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_json_copy(v) for v in value]
    return value
