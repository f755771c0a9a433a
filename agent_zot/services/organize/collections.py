"""Read side of collections: the tree with counts, a collection's items, recently added items."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from agent_zot.services.resolve.library import resolve_collection
from agent_zot.services.response import ToolResponse, item_line, more_line, plural
from agent_zot.zotero.models import Collection, Item, Library


def collection_tree(library: Library) -> ToolResponse:
    """Every collection as an indented tree, with direct and total (with sub-collections) item counts."""
    roots = sorted(
        (c for c in library.collections.values() if c.parent_key not in library.collections),
        key=lambda c: (c.library_id, c.name.casefold()),
    )
    lines: list[str] = []
    nodes: list[dict[str, object]] = []

    def walk(collection: Collection, depth: int) -> None:
        total = len(library.items_below(collection.key))
        lines.append(
            f"{'  ' * depth}- {collection.name} [{collection.key}]: {plural(len(collection.item_keys), 'item')}"
            + (f" ({total} with sub-collections)" if total != len(collection.item_keys) else "")
        )
        nodes.append(collection.to_dict() | {"depth": depth, "total_item_count": total})
        children = sorted(
            (library.collections[k] for k in collection.child_keys), key=lambda c: c.name.casefold()
        )
        for child in children:
            walk(child, depth + 1)

    for root in roots:
        walk(root, 0)
    if not lines:
        return ToolResponse("This library has no collections.", {"collections": []})
    header = f"{len(library.collections)} collections:"
    return ToolResponse("\n".join([header, *lines]), {"collections": nodes})


def collection_items(library: Library, name: str, *, limit: int, recursive: bool = False) -> ToolResponse:
    collection = resolve_collection(library, name)
    keys = library.items_below(collection.key) if recursive else set(collection.item_keys)
    items = sorted(
        (library.items[k] for k in keys if k in library.items),
        key=lambda i: (-(i.year or 0), i.title.casefold()),
    )
    shown = items[:limit]
    scope = " and its sub-collections" if recursive else ""
    head = f"{collection.path} [{collection.key}]{scope}: {plural(len(items), 'item')}"
    if not items:
        sub = (
            f" It has sub-collections: {', '.join(library.collections[k].name for k in collection.child_keys)}."
            if collection.child_keys and not recursive
            else ""
        )
        return ToolResponse(head + "." + sub, {"collection": collection.to_dict(), "items": [], "total": 0})
    more = more_line(len(items), limit)
    return ToolResponse(
        "\n".join([head + ":", *(item_line(i) for i in shown)]) + more,
        {"collection": collection.to_dict(), "items": [i.to_summary() for i in shown], "total": len(items)},
    )


def dated_pool(
    library: Library,
    pool: list[Item],
    date_of: Callable[[Item], str],
    *,
    collection: str | None,
    days: int | None,
    now: datetime | None,
) -> tuple[list[Item], str]:
    """``pool`` narrowed to one collection and to the last ``days`` days by ``date_of`` (Zotero's
    "YYYY-MM-DD hh:mm:ss" in UTC), and the words that say so (" in Thesis in the last 7 days")."""
    scope = ""
    if collection:
        found = resolve_collection(library, collection)
        keys = set(found.item_keys)
        pool = [i for i in pool if i.key in keys]
        scope = f" in {found.path}"
    if days is not None:
        cutoff = ((now or datetime.now(UTC)) - timedelta(days=days)).strftime("%Y-%m-%d %H:%M:%S")
        pool = [i for i in pool if date_of(i) >= cutoff]
        scope += f" in the last {days} days"
    return pool, scope


def recent_items(
    library: Library,
    *,
    limit: int,
    days: int | None = None,
    collection: str | None = None,
    now: datetime | None = None,
) -> ToolResponse:
    """Items by date added, newest first; optionally only the last ``days`` days or one collection."""
    pool, scope = dated_pool(
        library,
        list(library.items.values()),
        lambda i: i.date_added,
        collection=collection,
        days=days,
        now=now,
    )
    pool.sort(key=lambda i: i.date_added, reverse=True)
    shown = pool[:limit]
    if not shown:
        return ToolResponse(f"No items added{scope}.", {"items": [], "total": 0})
    lines = [f"{i.date_added[:10]} {item_line(i)}" for i in shown]
    return ToolResponse(
        f"Recently added{scope} ({len(shown)} of {len(pool)}):\n" + "\n".join(lines),
        {"items": [i.to_summary() | {"date_added": i.date_added} for i in shown], "total": len(pool)},
    )
