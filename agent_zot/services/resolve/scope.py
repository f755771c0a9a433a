"""Which papers a request covers, resolved one way for every tool (search's filters, the claim check, the
review matrix's rows, exports, notes and annotations): item keys, a collection and everything below it,
tags (any of them), authors, years, an item type and words to search for, narrowing each other when given
together. One tag rule (any case, checked against the library: an unknown tag is left out with a note and
a "did you mean", an error only when the tags are the whole request) and one description of the scope."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from typing import Any

from rapidfuzz import fuzz, process, utils

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.index.store import SearchFilter
from agent_zot.services.resolve.library import author_surnames, resolve_collection, resolve_item
from agent_zot.services.resolve.match import match_items
from agent_zot.services.resolve.per_library import PerLibrary
from agent_zot.services.response import quoted
from agent_zot.zotero.models import Collection, Item, Library

# rapidfuzz WRatio (0-100) of a typed tag to the library's tags: a letter dropped, doubled or swapped
# ("methd", "nlpp") scores above 85; unrelated short tags stay below 70.
_TAG_CUTOFF = 70
_TAG_SUGGESTIONS = 4


def collection_phrase(name: str) -> str:
    """How every answer names a collection scope: "collection 'Thesis' (and below)"."""
    return f"collection {name!r} (and below)"


def tags_phrase(tags: Sequence[str]) -> str:
    """How every answer names a tag scope: "tagged rct or trial"."""
    return "tagged " + " or ".join(tags)


def describe_scope(
    *,
    collection: str | None = None,
    tags: Sequence[str] = (),
    authors: Sequence[str] = (),
    year_min: int | None = None,
    year_max: int | None = None,
    item_types: Sequence[str] = (),
    listed: int = 0,
    search: str | None = None,
    ranked: bool = False,
) -> str:
    """The one description of a scope: "collection 'Thesis' (and below) and items tagged rct and items by
    Smith and items from 2019 on and 3 listed items and items matching 'trial'" (``ranked``: "the best
    papers for 'trial'"); "" when nothing narrows it."""
    parts = []
    if collection:
        parts.append(collection_phrase(collection))
    if tags:
        parts.append("items " + tags_phrase(tags))
    if authors:
        parts.append("items by " + " or ".join(authors))
    if year_min is not None and year_max is not None:
        parts.append(
            f"items from {year_min} to {year_max}" if year_min != year_max else f"items from {year_min}"
        )
    elif year_min is not None or year_max is not None:
        parts.append(f"items from {year_min} on" if year_min is not None else f"items up to {year_max}")
    if item_types:
        parts.append("items of type " + " or ".join(item_types))
    if listed:
        parts.append(f"{listed} listed items")
    if search:
        parts.append(f"the best papers for {search!r}" if ranked else f"items matching {search!r}")
    return " and ".join(parts)


def without_note(done: str, left_out: Sequence[str]) -> str:
    """What an answer says of the names that matched nothing and were left out ("Searched without these
    filters: No tag 'nlpp' in this library. Did you mean: nlp?")."""
    return f"{done} without these filters: " + " ".join(left_out)


@dataclass(frozen=True, slots=True)
class Filters:
    """A request's filters resolved against the library: what the search store, a listing and the review
    matrix's rows are restricted to."""

    authors: tuple[str, ...] = ()  # creator last names as stored in Zotero
    left_out: tuple[str, ...] = ()  # names in the request that match nothing, each with why (and close ones)
    # typed tags the library does not have: applied all the same (nothing passes them), each with why
    unmatched: tuple[str, ...] = ()
    year_min: int | None = None
    year_max: int | None = None
    collection: Collection | None = None
    collection_keys: tuple[str, ...] = ()  # the collection and its sub-collections
    tags: tuple[str, ...] = ()  # as the library spells them (every spelling of a name, any case)
    item_types: tuple[str, ...] = ()

    def store_filter(self) -> SearchFilter:
        return SearchFilter(
            year_min=self.year_min,
            year_max=self.year_max,
            item_types=self.item_types,
            collections=self.collection_keys,
            tags=self.tags,
            creators=self.authors,
        )

    def admits(self, item: Item) -> bool:
        year = item.year
        folded = {t.casefold() for t in self.tags}
        return (
            (not self.authors or any(c.last_name in self.authors for c in item.creators))
            and (self.year_min is None or (year is not None and year >= self.year_min))
            and (self.year_max is None or (year is not None and year <= self.year_max))
            and (not self.collection_keys or bool(set(item.collection_keys) & set(self.collection_keys)))
            and (not self.tags or any(t.name.casefold() in folded for t in item.tags))
            and (not self.item_types or item.item_type in self.item_types)
        )

    def describe(self) -> str:
        """The scope in words (describe_scope); "" when nothing narrows it."""
        return describe_scope(
            collection=self._collection_name(),
            tags=_distinct_folded(self.tags),
            authors=self.authors,
            year_min=self.year_min,
            year_max=self.year_max,
            item_types=self.item_types,
        )

    def beyond(self, kept: Filters) -> Filters:
        """What these filters narrow that ``kept`` does not, one kind of filter at a time (the filters a
        request's words added to the caller's explicit arguments); the notes stay with ``self``."""
        years = (self.year_min, self.year_max) != (kept.year_min, kept.year_max)
        collection = self.collection_keys != kept.collection_keys
        return Filters(
            authors=self.authors if self.authors != kept.authors else (),
            year_min=self.year_min if years else None,
            year_max=self.year_max if years else None,
            collection=self.collection if collection else None,
            collection_keys=self.collection_keys if collection else (),
            tags=self.tags if self.tags != kept.tags else (),
            item_types=self.item_types if self.item_types != kept.item_types else (),
        )

    def to_dict(self) -> dict[str, Any]:
        """The filters that narrow, as data (the names of a request's parameters)."""
        given: dict[str, Any] = {
            "authors": list(self.authors),
            "years": {"start": self.year_min, "end": self.year_max}
            if self.year_min is not None or self.year_max is not None
            else None,
            "collection": self._collection_name(),
            "tags": _distinct_folded(self.tags),
            "item_types": list(self.item_types),
        }
        return {name: value for name, value in given.items() if value}

    def _collection_name(self) -> str | None:
        return (self.collection.path or self.collection.name) if self.collection else None


def resolve_filters(
    library: Library,
    params: Mapping[str, Any],
    explicit: Mapping[str, Any],
    *,
    strict_authors: bool = True,
    narrowed: bool = False,
) -> Filters:
    """The request's filters (explicit arguments win over what the router read in ``params``) resolved
    against the library. An author or collection the library does not have is an error when it is the whole
    request (``strict_authors``) or was given explicitly; next to a topic, the router may have read
    "regulated by Esrrb" as a name or "data collection process" as a collection, so that filter is dropped
    and ``left_out`` says so. Tags follow the one tag rule (resolve_tags): they are the whole request when
    nothing else narrows it (no topic, no other filter, nothing ``narrowed`` it: listed keys, search words)."""
    years = params.get("years") or {}
    year_min = explicit.get("year_min") or years.get("start")
    year_max = explicit.get("year_max") or years.get("end")
    _check_years(library, year_min, year_max)
    names = explicit.get("authors") or params.get("authors") or ()
    surnames: list[str] = []
    left_out: list[str] = []
    collection_name = explicit.get("collection") or params.get("collection")
    collection = None
    if collection_name:
        try:
            collection = resolve_collection(library, collection_name)
        except NotFoundError as err:
            # "data collection process": the router's guess at a collection name, next to a real topic
            if strict_authors or explicit.get("collection"):
                raise
            left_out.append(str(err))
    for name in names:
        try:
            surnames += author_surnames(library, name)
        except NotFoundError as err:
            if strict_authors or explicit.get("authors"):
                raise
            left_out.append(str(err))
    item_types = tuple(filter(None, [explicit.get("item_type")]))
    alone = strict_authors and not (
        narrowed or names or collection_name or year_min or year_max or item_types
    )
    tags = resolve_tags(library, explicit.get("tags") or params.get("tags") or (), whole=alone)
    # A typed tag argument takes effect even when the library has no such tag: nothing passes it (with the
    # note saying so), rather than the papers of every tag; a tag the router read from the words is dropped.
    typed = tuple(t for t in explicit.get("tags") or () if t and t.strip())
    kept = typed if not tags.names else ()
    return Filters(
        authors=tuple(surnames),
        left_out=(*left_out, *(() if kept else tags.left_out)),
        unmatched=tags.left_out if kept else (),
        year_min=year_min,
        year_max=year_max,
        collection=collection,
        collection_keys=tuple(library.collection_and_below(collection.key)) if collection else (),
        tags=tags.names or kept,
        item_types=item_types,
    )


def explicit_filters(library: Library, explicit: Mapping[str, Any]) -> Filters:
    """The caller's explicit arguments alone, resolved (what a search keeps when it drops the filters the
    router read from the request's words)."""
    return resolve_filters(library, {}, explicit, strict_authors=False)


def _check_years(library: Library, year_min: int | None, year_max: int | None) -> None:
    if year_min is not None and year_max is not None and year_min > year_max:
        raise InvalidArgumentError(f"The year range {year_min}–{year_max} is empty (start after end).")
    this_year = date.today().year
    if year_min is not None and year_min > this_year:
        newest = max((i.year for i in library.items.values() if i.year), default=None)
        raise InvalidArgumentError(
            f"No paper can be from {year_min} or later: it is {this_year}.",
            hint=f"The newest item in your library is from {newest}." if newest else "Drop the year filter.",
        )


@dataclass(frozen=True, slots=True)
class LibraryScope:
    """The papers a request covers, as named in the request; `select` resolves the names."""

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
        """The scope as named (describe_scope); "the whole library" when empty."""
        return (
            describe_scope(
                collection=self.collection,
                tags=self.tags,
                listed=len(self.item_keys),
                search=self.search,
                ranked=ranked,
            )
            or "the whole library"
        )

    def arguments(self) -> dict[str, Any]:
        """The scope as tool arguments (for a next-page call)."""
        given: dict[str, Any] = {
            "collection": self.collection,
            "tags": list(self.tags) or None,
            "item_keys": list(self.item_keys) or None,
            "search": self.search,
        }
        return {k: v for k, v in given.items() if v}

    def filters(self, library: Library) -> Filters:
        """The collection (a fuzzy name resolves or asks) and the tags, resolved; the tags are the whole
        request when no collection, keys or search words narrow it too."""
        explicit = {"collection": self.collection, "tags": list(self.tags)}
        return resolve_filters(library, {}, explicit, narrowed=bool(self.item_keys or self.search))

    def listed(self, library: Library) -> list[Item]:
        """The listed keys' items, in order, each once; unknown keys are one error that names them all
        (with the close keys of the first)."""
        found: dict[str, Item] = {}
        unknown: list[tuple[str, NotFoundError]] = []
        for key in self.item_keys:
            try:
                item = resolve_item(library, key)
            except NotFoundError as err:
                unknown.append((key, err))
                continue
            found.setdefault(item.key, item)
        if len(unknown) > 1:
            keys = ", ".join(quoted(key, 40) for key, _ in unknown)
            raise NotFoundError(f"No items with keys {keys} in this library.", hint=unknown[0][1].hint)
        if unknown:
            raise unknown[0][1]
        return list(found.values())

    def select(self, library: Library) -> tuple[list[Item], Filters]:
        """The library's items in scope, by metadata, and the filters they passed: listed keys (else the
        whole library), the collection and below, any of the tags, every word of the search in the item's
        metadata."""
        filters = self.filters(library)
        items = self.listed(library) if self.item_keys else list(library.items.values())
        items = [i for i in items if filters.admits(i)]
        if self.search:
            items = match_items(items, self.search)
        return items, filters

    def items(self, library: Library) -> list[Item]:
        return self.select(library)[0]


@dataclass(frozen=True, slots=True)
class TagChoice:
    """Tags resolved by the one tag rule: ``names`` as the library spells them, ``left_out`` one line per
    name that matches no tag (with close ones)."""

    names: tuple[str, ...] = ()
    left_out: tuple[str, ...] = ()


def resolve_tags(library: Library, wanted: Iterable[str], *, whole: bool) -> TagChoice:
    """Tag names matched ignoring case, each to every spelling the library has of it (items, notes and
    annotations). A name that matches nothing is left out with a line saying so and naming close tags;
    when ``whole`` (the tags are the whole request) and none of them matches, that is NotFoundError."""
    names = list(dict.fromkeys(w.strip() for w in wanted if w and w.strip()))
    if not names:
        return TagChoice()
    spellings = tag_spellings(library)
    found = [s for n in names for s in spellings.get(n.casefold(), ())]
    missing = [unknown_tag(n, spellings) for n in names if n.casefold() not in spellings]
    if whole and not found:
        raise missing[0]
    return TagChoice(tuple(dict.fromkeys(found)), tuple(str(err) for err in missing))


def unknown_tag(name: str, spellings: Mapping[str, Sequence[str]]) -> NotFoundError:
    """The one error (or note) for a tag name the library does not have, with a "did you mean"."""
    choices = sorted({s for known in spellings.values() for s in known})
    close = process.extract(
        name,
        choices,
        scorer=fuzz.WRatio,
        processor=utils.default_process,
        limit=_TAG_SUGGESTIONS,
        score_cutoff=_TAG_CUTOFF,
    )
    hint = (
        ("Did you mean: " + ", ".join(c[0] for c in close) + "?")
        if close
        else "List tags with zot_manage_tags."
    )
    return NotFoundError(f"No tag {quoted(name)} in this library.", hint=hint)


def tag_spellings(library: Library) -> Mapping[str, Sequence[str]]:
    """Every tag of the library by its folded name (made once per library snapshot: read, never changed)."""
    return _tag_spellings(library)


def _spellings_of(library: Library) -> dict[str, tuple[str, ...]]:
    spellings: dict[str, dict[str, None]] = {}
    for tag in _all_tags(library):
        spellings.setdefault(tag.casefold(), {})[tag] = None
    return {folded: tuple(known) for folded, known in spellings.items()}


_tag_spellings = PerLibrary(_spellings_of)


def _distinct_folded(tags: Sequence[str]) -> list[str]:
    """One spelling per name, for saying which tags a scope has ("rct", not "rct or RCT")."""
    first: dict[str, str] = {}
    for tag in tags:
        first.setdefault(tag.casefold(), tag)
    return list(first.values())


def _all_tags(library: Library) -> Iterable[str]:
    for item in library.items.values():
        yield from (t.name for t in item.tags)
    for note in library.notes:
        yield from (t.name for t in note.tags)
    for ann in library.annotations:
        yield from (t.name for t in ann.tags)
