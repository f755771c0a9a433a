"""Figure and table detection on the 18 shared PDFs, against hand labels.

    .venv/bin/python scripts/bench_figures.py [--split dev|test|all] [--no-layout] [--json] [--misses]

The labels (scripts/data/figures_gold_*.jsonl: kind, number, page, caption start) were made by looking
at every page of every PDF. A third of the PDFs, chosen by a hash of the file name before anything was
tuned, is the test split; tuning used the dev split only.

Per kind (figure, table): precision and recall of (kind, number, page), an unnumbered one matched by
kind and page. Captions: a found item whose caption starts as the label's does (fuzzy, 85). Time: the
inventory (text layer and layout detection of every page) per page.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
from pathlib import Path
from typing import Any

from rapidfuzz import fuzz

from agent_zot.ingest.figures import inventory

PDFS = Path(__file__).resolve().parents[2] / "shared" / "data" / "pdfs"
GOLD = sorted((Path(__file__).parent / "data").glob("figures_gold_*.jsonl"))
KINDS = ("figure", "table")


def split_of(pdf: str) -> str:
    """Fixed before tuning: a third of the PDFs, by hash, is the test split."""
    return "test" if int(hashlib.sha1(pdf.encode()).hexdigest(), 16) % 3 == 0 else "dev"


def load_gold(split: str) -> dict[str, list[dict[str, Any]]]:
    gold: dict[str, list[dict[str, Any]]] = {}
    for path in GOLD:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if split != "all" and split_of(row["pdf"]) != split:
                continue
            gold.setdefault(row["pdf"], [])
            if row["kind"] in KINDS:
                gold[row["pdf"]].append(row)
    return gold


def _key(kind: str, number: str, page: int) -> tuple[str, str, int]:
    return kind, number.strip().lower().replace(".", ""), page


def score(gold: dict[str, list[dict[str, Any]]], use_layout: bool) -> tuple[dict[str, Any], list[str]]:
    counts = {kind: {"gold": 0, "found": 0, "right": 0} for kind in KINDS}
    captions = {"gold": 0, "found": 0, "right": 0}
    pages = seconds = 0.0
    misses: list[str] = []
    for pdf, labels in sorted(gold.items()):
        found = inventory(PDFS / pdf, use_layout=use_layout)
        pages += len(found.page_sizes)
        seconds += found.seconds
        detected = [e for e in found.elements if e.kind in KINDS]
        wanted = {_key(r["kind"], r["number"], r["page"]): r for r in labels}
        got = {_key(e.kind, e.number, e.page): e for e in detected}
        for kind in KINDS:
            counts[kind]["gold"] += sum(1 for k in wanted if k[0] == kind)
            counts[kind]["found"] += sum(1 for k in got if k[0] == kind)
            counts[kind]["right"] += sum(1 for k in got if k[0] == kind and k in wanted)
        for key, row in wanted.items():
            if row.get("caption"):
                captions["gold"] += 1
            element = got.get(key)
            if element is None:
                misses.append(f"missed  {pdf} {key} {row.get('caption', '')[:60]}")
            elif row.get("caption") and _same_caption(element.caption, row["caption"]):
                captions["right"] += 1
        for key, element in got.items():
            if element.caption:
                captions["found"] += 1
            if key not in wanted:
                misses.append(f"extra   {pdf} {key} {element.caption[:60]}")
    out: dict[str, Any] = {"pdfs": len(gold), "pages": int(pages), "layout": use_layout}
    for kind, c in counts.items():
        out[kind] = {
            "labelled": c["gold"],
            "precision": round(c["right"] / max(c["found"], 1), 3),
            "recall": round(c["right"] / max(c["gold"], 1), 3),
        }
    out["captions"] = {
        "labelled": captions["gold"],
        "precision": round(captions["right"] / max(captions["found"], 1), 3),
        "recall": round(captions["right"] / max(captions["gold"], 1), 3),
    }
    out["seconds_per_page"] = round(seconds / max(pages, 1), 3)
    return out, misses


_LABEL = re.compile(r"^\s*(?:fig(?:ure)?|tab(?:le)?)\.?\s*[\w.]+\s*[.:|—–-]?\s*", re.IGNORECASE)


def _same_caption(found: str, label: str) -> bool:
    """The caption's first words, its "Figure 3:" label left out on both sides."""
    head = " ".join(_LABEL.sub("", label).split())[:40].lower()
    return fuzz.partial_ratio(head, " ".join(_LABEL.sub("", found).split())[: len(head) + 5].lower()) >= 85


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--no-layout", action="store_true", help="Captions from the text layer only.")
    parser.add_argument("--misses", action="store_true", help="List what was missed or extra.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not PDFS.is_dir() or not GOLD:
        sys.exit(f"The shared PDFs ({PDFS}) or the labels are missing.")
    summary, misses = score(load_gold(args.split), not args.no_layout)
    summary = {"split": args.split, **summary}
    print(json.dumps(summary, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))
    if args.misses:
        print("\n".join(misses))


if __name__ == "__main__":
    main()
