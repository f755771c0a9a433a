"""Items that are one paper entered more than once (an import from another database, a web capture of a
paper already there): the same title with no conflicting year or first author, or the same DOI. The resolver
answers from one copy and names the others; the graph draws the paper once."""

from __future__ import annotations

import re
import threading
from collections import defaultdict
from collections.abc import Iterable

from agent_zot.text import ascii_key, fold
from agent_zot.zotero.identifier_table import item_doi
from agent_zot.zotero.models import Item, Library

# What a web capture adds to a title: "… | Request PDF", "… - ScienceDirect", "(PDF) …".
_CAPTURE_NOISE = re.compile(
    r"\s*[|–—-]\s*(?:request pdf|sciencedirect|springerlink|ieee xplore|researchgate|semantic scholar|arxiv"
    r"|wiley online library|taylor\s*&\s*francis online|jstor|pubmed|google scholar)\s*$|^\(pdf\)\s*",
    re.IGNORECASE,
)


def copy_groups(items: Iterable[Item]) -> list[tuple[str, ...]]:
    """The groups of two or more items that are one paper, each as item keys, the copy to answer from
    first (see ``by_preference``)."""
    items = list(items)
    by_title: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        key = _copy_key(item)
        if key:
            by_title[key].append(item)
    groups: list[tuple[str, ...]] = []
    grouped: set[str] = set()
    for same_title in by_title.values():
        while same_title:
            head, rest = same_title[0], same_title[1:]
            same = [head, *(i for i in rest if _compatible(head, i))]
            if len(same) > 1:
                groups.append(tuple(i.key for i in by_preference(same)))
                grouped.update(i.key for i in same)
            same_title = [i for i in rest if i not in same]
    by_doi: dict[str, list[Item]] = defaultdict(list)
    for item in items:
        doi = item_doi(item)
        if doi:
            by_doi[doi].append(item)
    for same_doi in by_doi.values():
        if len(same_doi) > 1 and not any(i.key in grouped for i in same_doi):
            groups.append(tuple(i.key for i in by_preference(same_doi)))
    return groups


def canonical_keys(items: Iterable[Item]) -> dict[str, str]:
    """Each copy's key → the key of the copy that stands for its paper (only items that have copies)."""
    return {key: group[0] for group in copy_groups(items) for key in group}


def by_preference(copies: Iterable[Item]) -> list[Item]:
    """The copy to answer from first: one with a file on disk, then the fuller record, then the oldest."""

    def rank(item: Item) -> tuple[int, int, int, str]:
        has_file = any(a.exists and a.path is not None for a in item.attachments)
        return (-int(has_file), -len(item.creators), -len(item.fields), item.date_added or "~")

    return sorted(copies, key=rank)


def _copy_key(item: Item) -> str | None:
    plain = _CAPTURE_NOISE.sub("", item.title)
    title = ascii_key(plain) or fold(plain).replace(" ", "")
    return title if len(title) >= 12 else None


def _compatible(a: Item, b: Item) -> bool:
    if a.year and b.year and a.year != b.year:
        return False
    first_a = ascii_key(a.authors[0].last_name) if a.authors else ""
    first_b = ascii_key(b.authors[0].last_name) if b.authors else ""
    return not (first_a and first_b and first_a != first_b)


_latest: list[tuple[Library, dict[str, str]]] = []
_lock = threading.Lock()


def paper_key(library: Library, key: str) -> str:
    """The key the graph knows an item by: its own, or that of the copy standing for its paper (the map is
    made once per loaded library)."""
    with _lock:
        if not _latest or _latest[0][0] is not library:
            _latest[:] = [(library, canonical_keys(library.items.values()))]
        return _latest[0][1].get(key, key)
