"""The answer about a work the library cites but does not hold: which library papers cite it, each with the
sentence that cites it and that sentence's page where the paper's indexed text shows one (a numbered marker
such as "[12]" or "[10-14]", or the first author and year), read from the stored pages at answer time."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from agent_zot.graph.model import Node
from agent_zot.index.sentences import sentence_spans
from agent_zot.services.resolve.works import WorkMatch
from agent_zot.services.response import ToolResponse, clip, more_line, plural
from agent_zot.state.index import IndexState

if TYPE_CHECKING:
    from agent_zot.services.context import AppContext

SENTENCE_CHARS = 320
_BRACKETS = re.compile(r"\[([\d,;\s–—-]{1,60})\]")


def cited_work(ctx: AppContext, work: WorkMatch, *, direction: str, limit: int) -> ToolResponse:
    """Which library papers cite ``work``, with their citing sentences and pages."""
    library = ctx.library()
    state = ctx.index_resources().state if ctx.index_resources().exists() else None
    rows: list[dict[str, Any]] = []
    lines = [
        f"{work.cite_as()} is not in your library; {plural(len(work.citing), 'paper')} of yours cite"
        f"{'s' if len(work.citing) == 1 else ''} it (from their reference lists):"
    ]
    for item_key in work.citing[:limit]:
        item = library.items.get(item_key)
        title = item.title if item else item_key
        year = f" ({item.year})" if item and item.year else ""
        found = (
            citing_sentence(state, item_key, work.node, work.ref_numbers.get(item_key))
            if state is not None
            else None
        )
        row: dict[str, Any] = {"item_key": item_key, "title": title, "year": item.year if item else None}
        if found:
            row["page"], row["sentence"] = found
            lines.append(f"  [{item_key}] {title}{year} — p. {found[0]}: “{found[1]}”")
        else:
            lines.append(f"  [{item_key}] {title}{year}")
        rows.append(row)
    tail = more_line(len(work.citing), limit)
    if tail:
        lines.append(tail.strip())
    ids = [f"DOI {work.node.props['doi']}"] if work.node.props.get("doi") else []
    if work.node.props.get("arxiv"):
        ids.append(f"arXiv {work.node.props['arxiv']}")
    if ids:
        lines.append(f"{'; '.join(ids)}: add it to Zotero to read it here.")
    if direction in ("out", "both"):
        lines.append("What it cites is not known: agent-zot reads the reference lists of your papers only.")
    data = {
        "work": work.to_dict(),
        "cited_by": rows,
        "resolved": {"papers": [], "work": work.to_dict(), "direction": direction},
    }
    return ToolResponse("\n".join(lines), data)


def citing_sentence(
    state: IndexState, item_key: str, work: Node, number: int | None
) -> tuple[int, str] | None:
    """(page, sentence) where the paper cites the work: by ``number``, the one its numbered reference list
    gives the work, else by the work's first author and year; None when its text shows neither."""
    surname = work.props.get("first_author")
    year = work.props.get("year")
    for record in state.attachments_of(item_key):
        if not record.references_text:
            continue
        pages = [
            p
            for p in state.pages_of(record.attachment_key)
            if record.references_page is None or p.number < record.references_page
        ]
        for page in pages:
            found = _marker_at(page.text, number, str(surname) if surname else None, year)
            if found is not None:
                return page.number, _sentence_at(page.text, found)
    return None


def _marker_at(text: str, number: int | None, surname: str | None, year: object) -> int | None:
    """Where ``text`` cites the reference: its number in brackets (alone, listed or in a range), else its
    first author's surname followed by its year."""
    if number is not None:
        for match in _BRACKETS.finditer(text):
            if number in _numbers(match.group(1)):
                return match.start()
    # an author-year citation (also in papers that number their list but cite by name)
    if surname and isinstance(year, int):
        pattern = (
            rf"\b{re.escape(surname)}(?:\s+et\s+al\.?|\s+(?:and|&)\s+[^\W\d_][\w'’-]*)?[\s,]*\(?\s*{year}"
        )
        cited = re.search(pattern, text)
        return cited.start() if cited else None
    return None


def _numbers(listed: str) -> set[int]:
    """The reference numbers a bracket lists: "3, 7-9" → {3, 7, 8, 9}."""
    found: set[int] = set()
    for part in re.split(r"[,;]", listed):
        bounds = [int(n) for n in re.findall(r"\d+", part)]
        if len(bounds) == 1:
            found.add(bounds[0])
        elif len(bounds) == 2 and 0 <= bounds[1] - bounds[0] <= 50:
            found.update(range(bounds[0], bounds[1] + 1))
    return found


def _sentence_at(text: str, offset: int) -> str:
    for start, end in sentence_spans(text):
        if start <= offset < end:
            return clip(text[start:end], SENTENCE_CHARS)
    return clip(text[max(0, offset - 150) : offset + 150], SENTENCE_CHARS)
