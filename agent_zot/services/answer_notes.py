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
