"""CSV that spreadsheets open safely: UTF-8 with a byte-order mark (so Excel reads non-Latin text), a
header row, RFC 4180 quoting, and no cell a spreadsheet would run as a formula.

A cell that starts with ``=``, ``+``, ``-`` or ``@`` (or a tab or carriage return, or any of those after
leading spaces) is a formula to Excel, LibreOffice and Google Sheets — "CSV injection" (OWASP). Such a cell
gets a leading apostrophe, which spreadsheets show as text and never evaluate.
"""

from __future__ import annotations

import csv
import io
from collections.abc import Iterable, Mapping, Sequence

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
BOM = "\ufeff"


def safe_cell(value: object) -> str:
    """The cell's text, with an apostrophe in front when a spreadsheet would read it as a formula."""
    if value is None:
        return ""
    text = str(value)
    if text.startswith(FORMULA_STARTS) or text.lstrip(" ").startswith(FORMULA_STARTS):
        return text if _is_number(text) else "'" + text  # "-3.5" is a number, not a formula
    return text


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return text.strip() == text


def to_csv(columns: Sequence[str], rows: Iterable[Mapping[str, object]]) -> str:
    """A CSV document: the header row, then one row per mapping (missing keys are empty cells)."""
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\r\n")
    writer.writerow([safe_cell(c) for c in columns])
    for row in rows:
        writer.writerow([safe_cell(row.get(c)) for c in columns])
    return BOM + out.getvalue()
