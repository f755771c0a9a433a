"""Tags: counts, and item search by boolean tag expressions (``a || b`` = or, ``-c`` = not)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_zot.errors import InvalidArgumentError
from agent_zot.services.resolve.scope import resolve_tags
from agent_zot.services.response import ToolResponse, item_line, more_line
from agent_zot.zotero.models import Library

# Conditions are separated by commas, "&&" or " AND "; inside one, "||" separates alternatives.
_CONDITION_SPLIT = re.compile(r"\s*(?:,|&&|\bAND\b)\s*")
_NEGATION = re.compile(r'(?:^|\s)-("[^"]+"|[^\s|]+)')


@dataclass(frozen=True, slots=True)
class TagCondition:
    """Item matches when it has any of ``any_of``; a negated condition matches when it has none."""

    any_of: tuple[str, ...]
    negated: bool = False


def parse_tag_expression(expression: str | list[str]) -> list[TagCondition]:
    """``"ml || deep learning, -review"`` -> [any_of(ml, deep learning), not(review)].

    A list is taken as already-separated conditions. A tag that itself starts with "-" or contains
    "||" or "," is written in double quotes: ``"-draft"``.
    """
    parts = expression if isinstance(expression, list) else _split_conditions(expression)
    conditions: list[TagCondition] = []
    for part in parts:
        masked, quoted = _mask_quotes(part.strip())
        for negated in _NEGATION.findall(masked):
            conditions.append(TagCondition((_unquote(_unmask(negated, quoted)),), negated=True))
        positive = _NEGATION.sub(" ", masked).strip()
        alternatives = tuple(
            _unquote(_unmask(a, quoted)) for a in re.split(r"\s*\|\|\s*", positive) if a.strip()
        )
        if alternatives:
            conditions.append(TagCondition(alternatives))
    if not conditions:
        raise InvalidArgumentError(
            "No tags in the expression.", hint='Example: "ml || nlp, -review" (ml or nlp, and not review).'
        )
    return conditions


def _mask_quotes(text: str) -> tuple[str, list[str]]:
    """Hide quoted tag names behind placeholders so operators inside quotes are not operators."""
    quoted: list[str] = []

    def stash(match: re.Match[str]) -> str:
        quoted.append(match.group(0))
        return f"\x00{len(quoted) - 1}\x00"

    return re.sub(r'"[^"]*"', stash, text), quoted


def _unmask(text: str, quoted: list[str]) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: quoted[int(m.group(1))], text)


def _split_conditions(expression: str) -> list[str]:
    masked, quoted = _mask_quotes(expression)
    return [_unmask(p, quoted) for p in _CONDITION_SPLIT.split(masked)]


def _unquote(tag: str) -> str:
    tag = tag.strip()
    return tag[1:-1] if len(tag) >= 2 and tag[0] == tag[-1] == '"' else tag


def list_tags(library: Library, *, limit: int, contains: str | None = None) -> ToolResponse:
    counts = library.tag_counts()
    automatic = {t.name for i in library.items.values() for t in i.tags if t.automatic}
    manual = {t.name for i in library.items.values() for t in i.tags if not t.automatic}
    names = list(counts)
    if contains:
        needle = contains.casefold()
        names = [n for n in names if needle in n.casefold()]
    names.sort(key=lambda n: (-counts[n], n.casefold()))
    shown = names[:limit]
    rows = [{"name": n, "count": counts[n], "automatic": n in automatic and n not in manual} for n in shown]
    if not shown:
        what = f" containing {contains!r}" if contains else ""
        return ToolResponse(f"No tags{what}.", {"tags": [], "total": 0})
    lines = [f"{r['name']} ({r['count']}){' [auto]' if r['automatic'] else ''}" for r in rows]
    more = more_line(len(names), limit)
    return ToolResponse(
        f"{len(names)} tags, most used first:\n" + "\n".join(lines) + more,
        {"tags": rows, "total": len(names)},
    )


def search_by_tags(library: Library, expression: str | list[str], *, limit: int) -> ToolResponse:
    conditions = _resolve_names(library, parse_tag_expression(expression))
    matches = [
        item
        for item in library.items.values()
        if all(_satisfies({t.name.casefold() for t in item.tags}, c) for c in conditions)
    ]
    matches.sort(key=lambda i: i.date_added, reverse=True)
    described = " AND ".join(("NOT " if c.negated else "") + " OR ".join(c.any_of) for c in conditions)
    data = {
        "expression": described,
        "items": [i.to_summary() for i in matches[:limit]],
        "total": len(matches),
    }
    if not matches:
        return ToolResponse(f"No items tagged {described}.", data)
    more = more_line(len(matches), limit)
    return ToolResponse(
        f"{len(matches)} items tagged {described}:\n"
        + "\n".join(item_line(i) for i in matches[:limit])
        + more,
        data,
    )


def _satisfies(tags: set[str], condition: TagCondition) -> bool:
    hit = any(t.casefold() in tags for t in condition.any_of)
    return not hit if condition.negated else hit


def _resolve_names(library: Library, conditions: list[TagCondition]) -> list[TagCondition]:
    """Map each name to the library's spellings (any case); an unknown name is an error with close tags
    (the one tag rule, resolve_tags: the tags are the whole request here)."""
    return [
        TagCondition(
            tuple(
                dict.fromkeys(s for name in c.any_of for s in resolve_tags(library, [name], whole=True).names)
            ),
            c.negated,
        )
        for c in conditions
    ]
