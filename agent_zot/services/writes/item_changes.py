"""Tags on items and items in collections: read the items, change them in batches, confirm.

Tag names in these write modes are literal. A leading ``-`` and ``||`` are part of the name here
(they mean NOT / OR only when searching by tags). A string of names is split at commas; pass a list
to keep a comma inside a name. In a natural-language query, quote such names: add tag "-draft".
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_zot.errors import InvalidArgumentError
from agent_zot.services.response import ToolResponse
from agent_zot.services.writes.batch import Change, Outcome, apply_changes, confirm
from agent_zot.services.writes.client import ZoteroWriter
from agent_zot.services.writes.common import (
    check_same_library,
    count_line,
    fetch_items,
    finish,
    outcome_lines,
    outcome_status,
    title_of,
)
from agent_zot.zotero.models import Collection, Library

MAX_TAG_LENGTH = 255  # Zotero's limit for a tag name


def tag_names(tags: str | Iterable[str] | None) -> list[str]:
    """Literal tag names: a string is split at commas, a list is taken as it is."""
    raw = tags.split(",") if isinstance(tags, str) else list(tags or [])
    names = list(dict.fromkeys(" ".join(str(t).split()) for t in raw if str(t).strip()))
    if not names:
        raise InvalidArgumentError(
            "Which tags? None were given or found in the query.",
            hint="Pass tags=['to-read', '-draft'] (names are literal here) or quote them in the query.",
        )
    long = [n[:40] for n in names if len(n) > MAX_TAG_LENGTH]
    if long:
        raise InvalidArgumentError(
            f"Tag names are limited to {MAX_TAG_LENGTH} characters: {', '.join(long)}…. Nothing was changed."
        )
    return names


def tag_change(names: list[str], *, add: bool) -> Change:
    def change(data: dict[str, Any]) -> dict[str, Any] | None:
        current = list(data.get("tags") or [])
        present = {t.get("tag") for t in current}
        if add:
            extra = [{"tag": n} for n in names if n not in present]
            return {"tags": current + extra} if extra else None
        kept = [t for t in current if t.get("tag") not in names]
        return {"tags": kept} if len(kept) != len(current) else None

    return change


def membership_change(collection_key: str, *, add: bool) -> Change:
    def change(data: dict[str, Any]) -> dict[str, Any] | None:
        current = list(data.get("collections") or [])
        if add:
            return None if collection_key in current else {"collections": [*current, collection_key]}
        return (
            {"collections": [c for c in current if c != collection_key]}
            if collection_key in current
            else None
        )

    return change


def change_tags(
    writer: ZoteroWriter, library: Library, keys: list[str], names: list[str], *, add: bool
) -> ToolResponse:
    check_same_library(library, writer.route, keys)
    objects = fetch_items(writer, library, keys)
    outcome = apply_changes(writer, objects, tag_change(names, add=add))

    def shows(data: dict[str, Any]) -> bool:
        present = {t.get("tag") for t in data.get("tags") or []}
        return all((n in present) == add for n in names)

    confirm(writer, outcome, shows)
    quoted = ", ".join(repr(n) for n in names)
    verb = f"Added tag(s) {quoted} to" if add else f"Removed tag(s) {quoted} from"
    return _report(
        writer,
        outcome,
        objects,
        f"{verb} items via {writer.route.label}: {count_line(outcome)}.",
        "already had them" if add else "did not have them",
        {"mode": "add" if add else "remove", "tags": names},
    )


def change_membership(
    writer: ZoteroWriter, library: Library, keys: list[str], collection: Collection, *, add: bool
) -> ToolResponse:
    check_same_library(library, writer.route, keys)
    objects = fetch_items(writer, library, keys)
    outcome = apply_changes(writer, objects, membership_change(collection.key, add=add))
    confirm(writer, outcome, lambda data: (collection.key in (data.get("collections") or [])) == add)
    where = f"{'Added items to' if add else 'Removed items from'} collection {collection.path!r} [{collection.key}]"
    return _report(
        writer,
        outcome,
        objects,
        f"{where} via {writer.route.label}: {count_line(outcome)}.",
        "was already in it" if add else "was not in it",
        {
            "mode": "add" if add else "remove",
            "collection": {"key": collection.key, "path": collection.path},
        },
    )


def _report(
    writer: ZoteroWriter,
    outcome: Outcome,
    objects: dict[str, dict[str, Any]],
    headline: str,
    already: str,
    data: dict[str, Any],
) -> ToolResponse:
    titles = {k: title_of(obj) for k, obj in objects.items()}
    status = outcome_status(outcome)
    if status == "partial":
        headline = "Partly done: " + headline
    return finish(
        writer,
        headline,
        outcome_lines(outcome, titles, "changed", already),
        {**data, "status": status, **outcome.to_dict()},
        is_error=status == "failed",
    )
