"""A search request's words, checked once, and how a found passage is named: shared by `zot_search` and the
claim check (services/evidence/), so that neither tool package imports the other."""

from __future__ import annotations

import re
from typing import Any

from agent_zot.errors import InvalidArgumentError
from agent_zot.index.passages import DETAILS, Passage
from agent_zot.services.response import MAX_QUERY_CHARS, clip, within_length
from agent_zot.text import STOPWORDS

NO_INDEX = (
    "The full-text index is empty, so only metadata searches work. "
    "Build it with `agent-zot update-db` (a few minutes for a typical library; later runs are incremental)."
)
PASSAGE_CHARS = {"sentences": 1000, "full": 4000}  # a runaway "sentence" (a table read as text) is cut
SECTION_CHARS = 48

# Words of the request itself ("find me papers on ..."), on top of the English function words.
_REQUEST_WORDS = STOPWORDS | {"papers", "paper", "find", "show", "please"}


def checked_detail(detail: str | None) -> str:
    if detail is None:
        return DETAILS[0]
    if detail not in DETAILS:
        raise InvalidArgumentError(
            f"detail={detail!r} is not one of {', '.join(DETAILS)}.",
            hint="Use 'sentences' (the default: the best sentences of each passage) or 'full' (whole chunks).",
        )
    return detail


def checked_text(query: str, explicit: dict[str, Any]) -> str:
    text = " ".join(query.split())
    if not text and not any(explicit.values()):
        raise InvalidArgumentError(
            "The search query is empty.",
            hint="Say what to look for, e.g. query='contrastive learning for citation recommendation'.",
        )
    hint = "Shorten it to the question itself, or pass key phrases."
    return within_length(text, MAX_QUERY_CHARS, what="The query", hint=hint)


def content_words(text: str) -> list[str]:
    return [w for w in re.findall(r"[\w-]+", text.casefold()) if w not in _REQUEST_WORDS]


def passage_label(passage: Passage) -> str:
    """ "p. 4 · 2.5 Filtering paper clusters", or "abstract" for the item's own metadata record; "p. 4 (OCR)"
    when the words were read from a scanned page (they may be misread)."""
    where = passage.pages or ("abstract" if passage.kind == "metadata" else "no page")
    if passage.ocr:
        where += " (OCR)"
    if passage.section:
        section = " ".join(passage.section.split())
        where += " · " + clip(section, SECTION_CHARS)
    return where


def locator(passage: Passage) -> dict[str, Any]:
    """A passage as data: where it is and how well it matched, without its words or its section (both in
    the text)."""
    row = {k: v for k, v in passage.to_dict().items() if k not in ("text", "section")}
    return row | {"chars": len(passage.text)}
