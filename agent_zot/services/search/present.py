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

from agent_zot.index.passages import Passage
from agent_zot.index.retrieval import PaperHit
from agent_zot.index.sentences import focus_of
from agent_zot.index.sparse import Bm25Encoder
from agent_zot.services.query_text import PASSAGE_CHARS, locator, passage_label
from agent_zot.services.response import ToolResponse, clip, estimate_tokens, item_line, plural, quoted
from agent_zot.zotero.models import Creator, Item, ZoteroDate

# A default (sentence) answer, all of it: its papers' lines, head and footer first, then the first papers'
# passages while they fit, so a long answer loses the lowest papers' passages (their titles stay).
ANSWER_BUDGET = {"sentences": 8000, "full": None}
# A question none of whose first paper's shown passages holds half of its words (`asked_words_held`) reads
# further (`PaperHit.further`) in that paper, where its answer most often is in other words, and in the
# second, in case the first is the wrong one: this many characters more for each, by rank.
FURTHER_CHARS = (3000, 2500)
ASKED_WORDS_HELD = 0.5
_FRAME_CHARS = 450  # the head line and the "More:" footer
_TERMS = Bm25Encoder()  # presence of stemmed terms only: the BM25 parameters do not matter here


def paper_response(
    items: Mapping[str, Item],
    papers: list[PaperHit],
    *,
    scope: str,
    query: str,
    detail: str,
    reserve: int = 0,
    further: bool = False,
) -> ToolResponse:
    """The papers found, each named by its item in ``items`` (the library's, or as indexed); ``reserve``:
    characters of the budget kept for what follows the papers (the mode's notes); ``further``: the first
    papers' further passages, `FURTHER_CHARS` more."""
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
    venues = [len(h) - len(b) for h, b in zip(heads, bare, strict=True)]
    left = ANSWER_BUDGET[detail]
    if left is not None:
        left -= _FRAME_CHARS + len(quoted(query)) + len(where) + sum(len(h) + 1 for h in bare) + reserve
    rooms: dict[int, int] = {}  # by rank, a paper that reads further: the room it may take
    if further and left is not None:
        listed_papers, rooms, left = _reading_further(listed_papers, venues, detail, left)
    trimmed = 0
    for rank, (paper_line, bare_line, venue, (paper, item)) in enumerate(
        zip(heads, bare, venues, listed_papers, strict=True)
    ):
        shown = _lines(paper.passages, detail)
        if left is not None:
            room = min(left, rooms[rank]) if rank in rooms else left
            capped = room < left  # by the paper's own room, not by the answer's
            kept, used, named = _fit(shown, venue, room)
            if not named:
                paper_line = bare_line
            left -= used
            if kept < len(shown):
                if not capped:
                    left = 0  # what follows gets no passage: the answer keeps its order
                trimmed += 1
                paper = replace(paper, passages=paper.passages[:kept])
            shown = shown[:kept]
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


def _reading_further(
    listed_papers: list[tuple[PaperHit, Item]], venues: list[int], detail: str, left: int
) -> tuple[list[tuple[PaperHit, Item]], dict[int, int], int]:
    """(the papers, those that read further showing their further passages; the room of each of those;
    the answer's room): such a paper may take the room it took before and ``FURTHER_CHARS`` more; the
    papers after it keep what they had."""
    listed = list(listed_papers)
    rooms = {}
    usual = left  # what the answer gave each paper before it read further
    for rank, (paper, item) in enumerate(listed_papers[: len(FURTHER_CHARS)]):
        lines = _lines(paper.passages, detail)
        kept, used, _ = _fit(lines, venues[rank], usual)
        usual = 0 if kept < len(lines) else usual - used
        if paper.further:
            rooms[rank] = used + FURTHER_CHARS[rank]
            left += FURTHER_CHARS[rank]
            listed[rank] = (replace(paper, passages=paper.further), item)
    return listed, rooms, left


def _lines(passages: list[Passage], detail: str) -> list[str]:
    return [f"   [{passage_label(p)}] {clip(p.text, PASSAGE_CHARS[detail])}" for p in passages]


def _fit(lines: list[str], venue: int, room: int) -> tuple[int, int, bool]:
    """(how many, characters taken, named in full) of a paper's passage ``lines`` that fit in ``room``, in
    order: a paper shown with a passage is named in full (``venue`` characters more)."""
    named = bool(lines) and len(lines[0]) + venue < room
    used = venue if named else 0
    kept = 0
    for line in lines:
        if len(line) > room - used:
            break
        kept += 1
        used += len(line) + 1
    return kept, used, named


def reads_further(question: str, response: ToolResponse, papers: list[PaperHit]) -> bool:
    """Whether the answer to ``question`` should read further: its first paper has further passages
    and none of those ``response`` shows holds `ASKED_WORDS_HELD` of the question's words."""
    rows = response.data.get("papers") or []
    first = next((p for p in papers if rows and p.item_key == rows[0]["key"]), None)
    if first is None or not first.further or not rows[0]["passages"]:
        return False
    return asked_words_held(question, first.passages[: len(rows[0]["passages"])]) < ASKED_WORDS_HELD


def asked_words_held(question: str, shown: list[Passage]) -> float:
    """The largest share of ``question``'s words (stemmed; common words and the clause that names its paper
    left out) that one passage of ``shown`` holds; 1.0 for a question with no such words."""
    asked = set(_TERMS.encode_query(focus_of(question)).indices)
    if not asked:
        return 1.0
    held = (len(asked & set(_TERMS.encode_document(p.text).indices)) for p in shown)
    return max(held, default=0) / len(asked)


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
