"""The review matrix (`zot_summarize` mode `matrix`): how fast a page is, and which library reads the
numbers better. Whether the cells hold the papers' answers is scripts/bench_cells.py.

    .venv/bin/python scripts/bench_matrix.py [--work DIR] [--json]
    .venv/bin/python scripts/bench_matrix.py --quantities

1. Timing. (a) Full text: 4 questions over all 18 shared PDFs (72 cells), indexed as scripts/bench_passages.py
   does. (b) SciFact, the 5,183-abstract library of scripts/bench_retrieval.py: a page of 10 papers × 4
   questions (abstracts only, so each cell reads its abstract's sentences; no index needed). Cold (the
   first matrix in the process: quantulum3's unit tables load) and warm.
2. --quantities: value + unit read from the labelled sentences of scripts/data/matrix_quantities.jsonl
   (real sentences from the shared PDFs and SciFact abstracts) with quantulum3 (the library used) and with
   pint (a regex finds number + unit words, pint parses the unit); the same choice of quantity per question.
   The corrections of agent_zot/services/matrix/quantities.py were written while looking at this set,
   so it is not held out.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

from agent_zot.config import Settings
from agent_zot.services.context import AppContext
from agent_zot.services.matrix import quantities
from agent_zot.services.matrix.build import build_matrix
from agent_zot.services.resolve.scope import LibraryScope

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_passages import prepare
from bench_retrieval import build_library as build_scifact

QUANTITIES = Path(__file__).resolve().parent / "data" / "matrix_quantities.jsonl"
TIMING_QUESTIONS = [
    "what was the sample size",
    "which dataset was used",
    "what accuracy was reported",
    "what are the limitations",
]
SCIFACT_ROWS = 10  # a page of the matrix


def timing(settings: Settings, work: Path) -> dict[str, Any]:
    out: dict[str, Any] = {}
    ctx = AppContext(settings)
    try:
        keys = tuple(sorted(ctx.library().items))
        scope = LibraryScope(item_keys=keys)
        started = time.perf_counter()
        matrix = build_matrix(ctx, TIMING_QUESTIONS, scope, rows=len(keys))
        cold = time.perf_counter() - started
        started = time.perf_counter()
        build_matrix(ctx, TIMING_QUESTIONS, scope, rows=len(keys))
        warm = time.perf_counter() - started
    finally:
        ctx.close()
    cells = len(matrix.rows) * len(TIMING_QUESTIONS)
    out["full_text"] = {
        "papers": len(matrix.rows),
        "cells": cells,
        "cold_s": round(cold, 2),
        "warm_s": round(warm, 2),
    }
    library = build_scifact(work / "scifact")
    sci = Settings(zotero_data_dir=library, data_dir=work / "scifact-state", export_dir=work / "exports")
    ctx = AppContext(sci)
    try:
        keys = tuple(sorted(ctx.library().items)[:SCIFACT_ROWS])
        scope = LibraryScope(item_keys=keys)
        runs = []
        for _ in range(3):
            started = time.perf_counter()
            matrix = build_matrix(ctx, TIMING_QUESTIONS, scope, rows=SCIFACT_ROWS)
            runs.append(time.perf_counter() - started)
    finally:
        ctx.close()
    quantities_found = sum(
        bool(c.candidates) and c.candidates[0].quantity is not None for r in matrix.rows for c in r.cells
    )
    out["scifact_abstracts"] = {
        "papers": len(matrix.rows),
        "cells": len(matrix.rows) * len(TIMING_QUESTIONS),
        "first_s": round(runs[0], 2),
        "warm_median_s": round(statistics.median(runs[1:]), 2),
        "cells_with_quantity": quantities_found,
    }
    return out


# -- quantities ----------------------------------------------------------------------------------------

_NUMBER = r"[+-]?\d[\d,]*(?:\.\d+)?"
_PINT_FIND = re.compile(
    rf"(?P<dollar>\$)?(?P<a>{_NUMBER})(?:\s*(?:-|–|to)\s*(?P<b>{_NUMBER}))?"
    r"(?P<unit>\s?%|\s?°\s?C|\s?[A-Za-zµ]+(?:\s?/\s?[A-Za-z]+)?)?"
)


def pint_quantities(text: str) -> list[quantities.Quantity]:
    """pint in place of quantulum3: a regex finds numbers (and ranges) and the word after them; pint parses
    that word as a unit, else it is the counted noun. The same year and noun rules as quantities.py."""
    import pint

    registry = _registry(pint)
    found = []
    for m in _PINT_FIND.finditer(text):
        value = float(m.group("a").replace(",", ""))
        high = float(m.group("b").replace(",", "")) if m.group("b") else None
        word = (m.group("unit") or "").strip()
        unit, kind = "", "dimensionless"
        if m.group("dollar"):
            unit, kind = "dollar" + (" per " + word.split("/")[-1] if "/" in word else ""), "currency"
        elif word:
            try:
                parsed = registry.parse_units(
                    word.replace("°C", "degC").replace("° C", "degC").replace(" ", "")
                )
                unit = str(parsed).replace("_", " ").replace(" / ", " per ")
                kind = _kind(parsed.dimensionality) if unit != "percent" else "percentage"
            except (pint.errors.UndefinedUnitError, pint.errors.DefinitionSyntaxError, ValueError, TypeError):
                unit = quantities._count_noun(text, m.end("a") if not m.group("b") else m.end("b"))
        if not unit and high is None and quantities._YEAR.match(m.group("a")):
            continue
        found.append(quantities.Quantity(value, unit, m.group(0), kind, high, m.start()))
    return found


def _registry(pint: Any) -> Any:
    if not hasattr(_registry, "cached"):
        _registry.cached = pint.UnitRegistry()  # type: ignore[attr-defined]
    return _registry.cached  # type: ignore[attr-defined]


def _kind(dimensionality: Any) -> str:
    names = {"[mass]": "mass", "[time]": "time", "[temperature]": "temperature", "[length]": "length"}
    keys = list(dict(dimensionality))
    return names.get(keys[0], "unknown") if len(keys) == 1 else ("dimensionless" if not keys else "unknown")


def _unit(text: str) -> str:
    return text.lower().replace("metre", "meter").replace("_", " ").rstrip("s")


def score_quantities() -> dict[str, Any]:
    rows = [json.loads(line) for line in QUANTITIES.read_text(encoding="utf-8").splitlines() if line.strip()]
    results: dict[str, Any] = {}
    for name, finder in (("quantulum3", quantities.find_quantities), ("pint", pint_quantities)):
        with mock.patch.object(quantities, "find_quantities", finder):
            quantities.answer_quantity("warm up", "500 mg")
            started = time.perf_counter()
            got = [quantities.answer_quantity(r["question"], r["sentence"]) for r in rows]
            seconds = time.perf_counter() - started
        value_ok = [
            g is not None and abs(g.value - r["value"]) <= 1e-6 * max(1, abs(r["value"]))
            for g, r in zip(got, rows, strict=True)
        ]
        both_ok = [
            ok
            and g is not None
            and _unit(g.unit) == _unit(r["unit"])
            and (r.get("value_max") is None or g.value_max == r["value_max"])
            for ok, g, r in zip(value_ok, got, rows, strict=True)
        ]
        results[name] = {
            "sentences": len(rows),
            "value_right": round(sum(value_ok) / len(rows), 3),
            "value_and_unit_right": round(sum(both_ok) / len(rows), 3),
            "ms_per_sentence": round(1000 * seconds / len(rows), 2),
            "wrong": [r["sentence"][:60] for r, ok in zip(rows, both_ok, strict=True) if not ok],
        }
    return results


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, default=None, help="Keep the libraries and indexes here.")
    parser.add_argument("--quantities", action="store_true", help="Only compare quantulum3 and pint.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.quantities:
        report: dict[str, Any] = {"quantities": score_quantities()}
    else:
        work = args.work or Path(tempfile.mkdtemp(prefix="bench-matrix-"))
        settings = prepare(work / "pdfs")
        report = {"timing": timing(settings, work)}
    print(json.dumps(report, indent=2, ensure_ascii=False) if args.json else _text(report))


def _text(report: dict[str, Any]) -> str:
    lines = []
    if "quantities" in report:
        for name, r in report["quantities"].items():
            lines.append(
                f"{name}: value+unit {r['value_and_unit_right']:.3f}, value {r['value_right']:.3f} of "
                f"{r['sentences']} sentences, {r['ms_per_sentence']} ms/sentence; wrong: {r['wrong']}"
            )
    if "timing" in report:
        t = report["timing"]
        lines.append(f"full text: {t['full_text']}")
        lines.append(f"SciFact abstracts: {t['scifact_abstracts']}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
