"""Checks and wording shared by the write operations."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.identifiers import is_item_key
from agent_zot.services.response import ToolResponse, plural
from agent_zot.services.writes.batch import Outcome
from agent_zot.services.writes.client import ZoteroWriter
from agent_zot.services.writes.route import WriteRoute
from agent_zot.zotero.models import Library


def local_library_id(library: Library, route: WriteRoute) -> int | None:
    """The libraryID in zotero.sqlite of the library the route writes to (None when not in this database)."""
    for info in library.libraries:
        if route.library_type == "user" and info.kind == "user":
            return info.library_id
        if route.library_type == "group" and str(info.group_id) == route.library_id:
            return info.library_id
    return None


def library_name(library: Library, library_id: int) -> str:
    for info in library.libraries:
        if info.library_id == library_id:
            return f"{info.name} (group {info.group_id})" if info.kind == "group" else info.name
    return f"library {library_id}"


def clean_keys(keys: Iterable[str]) -> list[str]:
    """Upper-cased, de-duplicated item keys; malformed ones are named in the error."""
    cleaned = list(dict.fromkeys(k.strip().upper() for k in keys if k and k.strip()))
    if not cleaned:
        raise InvalidArgumentError(
            "Which items? No item keys were given or found in the query.",
            hint="Pass item_keys=['ABCD2345', ...]; find keys with zot_search.",
        )
    bad = [k for k in cleaned if not is_item_key(k)]
    if bad:
        raise InvalidArgumentError(
            f"Not item keys: {', '.join(bad)}. Nothing was changed.",
            hint="Item keys are 8 characters like ABCD2345; find them with zot_search.",
        )
    return cleaned


def check_same_library(library: Library, route: WriteRoute, keys: list[str]) -> None:
    """Refuse keys that the local database places in another library than the one we write to."""
    target = local_library_id(library, route)
    if target is None:
        return
    elsewhere = [
        f"{k} is in {library_name(library, library.items[k].library_id)}"
        for k in keys
        if k in library.items and library.items[k].library_id != target
    ]
    if elsewhere:
        raise InvalidArgumentError(
            f"{'; '.join(elsewhere)}, but writes go to {library_name(library, target)} ({route.library}). "
            "Nothing was changed.",
            hint="Change items of one library per request; for a group set zotero_library_type = group "
            "and zotero_library_id to the group's ID.",
        )


def fetch_items(writer: ZoteroWriter, library: Library, keys: list[str]) -> dict[str, dict[str, Any]]:
    """Current objects from the API; unknown keys are named and nothing is changed."""
    objects = writer.items(keys)
    missing = [k for k in keys if k not in objects]
    if missing:
        local = [k for k in missing if k in library.items]
        hint = "Check the keys with zot_search; items in the trash cannot be changed."
        if local:
            hint = (
                f"{', '.join(local)} exist in the local database but not in {writer.route.library} on "
                "the API: let Zotero sync, or check zotero_library_id."
            )
        raise NotFoundError(
            f"No item with key {', '.join(missing)} in {writer.route.label}. Nothing was changed.", hint=hint
        )
    return {k: objects[k] for k in keys}


def title_of(obj: dict[str, Any]) -> str:
    data = obj.get("data", {})
    return str(data.get("title") or data.get("note", "")[:40] or data.get("itemType", ""))


def lag_note(route: WriteRoute) -> str:
    if route.local:
        return "Zotero saved the change itself; agent-zot's reads show it on the next request."
    return (
        "Changed on zotero.org: agent-zot reads zotero.sqlite, which shows this only after the Zotero "
        "app syncs, so reads here may lag until then."
    )


def finish(
    writer: ZoteroWriter, headline: str, lines: list[str], data: dict[str, Any], *, is_error: bool = False
) -> ToolResponse:
    """The response for every write: what changed, the route, rate-limit waits and the read-lag note."""
    route = writer.route
    text = [headline, *lines, *writer.notes]
    if writer.waited_s:
        text.append(f"Zotero asked to slow down; waited {writer.waited_s:g} s as told.")
    text.append(lag_note(route))
    data = {
        **data,
        "write_route": route.to_dict(),
        "local_reads_lag": not route.local,
        "waited_s": writer.waited_s,
    }
    return ToolResponse("\n".join(text), data, is_error=is_error)


def outcome_lines(outcome: Outcome, titles: dict[str, str], done: str, already: str) -> list[str]:
    lines = [f"  ✓ {k} {titles.get(k, '')}".rstrip() for k in outcome.changed]
    lines += [f"  = {k} {already}" for k in outcome.unchanged]
    lines += [f"  ✗ {k}: {why}" for k, why in outcome.failed.items()]
    if outcome.retried:
        lines.append(
            f"  ({', '.join(outcome.retried)} changed elsewhere meanwhile: re-read and {done} again)"
        )
    if outcome.unconfirmed:
        lines.append(f"  ! re-reading {', '.join(outcome.unconfirmed)} did not show the change yet")
    return lines


def outcome_status(outcome: Outcome) -> str:
    if outcome.failed:
        return "partial" if outcome.changed else "failed"
    return "ok"


def count_line(outcome: Outcome) -> str:
    parts = [plural(len(outcome.changed), "item") + " changed"]
    if outcome.unchanged:
        parts.append(f"{len(outcome.unchanged)} already so")
    if outcome.failed:
        parts.append(f"{len(outcome.failed)} failed")
    return ", ".join(parts)
