"""Which notes and annotations a request is about: those of one item, of a collection (and below), with
some tags, of a colour. Every zot_manage_notes read mode narrows by the same scope.

Tags count when the note or annotation carries them or when its paper does (people tag papers far more
than highlights); answers say which. Names are forgiving (case, fuzzy collection names, colour aliases),
and a name that matches nothing is an error listing the closest ones, never an empty answer.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from agent_zot.services.resolve.library import resolve_collection, resolve_item
from agent_zot.services.resolve.scope import collection_phrase, resolve_tags, tags_phrase
from agent_zot.services.response import clip
from agent_zot.zotero.colors import ColorChoice, parse_color
from agent_zot.zotero.models import Annotation, Collection, Item, Library, Note, TagRef

OWN_TAG, ITEM_TAG = "own", "item"


@dataclass(frozen=True, slots=True)
class NoteScope:
    item: Item | None = None
    collection: Collection | None = None
    in_collection: frozenset[str] = frozenset()  # keys of the items in the collection and below
    tags: tuple[str, ...] = ()  # as the library spells them
    color: ColorChoice | None = None
    left_out: tuple[str, ...] = ()  # tag names that match nothing, each with close ones (resolve_tags)
    _folded_tags: frozenset[str] = field(default=frozenset(), repr=False)

    @property
    def narrowed(self) -> bool:
        return bool(self.item or self.collection or self.tags or self.color)

    def admits_note(self, note: Note, library: Library) -> bool:
        return (
            self.color is None
            and self._parent_fits(note.parent_key)
            and (not self.tags or self.tag_via(note.tags, note.parent_key, library) is not None)
        )

    def admits_annotation(self, ann: Annotation, library: Library) -> bool:
        return (
            self._parent_fits(ann.parent_item_key)
            and (self.color is None or self.color.matches(ann.color))
            and (not self.tags or self.tag_via(ann.tags, ann.parent_item_key, library) is not None)
        )

    def tag_via(self, own: Sequence[TagRef], parent_key: str | None, library: Library) -> str | None:
        """Whose tag put it in scope: ``OWN_TAG`` (its own), ``ITEM_TAG`` (its paper's) or None."""
        if not self.tags:
            return None
        if any(t.name.casefold() in self._folded_tags for t in own):
            return OWN_TAG
        parent = library.items.get(parent_key) if parent_key else None
        if parent is not None and any(t.name.casefold() in self._folded_tags for t in parent.tags):
            return ITEM_TAG
        return None

    def _parent_fits(self, parent_key: str | None) -> bool:
        if self.item is not None and parent_key != self.item.key:
            return False
        return self.collection is None or parent_key in self.in_collection

    def describe(self) -> str:
        """ "in 'SciBERT…' [KEY], in collection Thesis (and below), tagged method, coloured red (#ff6666)"."""
        parts = []
        if self.item is not None:
            parts.append(f"in {clip(self.item.title or '(untitled)', 50)!r} [{self.item.key}]")
        if self.collection is not None:
            parts.append(f"in {collection_phrase(self.collection.path or self.collection.name)}")
        if self.tags:
            parts.append(tags_phrase(self.tags))
        if self.color is not None:
            parts.append("coloured " + self.color.describe())
        return ", ".join(parts)


def resolve_scope(
    library: Library,
    *,
    item: str | None = None,
    collection: str | None = None,
    tags: Sequence[str] | None = None,
    color: str | None = None,
) -> NoteScope:
    """The scope the arguments name; each name that matches nothing raises an error with the closest."""
    found = resolve_collection(library, collection) if collection else None
    chosen = resolve_tags(library, tags or (), whole=not (item or collection or color))
    names = chosen.names
    return NoteScope(
        item=resolve_item(library, item, words=True) if item else None,
        collection=found,
        in_collection=frozenset(library.items_below(found.key)) if found else frozenset(),
        tags=names,
        color=parse_color(color) if color else None,
        left_out=chosen.left_out,
        _folded_tags=frozenset(n.casefold() for n in names),
    )
