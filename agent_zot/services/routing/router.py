"""`route()`: extract parameters, score every mode of the tool, explain the choice."""

from __future__ import annotations

from typing import Any

from .decompose import decompose
from .examples import nearest_mode
from .extract import bare_topic, build_topic, extract_params
from .model import TOOL_MODES, TOOLS, Route, mode_facts
from .rules import Decision, Hit, Rule, collect_hits, decide, explain
from .rules_explore import EXPLORE_RULES
from .rules_manage import COLLECTION_RULES, EXPORT_RULES, NOTE_RULES, TAG_RULES
from .rules_search import ONE_PAPER_WEIGHT, SEARCH_RULES, SUMMARIZE_RULES, one_paper_named

# Modes only their own wording selects, never resemblance to labelled requests: a claim to check reads
# like any topic ("statins prevent dementia"), so without "is there evidence", "what argues against"...
# it is a search.
# A GraphML export is what a request asks for by its own words ("graph", "Gephi"), never by resemblance.
CUE_ONLY_MODES = frozenset(
    {
        ("zot_search", "evidence"),
        ("zot_summarize", "audit"),
        ("zot_summarize", "matrix"),
        ("zot_export", "review"),
        ("zot_export", "graphml"),
    }
)

RULE_TABLES: dict[str, tuple[Rule, ...]] = {
    "zot_search": SEARCH_RULES,
    "zot_summarize": SUMMARIZE_RULES,
    "zot_explore_graph": EXPLORE_RULES,
    "zot_manage_collections": COLLECTION_RULES,
    "zot_manage_tags": TAG_RULES,
    "zot_manage_notes": NOTE_RULES,
    "zot_export": EXPORT_RULES,
}

# Short names people type at a prompt ("search", "tags") for the canonical tool names.
_ALIASES: dict[str, str] = {
    **{tool.removeprefix("zot_"): tool for tool in TOOLS},
    "explore": "zot_explore_graph",
    "collections": "zot_manage_collections",
    "tags": "zot_manage_tags",
    "notes": "zot_manage_notes",
}

_EMPTY_CONFIDENCE = 0.2
# The similarity a request's nearest labelled requests need before their mode replaces the tool's default.
# Below it the neighbours share topic words more than the request's wording: a plain topic sent to
# zot_search stays a search. Chosen leaving each unseen set out in turn (scripts/bench_routing.py
# --calibrate): for zot_search every floor from 0.3 up did best, 0.4 is in the middle of that range; for
# the other tools the floor hardly matters, 0.2 keeps all they had.
FALLBACK_FLOOR = {"zot_search": 0.4}
_DEFAULT_FLOOR = 0.2
# Cues and parameters are read from this many leading characters. Requests are short; a longer query
# is pasted text (an abstract to match) that stays whole in the topic. This bounds the regex work.
MAX_ANALYSED_CHARS = 500


def resolve_tool(tool: str) -> str:
    """The canonical tool name, or ValueError listing the valid ones."""
    name = tool.strip().lower() if isinstance(tool, str) else ""
    if name in TOOL_MODES:
        return name
    if name in _ALIASES:
        return _ALIASES[name]
    raise ValueError(f"unknown tool {tool!r}; valid tools: {', '.join(TOOLS)}")


def _check_mode(tool: str, force_mode: str) -> str:
    mode = force_mode.strip().lower() if isinstance(force_mode, str) else ""
    if mode not in TOOL_MODES[tool]:
        raise ValueError(
            f"unknown mode {force_mode!r} for {tool}; valid modes: {', '.join(TOOL_MODES[tool])}"
        )
    return mode


def route(tool: str, query: str, *, force_mode: str | None = None) -> Route:
    """Decide which mode `tool` should run for `query`. Deterministic; no I/O but reading the packaged
    labelled requests once, the first time no rule matches."""
    tool = resolve_tool(tool)
    forced = _check_mode(tool, force_mode) if force_mode is not None else None
    query = query if isinstance(query, str) else ""
    modes = TOOL_MODES[tool]

    head = _analysed_head(query)
    extraction = extract_params(head, tool)
    params: dict[str, Any] = dict(extraction.params)
    path_format = params.pop("path_format", None)
    hits = collect_hits(RULE_TABLES[tool], head, params)
    if tool == "zot_search" and (naming := one_paper_named(head)):
        shown = " ".join(naming.split()[:6])
        hits.append(Hit("fast", ONE_PAPER_WEIGHT, f"asks about one paper ('{shown}')", None))

    cued = False
    if forced is not None:
        mode, confidence, reason = forced, 1.0, "forced"
        if tool == "zot_export":
            params["format"] = forced
    elif not query.strip():
        mode, confidence = modes[0], _EMPTY_CONFIDENCE
        reason = f"empty query → default mode {modes[0]}"
    else:
        decision = decide(modes, hits)
        mode, confidence, reason = decision.mode, decision.confidence, explain(decision)
        cued = bool(decision.hits)
        if not cued:  # no rule recognised the wording: take the mode of the most similar labelled requests
            nearest = None if tool == "zot_search" and bare_topic(head) else nearest_mode(tool, head)
            floor = FALLBACK_FLOOR.get(tool, _DEFAULT_FLOOR)
            if nearest is not None and nearest[1] >= floor and (tool, nearest[0]) not in CUE_ONLY_MODES:
                mode, similarity = nearest
                confidence = round(min(0.6, similarity), 2)
                reason = f"no pattern matched; the most similar labelled requests → {mode} ({similarity:.2f})"
        if tool == "zot_export":
            _add_format(params, decision, path_format)
    if len(head) < len(query):
        reason += f"; read the first {len(head)} of {len(query)} characters"

    mode_spans = [h.span for h in hits if h.mode == mode and h.span is not None]
    params["topic"] = build_topic(query, [*extraction.removed, *mode_spans], tool)
    intent, backends = mode_facts(tool, mode)
    subqueries = decompose(params["topic"], query) if tool == "zot_search" else ()
    return Route(
        tool=tool,
        intent=intent,
        mode=mode,
        confidence=confidence,
        compound=bool(subqueries),
        subqueries=subqueries,
        backends=backends,
        forced=forced is not None,
        cued=cued,
        reason=reason,
        params=params,
    )


def _analysed_head(query: str) -> str:
    """The leading part of `query` that routing reads, cut at a space so no token is split."""
    if len(query) <= MAX_ANALYSED_CHARS:
        return query
    cut = query.rfind(" ", MAX_ANALYSED_CHARS - 60, MAX_ANALYSED_CHARS)
    return query[: cut if cut > 0 else MAX_ANALYSED_CHARS]


def _add_format(params: dict[str, Any], decision: Decision, path_format: str | None) -> None:
    """Export format: the file extension wins, then a format word; nothing found → leave it to the mode.
    Annotations are rows whichever extension (.csv or .json) names the file."""
    if path_format is not None and decision.mode != "annotations":
        params["format"] = path_format
    elif decision.hits:
        params["format"] = decision.mode
