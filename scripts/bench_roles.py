"""How well the line roles (ingest/line_roles.py) find page chrome and the text inside figures, against hand
labels, and how much of that text still reaches the indexed page text before and after.

    python scripts/bench_roles.py [--labels scripts/data/line_roles.jsonl] [--data ../shared/data]

The labels (one line of a page's text layer each: file, page, line index, text, role, split) mark every
line of a sample of pages as body / heading / caption / figure_text / table_text / chrome / reference /
front / equation. Pages were drawn by the sha256 of "file#page" and every third one set aside as
"heldout" before the rules were tuned. Reported per split: precision and recall of the roles the
classifier sets aside (chrome, figure_text) and of "kept" (every other role), and the share of the
characters of chrome and figure_text lines that are still lines of the page text the index reads:
"before" is today's text path without roles (pdfium's text, cleaned, running lines dropped), "after"
the same with the set-aside lines taken out.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter, defaultdict
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

import pypdfium2 as pdfium  # noqa: E402

from agent_zot.ingest.document import build_document  # noqa: E402
from agent_zot.ingest.line_roles import SET_ASIDE, document_roles  # noqa: E402
from agent_zot.ingest.text_geometry import TextLine, text_lines  # noqa: E402

DEFAULT_LABELS = REPO_ROOT / "scripts" / "data" / "line_roles.jsonl"
DEFAULT_DATA = REPO_ROOT.parent / "shared" / "data"
ASIDE = ("chrome", "figure_text")


def _coarse(role: str) -> str:
    return role if role in ASIDE else "kept"


def _squash(text: str) -> str:
    return " ".join(text.split())


def _read(path: Path) -> tuple[list[str], list[list[TextLine]], list[tuple[float, float]], list[str | None]]:
    pdf = pdfium.PdfDocument(path)
    raws, pages, sizes, labels = [], [], [], []
    try:
        for index in range(len(pdf)):
            page = pdf[index]
            textpage = page.get_textpage()
            raw, lines = text_lines(textpage, page.get_height())
            raws.append(raw)
            pages.append(lines)
            sizes.append((page.get_width(), page.get_height()))
            labels.append(pdf.get_page_label(index) or None)
            textpage.close()
            page.close()
    finally:
        pdf.close()
    return raws, pages, sizes, labels


def _page_lines(raws: list[str], labels: list[str | None], number: int, drop: list[list[str]]) -> set[str]:
    """The lines of page ``number``'s text as the index gets it (references included)."""
    doc = build_document("K", "pdfium", raws, labels, running_lines=True, drop_lines=drop)
    text = doc.pages[number - 1].text
    if doc.references_page is not None and number >= doc.references_page:
        text += "\n" + doc.references_text
    return {_squash(line) for line in text.split("\n") if line.strip()}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--labels", type=Path, default=DEFAULT_LABELS)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args()
    gold: dict[str, dict[int, list[dict]]] = defaultdict(lambda: defaultdict(list))
    for line in args.labels.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        gold[record["file"]][record["page"]].append(record)
    pairs: dict[str, list[tuple[str, str]]] = defaultdict(list)  # split -> (gold, predicted)
    reach: dict[str, Counter[str]] = defaultdict(Counter)  # split -> chars: total, before, after
    skipped = 0
    for file, by_page in sorted(gold.items()):
        raws, pages, sizes, labels = _read(args.data / file)
        roles = document_roles(pages, sizes)
        drop = [
            [line.text for line, role in zip(lines, page_roles, strict=True) if role in SET_ASIDE]
            for lines, page_roles in zip(pages, roles, strict=True)
        ]
        for number, records in sorted(by_page.items()):
            lines, predicted = pages[number - 1], roles[number - 1]
            if [r["text"] for r in records] != [line.text for line in lines]:
                skipped += 1  # the text layer is read differently now: the labels no longer fit
                continue
            before, after = _page_lines(raws, labels, number, []), _page_lines(raws, labels, number, drop)
            for record, role in zip(records, predicted, strict=True):
                split = record["split"]
                pairs[split].append((_coarse(record["role"]), role))
                if record["role"] in ASIDE:
                    chars, text = len(record["text"]), _squash(record["text"])
                    reach[split]["total"] += chars
                    reach[split]["before"] += chars if text in before else 0
                    reach[split]["after"] += chars if text in after else 0
    for split in ("heldout", "dev"):
        print(f"== {split}: {len(pairs[split])} lines")
        for role in (*ASIDE, "kept"):
            tp = sum(1 for g, p in pairs[split] if g == role and p == role) if role != "kept" else 0
            if role == "kept":
                tp = sum(1 for g, p in pairs[split] if g == "kept" and p not in SET_ASIDE)
                n_pred = sum(1 for _, p in pairs[split] if p not in SET_ASIDE)
            else:
                n_pred = sum(1 for _, p in pairs[split] if p == role)
            n_gold = sum(1 for g, _ in pairs[split] if g == role)
            precision = tp / n_pred if n_pred else float("nan")
            recall = tp / n_gold if n_gold else float("nan")
            print(f"  {role:12} P {precision:.2f} R {recall:.2f}  (gold {n_gold}, predicted {n_pred})")
        total = reach[split]["total"]
        if total:
            print(
                f"  chrome+figure_text chars reaching the page text: before {reach[split]['before'] / total:.0%}"
                f", after {reach[split]['after'] / total:.0%} (of {total})"
            )
    if skipped:
        print(f"pages skipped (labels no longer match the text layer): {skipped}")


if __name__ == "__main__":
    main()
