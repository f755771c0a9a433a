"""The one paper a management request names in its words, when it names one: "export Lo et al. 2020 to
BibTeX", "my notes on the S2ORC paper". A request for many papers ("export my papers on X") names none."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from rapidfuzz import fuzz

from agent_zot.errors import NotFoundError
from agent_zot.services.resolve.papers import PaperMatch, PaperRequest, resolve_named_paper
from agent_zot.zotero.models import Item, Library

# "export my papers on X", "everything tagged Y": a set of papers, not one named paper.
_MANY_PAPERS = re.compile(
    r"\b(?:papers|articles|items|references|entries|everything|all|library|collection|works|publications"
    r"|studies)\b",
    re.IGNORECASE,
)
# Quoted words this close to a title (partial ratio) are the title, not words to look for.
_TITLE_WORDS = 90


def paper_to_export(library: Library, query: str, params: Mapping[str, Any]) -> PaperMatch | None:
    """The one paper an export request names ("export the S2ORC paper to BibTeX", "bibtex for Lo et al.
    2020"), or None when it asks for many (then the whole scope is exported)."""
    if not query.strip() or _MANY_PAPERS.search(query):
        return None
    return resolve_named_paper(library, PaperRequest.of(query, dict(params)))


def paper_with_notes(
    library: Library, query: str, params: Mapping[str, Any], *, scoped: bool
) -> PaperMatch | None:
    """The paper a notes request names ("my notes on Lo et al. 2020", "highlights in the S2ORC paper"), or
    None. With a collection, tags or a colour named too (``scoped``), only a "the X paper" phrase counts
    (their names are not title words). Quoted words that name no paper are words to look for."""
    text = str(params.get("paper") or "") if scoped else query
    if not text.strip():
        return None
    try:
        return resolve_named_paper(library, PaperRequest.of(text, dict(params)))
    except NotFoundError:
        if params.get("quoted") and not params.get("paper"):
            return None
        raise


def words_not_in_title(quoted: list[str], item: Item) -> list[str]:
    """The quoted phrases that are not (part of) the item's title: the ones still to look for."""
    title = item.title.casefold()
    return [q for q in quoted if fuzz.partial_ratio(q.casefold(), title) < _TITLE_WORDS]
