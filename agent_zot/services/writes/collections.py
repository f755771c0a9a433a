"""Create nested collections ("Thesis/Chapter 2") and find the collection that add/remove target."""

from __future__ import annotations

from typing import Any

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.services.resolve.library import resolve_collection
from agent_zot.services.response import ToolResponse
from agent_zot.services.writes.batch import read_fates
from agent_zot.services.writes.client import ZoteroWriter
from agent_zot.services.writes.common import finish, library_name, local_library_id
from agent_zot.services.writes.errors import ZoteroWriteError
from agent_zot.zotero.models import Collection, Library

MAX_NAME_LENGTH = 255


def split_path(path: str) -> list[str]:
    """'Thesis / Chapter 2' -> ['Thesis', 'Chapter 2']; '/' always separates levels."""
    parts = [" ".join(p.split()) for p in path.strip().strip("'\"“”‘’").split("/")]
    if not path.strip() or any(not p for p in parts):
        raise InvalidArgumentError(
            f"Not a collection path: {path!r}.",
            hint="Pass collection='Thesis/Chapter 2' (names separated by '/', none empty).",
        )
    if any(len(p) > MAX_NAME_LENGTH for p in parts):
        raise InvalidArgumentError(f"Collection names are limited to {MAX_NAME_LENGTH} characters.")
    return parts


def _parent(obj: dict[str, Any]) -> str | None:
    return obj["data"].get("parentCollection") or None  # the API says false for top level


def _child(existing: list[dict[str, Any]], parent: str | None, name: str) -> dict[str, Any] | None:
    matches = [
        c
        for c in existing
        if _parent(c) == parent and str(c["data"].get("name", "")).casefold() == name.casefold()
    ]
    return min(matches, key=lambda c: c["key"]) if matches else None


def create_path(writer: ZoteroWriter, path: str) -> ToolResponse:
    """Create each missing level in order under the existing ones; report created and reused keys."""
    parts = split_path(path)
    existing = writer.collections()
    parent: str | None = None
    created: list[dict[str, str]] = []
    reused: list[dict[str, str]] = []
    for depth, name in enumerate(parts, start=1):
        sub_path = "/".join(parts[:depth])
        found = _child(existing, parent, name)
        if found is not None:
            parent = found["key"]
            reused.append({"key": parent, "path": sub_path})
            continue
        key = _create_one(writer, name, parent, sub_path, created)
        existing.append({"key": key, "data": {"name": name, "parentCollection": parent or False}})
        created.append({"key": key, "path": sub_path})
        parent = key
    unconfirmed = _confirm(writer, created)
    if created:
        headline = f"Created collection {path!r} via {writer.route.label}: " + ", ".join(
            f"{c['path']} [{c['key']}]" for c in created
        )
        if reused:
            headline += " (under existing " + ", ".join(f"{c['path']} [{c['key']}]" for c in reused) + ")"
    else:
        headline = f"Collection {'/'.join(parts)!r} already exists [{parent}]; nothing was created."
    lines = [f"  ! re-reading did not show {', '.join(unconfirmed)} yet"] if unconfirmed else []
    data = {"status": "ok", "created": created, "reused": reused, "key": parent, "unconfirmed": unconfirmed}
    return finish(writer, headline + ".", lines, data)


def _create_one(
    writer: ZoteroWriter, name: str, parent: str | None, sub_path: str, created: list[dict[str, str]]
) -> str:
    response = writer.create_collections([{"name": name, "parentCollection": parent or False}])
    fates = read_fates(response, [sub_path])
    if fates.success:
        return fates.success[0]
    code, message = next(iter(fates.failed.values()), (None, "no key returned"))
    done = ", ".join(f"{c['path']} [{c['key']}]" for c in created) or "nothing"
    raise ZoteroWriteError(
        f"Zotero did not create collection {sub_path!r} (HTTP {code}: {message}). Created before it: {done}.",
        status=code,
    )


def _confirm(writer: ZoteroWriter, created: list[dict[str, str]]) -> list[str]:
    if not created:
        return []
    keys = {c["key"] for c in writer.collections()}
    return [c["key"] for c in created if c["key"] not in keys]


def target_collection(library: Library, writer: ZoteroWriter, name: str) -> Collection:
    """The collection add/remove acts on: fuzzy-matched in the local database (several close matches
    raise AmbiguousNameError), else an exact key/path on the API for one created since the last sync."""
    try:
        collection = resolve_collection(library, name)
    except NotFoundError:
        created = _from_api(writer, name)
        if created is None:
            raise
        return created
    target = local_library_id(library, writer.route)
    if target is not None and collection.library_id != target:
        raise InvalidArgumentError(
            f"Collection {collection.path!r} is in {library_name(library, collection.library_id)}, but "
            f"writes go to {library_name(library, target)} ({writer.route.library}). Nothing was changed.",
            hint="Set zotero_library_type / zotero_library_id to that library to change it.",
        )
    return collection


def _from_api(writer: ZoteroWriter, name: str) -> Collection | None:
    objects = {c["key"]: c for c in writer.collections()}

    def path_of(key: str) -> str:
        names = []
        seen: set[str] = set()
        while key in objects and key not in seen:
            seen.add(key)
            names.append(str(objects[key]["data"].get("name", "")))
            key = _parent(objects[key]) or ""
        return "/".join(reversed(names))

    wanted = name.strip().strip("'\"").casefold()
    for key, obj in objects.items():
        if wanted in (key.casefold(), path_of(key).casefold()):
            return Collection(key, 0, str(obj["data"].get("name", "")), _parent(obj), 0, path=path_of(key))
    return None
