"""Rule tables and the scorer that turns rule hits into a mode choice.

A table is plain data: a list of `Rule`s, each voting for one mode with a weight when its pattern
matches the query (or when the extractor found a given parameter). The scorer adds the votes per mode
with diminishing returns, so three weak cues never beat one decisive phrase by accident.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

# Extra hits for a mode count at this fraction of their weight (the strongest counts fully).
_EXTRA_HIT_FACTOR = 0.3
# What the default mode scores when nothing matched at all.
DEFAULT_PRIOR = 0.3
# The strongest score at which confidence stops growing with strength.
_STRONG_SCORE = 2.0
# Confidence in the default mode when no cue matched at all.
_NO_CUE_CONFIDENCE = 0.4


@dataclass(frozen=True, slots=True)
class Rule:
    """One vote: `pattern` (or the presence of extracted parameter `param`) → `weight` for `mode`.

    A negative weight counts against the mode (for cues that rule it out). A `content` rule recognises the
    shape of a request whose matched words are what it asks (a question about one paper), so they stay in
    the topic; any other rule's match is wording ("find papers on") and is cut from it.
    """

    mode: str
    weight: float
    pattern: re.Pattern[str] | None = None
    param: str | None = None
    content: bool = False


_UPPERCASE_LITERAL = re.compile(r"(?<!\\)[A-Z]")


def rx(mode: str, weight: float, regex: str, *, content: bool = False) -> Rule:
    """A case-insensitive pattern rule, written in lower case (`content`: see `Rule`).

    Rules are matched against the lower-cased query without re.IGNORECASE, which is about twice as fast.
    """
    if _UPPERCASE_LITERAL.search(regex):
        raise ValueError(f"rule patterns are matched against lower-cased text; write {regex!r} in lower case")
    return Rule(mode, weight, pattern=re.compile(regex), content=content)


def has(mode: str, weight: float, param: str) -> Rule:
    """A rule that fires when the extractor found `param`."""
    return Rule(mode, weight, param=param)


@dataclass(frozen=True, slots=True)
class Hit:
    """A rule that fired: its mode, weight, what it matched (for the reason) and where."""

    mode: str
    weight: float
    label: str
    span: tuple[int, int] | None


@dataclass(frozen=True, slots=True)
class Decision:
    mode: str
    confidence: float
    hits: tuple[Hit, ...]  # the winning mode's hits, strongest first
    runner_up: str | None


def collect_hits(rules: Sequence[Rule], query: str, params: Mapping[str, Any]) -> list[Hit]:
    hits: list[Hit] = []
    lowered = query.lower()
    if len(lowered) != len(query):  # a few characters lower-case to two; keep offsets valid
        lowered = "".join(c.lower()[:1] or c for c in query)
    for rule in rules:
        if rule.pattern is not None:
            m = rule.pattern.search(lowered)
            if m:
                shown = " ".join(query[m.start() : m.end()].split())[:40]
                span = None if rule.content else m.span()
                hits.append(Hit(rule.mode, rule.weight, f"matched '{shown}'", span))
        elif rule.param is not None and rule.param in params:
            hits.append(Hit(rule.mode, rule.weight, f"found {rule.param}", None))
    return hits


def _mode_score(weights: list[float]) -> float:
    positive = sorted((w for w in weights if w > 0), reverse=True)
    negative = sum(w for w in weights if w < 0)
    if not positive:
        return negative
    return positive[0] + _EXTRA_HIT_FACTOR * sum(positive[1:]) + negative


def decide(modes: Sequence[str], hits: Sequence[Hit]) -> Decision:
    """Score every mode, pick the best (ties go to the earlier mode), grade confidence by the margin."""
    weights: dict[str, list[float]] = {mode: [] for mode in modes}
    for hit in hits:
        weights[hit.mode].append(hit.weight)
    scores = {mode: _mode_score(ws) for mode, ws in weights.items()}
    default = modes[0]
    scores[default] = max(scores[default], DEFAULT_PRIOR)
    ranked = sorted(modes, key=lambda m: (-scores[m], modes.index(m)))
    best, second = ranked[0], ranked[1] if len(ranked) > 1 else None
    best_hits = tuple(sorted((h for h in hits if h.mode == best and h.weight > 0), key=lambda h: -h.weight))
    if not best_hits:
        return Decision(best, _NO_CUE_CONFIDENCE, (), None)
    top = scores[best]
    runner = max(scores[second], 0.0) if second else 0.0
    margin = (top - runner) / top if top > 0 else 0.0
    strength = min(1.0, top / _STRONG_SCORE)
    confidence = round(min(1.0, 0.3 + 0.4 * margin + 0.3 * strength), 3)
    contested = second is not None and any(h.mode == second and h.weight > 0 for h in hits)
    return Decision(best, confidence, best_hits, second if contested else None)


def explain(decision: Decision) -> str:
    """Short human text naming the cues that decided."""
    if not decision.hits:
        return f"no pattern matched → default mode {decision.mode}"
    cues = ", ".join(h.label for h in decision.hits[:2])
    text = f"{cues} → {decision.mode}"
    if decision.runner_up:
        text += f" (runner-up: {decision.runner_up})"
    return text
