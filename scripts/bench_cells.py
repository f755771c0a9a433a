"""Review-matrix cells and targeted answers on papers of four real libraries: is the paper's own answer in
what the assistant reads, and is a number shown only when it answers?

    .venv/bin/python scripts/bench_cells.py [--work DIR] [--split test|dev|all] [--corpora a,b]
        [--budget TOKENS] [--misses] [--json-out FILE] [--skip-targeted]

The labels (scripts/data/matrix_cells.jsonl) were written by reading each PDF's indexed page texts: for 61
papers (the 18 shared PDFs, and the PDFs of the gglin001-z5, hsteinshiromoto-z6 and pthemis5-z7 libraries in
../shared/data/zotero) and eight review questions (the problem, the method, the data, how many participants,
how many machines, how large the data set, the main result, the limitations), every place where the paper
itself states the answer (verbatim sentences and their page), or none, and for the three counts the number
and the noun counted. Before anything was tuned, the papers were sorted by sha256("cells:CORPUS/FILE") and
every third (21 papers, 168 cells) set aside: `--split test` is the figure to report.

1. Each library is indexed with the default embedded stack (the shared PDFs as scripts/bench_passages.py
   builds them; the real libraries read in place, read-only), kept under --work.
2. Matrix pages as a person gets them: papers in pages of as many rows as the default token budget (or
   --budget) holds (10 before pages were sized), the eight questions as two matrices of four (Q1-Q4,
   Q5-Q8), rendered as zot_summarize renders them, and read back from the text.
3. A cell holds the answer when one of its shown candidates is on an answer's page and shows the answer:
   at least 60% of a labelled excerpt (fuzzy ≥ 90), one whole labelled sentence of 40+ characters, or
   (a candidate cut to fit the page) 100+ characters that lie within a labelled excerpt.
   Reported over the cells whose paper answers: any candidate, and the first.
4. Numbers: a value shown (→ N noun) is right when it equals the labelled count or a number in the
   labelled answer texts; precision over all values shown (a value in a cell the paper does not answer is
   wrong), and how many labelled counts were shown.
5. Targeted: zot_summarize targeted mode on the right paper with the question (its default answer): the
   answer is anywhere in its passages.
Sizes: characters of the matrix pages per cell, and of the targeted answers.
"""

from __future__ import annotations

import argparse
import json
import re
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from agent_zot.config import Settings
from agent_zot.services import tools
from agent_zot.services.context import AppContext
from agent_zot.services.matrix import build as matrix_mode
from agent_zot.services.matrix.build import DEFAULT_BUDGET, build_matrix, render
from agent_zot.services.resolve.scope import LibraryScope

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_passages import item_keys_by_file, item_keys_by_path, prepare_corpus
from bench_passages import prepare as prepare_pdfs

LABELS = Path(__file__).resolve().parent / "data" / "matrix_cells.jsonl"
PAGE_ROWS = 10  # before pages were sized by their budget
QUESTION_GROUPS = ((1, 2, 3, 4), (5, 6, 7, 8))
MATCH = 90
EXCERPT_CHARS = 100  # a cut candidate holds the answer when this much of it lies within the answer
_ROW = re.compile(r"^\d+\. \[([A-Z0-9]{8})\]")
_CELL = re.compile(r"^\s+(Q(\d+)|or) \[(?:p\. (\d+)(?: \[[^\]]*\])?|abstract|no page)\]: (.*)$")
_VALUE = re.compile(r" → ([-\d.,]+)(?:–[-\d.,]+)?(?: (.*))?$")
_TARGETED = re.compile(
    r"^\d+\. \[(?:pp?\. (\d+)(?: \[[^\]]*\])?(?:–(\d+)(?: \[[^\]]*\])?)?|no page)\](?: \([^)]*\))? (.*)$"
)


def main() -> None:
    args = _arguments()
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-cells-"))
    labels = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    labels = [r for r in labels if args.split == "all" or r["split"] == args.split]
    if args.corpora:
        labels = [r for r in labels if r["corpus"] in args.corpora.split(",")]
    by_corpus: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in labels:
        by_corpus[row["corpus"]].append(row)
    outcomes: list[dict[str, Any]] = []
    timing: list[float] = []
    for corpus, rows in sorted(by_corpus.items()):
        settings = _index(corpus, work)
        outcomes += _run_corpus(settings, corpus, rows, args, timing)
    report = _report(outcomes, timing, args)
    print(json.dumps(report, indent=2))
    if args.misses:
        for o in outcomes:
            if o["answered"] and not o["holds"]:
                print(
                    f"MISS {o['id']} {o['corpus']} {o['file'][-40:]} {o['qid']}: {o['shown'][:2]}",
                    file=sys.stderr,
                )
    if args.json_out:
        Path(args.json_out).write_text(
            json.dumps({"report": report, "cells": outcomes}, indent=1), encoding="utf-8"
        )


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path)
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument(
        "--corpora", help="comma-separated: pdfs, gglin001-z5, hsteinshiromoto-z6, pthemis5-z7"
    )
    parser.add_argument("--budget", type=int, default=DEFAULT_BUDGET)
    parser.add_argument("--misses", action="store_true")
    parser.add_argument("--skip-targeted", action="store_true")
    parser.add_argument("--json-out", type=Path)
    return parser.parse_args()


def _index(corpus: str, work: Path) -> Settings:
    return prepare_pdfs(work / "pdfs") if corpus == "pdfs" else prepare_corpus(corpus, work)


def _keys(settings: Settings, corpus: str) -> dict[str, str]:
    """The item key of each labelled file: by file name for the shared PDFs, by storage path otherwise."""
    return item_keys_by_file(settings) if corpus == "pdfs" else item_keys_by_path(settings)


def _run_corpus(
    settings: Settings, corpus: str, rows: list[dict[str, Any]], args: argparse.Namespace, timing: list[float]
) -> list[dict[str, Any]]:
    ctx = AppContext(settings)
    outcomes = []
    try:
        keys = _keys(settings, corpus)
        files = list(dict.fromkeys(r["file"] for r in rows))
        missing = [f for f in files if f not in keys]
        if missing:
            print(f"{corpus}: no item for {missing}", file=sys.stderr)
        papers = [f for f in files if f in keys]
        label = {(r["file"], int(r["qid"][1:])): r for r in rows}
        sized = getattr(matrix_mode, "rows_per_page", None)
        per_page = sized(args.budget, len(QUESTION_GROUPS[0])) if sized else PAGE_ROWS
        for start in range(0, len(papers), per_page):
            page = papers[start : start + per_page]
            for group in QUESTION_GROUPS:
                asked = [label[(page[0], n)]["question"] for n in group]
                scope = LibraryScope(item_keys=tuple(keys[f] for f in page))
                started = time.perf_counter()
                matrix = build_matrix(ctx, asked, scope, rows=per_page)
                timing.append(time.perf_counter() - started)
                text = render(matrix, args.budget).text
                shown = _parse(text)
                per_cell = len(text) / (len(page) * len(group))
                for file in page:
                    for position, n in enumerate(group, 1):
                        row = label[(file, n)]
                        candidates = shown.get((keys[file], position), [])
                        outcomes.append(_outcome(row, candidates, per_cell))
        if not args.skip_targeted:
            for o in outcomes:
                if o["answered"]:
                    row = label[(o["file"], int(o["qid"][1:]))]
                    o["targeted"], o["targeted_chars"] = _targeted(ctx, keys[o["file"]], row)
    finally:
        ctx.close()
    return outcomes


def _parse(text: str) -> dict[tuple[str, int], list[tuple[int | None, str, str | None]]]:
    """(key, question number) → the candidates shown: (page, text, value)."""
    shown: dict[tuple[str, int], list[tuple[int | None, str, str | None]]] = defaultdict(list)
    key, question = "", 0
    for line in text.splitlines():
        row = _ROW.match(line)
        if row:
            key = row.group(1)
            continue
        cell = _CELL.match(line)
        if not cell or not key:
            continue
        if cell.group(2):
            question = int(cell.group(2))
        body = cell.group(4)
        value = _VALUE.search(body)
        if value:
            body = body[: value.start()]
        page = int(cell.group(3)) if cell.group(3) else None
        shown[(key, question)].append((page, body, value.group(1) if value else None))
    return shown


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def holds(page: int | None, text: str, answers: list[dict[str, Any]]) -> bool:
    body = _norm(text.replace("…", " "))
    for answer in answers:
        if page is not None and answer["page"] != page:
            continue
        wanted = _norm(answer["text"])
        if len(body) >= 0.6 * len(wanted) and fuzz.partial_ratio(wanted, body) >= MATCH:
            return True
        for sentence in re.split(r"(?<=[.!?])\s+", answer["text"]):
            piece = _norm(sentence)
            if (
                len(piece) >= 40
                and len(body) >= 0.8 * len(piece)
                and fuzz.partial_ratio(piece, body) >= MATCH
            ):
                return True
        if len(body) >= EXCERPT_CHARS and fuzz.partial_ratio(body, wanted) >= MATCH:
            return True  # an excerpt of the answer, cut to fit the page
    return False


def _numbers(text: str) -> set[float]:
    return {float(n.replace(",", "")) for n in re.findall(r"\d[\d,]*(?:\.\d+)?", text) if n.replace(",", "")}


def _outcome(
    row: dict[str, Any], candidates: list[tuple[int | None, str, str | None]], per_cell: float
) -> dict[str, Any]:
    answers = row["answers"]
    values = [v for _, _, v in candidates if v]
    right_values = set()
    if row.get("value") is not None:
        right_values.add(float(row["value"]))
    for answer in answers:
        right_values |= _numbers(answer["text"])
    shown_values = []
    for value in values:
        try:
            shown_values.append(float(value.replace(",", "")))
        except ValueError:
            continue
    return {
        "id": row["id"],
        "corpus": row["corpus"],
        "file": row["file"],
        "qid": row["qid"],
        "answered": bool(answers),
        "found": bool(candidates),
        "holds": any(holds(p, t, answers) for p, t, _ in candidates),
        "first_holds": bool(candidates) and holds(candidates[0][0], candidates[0][1], answers),
        "candidates": len(candidates),
        "values": shown_values,
        "values_right": [v for v in shown_values if answers and v in right_values],
        "labelled_value": row.get("value"),
        "chars_per_cell": round(per_cell),
        "shown": [f"[p. {p}] {t[:90]}" for p, t, _ in candidates],
    }


def _targeted(ctx: AppContext, key: str, row: dict[str, Any]) -> tuple[bool, int]:
    answer = tools.call(ctx, "zot_summarize", query=row["question"], item_key=key, force_mode="targeted")
    found = False
    for line in answer.text.splitlines():
        match = _TARGETED.match(line.strip())
        if not match or match.group(1) is None:
            continue
        first = int(match.group(1))
        last = int(match.group(2)) if match.group(2) else first
        for page in range(first, last + 1):
            found = found or holds(page, match.group(3), row["answers"])
    return found, len(answer.text)


def _report(outcomes: list[dict[str, Any]], timing: list[float], args: argparse.Namespace) -> dict[str, Any]:
    answered = [o for o in outcomes if o["answered"]]
    unanswered = [o for o in outcomes if not o["answered"]]
    values = [v for o in outcomes for v in o["values"]]
    right = [v for o in outcomes for v in o["values_right"]]
    counts = [o for o in answered if o["labelled_value"] is not None]

    def share(part: int, whole: int) -> float | None:
        return round(part / whole, 3) if whole else None

    by_question = {
        q: share(sum(o["holds"] for o in answered if o["qid"] == q), sum(o["qid"] == q for o in answered))
        for q in sorted({o["qid"] for o in answered})
    }
    report: dict[str, Any] = {
        "split": args.split,
        "budget_tokens": args.budget,
        "cells": len(outcomes),
        "answered_cells": len(answered),
        "cell_holds_answer": share(sum(o["holds"] for o in answered), len(answered)),
        "first_candidate_holds": share(sum(o["first_holds"] for o in answered), len(answered)),
        "by_question": by_question,
        "found_when_the_paper_does_not_answer": share(sum(o["found"] for o in unanswered), len(unanswered)),
        "candidates_per_cell": round(statistics.mean(o["candidates"] for o in outcomes), 2)
        if outcomes
        else 0,
        "chars_per_cell": round(statistics.mean(o["chars_per_cell"] for o in outcomes)) if outcomes else 0,
        "values_shown": len(values),
        "value_precision": share(len(right), len(values)),
        "labelled_counts_shown": share(sum(bool(o["values_right"]) for o in counts), len(counts)),
        "matrix_page_seconds_median": round(statistics.median(timing), 2) if timing else None,
    }
    targeted = [o for o in answered if "targeted" in o]
    if targeted:
        report["targeted_holds_answer"] = share(sum(o["targeted"] for o in targeted), len(targeted))
        report["targeted_chars_median"] = round(statistics.median(o["targeted_chars"] for o in targeted))
    return report


if __name__ == "__main__":
    main()
