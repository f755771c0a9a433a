"""The review matrix as a file in the export folder: CSV (one row per paper; per question the passage,
its page, and the value and unit of a number) or a Markdown table. The file holds every row of the scope,
not a page of them, and whole passages."""

from __future__ import annotations

from datetime import date
from pathlib import Path
from typing import Any

from agent_zot.errors import InvalidArgumentError
from agent_zot.export.csvtable import to_csv as write_csv
from agent_zot.services.catalog import ExportRequest
from agent_zot.services.context import AppContext
from agent_zot.services.export import ExportScope, _write_one, resolve_target
from agent_zot.services.response import ToolResponse, plural
from agent_zot.services.summarize.matrix import Cell, Matrix, Row, build_matrix
from agent_zot.services.summarize.matrix_scope import questions_of, scope_of

MAX_ROWS = 500  # a file of more papers than this is a job for several collections
FORMATS = {".csv": "csv", ".md": "markdown", ".markdown": "markdown"}


def export_matrix(ctx: AppContext, req: ExportRequest, params: dict[str, Any]) -> ToolResponse:
    """Write the matrix of the request's questions (given, or named in its words) over its scope (given,
    or the collection or tags it names) to ``req.path``."""
    path, scope = (
        req.path,
        scope_of(
            params, collection=req.collection, tags=req.tags, item_keys=req.item_keys, search=req.search
        ),
    )
    suffix = Path(path.strip()).suffix.lower() if path else ".csv"
    if suffix not in FORMATS:
        raise InvalidArgumentError(
            f"A review matrix is written as .csv or .md, not {suffix or 'a folder'}.",
            hint="Name the file e.g. trials-matrix.csv (a table to sort) or trials-matrix.md.",
        )
    asked = questions_of(req.questions, req.query, params)
    matrix = build_matrix(ctx, asked, scope, rows=MAX_ROWS)
    name = path or f"review-matrix-{date.today():%Y%m%d}.csv"
    target = resolve_target(ctx.settings, name, "markdown", ExportScope())
    body = to_csv(matrix) if FORMATS[suffix] == "csv" else to_markdown(matrix)
    written = _write_one(target, body, req.overwrite)
    left = matrix.total - len(matrix.rows)
    more = f" The first {MAX_ROWS} of {matrix.total} papers only; narrow the scope." if left else ""
    found = sum(c.found for r in matrix.rows for c in r.cells)
    cells = len(matrix.rows) * len(asked)
    return ToolResponse(
        f"Wrote a review matrix of {plural(len(matrix.rows), 'paper')} × {plural(len(asked), 'question')} "
        f"({scope.describe()}; {found} of {cells} cells answered) as {FORMATS[suffix]} to {written}.{more}",
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


def to_csv(matrix: Matrix) -> str:
    """One row per paper: key, authors, year, title, where the text came from; per question the passage,
    its pages, and a number's value, upper value (ranges) and unit. Written by the one spreadsheet-safe
    CSV writer (export/csvtable.py)."""
    columns = ["item_key", "authors", "year", "title", "source"]
    for n, question in enumerate(matrix.questions, 1):
        columns += [f"Q{n} {question}", f"Q{n} page", f"Q{n} value", f"Q{n} value_max", f"Q{n} unit"]
    records = []
    for row in matrix.rows:
        values: list[object] = [
            row.item.key,
            _authors(row),
            row.item.year or "",
            row.item.title,
            _source(row),
        ]
        for cell in row.cells:
            q = cell.quantity
            values += [
                cell.text if cell.found else f"not found (searched: {cell.searched})",
                cell.where,
                "" if q is None else q.to_dict()["value"],
                "" if q is None or q.value_max is None else q.to_dict()["value_max"],
                "" if q is None else q.unit,
            ]
        records.append(dict(zip(columns, values, strict=True)))
    return write_csv(columns, records)


def to_markdown(matrix: Matrix) -> str:
    """A Markdown table: the questions as columns, each cell the passage with its page and number."""
    lines = [
        f"# Review matrix: {matrix.scope.describe()}",
        "",
        *[f"- **Q{n}**: {q}" for n, q in enumerate(matrix.questions, 1)],
        "",
        "| Paper | " + " | ".join(f"Q{n}" for n in range(1, len(matrix.questions) + 1)) + " |",
        "|---" * (len(matrix.questions) + 1) + "|",
    ]
    for row in matrix.rows:
        paper = f"{_authors(row)} ({row.item.year or 'n.d.'}) {row.item.title} [{row.item.key}]"
        if _source(row) != "full text":
            paper += f" ({_source(row)})"
        lines.append("| " + " | ".join([_escape(paper), *(_escape(_md_cell(c)) for c in row.cells)]) + " |")
    return "\n".join(lines) + "\n"


def _md_cell(cell: Cell) -> str:
    if not cell.found:
        return f"*not found* (searched: {cell.searched})"
    value = f" → **{cell.quantity.describe()}**" if cell.quantity is not None else ""
    return f"{cell.text} ({cell.where}){value}"


def _escape(text: str) -> str:
    return " ".join(text.split()).replace("|", "\\|")


def _authors(row: Row) -> str:
    authors = row.item.authors
    return ", ".join(c.last_name for c in authors[:2]) + (" et al." if len(authors) > 2 else "")


def _source(row: Row) -> str:
    return row.cells[0].source if row.cells else "nothing"
