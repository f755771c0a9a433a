"""Recently read: "what was I reading last week" answered from when Zotero (9+) last opened each paper's
files (itemAttachments.lastRead), not from when it was added. Older libraries record no reading; the
answer says so and shows what was added instead."""

from __future__ import annotations

import re
from datetime import datetime

from agent_zot.services.organize.collections import dated_pool, recent_items
from agent_zot.services.response import ToolResponse, item_line
from agent_zot.services.routing.rules_manage import READING
from agent_zot.zotero.generation import LAST_READ_SINCE
from agent_zot.zotero.models import Library

# Reading, not adding: "what was I reading", "papers I opened", "recently read". A request about additions
# ("what did I add to read") stays with the date added.
_READING = re.compile(READING, re.IGNORECASE)
_ADDING = re.compile(r"\b(?:add|added|adding|save|saved|import|imported|new)\b", re.IGNORECASE)


def asks_for_reading(query: str) -> bool:
    """Whether a "recent" request means papers read rather than papers added."""
    return bool(_READING.search(query)) and not _ADDING.search(query)


def recently_read(
    library: Library,
    *,
    limit: int,
    days: int | None = None,
    collection: str | None = None,
    now: datetime | None = None,
) -> ToolResponse:
    """Items by when their files were last opened in Zotero, most recent first; an older Zotero's library
    (or nothing read in the window) gets the recently added items, with a line saying why."""
    if (library.schema_version or 0) < LAST_READ_SINCE:
        fallback = recent_items(library, limit=limit, days=days, collection=collection, now=now)
        return _instead(
            fallback,
            "Zotero 9 and later record when a paper was opened; this library is from Zotero 8 or older",
        )
    read = [i for i in library.items.values() if i.last_read]
    pool, scope = dated_pool(library, read, lambda i: i.last_read, collection=collection, days=days, now=now)
    if not pool:
        fallback = recent_items(library, limit=limit, days=days, collection=collection, now=now)
        return _instead(fallback, f"Nothing was opened in Zotero{scope}")
    pool.sort(key=lambda i: i.last_read, reverse=True)
    shown = pool[:limit]
    lines = [f"{i.last_read[:10]} {item_line(i)}" for i in shown]
    return ToolResponse(
        f"Recently read{scope} ({len(shown)} of {len(pool)}; last opened in Zotero):\n" + "\n".join(lines),
        {
            "by": "last_read",
            "items": [i.to_summary() | {"last_read": i.last_read} for i in shown],
            "total": len(pool),
        },
    )


def _instead(added: ToolResponse, why: str) -> ToolResponse:
    return ToolResponse(
        f"{why}, so here is what was added instead.\n{added.text}", {"by": "date_added", **added.data}
    )
