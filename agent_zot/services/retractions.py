"""Retracted papers, flagged wherever an answer names them.

Zotero records retractions itself (Retraction Watch data, table ``retractedItems``; the reader puts them on
``Item.retraction``). Every tool answer names items by ``[KEY]``, so one pass over a finished answer flags
each retracted item it names, in search results, summaries, graph answers, notes and exports alike, and
lists the details in the answer's data.
"""

from __future__ import annotations

import re

from agent_zot.services.response import ToolResponse
from agent_zot.zotero.models import Library, Retraction

_KEY_MENTION = re.compile(r"\[([23456789A-Z]{8})\](?! \[RETRACTED)")
_FLAGGED = re.compile(r"\[([23456789A-Z]{8})\] \[RETRACTED")


def retracted(library: Library) -> dict[str, Retraction]:
    """Item key -> retraction, for the library's retracted items (trash included, hidden ones not)."""
    return {key: item.retraction for key, item in library.items.items() if item.retraction is not None}


def flag_answer(library: Library, response: ToolResponse) -> None:
    """Put "[RETRACTED date]" after each mention of a retracted item in the answer's text, and its date,
    reasons and notice under ``data["retracted"]``."""
    known = retracted(library)
    if not known:
        return

    def flag(match: re.Match[str]) -> str:
        retraction = known.get(match.group(1))
        return f"{match.group(0)} [{retraction.flag()}]" if retraction else match.group(0)

    response.text = _KEY_MENTION.sub(flag, response.text)
    named = {key: known[key] for key in _FLAGGED.findall(response.text) if key in known}
    if named:
        response.data["retracted"] = {key: r.to_dict() for key, r in sorted(named.items())}
