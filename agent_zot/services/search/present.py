"""How a `zot_search` answer reads: papers with their page-cited passages, once.

The text form is what the assistant reads: one line per paper (key, authors, year, title, venue) and one
per passage (pages, section, words). The structured form carries the same papers and passages as data for
programs (key, title, year, score, the channels that found the paper; each passage's attachment, pages and
score) without repeating the authors, venues, sections or words, so an answer costs its tokens once.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from typing import Any

from agent_zot.index.retrieval import PaperHit
from agent_zot.services.query_text import PASSAGE_CHARS, locator, passage_label
from agent_zot.services.response import ToolResponse, clip, estimate_tokens, item_line, plural, quoted
from agent_zot.zotero.models import Creator, Item, ZoteroDate

# A default (sentence) answer, all of it: its papers' lines, head and footer first, then the first papers'
# passages while they fit, so a long answer loses the lowest papers' passages (their titles stay).
ANSWER_BUDGET = {"sentences": 8000, "full": None}
_FRAME_CHARS = 450  # the head line and the "More:" footer


def paper_response(
    items: Mapping[str, Item],
    papers: list[PaperHit],
    *,
    scope: str,
    query: str,
    detail: str,
    reserve: int = 0,
) -> ToolResponse:
    """The papers found, each named by its item in ``items`` (the library's, or as indexed); ``reserve``:
    characters of the budget kept for what follows the papers (the mode's notes)."""
    where = f" within {scope}" if scope else ""
    if not papers:
        return ToolResponse(
            f"No papers found for {quoted(query)}{where}.", {"total": 0, "papers": [], "tokens": 0}
        )
    body: list[str] = []
    rows = []
    listed_papers = [(p, items[p.item_key]) for p in papers if p.item_key in items]
    # (a paper indexed but deleted from Zotero since the last update-db is left out)
    heads = [f"{n}. {item_line(item)}" for n, (_, item) in enumerate(listed_papers, 1)]
    # A paper shown without passages is named briefly (its first author, its title cut, no venue): the
    # budget goes to passages.
    bare = [f"{n}. {item_line(item, brief=True)}" for n, (_, item) in enumerate(listed_papers, 1)]
    left = ANSWER_BUDGET[detail]
    if left is not None:
        left -= _FRAME_CHARS + len(quoted(query)) + len(where) + sum(len(h) + 1 for h in bare) + reserve
    trimmed = 0
    for paper_line, bare_line, (paper, item) in zip(heads, bare, listed_papers, strict=True):
        shown = [f"   [{passage_label(p)}] {clip(p.text, PASSAGE_CHARS[detail])}" for p in paper.passages]
        if left is not None:
            venue = len(paper_line) - len(bare_line)
            if shown and len(shown[0]) + venue < left:
                left -= venue
            else:
                paper_line = bare_line
            kept = []
            for line in shown:
                if len(line) > left:
                    break
                kept.append(line)
                left -= len(line) + 1
            if len(kept) < len(shown):
                left = 0  # what follows gets no passage: the answer keeps its order
                trimmed += 1
                paper = replace(paper, passages=paper.passages[: len(kept)])
            shown = kept
        body.append(paper_line)
        body += shown
        rows.append(
            listed(item)
            | {
                "score": round(paper.score, 4),
                "found_by": sorted(paper.found_by),
                "passages": [locator(p) for p in paper.passages],
            }
        )
    cut = "best sentences" if detail == "sentences" else "whole passages"
    head = f"{plural(len(rows), 'paper')} for {quoted(query)}{where}, best first ({cut}, PDF pages):"
    more = (
        "More: zot_summarize item_key=KEY with the question gives that paper's best passages; "
        "force_mode='full' pages='N' reads a page"
        + ("; detail='full' returns whole passages." if detail == "sentences" else ".")
    )
    if trimmed:
        more = f"({plural(trimmed, 'paper')} shown without all passages, to keep this answer short.) " + more
    rest = "\n".join(["", *body, more])
    tokens = estimate_tokens(head + rest)
    for _ in range(3):  # the count is part of the text it counts
        text = head[:-1] + f" ≈{tokens:,} tokens:" + rest
        if estimate_tokens(text) == tokens:
            break
        tokens = estimate_tokens(text)
    return ToolResponse(text, {"total": len(rows), "papers": rows, "tokens": tokens, "detail": detail})


def listed(item: Item) -> dict[str, Any]:
    """A paper as data beside its text line: the identifiers, not the authors and venue again."""
    return {"key": item.key, "title": item.title, "year": item.year, "found_by": ["metadata"], "passages": []}


def indexed_items(papers: list[PaperHit]) -> dict[str, Item]:
    """The papers' items as the index stores them (title, creators' last names, year, type): what names
    them in an answer made before the library is read. No venue, retraction or other fields."""
    items = {}
    for paper in papers:
        stored = paper.indexed
        year = stored.get("year")
        items[paper.item_key] = Item(
            key=paper.item_key,
            item_id=0,
            item_type=str(stored.get("item_type") or "document"),
            library_id=0,
            fields={"title": str(stored.get("title") or "")},
            base_fields={},
            creators=[Creator(0, "author", str(name)) for name in stored.get("creators") or ()],
            date=ZoteroDate(str(year), year) if isinstance(year, int) else None,
        )
    return items
