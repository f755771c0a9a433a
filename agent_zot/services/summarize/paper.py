"""`zot_summarize`: understand one paper, at the depth the request asks for.

- quick: metadata, abstract, tags, collections, an APA-like reference, counts of notes and annotations.
- targeted: the paper's passages that answer the question, with pages.
- comprehensive: research question, method, findings, conclusions, limitations: each from its sections' roles.
- full: the text page by page from the index state database, in windows that fit ``max_tokens``.
- figures: the figures, tables and equations (figures.py), one of them or a page as an image.
- matrix: the same questions of every paper of a scope, page-cited cells (services/matrix/build.py).

Without an index (or full text for this item) every mode says why and returns what Zotero has.
"""

from __future__ import annotations

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.services.context import AppContext
from agent_zot.services.full_text import FullText, full_text_of
from agent_zot.services.resolve.described import described_paper
from agent_zot.services.resolve.papers import PaperMatch, PaperRequest, resolve_papers, resolved_record
from agent_zot.services.response import (
    MAX_QUERY_CHARS,
    ToolResponse,
    estimate_tokens,
    token_budget,
    within_length,
)
from agent_zot.services.routing import Route
from agent_zot.services.summarize.common import fallback_material, header
from agent_zot.services.summarize.fulltext import full, window
from agent_zot.services.summarize.overview import quick
from agent_zot.services.summarize.slots import comprehensive
from agent_zot.services.summarize.targeted import targeted
from agent_zot.zotero.models import Item, Library

__all__ = ["DEFAULT_BUDGETS", "run_summarize"]

DEFAULT_BUDGETS = {
    "quick": 1500,
    "targeted": 2500,
    "comprehensive": 4000,
    "full": 6000,
    "figures": 2500,
}


def run_summarize(
    ctx: AppContext,
    decision: Route,
    query: str,
    *,
    item_key: str | None = None,
    pages: str | None = None,
    offset: int | None = None,
    max_tokens: int | None = None,
    figure: str | None = None,
) -> ToolResponse:
    hint = "Name the paper and ask the question in a sentence or two."
    text = within_length(" ".join((query or "").split()), MAX_QUERY_CHARS, what="The query", hint=hint)
    described = decision.mode == "figures" and bool(figure and figure.strip())  # found by its caption
    if not text and not (item_key and item_key.strip()) and not described:
        raise InvalidArgumentError(
            "Which paper? The query is empty and no item_key was given.",
            hint="Pass item_key='ABCD2345', or name the paper, e.g. query='the S2ORC paper'.",
        )
    budget = token_budget(max_tokens, DEFAULT_BUDGETS[decision.mode], decision.mode)
    win = window(pages, offset, decision.params.get("pages")) if decision.mode == "full" else None
    library = ctx.library()
    request = PaperRequest.of(text, decision.params, item_key)
    if decision.mode == "figures":
        from agent_zot.services.summarize.figures import names_nothing

        if not (item_key and item_key.strip()) and not figure and names_nothing(text):
            raise InvalidArgumentError(
                "Which paper? The request asks for figures or tables but names no paper.",
                hint="Name the paper (e.g. 'list the figures of the S2ORC paper'), pass item_key='ABCD2345', or "
                "describe the figure ('the execution overview figure').",
            )
        by_caption = _described_figure(ctx, library, request, text, figure)
        if by_caption is not None:
            return by_caption
    try:
        target = resolve_papers(library, request)
    except NotFoundError as missing:  # perhaps described by what it is rather than named
        target = described_paper(ctx, request, missing)
    item = target.item
    if decision.mode == "figures":
        return _figures(item, target, text, figure)
    full_text = full_text_of(ctx, item)
    if decision.mode == "quick":
        lines, data = quick(item, library, full_text)
    elif decision.mode == "full" and win is not None:
        lines, data = _with_header(item, *full(ctx, item, library, full_text, win, budget))
    elif not full_text.indexed:
        lines, data = _fallback(item, library, full_text)
    elif decision.mode == "targeted":
        lines, data = _with_header(item, *targeted(ctx, item, full_text, _question(text, item_key), budget))
    else:
        lines, data = _with_header(item, *comprehensive(ctx, item, full_text, budget))
    body = "\n".join(line for line in [*lines, target.note()] if line)
    data = {
        "item_key": item.key,
        "title": item.title,
        "resolved_by": target.how,
        "resolved": resolved_record(target),
        "full_text": full_text.to_dict(),
        **data,
        "tokens": estimate_tokens(body),
    }
    return ToolResponse(body, data)


def _figures(item: Item, target: PaperMatch, text: str, figure: str | None) -> ToolResponse:
    from agent_zot.services.summarize.figures import figures  # the layout model loads on first use

    answer = figures(item, text, figure)
    body = "\n".join(line for line in [header(item), *answer.lines, target.note()] if line)
    data = {
        "item_key": item.key,
        "title": item.title,
        "resolved_by": target.how,
        "resolved": resolved_record(target),
        **answer.data,
        "images": len(answer.images),
        "tokens": estimate_tokens(body),
    }
    return ToolResponse(body, data, images=answer.images, view=answer.view)


def _described_figure(
    ctx: AppContext, library: Library, request: PaperRequest, text: str, figure: str | None
) -> ToolResponse | None:
    """A figure or table described with no paper named: the paper whose caption fits (figure_lookup.py)."""
    from agent_zot.services.summarize.figure_lookup import figure_by_description

    found = figure_by_description(ctx, library, request, figure)
    if found is None:
        return None
    item, target = found
    return _figures(item, PaperMatch(item, "its caption"), text, target.name)


def _question(text: str, item_key: str | None) -> str:
    if not text:
        raise InvalidArgumentError(
            f"Targeted mode needs a question about the paper (item {item_key}).",
            hint="Ask it in query, e.g. 'how are citation links resolved?', or use force_mode='comprehensive'.",
        )
    return text


def _with_header(
    item: Item, lines: list[str], data: dict[str, object]
) -> tuple[list[str], dict[str, object]]:
    return [header(item), *lines], data


def _fallback(item: Item, library: Library, full_text: FullText) -> tuple[list[str], dict[str, object]]:
    material, data = fallback_material(item, library)
    if not material:
        material = ["Zotero has no abstract, notes, annotations or cached text for this item either."]
    return [header(item), full_text.message, *material], data
