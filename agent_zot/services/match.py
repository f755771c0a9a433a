"""Plain metadata matching: which items mention every word of a query (for scoping exports and lists)."""

from __future__ import annotations

import re

from agent_zot.text import fold
from agent_zot.zotero.models import Item

_WORD = re.compile(r"\w+", re.UNICODE)


def haystack(item: Item) -> str:
    parts = [
        item.key,
        item.title,
        item.venue,
        item.doi,
        item.citation_key or "",
        str(item.year or ""),
        item.abstract,
        item.item_type,
        *(c.full_name for c in item.creators),
        *item.tag_names(),
    ]
    return fold(" ".join(parts))


def match_items(items: list[Item], query: str) -> list[Item]:
    """Items whose metadata contains every word of ``query``; title hits rank first."""
    terms = [fold(t) for t in _WORD.findall(query)]
    if not terms:
        return list(items)
    scored = []
    for item in items:
        text = haystack(item)
        if all(t in text for t in terms):
            title = fold(item.title)
            scored.append((sum(t in title for t in terms), item))
    scored.sort(key=lambda pair: (-pair[0], pair[1].title.casefold()))
    return [item for _, item in scored]
