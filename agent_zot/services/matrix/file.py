"""The review matrix as a file in the export folder: CSV (one row per paper) or a Markdown table, of every row
of the scope, not a page of them.

Two kinds of file:
- **filled** (``cells`` given): the assistant's answers, each checked before it is written
  (evidence/verify.py: the paper, the PDF page, the quoted words on that page, a stated value among them). A cell that fails is
  written as unverified with the reason and the answer given, never as an answer; a cell not filled says so.
- **candidates** (no ``cells``): each cell's best candidate passage with its page and count, marked as
  retrieved passages for a reader to judge.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from agent_zot.errors import InvalidArgumentError
from agent_zot.formats.csvtable import to_csv as write_csv
from agent_zot.services.catalog import ExportRequest, FilledCell
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.verify import CitationChecker, Verdict
from agent_zot.services.export_target import resolve_target, write_file
from agent_zot.services.matrix.build import Cell, Matrix, Row, build_matrix
from agent_zot.services.matrix.scope import RowSource, questions_of, resolve_rows, scope_of
from agent_zot.services.resolve.scope import LibraryScope, without_note
from agent_zot.services.response import ToolResponse, plural
from agent_zot.zotero.models import Item

MAX_ROWS = 500  # a file of more papers than this is a job for several collections
FORMATS = {".csv": "csv", ".md": "markdown", ".markdown": "markdown"}
LISTED_PROBLEMS = 6  # unverified cells named in the answer (the file has them all)


@dataclass(frozen=True, slots=True)
class Checked:
    cell: FilledCell
    verdict: Verdict

    def citation(self) -> str:
        where = f"p. {self.cell.page}" if self.cell.page is not None else "abstract"
        return f"[{self.cell.item_key.upper()} {where}]"


def export_matrix(ctx: AppContext, req: ExportRequest, params: dict[str, Any]) -> ToolResponse:
    """Write the matrix of the request's questions over its scope to ``req.path``: the assistant's filled
    cells, checked, when ``req.cells`` holds them; else each cell's best candidate."""
    scope = scope_of(
        params, collection=req.collection, tags=req.tags, item_keys=req.item_keys, search=req.search
    )
    suffix = Path(req.path.strip()).suffix.lower() if req.path else ".csv"
    if suffix not in FORMATS:
        raise InvalidArgumentError(
            f"A review matrix is written as .csv or .md, not {suffix or 'a folder'}.",
            hint="Name the file e.g. trials-matrix.csv (a table to sort) or trials-matrix.md.",
        )
    asked = questions_of(req.questions, req.query, params)
    name = req.path or f"review-matrix-{date.today():%Y%m%d}.csv"
    target = resolve_target(ctx.settings, name, "markdown", LibraryScope())
    if req.cells:
        listed, left_out = resolve_rows(ctx, scope)
        rows = listed[:MAX_ROWS]
        checked = check_cells(ctx, rows, asked, req.cells)
        body = (filled_csv if FORMATS[suffix] == "csv" else filled_markdown)(
            rows, asked, checked, scope.describe(ranked=True)
        )
        written = write_file(target, body, req.overwrite)
        answer = _filled_answer(written, FORMATS[suffix], rows, asked, checked, scope.describe(ranked=True))
        if left_out:
            answer.text += "\n" + without_note("Rows chosen", left_out)
        return answer
    matrix = build_matrix(ctx, asked, scope, rows=MAX_ROWS)
    body = to_csv(matrix) if FORMATS[suffix] == "csv" else to_markdown(matrix)
    written = write_file(target, body, req.overwrite)
    left = matrix.total - len(matrix.rows)
    more = f" The first {MAX_ROWS} of {matrix.total} papers only; narrow the scope." if left else ""
    found = sum(c.found for r in matrix.rows for c in r.cells)
    cells = len(matrix.rows) * len(asked)
    return ToolResponse(
        f"Wrote a review matrix of {plural(len(matrix.rows), 'paper')} × {plural(len(asked), 'question')} "
        f"({scope.describe(ranked=True)}; {found} of {cells} cells with candidates) as {FORMATS[suffix]} to {written}: "
        f"retrieved passages, not checked answers (fill the cells and pass them as cells=[…] to write "
        f"checked answers).{more}"
        + (f"\n{without_note('Rows chosen', matrix.left_out)}" if matrix.left_out else ""),
        {
            "format": FORMATS[suffix],
            "path": str(written),
            "files": [str(written)],
            "questions": asked,
            "rows": len(matrix.rows),
            "total": matrix.total,
            "cells_found": found,
        },
    )


# -- filled cells --------------------------------------------------------------------------------------


def check_cells(
    ctx: AppContext, rows: list[RowSource], questions: list[str], cells: list[FilledCell]
) -> dict[tuple[str, int], Checked]:
    """Each filled cell checked against the index, by (row key, question number); a cell outside the
    matrix or given twice is unverified and says why."""
    keys = {row.key for row in rows if row.item is not None}
    checker = CitationChecker(ctx)
    checked: dict[tuple[str, int], Checked] = {}
    for cell in cells:
        key = cell.item_key.strip().upper()
        where = (key, cell.question)
        if where in checked:
            continue  # the first answer given for a cell stands
        if key not in keys:
            verdict = Verdict(False, f"{key} is not a row of this matrix ({len(keys)} papers)")
        elif cell.question > len(questions):
            verdict = Verdict(False, f"there is no Q{cell.question} (the matrix asks {len(questions)})")
        else:
            verdict = checker.check(key, cell.page, cell.quote, cell.value)
        checked[where] = Checked(cell, verdict)
    return checked


def filled_csv(
    rows: list[RowSource], questions: list[str], checked: dict[tuple[str, int], Checked], scope: str
) -> str:
    """One row per paper; per question the answer, its value, citation, quote, and the check. The answer
    and value columns hold verified answers only."""
    columns = ["item_key", "authors", "year", "title"]
    for n, question in enumerate(questions, 1):
        columns += [f"Q{n} {question}", f"Q{n} value", f"Q{n} citation", f"Q{n} quote", f"Q{n} check"]
    records = []
    for row in rows:
        values: list[object] = [row.key, *_paper(row.item)]
        for n in range(1, len(questions) + 1):
            found = checked.get((row.key, n))
            if found is None:
                values += ["", "", "", "", "not filled" if row.item else row.problem]
            elif found.verdict.verified:
                value = "" if found.cell.value is None else _number(found.cell.value)
                values += [found.cell.answer, value, found.citation(), found.cell.quote, "verified"]
            else:
                values += ["", "", found.citation(), found.cell.quote, _unverified(found)]
        records.append(dict(zip(columns, values, strict=True)))
    return write_csv(columns, records)


def filled_markdown(
    rows: list[RowSource], questions: list[str], checked: dict[tuple[str, int], Checked], scope: str
) -> str:
    verified = sum(c.verdict.verified for c in checked.values())
    lines = [
        f"# Review matrix: {scope}",
        "",
        f"Cells filled by the assistant; each citation checked against the library's index (the paper, the "
        f"page, the quoted words on it): {verified} verified, {len(checked) - verified} unverified.",
        "",
        *[f"- **Q{n}**: {q}" for n, q in enumerate(questions, 1)],
        "",
        "| Paper | " + " | ".join(f"Q{n}" for n in range(1, len(questions) + 1)) + " |",
        "|---" * (len(questions) + 1) + "|",
    ]
    for row in rows:
        authors, year, title = _paper(row.item)
        paper = (
            f"{authors} ({year or 'n.d.'}) {title} [{row.key}]" if row.item else f"[{row.key}] {row.problem}"
        )
        shown = []
        for n in range(1, len(questions) + 1):
            found = checked.get((row.key, n))
            if found is None:
                shown.append("—")
            elif found.verdict.verified:
                value = f" (**{_number(found.cell.value)}**)" if found.cell.value is not None else ""
                shown.append(f"{found.cell.answer}{value} {found.citation()} ✓")
            else:
                shown.append(f"✗ {_unverified(found)}")
        lines.append("| " + " | ".join(_escape(x) for x in [paper, *shown]) + " |")
    return "\n".join(lines) + "\n"


def _filled_answer(
    written: Path,
    fmt: str,
    rows: list[RowSource],
    questions: list[str],
    checked: dict[tuple[str, int], Checked],
    scope: str,
) -> ToolResponse:
    failed = [(where, c) for where, c in checked.items() if not c.verdict.verified]
    verified = len(checked) - len(failed)
    keys = {r.key for r in rows if r.item is not None}
    filled = sum(1 for key, n in checked if key in keys and n <= len(questions))
    missing = len(keys) * len(questions) - filled
    lines = [
        f"Wrote the filled review matrix ({plural(len(rows), 'paper')} × {plural(len(questions), 'question')}, "
        f"{scope}) as {fmt} to {written}: {verified} cells verified, {len(failed)} unverified, "
        f"{missing} not filled."
    ]
    for (key, n), c in failed[:LISTED_PROBLEMS]:
        lines.append(f"- [{key}] Q{n}: {c.verdict.reason}")
    if len(failed) > LISTED_PROBLEMS:
        lines.append(f"- … {len(failed) - LISTED_PROBLEMS} more in the file")
    if failed:
        lines.append(
            "Unverified cells are written with the reason, not as answers: fix the page or quote and export again."
        )
    return ToolResponse(
        "\n".join(lines),
        {
            "format": fmt,
            "path": str(written),
            "files": [str(written)],
            "questions": questions,
            "rows": len(rows),
            "verified": verified,
            "unverified": [
                {
                    "item_key": key,
                    "question": n,
                    "reason": c.verdict.reason,
                    "found_page": c.verdict.found_page,
                }
                for (key, n), c in failed
            ],
            "not_filled": missing,
        },
    )


def _unverified(found: Checked) -> str:
    return f"unverified: {found.verdict.reason}; answer given: {found.cell.answer}"


def _number(value: float) -> str:
    return f"{value:g}" if abs(value) < 1e15 else str(value)


def _paper(item: Item | None) -> tuple[str, object, str]:
    if item is None:
        return "", "", ""
    authors = item.authors
    names = ", ".join(c.last_name for c in authors[:2]) + (" et al." if len(authors) > 2 else "")
    return names, item.year or "", item.title


# -- candidates ----------------------------------------------------------------------------------------


def to_csv(matrix: Matrix) -> str:
    """One row per paper: key, authors, year, title, where the text came from; per question the best
    candidate, its pages, and a count's value and unit. Written by the one spreadsheet-safe CSV writer
    (export/csvtable.py)."""
    columns = ["item_key", "authors", "year", "title", "source"]
    for n, question in enumerate(matrix.questions, 1):
        columns += [f"Q{n} {question}", f"Q{n} page", f"Q{n} value", f"Q{n} value_max", f"Q{n} unit"]
    records = []
    for row in matrix.rows:
        values: list[object] = [row.key, *_paper(row.item), _source(row)]
        cells = row.cells or [Cell(q, "nothing", searched=row.note) for q in matrix.questions]
        for cell in cells:
            best = cell.candidates[0] if cell.candidates else None
            q = best.quantity if best else None
            values += [
                " ".join(best.text.split()) if best else f"not found (searched: {cell.searched})",
                cell.where(best) if best else "",
                "" if q is None else q.to_dict()["value"],
                "" if q is None or q.value_max is None else q.to_dict()["value_max"],
                "" if q is None else q.unit,
            ]
        records.append(dict(zip(columns, values, strict=True)))
    return write_csv(columns, records)


def to_markdown(matrix: Matrix) -> str:
    """A Markdown table: the questions as columns, each cell the best candidate with its page and count."""
    lines = [
        f"# Review matrix: {matrix.scope.describe(ranked=True)}",
        "",
        "Each cell: the passage retrieval ranked first for the question (not a checked answer).",
        "",
        *[f"- **Q{n}**: {q}" for n, q in enumerate(matrix.questions, 1)],
        "",
        "| Paper | " + " | ".join(f"Q{n}" for n in range(1, len(matrix.questions) + 1)) + " |",
        "|---" * (len(matrix.questions) + 1) + "|",
    ]
    for row in matrix.rows:
        authors, year, title = _paper(row.item)
        paper = f"{authors} ({year or 'n.d.'}) {title} [{row.key}]" if row.item else f"[{row.key}]"
        if _source(row) != "full text":
            paper += f" ({row.note or _source(row)})"
        cells = row.cells or [Cell(q, "nothing", searched=row.note) for q in matrix.questions]
        lines.append("| " + " | ".join([_escape(paper), *(_escape(_md_cell(c)) for c in cells)]) + " |")
    return "\n".join(lines) + "\n"


def _md_cell(cell: Cell) -> str:
    if not cell.candidates:
        return f"*not found* (searched: {cell.searched})"
    best = cell.candidates[0]
    value = f" → **{best.quantity.describe()}**" if best.quantity is not None else ""
    return f"{best.text} ({cell.where(best)}){value}"


def _escape(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _source(row: Row) -> str:
    return row.cells[0].source if row.cells else "nothing"
