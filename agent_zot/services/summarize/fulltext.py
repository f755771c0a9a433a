"""`full` mode: the paper's text by pages, from the index state database (no re-parse), in windows that
fit a token budget, with the page count and what to ask for next."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent_zot.errors import InvalidArgumentError
from agent_zot.services.context import AppContext
from agent_zot.services.full_text import FullText, page_name, pages_of
from agent_zot.services.response import estimate_tokens
from agent_zot.services.summarize.common import fallback_material, zotero_cache_text
from agent_zot.state.index import PageRecord
from agent_zot.zotero.models import Item, Library

_RANGE = re.compile(r"^\s*(\d+)\s*(?:(?:-|–|—|\.\.|to)\s*(\d+)\s*)?$")
_PAGES_HINT = "Use pages='3' or pages='3-5' (PDF page positions, from 1), or offset=3 with max_tokens."


@dataclass(frozen=True, slots=True)
class Window:
    """Which pages the caller asked for: [start, end], end None for "as far as the budget goes"."""

    start: int
    end: int | None
    spec: str  # as the caller wrote it, for messages


def parse_pages(spec: str) -> tuple[int, int]:
    """ "3" -> (3, 3); "3-5" -> (3, 5). Malformed, zero or reversed ranges raise errors saying how to fix."""
    match = _RANGE.match(spec)
    if not match:
        raise InvalidArgumentError(f"pages={spec!r} is not a page or page range.", hint=_PAGES_HINT)
    start = int(match.group(1))
    end = int(match.group(2)) if match.group(2) else start
    if start < 1 or end < 1:
        raise InvalidArgumentError(f"Pages are numbered from 1; pages={spec!r} has page 0.", hint=_PAGES_HINT)
    if start > end:
        raise InvalidArgumentError(
            f"pages={spec!r} starts after it ends.", hint=f"Did you mean pages='{end}-{start}'?"
        )
    return start, end


def window(pages: str | None, offset: int | None, routed: dict[str, Any] | None) -> Window:
    """Explicit ``pages`` or ``offset`` win over pages named in the query; neither means from page 1."""
    if pages is not None and str(pages).strip() and offset is not None:
        raise InvalidArgumentError(
            "Give pages or offset, not both.",
            hint="pages='3-5' reads a range; offset=3 reads on from page 3.",
        )
    if pages is not None and str(pages).strip():
        start, end = parse_pages(str(pages))
        return Window(start, end, f"pages={str(pages).strip()!r}")
    if offset is not None:
        if offset < 1:
            raise InvalidArgumentError(f"offset={offset} is not a page; pages are numbered from 1.")
        return Window(offset, None, f"offset={offset}")
    if routed and routed.get("start"):
        first, last = int(routed["start"]), routed.get("end")
        spec = f"page {first}" + (" on" if last is None else f"-{last}" if last != first else "")
        return Window(first, int(last) if last else None, spec)  # no end: "from page 5" reads on
    return Window(1, None, "from the start")


def _check_range(win: Window, total: int) -> None:
    if win.start > total or (win.end is not None and win.end > total):
        raise InvalidArgumentError(
            f"This paper has {total} pages; {win.spec} is past the end.",
            hint=f"Ask for pages within 1-{total}, e.g. pages='1-{min(total, 3)}'.",
        )


def _page_block(page: PageRecord, references_page: int | None) -> str:
    text = page.text.strip()
    if not text:
        text = (
            "(reference list: kept apart from the body text, not shown)"
            if references_page is not None and page.number >= references_page
            else "(no text on this page: figure, blank or scanned)"
        )
    return f"--- {page_name(page.number, page.label)}{' (OCR)' if page.ocr else ''} ---\n{text}"


def full(
    ctx: AppContext,
    item: Item,
    library: Library,
    full_text: FullText,
    win: Window,
    budget: int,
) -> tuple[list[str], dict[str, object]]:
    if not full_text.indexed or full_text.attachment is None:
        return _unpaginated(item, library, full_text, budget)
    record = full_text.attachment
    pages = pages_of(ctx, record)
    if not pages:  # recorded without page texts (an index from an older version): nothing to page
        return _unpaginated(item, library, full_text, budget)
    total = max((p.number for p in pages), default=record.pages)
    _check_range(win, total)
    last_wanted = win.end or total
    blocks: list[str] = []
    shown: list[PageRecord] = []
    used, truncated = 0, False
    for page in (p for p in pages if win.start <= p.number <= last_wanted):
        block = _page_block(page, record.references_page)
        cost = estimate_tokens(block)
        if shown and used + cost > budget:
            break
        if not shown and cost > budget:  # one page over the whole budget: cut it, say so
            block, truncated = block[: budget * 4].rstrip() + " …[page cut: raise max_tokens]", True
            cost = estimate_tokens(block)
        blocks.append(block)
        shown.append(page)
        used += cost
    first, last = shown[0].number, shown[-1].number
    what = f"page {first}" if first == last else f"pages {first}–{last}"
    lines = [
        f"Full text, {what} of {total} (source: {record.source}; page numbers are positions in the "
        "file, printed labels in brackets):",
        *blocks,
    ]
    next_hint = _next(last, total, len(shown), budget)
    lines.append(next_hint["text"] if next_hint else "End of the paper.")
    if truncated:
        lines.append(f"Page {first} was cut to fit max_tokens={budget}; ask again with a larger max_tokens.")
    data: dict[str, object] = {
        "attachment_key": record.attachment_key,
        "total_pages": total,
        "pages": [{"number": p.number, "label": p.label, "chars": len(p.text)} for p in shown],
        "truncated": truncated,
        "references_page": record.references_page,
        "next": {k: v for k, v in next_hint.items() if k != "text"} if next_hint else None,
    }
    return lines, data


def _next(last: int, total: int, shown: int, budget: int) -> dict[str, Any] | None:
    if last >= total:
        return None
    start, end = last + 1, min(total, last + max(1, shown))
    return {
        "offset": start,
        "pages": f"{start}-{end}" if end > start else str(start),
        "max_tokens": budget,
        "text": f"Next: offset={start} (or pages='{start}-{end}'); {total - last} pages remain.",
    }


def _unpaginated(
    item: Item, library: Library, full_text: FullText, budget: int
) -> tuple[list[str], dict[str, object]]:
    """No indexed pages: Zotero's own text cache when there is one, else whatever metadata exists."""
    cache = zotero_cache_text(item)
    if cache:
        limit = budget * 4
        excerpt = cache[:limit]
        more = len(cache) > limit
        lines = [
            f"{full_text.message}",
            f"Zotero's full-text cache (no page numbers), characters 1-{len(excerpt):,} of {len(cache):,}:",
            excerpt.strip(),
        ]
        if more:
            lines.append(f"Cut at max_tokens={budget}; the page-aware index shows the rest page by page.")
        return lines, {"total_pages": None, "pages": [], "zotero_fulltext": excerpt, "truncated": more}
    material, data = fallback_material(item, library)
    return [full_text.message, *material], {"total_pages": None, "pages": [], **data}
