"""Which papers a request covers: a collection and everything below it, tags (any of them), listed item
keys and words to search for, narrowing each other when given together. One scope, one description and
one way to resolve its names, for exports, the review matrix and the notes tools (search filters and the
graph view walk collections the same way, `Library.collection_and_below`)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from rapidfuzz import fuzz, process

from agent_zot.errors import NotFoundError
from agent_zot.services.resolve.library import resolve_collection
from agent_zot.services.resolve.match import match_items
from agent_zot.zotero.models import Item, Library


def collection_phrase(name: str) -> str:
    """How every answer names a collection scope: "collection 'Thesis' (and below)"."""
    return f"collection {name!r} (and below)"


def tags_phrase(tags: Sequence[str]) -> str:
    """How every answer names a tag scope: "tagged rct or trial"."""
    return "tagged " + " or ".join(tags)


@dataclass(frozen=True, slots=True)
class LibraryScope:
    """The papers a request covers, as named in the request; `items` resolves the names."""

    collection: str | None = None
    tags: tuple[str, ...] = ()
    item_keys: tuple[str, ...] = ()
    search: str | None = None  # words: metadata words for an export, the best papers for a matrix

    @classmethod
    def of(
        cls,
        *,
        collection: str | None = None,
        tags: Iterable[str] | None = None,
        item_keys: Iterable[str] | None = None,
        search: str | None = None,
    ) -> LibraryScope:
        """The scope with blank names dropped and the rest trimmed."""
        return cls(
            collection=(collection or "").strip() or None,
            tags=tuple(t.strip() for t in tags or () if t and t.strip()),
            item_keys=tuple(k.strip() for k in item_keys or () if k and k.strip()),
            search=(search or "").strip() or None,
        )

    @classmethod
    def from_route(cls, params: Mapping[str, Any]) -> LibraryScope:
        """The scope the router read in the request's words (a collection, tags, item keys)."""
        return cls.of(
            collection=params.get("collection"), tags=params.get("tags"), item_keys=params.get("item_keys")
        )

    @property
    def empty(self) -> bool:
        return not (self.collection or self.tags or self.item_keys or self.search)

    def describe(self, *, ranked: bool = False) -> str:
        """ "collection 'Thesis' (and below) and items tagged rct and 3 listed items and items matching
        'trial'" (``ranked``: "the best papers for 'trial'"); "the whole library" when empty."""
        parts = []
        if self.collection:
            parts.append(collection_phrase(self.collection))
        if self.tags:
            parts.append("items " + tags_phrase(self.tags))
        if self.item_keys:
            parts.append(f"{len(self.item_keys)} listed items")
        if self.search:
            parts.append(
                f"the best papers for {self.search!r}" if ranked else f"items matching {self.search!r}"
            )
        return " and ".join(parts) or "the whole library"

    def arguments(self) -> dict[str, Any]:
        """The scope as tool arguments (for a next-page call)."""
        given: dict[str, Any] = {
            "collection": self.collection,
            "tags": list(self.tags) or None,
            "item_keys": list(self.item_keys) or None,
            "search": self.search,
        }
        return {k: v for k, v in given.items() if v}

    def items(self, library: Library) -> list[Item]:
        """The library's items in scope, by metadata: listed keys (an unknown one is an error), the
        collection and below (a fuzzy name resolves or asks), any of the tags (as the library spells them),
        every word of the search in the item's metadata."""
        items = list(library.items.values())
        if self.item_keys:
            wanted = [k.strip().upper() for k in self.item_keys if k.strip()]
            unknown = [k for k in wanted if k not in library.items]
            if unknown:
                raise NotFoundError(
                    f"No item with key(s) {', '.join(unknown)} in this library.",
                    hint="Nothing was exported. Check the keys (they look like ABCD2345).",
                )
            items = [library.items[k] for k in dict.fromkeys(wanted)]
        if self.collection:
            collection = resolve_collection(library, self.collection)
            below = set(library.collection_and_below(collection.key))
            items = [i for i in items if below.intersection(i.collection_keys)]
        if self.search:
            items = match_items(items, self.search)
        if self.tags:
            wanted_tags = {t.casefold() for t in resolve_tags(library, self.tags)}
            items = [i for i in items if any(t.name.casefold() in wanted_tags for t in i.tags)]
        return items


def resolve_tags(library: Library, wanted: Iterable[str]) -> tuple[str, ...]:
    """Tag names as the library spells them (matched ignoring case); unknown ones raise NotFoundError."""
    names = [w.strip() for w in wanted if w and w.strip()]
    if not names:
        return ()
    known: dict[str, str] = {}
    for tag in _all_tags(library):
        known.setdefault(tag.casefold(), tag)
    missing = [n for n in names if n.casefold() not in known]
    if missing:
        close = process.extract(missing[0], sorted(set(known.values())), scorer=fuzz.WRatio, limit=5)
        suggestions = [name for name, score, _ in close if score >= 60]
        raise NotFoundError(
            f"No tag {missing[0]!r} on any item, note or annotation in this library.",
            hint=("Closest tags: " + ", ".join(suggestions) + ".")
            if suggestions
            else "List tags with zot_manage_tags.",
        )
    return tuple(dict.fromkeys(known[n.casefold()] for n in names))


def _all_tags(library: Library) -> Iterable[str]:
    for item in library.items.values():
        yield from (t.name for t in item.tags)
    for note in library.notes:
        yield from (t.name for t in note.tags)
    for ann in library.annotations:
        yield from (t.name for t in ann.tags)
