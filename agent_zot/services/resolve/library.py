"""Resolve what users name (item keys, titles, collection names) to library objects, forgivingly."""

from __future__ import annotations

from rapidfuzz import fuzz, process, utils

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.services.match import match_items
from agent_zot.services.response import quoted
from agent_zot.zotero.models import Collection, Item, Library

# Scores are rapidfuzz WRatio (0-100). Chosen on the shared libraries' collection names: typos and
# partial names of a single collection score above 85; unrelated names stay below 60.
_CONFIDENT = 85
_CANDIDATE = 60
_MARGIN = 8


def resolve_item(library: Library, key: str) -> Item:
    """An item by key (case-insensitive); a clear error naming the key otherwise."""
    cleaned = key.strip().upper()
    if not cleaned:
        raise InvalidArgumentError("An item key is required.", hint="Item keys look like ABCD2345.")
    item = library.items.get(cleaned)
    if item is not None:
        return item
    for attachment in library.attachments:
        if attachment.key == cleaned and attachment.parent_key:
            return library.items[attachment.parent_key]
    close = process.extract(
        key, {k: i.title for k, i in library.items.items()}, scorer=fuzz.WRatio, limit=3, score_cutoff=80
    )
    hint = "Find keys with zot_search or zot_manage_collections."
    if close:
        hint = "Did you mean: " + "; ".join(f"{k} ({title[:60]})" for title, _, k in close) + "?"
    raise NotFoundError(f"No item with key {key.strip()!r} in this library.", hint=hint)


def resolve_collection(library: Library, name: str) -> Collection:
    """A collection by key, full path ("Thesis/Chapter 2") or name, with fuzzy matching.

    Several equally good matches raise AmbiguousNameError listing them; nothing close raises NotFoundError.
    """
    wanted = name.strip().strip("'\"“”‘’").strip()
    if not wanted:
        raise InvalidArgumentError(
            "A collection name is required.", hint="List collections with mode 'list'."
        )
    if wanted.upper() in library.collections:
        return library.collections[wanted.upper()]
    folded = wanted.casefold()
    exact = [c for c in library.collections.values() if c.path.casefold() == folded]
    exact = exact or [c for c in library.collections.values() if c.name.casefold() == folded]
    if len(exact) == 1:
        return exact[0]
    if len(exact) > 1:
        raise _ambiguous(wanted, exact)

    scored = sorted(
        ((_name_score(wanted, c), c) for c in library.collections.values()), key=lambda pair: -pair[0]
    )
    scored = [(score, c) for score, c in scored if score >= _CANDIDATE]
    if not scored:
        available = ", ".join(sorted(c.path for c in library.collections.values())[:15]) or "none"
        raise NotFoundError(f"No collection matches {quoted(wanted)}.", hint=f"Collections: {available}.")
    best_score, best = scored[0]
    runner_up = scored[1][0] if len(scored) > 1 else 0
    if best_score >= _CONFIDENT and best_score - runner_up >= _MARGIN:
        return best
    raise _ambiguous(wanted, [c for score, c in scored[:6] if best_score - score < 15])


def _name_score(wanted: str, collection: Collection) -> float:
    """Users name a collection by its own name or by its path; score both, keep the better."""
    return max(
        fuzz.WRatio(wanted, collection.name, processor=str.casefold),
        fuzz.WRatio(wanted, collection.path, processor=str.casefold),
    )


def _ambiguous(wanted: str, matches: list[Collection]) -> AmbiguousNameError:
    paths = [f"{c.path} [{c.key}]" for c in matches]
    return AmbiguousNameError(
        f"{quoted(wanted)} matches several collections: " + "; ".join(paths) + ".",
        candidates=paths,
        hint="Repeat the request with the full path or the collection key.",
    )


def resolve_paper(library: Library, item_key: str | None, text: str) -> Item:
    """An item by key, else the best title/metadata match for ``text``; ambiguity returns candidates."""
    if item_key:
        item = library.items.get(item_key.strip().upper())
        if item is None:
            raise NotFoundError(f"No item with key {item_key!r} in this library.")
        return item
    wanted = text.strip()
    if not wanted:
        raise InvalidArgumentError(
            "Which paper? Give an item key or part of its title.", hint="For example item_key='ABCD2345'."
        )
    items = list(library.items.values())
    matches = match_items(items, wanted)
    if not matches:
        titles = {i.title: i for i in items if i.title}
        scored = process.extract(wanted, list(titles), scorer=fuzz.token_set_ratio, limit=3, score_cutoff=75)
        matches = [titles[t] for t, _, _ in scored]
    if not matches:
        close = process.extract(wanted, list(titles), scorer=fuzz.WRatio, limit=3, score_cutoff=50)
        hint = ("Close titles: " + "; ".join(t for t, _, _ in close) + ".") if close else "Try an item key."
        raise NotFoundError(f"No paper in the library matches {quoted(wanted)}.", hint=hint)
    matches.sort(key=lambda i: -_title_fit(wanted, i.title))  # stable: metadata-match order breaks ties
    if len(matches) > 1 and _close_call(wanted, matches):
        raise AmbiguousNameError(
            f"{len(matches)} papers match {quoted(wanted)}; say which one.",
            candidates=[f"{i.key}: {i.title} ({i.year or 'n.d.'})" for i in matches[:8]],
        )
    return matches[0]


def _close_call(wanted: str, matches: list[Item]) -> bool:
    """Two candidates whose titles fit the words equally well: guessing would be a coin toss."""
    first, second = (_title_fit(wanted, m.title) for m in matches[:2])
    return abs(first - second) < 5 and first < 95


def _title_fit(wanted: str, title: str) -> float:
    """How well the words fit the title: 100 when every word is a whole word of it ("BERT" in "BERT: …",
    not in "SciBERT: …")."""
    return fuzz.token_set_ratio(wanted, title, processor=utils.default_process)


def author_surnames(library: Library, name: str) -> list[str]:
    """The stored last names a typed author name stands for ("van der Berg", "J. Smith", "Smith")."""
    wanted = " ".join(name.replace(",", " ").split()).casefold()
    surnames = {c.last_name for item in library.items.values() for c in item.creators if c.last_name}
    found = [s for s in surnames if wanted == s.casefold() or wanted.endswith(" " + s.casefold())]
    if found:
        return sorted(found)
    close = [m for m, score, _ in process.extract(name, sorted(surnames), limit=5) if score >= 70]
    raise NotFoundError(
        f"No author named {quoted(name)} in your library.",
        hint=("Did you mean: " + ", ".join(close) + "?")
        if close
        else "Check the spelling, or search by topic.",
    )
