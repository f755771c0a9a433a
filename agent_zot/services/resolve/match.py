"""Plain metadata matching: which items mention every word of a query (for scoping exports and lists)."""

from __future__ import annotations

import re
import threading
from collections.abc import Callable

from agent_zot.text import fold
from agent_zot.zotero.models import Item, Library

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


def match_items(items: list[Item], query: str, *, library: Library | None = None) -> list[Item]:
    """Items whose metadata contains every word of ``query``; title hits rank first. With the ``library``
    the items come from, their folded metadata is kept for the next query (folding every abstract of a
    large library took most of a metadata search)."""
    terms = [fold(t) for t in _WORD.findall(query)]
    if not terms:
        return list(items)
    texts = _haystacks(library) if library is not None else {}
    for item in items:
        if item.key not in texts:
            texts[item.key] = haystack(item)
    # One term (the longest: the rarest, most likely) narrows the items in a tight loop; the others are
    # checked on those only. A generator per item made this most of a metadata search at 20,000 items.
    anchor = max(terms, key=len)
    others = [t for t in terms if t != anchor]
    scored = []
    for item in [i for i in items if anchor in texts[i.key]]:
        text = texts[item.key]
        if all(t in text for t in others):
            title = fold(item.title)
            scored.append((sum(t in title for t in terms), item))
    scored.sort(key=lambda pair: (-pair[0], pair[1].title.casefold()))
    return [item for _, item in scored]


_WARM_BATCH = 500  # items folded between two pauses of the warm-up


def warm_texts(library: Library, pause: Callable[[], None] = lambda: None) -> None:
    """Fold the library's metadata now (the server's warm-up), not in the first metadata search;
    ``pause`` is called between batches (the warm-up lets requests go first)."""
    texts = _haystacks(library)
    for done, (key, item) in enumerate(library.items.items()):
        if done % _WARM_BATCH == 0:
            pause()
        if key not in texts:
            texts[key] = haystack(item)


_lock = threading.Lock()
_latest: tuple[Library, dict[str, str]] | None = None  # only the current snapshot's texts are kept


def _haystacks(library: Library) -> dict[str, str]:
    global _latest
    with _lock:
        if _latest is None or _latest[0] is not library:
            _latest = (library, {})
        return _latest[1]
