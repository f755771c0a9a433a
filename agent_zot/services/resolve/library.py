"""Item keys, collection names and author surnames resolved to library objects, forgivingly (papers named in
words: papers.py)."""

from __future__ import annotations

from dataclasses import dataclass

from rapidfuzz import fuzz, process, utils
from rapidfuzz.distance import Levenshtein

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.identifiers import ITEM_KEY
from agent_zot.services.resolve.match import match_items
from agent_zot.services.resolve.paper_index import paper_index
from agent_zot.services.resolve.per_library import PerLibrary
from agent_zot.services.response import clip, quoted
from agent_zot.zotero.models import Collection, Item, Library

# Scores are rapidfuzz WRatio (0-100). Chosen on the shared libraries' collection names: typos and
# partial names of a single collection score above 85; unrelated names stay below 60.
_CONFIDENT = 85
_CANDIDATE = 60
_MARGIN = 8
# A mistyped key is one or two characters off (keys are 8 characters from a 31-letter alphabet, so two
# random keys differ in nearly every place); up to three close keys or papers are offered.
_KEY_TYPOS = 2
_SHOWN_KEYS = 3


def resolve_item(library: Library, key: str, *, words: bool = False) -> Item:
    """The one door to an item by key, for every tool: the item a key names (any case; an attachment's key
    names its parent item). ``words``: text that is not key-shaped may name the paper in words instead (the
    paper resolver, papers.py). Otherwise NotFoundError with the one "did you mean" (key_hint)."""
    cleaned = key.strip().upper()
    if not cleaned:
        raise InvalidArgumentError("An item key is required.", hint="Item keys look like ABCD2345.")
    item = library.items.get(cleaned)
    if item is not None:
        return item
    for attachment in library.attachments:
        if attachment.key == cleaned and attachment.parent_key in library.items:
            return library.items[attachment.parent_key]
    if words and not ITEM_KEY.fullmatch(cleaned):
        # papers.py resolves a request's keys through this door, so it is imported only here
        from agent_zot.services.resolve.papers import PaperRequest, resolve_papers

        return resolve_papers(library, PaperRequest.of(key.strip())).item
    raise NotFoundError(
        f"No item with key {quoted(key.strip(), 40)} in this library.", hint=key_hint(library, key)
    )


def key_hint(library: Library, key: str) -> str:
    """The one "did you mean" for a key that names no item: keys a typo or two away, else (words given
    instead of a key) the papers whose metadata holds the words or whose title is close."""
    wanted = key.strip().upper()
    keys = process.extract(
        wanted, list(library.items), scorer=Levenshtein.distance, score_cutoff=_KEY_TYPOS, limit=_SHOWN_KEYS
    )
    found = [library.items[k] for k, _, _ in keys]
    if not found and not ITEM_KEY.fullmatch(wanted):
        found = match_items(list(library.items.values()), key)[:_SHOWN_KEYS]
        titles = {k: i.title for k, i in library.items.items()}
        close = process.extract(
            key,
            titles,
            scorer=fuzz.WRatio,
            processor=utils.default_process,
            limit=_SHOWN_KEYS,
            score_cutoff=80,
        )
        found = found or [library.items[k] for _, _, k in close]
    if found:
        return (
            "Did you mean: "
            + "; ".join(f"[{i.key}] {clip(i.title or '(untitled)', 60)}" for i in found)
            + "?"
        )
    return "Item keys look like ABCD2345; find them with zot_search or zot_manage_collections."


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
    trashed = _trashed_named(library, wanted)
    if trashed is not None:  # said before any fuzzy match: a similar live name is not what was meant
        raise NotFoundError(
            f"Collection {quoted(trashed.path)} is in Zotero's trash.",
            hint="Restore it in Zotero (Trash → Restore to Library) to use it, or name another collection.",
        )

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


def _trashed_named(library: Library, wanted: str) -> Collection | None:
    """The trashed collection ``wanted`` names exactly (key, path or name, ignoring case), if any."""
    trashed = library.trashed_collections
    folded = wanted.casefold()
    found = trashed.get(wanted.upper())
    found = found or next((c for c in trashed.values() if c.path.casefold() == folded), None)
    return found or next((c for c in trashed.values() if c.name.casefold() == folded), None)


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


@dataclass(frozen=True, slots=True)
class _Surnames:
    by_folded: dict[str, tuple[str, ...]]  # folded last name → the library's spellings of it
    spellings: list[str]  # every spelling, sorted (for "did you mean")


def _surname_table(library: Library) -> _Surnames:
    spellings = sorted({c.last_name for item in library.items.values() for c in item.creators if c.last_name})
    by_folded: dict[str, list[str]] = {}
    for spelling in spellings:
        by_folded.setdefault(spelling.casefold(), []).append(spelling)
    return _Surnames({k: tuple(v) for k, v in by_folded.items()}, spellings)


_surnames = PerLibrary(_surname_table)


def author_surnames(library: Library, name: str) -> list[str]:
    """The stored last names a typed author name stands for ("van der Berg", "J. Smith", "Smith")."""
    wanted = " ".join(name.replace(",", " ").split()).casefold()
    table = _surnames(library)
    # the whole name, or any tail of it after a space ("van der Berg" → "der berg", "berg")
    tails = [wanted] + [wanted[at + 1 :] for at, char in enumerate(wanted) if char == " "]
    found = {s for tail in tails for s in table.by_folded.get(tail, ())}
    if found:
        return sorted(found)
    close = [m for m, score, _ in process.extract(name, table.spellings, limit=5) if score >= 70]
    raise NotFoundError(
        f"No author named {quoted(name)} in your library.",
        hint=("Did you mean: " + ", ".join(close) + "?")
        if close
        else "Check the spelling, or search by topic.",
    )


def identified_items(library: Library, item_keys: list[str], doi: str | None) -> list[Item]:
    """The items a request names only by item key or DOI, in order, each once; NotFoundError when the
    library has none of them."""
    keys = [k for k in item_keys if k in library.items]
    if doi:
        keys += paper_index(library).ids.with_doi(doi)
    if not keys:
        what = f"DOI {doi}" if doi else "item key " + ", ".join(item_keys)
        raise NotFoundError(f"No item with {what} in this library.", hint="Search by title words instead.")
    return [library.items[k] for k in dict.fromkeys(keys)]
