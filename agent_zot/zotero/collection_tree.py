"""The collection tree of one read: live collections with their items and sub-collections, and, apart,
the collections in Zotero's trash (Zotero 6+ `deletedCollections`), so a request that names one can be
told where it went instead of being matched to a live collection with a similar name."""

from __future__ import annotations

from collections.abc import Iterable

from agent_zot.zotero.models import Collection, Item

CollectionRow = tuple[
    int, str, str, int | None, int
]  # collectionID, key, name, parentCollectionID, libraryID


def build_collections(
    rows: Iterable[CollectionRow],
    deleted_ids: set[int],
    members: Iterable[tuple[int, int]],
    by_id: dict[int, Item],
    read: set[int],
) -> tuple[dict[str, Collection], dict[str, Collection]]:
    """(live, trashed) collections by key. A collection below a trashed one is trashed with it (Zotero
    hides it there); paths run through trashed parents ("Old/Chapter 2"). Live collections get their items
    from ``members`` (collectionID, itemID pairs, in Zotero's order); the items just ``read`` get their
    collection keys (the others, kept from an earlier snapshot, have theirs)."""
    rows = list(rows)
    key_of: dict[int | None, str] = {cid: key for cid, key, _, _, _ in rows}  # a root's parent is None
    every = {key: Collection(key, cid, name, key_of.get(parent), lib) for cid, key, name, parent, lib in rows}
    for collection in every.values():
        collection.path = _collection_path(collection, every)
    trashed_keys = {key_of[cid] for cid in deleted_ids if cid in key_of}
    trashed = {k: c for k, c in every.items() if k in trashed_keys or _below(c, trashed_keys, every)}
    live = {k: c for k, c in every.items() if k not in trashed}
    by_cid = {c.collection_id: c for c in live.values()}
    for cid, item_id in members:
        owner, item = by_cid.get(cid), by_id.get(item_id)
        if owner is not None and item is not None:
            owner.item_keys.append(item.key)
            if item_id in read:
                item.collection_keys.append(owner.key)
    for collection in live.values():
        if collection.parent_key in live:
            live[collection.parent_key].child_keys.append(collection.key)
    return live, trashed


def _ancestors(collection: Collection, collections: dict[str, Collection]) -> list[Collection]:
    """The collection and its parents up to the root (a corrupt parent cycle stops at the repeat)."""
    found, seen, current = [collection], {collection.key}, collection
    while current.parent_key and current.parent_key in collections and current.parent_key not in seen:
        current = collections[current.parent_key]
        seen.add(current.key)
        found.append(current)
    return found


def _below(collection: Collection, keys: set[str], collections: dict[str, Collection]) -> bool:
    return any(c.key in keys for c in _ancestors(collection, collections)[1:])


def _collection_path(collection: Collection, collections: dict[str, Collection]) -> str:
    return "/".join(c.name for c in reversed(_ancestors(collection, collections)))
