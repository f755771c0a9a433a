"""`matrix` mode: the same questions asked of every paper of a scope, one row per paper, one column per
question. Each cell is the passage targeted mode ranks first for that question in that paper (its one or
two best sentences, with the page), or "not found" with what was searched; a paper without full text is
answered from its abstract, and says so. A column that asks for a number also gets the value and unit
read from its sentence (quantities.py), so a column can be sorted.

Rows come a page at a time (ROWS_PER_PAGE); the answer ends with the exact call for the next page.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from typing import Any

from agent_zot.errors import InvalidArgumentError
from agent_zot.index.store import Hit
from agent_zot.services.context import AppContext
from agent_zot.services.passages import ChunkHit, Passage, PassagePicker, SentenceScorer
from agent_zot.services.response import ToolResponse, clip, estimate_tokens, item_line, plural
from agent_zot.services.summarize.common import FullText, full_text_of
from agent_zot.services.summarize.matrix_scope import (
    MatrixScope,
    questions_of,
    resolve_rows,
    scope_of,
)
from agent_zot.services.summarize.passages import Cited, answering, page_labels
from agent_zot.services.summarize.quantities import Quantity, answer_quantity, asks_quantity
from agent_zot.zotero.models import Item

__all__ = ["Matrix", "build_matrix", "run_matrix"]

ROWS_PER_PAGE = 10
DEFAULT_BUDGET = 2500  # tokens of one page of the matrix
MIN_CELL_CHARS, MAX_CELL_CHARS = 120, 4000
DIGIT = re.compile(r"\d")
# Words of a question that say nothing about where the answer is ("what did the paper report").
_GENERIC = re.compile(
    r"\b(?:what|which|how|who|when|where|was|were|is|are|did|do|does|the|a|an|of|in|this|that|paper|papers"
    r"|study|studies|article|authors?|report(?:ed|s)?|use[sd]?|used|each|every)\b",
    re.IGNORECASE,
)


# How papers word the answers to review columns whose answers rarely repeat the column's words ("We enrolled
# 120 patients" answers "sample size"): added to the question for retrieval, so targeted mode's ranking
# (BM25 over sentences, a bonus for numbers on "how many" questions) meets them. Words for columns papers
# do repeat ("primary outcome") only pull in other sentences, so there are none.
_PHRASINGS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), words)
    for pattern, words in (
        (
            r"\bsample sizes?\b|\bnumber of (?:participants|patients|subjects|people)|\bhow many (?:participants"
            r"|patients|subjects|people)|\bn\b|\benrol",
            "how many participants patients subjects were enrolled included recruited randomised",
        ),
        (r"\bdos(?:e|es|age)\b", "how much dose mg administered received daily"),
        (r"\bfollow-?up\b|\bduration\b|\bhow long\b", "how long weeks months years followed duration"),
    )
)


def retrieval_query(question: str) -> str:
    """The question with the words papers use to answer it (see _PHRASINGS)."""
    extra = [words for pattern, words in _PHRASINGS if pattern.search(question)]
    return " ".join([question, *extra])


@dataclass(slots=True)
class Cell:
    """One answer: the passage (None when not found), where it came from, and the number it holds."""

    question: str
    source: str  # "full text" | "abstract" | "nothing"
    passage: Cited | None = None
    quantity: Quantity | None = None
    searched: str = ""  # what was searched, said when nothing answered

    @property
    def found(self) -> bool:
        return self.passage is not None

    @property
    def where(self) -> str:
        if self.passage is None:
            return ""
        return "abstract" if self.source == "abstract" else self.passage.where

    @property
    def text(self) -> str:
        return " ".join(self.passage.passage.text.split()) if self.passage else ""

    def to_dict(self) -> dict[str, Any]:
        """Where the answer is and its number; the words are in the text form (once)."""
        if self.passage is None:
            return {"found": False, "searched": self.searched}
        p = self.passage.passage
        row: dict[str, Any] = {"found": True, "source": self.source, "pages": self.where}
        if self.source == "full text":
            row |= {"page_start": p.page_start, "page_end": p.page_end, "attachment_key": p.attachment_key}
        if self.quantity is not None:
            row["quantity"] = self.quantity.to_dict()
        return row


@dataclass(slots=True)
class Row:
    item: Item
    cells: list[Cell]
    note: str = ""  # why the row has no full text


@dataclass(slots=True)
class Matrix:
    questions: list[str]
    scope: MatrixScope
    total: int  # papers in the scope
    offset: int  # 1-based number of the first row
    rows: list[Row] = field(default_factory=list)

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
    ctx: AppContext, questions: list[str], scope: MatrixScope, *, offset: int = 1, rows: int = ROWS_PER_PAGE
) -> Matrix:
    """Rows ``offset``..``offset + rows - 1`` (1-based) of the matrix of ``questions`` over ``scope``."""
    if offset < 1:
        raise InvalidArgumentError(f"offset={offset} is not a row; rows are numbered from 1.")
    items = resolve_rows(ctx, scope)
    if not items:
        raise InvalidArgumentError(
            f"No papers in {scope.describe()}.",
            hint="Check the collection, tags or keys (zot_manage_collections lists collections).",
        )
    if offset > len(items):
        raise InvalidArgumentError(
            f"offset={offset} is past the last row: {scope.describe()} has {plural(len(items), 'paper')}.",
            hint="Start at offset=1.",
        )
    matrix = Matrix(questions, scope, len(items), offset)
    for item in items[offset - 1 : offset - 1 + rows]:
        matrix.rows.append(_row(ctx, item, questions))
    return matrix


def _row(ctx: AppContext, item: Item, questions: list[str]) -> Row:
    full_text = full_text_of(ctx, item)
    if full_text.indexed:
        labels = page_labels(ctx, full_text)
        searched = f"full text, {plural(full_text.attachment.pages, 'page')}" if full_text.attachment else ""
        cells = []
        for question in questions:
            found = answering(ctx, item, retrieval_query(question), labels, 1)
            cells.append(_cell(question, "full text", found[0] if found else None, searched))
        return Row(item, cells)
    abstract = item.abstract.strip()
    note = _why_not(full_text, bool(abstract))
    if not abstract:
        return Row(item, [Cell(q, "nothing", searched="no full text, no abstract") for q in questions], note)
    cells = [
        _cell(q, "abstract", _from_abstract(ctx, item, retrieval_query(q)), "abstract only")
        for q in questions
    ]
    return Row(item, cells, note)


_NO_TEXT = {
    "no_index": "the index is not built yet: `agent-zot update-db`",
    "not_indexed": "not indexed yet: `agent-zot update-db`",
    "no_text": "no readable file attached",
}


def _why_not(full_text: FullText, abstract: bool) -> str:
    why = _NO_TEXT.get(full_text.status, full_text.status)
    return f"no full text, {why}; " + ("answered from the abstract" if abstract else "no abstract either")


def _from_abstract(ctx: AppContext, item: Item, question: str) -> Cited | None:
    """The abstract's best sentences for the question, ranked as targeted mode ranks a paper's chunks."""
    hit = Hit(
        id=f"{item.key}:abstract",
        score=1.0,
        payload={"text": item.abstract, "kind": "metadata", "item_key": item.key},
    )
    picked = PassagePicker(ctx.index(), question, detail="sentences").pick([ChunkHit(hit, 1.0, set())], 1)
    return Cited(picked[0], {}) if picked else None


def _cell(question: str, source: str, best: Cited | None, searched: str) -> Cell:
    if best is None or not _answers(question, best.passage):
        return Cell(question, source, searched=searched)
    quantity = answer_quantity(question, best.passage.text) if asks_quantity(question) else None
    return Cell(question, source, best, quantity)


def _answers(question: str, passage: Passage) -> bool:
    """A passage answers when it shares a telling word with the question (stems, BM25's tokens), or holds
    a number when the question asks for one; the best of a paper's passages can still be about
    something else when the paper never speaks of it."""
    telling = _GENERIC.sub(" ", question)
    if asks_quantity(question) and DIGIT.search(passage.text):
        return True
    return bool(telling.strip()) and SentenceScorer(telling).score([passage.text])[0] > 0


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
    from agent_zot.services.summarize import token_budget

    budget = token_budget(max_tokens, "matrix")
    asked = questions_of(questions, query, params)
    scope = scope_of(params, collection=collection, tags=tags, item_keys=item_keys, search=search)
    matrix = build_matrix(ctx, asked, scope, offset=offset or 1)
    return render(matrix, budget)


def render(matrix: Matrix, budget: int) -> ToolResponse:
    """The compact text (cells cut to fit ``budget`` tokens) and the structured rows."""
    cells = max(1, len(matrix.rows) * len(matrix.questions))
    width = max(MIN_CELL_CHARS, min(MAX_CELL_CHARS, (budget * 4 - 600) // cells - 40))
    lines = [
        f"Review matrix: {plural(len(matrix.rows), 'paper')} × {plural(len(matrix.questions), 'question')}, "
        f"{matrix.scope.describe()} (rows {matrix.offset}–{matrix.last} of {matrix.total}). Each cell: the "
        "best passage with its PDF page; → the number read from it."
    ]
    lines += [f"Q{n}: {q}" for n, q in enumerate(matrix.questions, 1)]
    cut = False
    for number, row in enumerate(matrix.rows, matrix.offset):
        lines.append(f"{number}. {item_line(row.item)}")
        if row.note:
            lines.append(f"   ({row.note})")
        for n, cell in enumerate(row.cells, 1):
            if not cell.found:
                lines.append(f"   Q{n}: not found (searched: {cell.searched})")
                continue
            shown = clip(cell.text, width)
            cut = cut or len(shown) < len(cell.text)
            value = f" → {cell.quantity.describe()}" if cell.quantity is not None else ""
            lines.append(f"   Q{n} [{cell.where}]: {shown}{value}")
    following = matrix.next_call()
    if following is not None:
        lines.append(f"Next rows: zot_summarize({_arguments(following)})")
    if cut:
        lines.append(f"(Cells cut to {width} characters; a larger max_tokens shows whole passages.)")
    text = "\n".join(lines)
    data = {
        "questions": matrix.questions,
        "scope": matrix.scope.arguments(),
        "total": matrix.total,
        "offset": matrix.offset,
        "rows": [
            {
                "item_key": row.item.key,
                "title": row.item.title,
                "year": row.item.year,
                "source": row.cells[0].source if row.cells else "nothing",
                "cells": [cell.to_dict() for cell in row.cells],
            }
            for row in matrix.rows
        ],
        "next": following,
        "tokens": estimate_tokens(text),
    }
    return ToolResponse(text, data)


def _arguments(arguments: dict[str, Any]) -> str:
    return ", ".join(f"{name}={json.dumps(value, ensure_ascii=False)}" for name, value in arguments.items())
