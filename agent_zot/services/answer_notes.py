"""What every tool answer carries besides its own material: a flag on each retracted paper it names, the
demo library's note, and for answers from the index, a rebuild running or the index lagging behind the
library, or that the answer came before the library was read.

Retractions: Zotero records them itself (Retraction Watch data, table ``retractedItems``; the reader puts them
on ``Item.retraction``). Every tool answer names items by ``[KEY]``, so one pass over a finished answer flags
each retracted item it names, in search results, summaries, graph answers, notes and exports alike, and
lists the details in the answer's data.
"""

from __future__ import annotations

import re
from typing import Any

from agent_zot.errors import AgentZotError
from agent_zot.identifiers import KEY_MENTION
from agent_zot.services.context import AppContext
from agent_zot.services.response import ToolResponse, estimate_tokens
from agent_zot.zotero.models import Library, Retraction

_KEY_MENTION = re.compile(KEY_MENTION.pattern + r"(?! \[RETRACTED)")
_FLAGGED = re.compile(KEY_MENTION.pattern + r" \[RETRACTED")


def _retraction(library: Library, key: str) -> Retraction | None:
    item = library.items.get(key)
    return item.retraction if item is not None else None


def flag_answer(library: Library, response: ToolResponse) -> None:
    """Put "[RETRACTED date]" after each mention of a retracted item in the answer's text, and its date,
    reasons and notice under ``data["retracted"]``. Only the items the answer names are looked at (every
    answer passes here: a walk over the whole library cost each one time in proportion to it)."""

    def flag(match: re.Match[str]) -> str:
        retraction = _retraction(library, match.group(1))
        return f"{match.group(0)} [{retraction.flag()}]" if retraction else match.group(0)

    response.text = _KEY_MENTION.sub(flag, response.text)
    named = {key: r for key in _FLAGGED.findall(response.text) if (r := _retraction(library, key))}
    if named:
        response.data["retracted"] = {key: r.to_dict() for key, r in sorted(named.items())}


DEMO_NOTE = (
    "Demo library: no Zotero library was found, so this comes from agent-zot's built-in demo papers, "
    "not from yours."
)
DEMO_HINT = (
    "Point agent-zot at your Zotero data folder (the one holding zotero.sqlite): set zotero_data_dir in "
    "the config or AGENT_ZOT_ZOTERO_DATA_DIR, or pass --library; `agent-zot doctor` checks it."
)


LIBRARY_PENDING = (
    "Answered from the index while your Zotero library is still being read: papers as last indexed, "
    "no retraction flags yet; ask again in a moment for the full answer."
)


def note_library_pending(response: ToolResponse) -> None:
    """Mark an answer made before the library was read (a server's first seconds): it names papers as the
    index stores them, and the notes that need the library (retractions, index lag) are left out."""
    _prefix(response, f"[Note: {LIBRARY_PENDING}]", {"library_pending": True})


def note_answer(ctx: AppContext, response: ToolResponse, *, from_index: bool) -> None:
    """Flag retracted papers; say when the answer comes from the demo library and, for an answer from the
    index, when a rebuild is running (the answer comes from the previous index) or the index is behind.
    An answer made before the library was read (`note_library_pending`) does not wait for it here."""
    pending = bool(response.data.get("library_pending"))
    if not pending:
        flag_answer(ctx.library(), response)
    if from_index:
        _note_rebuild(ctx, response)
        if not pending:
            _note_lag(ctx, response)
    if ctx.serving_demo():
        _prefix(
            response,
            f"[{DEMO_NOTE} {DEMO_HINT}]",
            {"library": {"demo": True, "note": DEMO_NOTE, "hint": DEMO_HINT}},
        )


def note_error(ctx: AppContext, exc: AgentZotError) -> None:
    """An error from the demo library says so in its hint, with how to point agent-zot at the user's own."""
    if ctx.serving_demo():
        exc.hint = f"{exc.hint} ({DEMO_NOTE} {DEMO_HINT})" if exc.hint else f"{DEMO_NOTE} {DEMO_HINT}"


def _note_lag(ctx: AppContext, response: ToolResponse) -> None:
    from agent_zot.services.watch.freshness import index_lag

    lag = index_lag(ctx)
    if lag is None:
        return
    _prefix(response, f"[Note: {lag.describe()}.]", {"index_behind": lag.to_dict()})


def _note_rebuild(ctx: AppContext, response: ToolResponse) -> None:
    running = ctx.rebuild_status()
    if running is None:
        return
    note = f"Note: {running.describe()}; this answer comes from the previous index until it completes."
    _prefix(
        response,
        f"[{note}]",
        {
            "rebuild": {
                "running": True,
                "started_at": running.started_at,
                "items_done": running.items_done,
                "items_total": running.items_total,
            },
        },
    )


def _prefix(response: ToolResponse, line: str, data: dict[str, Any]) -> None:
    """Put a note above the answer; its token estimate, when it has one, covers the note too."""
    response.text = f"{line}\n{response.text}"
    response.data = {**data, **response.data}
    if isinstance(response.data.get("tokens"), int):
        response.data["tokens"] = estimate_tokens(response.text)
