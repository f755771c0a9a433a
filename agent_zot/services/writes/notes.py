"""Create a child note under a regular item."""

from __future__ import annotations

from agent_zot.errors import InvalidArgumentError
from agent_zot.services.response import ToolResponse
from agent_zot.services.writes.batch import read_fates
from agent_zot.services.writes.client import ZoteroWriter
from agent_zot.services.writes.common import check_same_library, fetch_items, finish, title_of
from agent_zot.services.writes.errors import ZoteroWriteError
from agent_zot.zotero.models import Library

CHILD_TYPES = frozenset({"note", "attachment", "annotation"})


def note_payload(parent_key: str, html: str) -> dict[str, object]:
    """A new note's editable JSON; parentItem makes it a child of the paper."""
    return {
        "itemType": "note",
        "note": html,
        "parentItem": parent_key,
        "tags": [],
        "collections": [],
        "relations": {},
    }


def create_note(writer: ZoteroWriter, library: Library, parent_key: str, html: str) -> ToolResponse:
    check_same_library(library, writer.route, [parent_key])
    parent = fetch_items(writer, library, [parent_key])[parent_key]
    if parent["data"].get("itemType") in CHILD_TYPES:
        raise InvalidArgumentError(
            f"{parent_key} is a {parent['data']['itemType']}; notes can only be added to regular items. "
            "Nothing was changed.",
            hint="Pass the key of the paper itself.",
        )
    fates = read_fates(writer.write_items([note_payload(parent_key, html)]), [parent_key])
    if not fates.success:
        code, message = next(iter(fates.failed.values()), (None, "no key returned"))
        raise ZoteroWriteError(f"Zotero did not create the note (HTTP {code}: {message}).", status=code)
    key = fates.success[0]
    stored = writer.items([key]).get(key)
    confirmed = stored is not None and stored["data"].get("parentItem") == parent_key
    lines = [] if confirmed else [f"  ! re-reading note {key} did not show it under {parent_key} yet"]
    return finish(
        writer,
        f"Created note {key} under {parent_key} ({title_of(parent)}) via {writer.route.label}; "
        f"{len(html.encode('utf-8'))} bytes of sanitised HTML.",
        lines,
        {"status": "ok", "key": key, "parent_key": parent_key, "html": html, "confirmed": confirmed},
    )
