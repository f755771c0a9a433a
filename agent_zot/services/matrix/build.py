"""`matrix` mode: the same questions asked of every paper of a scope, one row per paper, one column per
question. Each cell holds up to four short candidates, each a sentence or two with its PDF page (cells.py
finds them: the question's kind decides what an answer reads like and where it sits), or "not found" with
what was searched; a paper without full text is answered from its abstract, and says so. A count the
question asks for ("how many machines") comes with the number and the noun it counts, and only then.

The assistant fills the matrix: each cell's answer in a few words, cited [KEY p. N] with words quoted from
a candidate; `zot_export` format matrix takes the filled cells back and checks each citation before it
writes the file (matrix/file.py). A key the matrix cannot use, or a paper whose text cannot be read, is
said in its own row; the other rows are answered.

Rows come a page at a time, as many as the token budget holds at about CELL_CHARS a cell (at most
ROWS_PER_PAGE); the answer ends with the exact call for the next page.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from agent_zot.errors import AgentZotError, InvalidArgumentError
from agent_zot.services.context import AppContext
from agent_zot.services.full_text import FullText, full_text_of, page_name
from agent_zot.services.matrix.cells import Candidate, PaperText, candidates, chunk_ranks
from agent_zot.services.matrix.scope import (
    questions_of,
    resolve_rows,
    scope_of,
)
from agent_zot.services.progress import report
from agent_zot.services.resolve.scope import LibraryScope, without_note
from agent_zot.services.response import ToolResponse, estimate_tokens, item_line, plural, token_budget
from agent_zot.zotero.models import Item

__all__ = ["Matrix", "build_matrix", "run_matrix"]

ROWS_PER_PAGE = 10
DEFAULT_BUDGET = 2500  # tokens of one page of the matrix
CELL_CHARS = 360  # a cell's candidates on a page: two of a sentence each, or one and a number
PAGE_CHARS = 1300  # the page's own lines: the header, the questions, the next call
MIN_CANDIDATE_CHARS, MAX_CANDIDATE_CHARS = 110, 600
FILL = (
    "Fill each cell: a short answer from its candidates, cited [KEY p. N] with words quoted from the "
    "candidate. To save the filled matrix, call zot_export(format='matrix', the same questions and scope, "
    "cells=[{item_key, question: N, answer, value?, page, quote}]): each citation is checked (the paper, the "
    "page, the quoted words on it) before it is written."
)


@dataclass(slots=True)
class Cell:
    """One question asked of one paper: its candidates, best first (none when not found)."""

    question: str
    source: str  # "full text" | "abstract" | "nothing"
    candidates: list[Candidate] = field(default_factory=list)
    searched: str = ""  # what was searched, said when nothing answered
    labels: dict[int, str | None] = field(default_factory=dict)  # the pages' own labels

    @property
    def found(self) -> bool:
        return bool(self.candidates)

    def where(self, candidate: Candidate) -> str:
        if candidate.page is None:
            return "abstract"
        return page_name(candidate.page, self.labels.get(candidate.page))

    def to_dict(self) -> dict[str, Any]:
        """Where each candidate is, and the cell's value (its first candidate's number); the words are in
        the text form (once)."""
        if not self.candidates:
            return {"found": False, "searched": self.searched}
        cell: dict[str, Any] = {
            "found": True,
            "source": self.source,
            "candidates": [{"page": c.page, "pages": self.where(c)} for c in self.candidates],
        }
        if self.candidates[0].quantity is not None:
            cell["quantity"] = self.candidates[0].quantity.to_dict()
        return cell


@dataclass(slots=True)
class Row:
    key: str
    item: Item | None  # None: the key is not in the library
    cells: list[Cell]
    note: str = ""  # why the row has no full text, or why it has no answers


@dataclass(slots=True)
class Matrix:
    questions: list[str]
    scope: LibraryScope
    total: int  # papers in the scope
    offset: int  # 1-based number of the first row
    rows: list[Row] = field(default_factory=list)
    left_out: tuple[str, ...] = ()  # names in the scope that match nothing (an unknown tag), with close ones

    @property
    def last(self) -> int:
        return self.offset + len(self.rows) - 1

    def next_call(self) -> dict[str, Any] | None:
        """The arguments of the call for the next page of rows, or None on the last page."""
        if self.last >= self.total:
            return None
        return {
            "force_mode": "matrix",
            "questions": self.questions,
            **self.scope.arguments(),
            "offset": self.last + 1,
        }


def build_matrix(
    ctx: AppContext, questions: list[str], scope: LibraryScope, *, offset: int = 1, rows: int = ROWS_PER_PAGE
) -> Matrix:
    """Rows ``offset``..``offset + rows - 1`` (1-based) of the matrix of ``questions`` over ``scope``."""
    if offset < 1:
        raise InvalidArgumentError(f"offset={offset} is not a row; rows are numbered from 1.")
    listed, left_out = resolve_rows(ctx, scope)
    if not listed:
        why = " ".join(left_out)  # e.g. the tag the library does not have, with close ones
        raise InvalidArgumentError(
            f"No papers in {scope.describe(ranked=True)}." + (f" {why}" if why else ""),
            hint="Check the collection, tags or keys (zot_manage_collections lists collections).",
        )
    if offset > len(listed):
        raise InvalidArgumentError(
            f"offset={offset} is past the last row: {scope.describe(ranked=True)} has {plural(len(listed), 'paper')}.",
            hint="Start at offset=1.",
        )
    matrix = Matrix(questions, scope, len(listed), offset, left_out=left_out)
    page = listed[offset - 1 : offset - 1 + rows]
    for done, source in enumerate(page):
        report(done, len(page), f"matrix: paper {done + 1} of {len(page)}")
        item = source.item
        if item is None:
            matrix.rows.append(Row(source.key, None, [], source.problem))
            continue
        try:
            matrix.rows.append(_row(ctx, item, questions))
        except AgentZotError as exc:  # one unreadable paper does not cost the others their answers
            matrix.rows.append(Row(item.key, item, [], f"could not be read: {exc.message}"))
    report(len(page), len(page), f"matrix: {plural(len(page), 'paper')} read")
    return matrix


def _row(ctx: AppContext, item: Item, questions: list[str]) -> Row:
    full_text = full_text_of(ctx, item)
    if full_text.indexed and full_text.attachment is not None:
        pages = ctx.index().state.pages_of(full_text.attachment.attachment_key)
        labels = {p.number: p.label for p in pages}
        paper = PaperText.of(full_text.attachment.attachment_key, [(p.number, p.text) for p in pages])
        searched = f"full text, {plural(full_text.attachment.pages, 'page')}"
        cells = [
            Cell(q, "full text", candidates(paper, q, chunk_ranks(ctx, item.key, q, paper)), searched, labels)
            for q in questions
        ]
        return Row(item.key, item, cells)
    abstract = item.abstract.strip()
    note = _why_not(full_text, bool(abstract))
    if not abstract:
        return Row(
            item.key,
            item,
            [Cell(q, "nothing", searched="no full text, no abstract") for q in questions],
            note,
        )
    paper = PaperText.of(None, [(None, abstract)])
    cells = [Cell(q, "abstract", candidates(paper, q), "abstract only") for q in questions]
    return Row(item.key, item, cells, note)


_NO_TEXT = {
    "no_index": "the index is not built yet: `agent-zot update-db`",
    "not_indexed": "not indexed yet: `agent-zot update-db`",
    "no_text": "no readable file attached",
}


def _why_not(full_text: FullText, abstract: bool) -> str:
    why = _NO_TEXT.get(full_text.status, full_text.status)
    return f"no full text, {why}; " + ("answered from the abstract" if abstract else "no abstract either")


# -- the answer --------------------------------------------------------------------------------------


def run_matrix(
    ctx: AppContext,
    params: dict[str, Any],
    query: str,
    *,
    questions: list[str] | None,
    collection: str | None,
    tags: list[str] | None,
    item_keys: list[str] | None,
    search: str | None,
    offset: int | None,
    max_tokens: int | None,
) -> ToolResponse:
    budget = token_budget(max_tokens, DEFAULT_BUDGET, "matrix")
    asked = questions_of(questions, query, params)
    scope = scope_of(params, collection=collection, tags=tags, item_keys=item_keys, search=search)
    matrix = build_matrix(ctx, asked, scope, offset=offset or 1, rows=rows_per_page(budget, len(asked)))
    return render(matrix, budget)


def rows_per_page(budget: int, questions: int) -> int:
    """How many papers a page of ``budget`` tokens holds with ``questions`` columns of candidates."""
    return max(1, min(ROWS_PER_PAGE, (budget * 4 - PAGE_CHARS) // (max(1, questions) * CELL_CHARS)))


def render(matrix: Matrix, budget: int) -> ToolResponse:
    """The compact text (candidates cut to fit ``budget`` tokens) and the structured rows."""
    shown = sum(len(c.candidates) for r in matrix.rows for c in r.cells) or 1
    width = max(MIN_CANDIDATE_CHARS, min(MAX_CANDIDATE_CHARS, (budget * 4 - PAGE_CHARS) // shown - 24))
    lines = [
        f"Review matrix: {plural(len(matrix.rows), 'paper')} × {plural(len(matrix.questions), 'question')}, "
        f"{matrix.scope.describe(ranked=True)} (rows {matrix.offset}–{matrix.last} of {matrix.total}). Each cell: up to 4 "
        "candidates, best first, with PDF pages; → a count read from it.",
        FILL,
    ]
    if matrix.left_out:
        lines.append(without_note("Rows chosen", matrix.left_out))
    lines += [f"Q{n}: {q}" for n, q in enumerate(matrix.questions, 1)]
    cut = False
    for number, row in enumerate(matrix.rows, matrix.offset):
        lines.append(f"{number}. {item_line(row.item)}" if row.item else f"{number}. [{row.key}]")
        if row.note:
            lines.append(f"   ({row.note})")
        for n, cell in enumerate(row.cells, 1):
            if not cell.found:
                lines.append(f"   Q{n}: not found (searched: {cell.searched})")
                continue
            for rank, candidate in enumerate(cell.candidates):
                text = excerpt(candidate, width)
                cut = cut or len(text) < len(candidate.text)
                # The cell's value is the first candidate's: the others are other readings, in words.
                value = f" → {candidate.quantity.describe()}" if rank == 0 and candidate.quantity else ""
                lead = f"Q{n}" if rank == 0 else "or"
                lines.append(f"   {lead} [{cell.where(candidate)}]: {text}{value}")
    following = matrix.next_call()
    if following is not None:
        lines.append(f"Next rows: zot_summarize({_arguments(following)})")
    if cut:
        lines.append(f"(Candidates cut to {width} characters; a larger max_tokens shows whole sentences.)")
    text = "\n".join(lines)
    data = {
        "questions": matrix.questions,
        "scope": matrix.scope.arguments(),
        "total": matrix.total,
        "offset": matrix.offset,
        "rows": [_row_data(row) for row in matrix.rows],
        "next": following,
        "tokens": estimate_tokens(text),
    }
    return ToolResponse(text, data, view={"candidates": [_row_view(row) for row in matrix.rows]})


def _row_view(row: Row) -> list[list[dict[str, Any]]]:
    """Each cell's candidates whole, for a view to show and to quote from (the text form cuts them)."""
    return [
        [
            {"text": " ".join(c.text.split()), "value": c.quantity.to_dict()["value"] if c.quantity else None}
            for c in cell.candidates
        ]
        for cell in row.cells
    ]


def _row_data(row: Row) -> dict[str, Any]:
    if row.item is None:
        return {"item_key": row.key, "error": row.note, "cells": []}
    data: dict[str, Any] = {
        "item_key": row.item.key,
        "title": row.item.title,
        "year": row.item.year,
        "source": row.cells[0].source if row.cells else "nothing",
        "cells": [cell.to_dict() for cell in row.cells],
    }
    if row.note:
        data["note"] = row.note
    return data


def excerpt(candidate: Candidate, width: int) -> str:
    """The candidate on one line, within ``width`` characters: a long sentence is cut around where its
    answer starts (its number, or the words that mark it), else at its end."""
    flat = " ".join(candidate.text.split())
    if len(flat) <= width:
        return flat
    focus = len(" ".join(candidate.text[: candidate.focus].split()))
    start = max(0, min(focus - width // 4, len(flat) - width + 1))
    if start <= 0:
        return flat[: width - 1].rstrip() + "…"
    space = flat.find(" ", start)
    start = space + 1 if 0 <= space < start + 20 else start
    body = flat[start : start + width - 2].rstrip()
    return "…" + body + ("…" if start + width - 2 < len(flat) else "")


def _arguments(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in arguments.items())
