"""Figure and table detection against hand labels, on two sets of real PDFs.

    .venv/bin/python scripts/bench_figures.py [--set shared|libraries] [--split dev|test|all]
        [--no-layout] [--json] [--misses]

``shared``: the 18 PDFs of ../shared/data/pdfs (scripts/data/figures_gold_*.jsonl). ``libraries``: the 53
readable PDFs of the four real Zotero libraries in ../shared/data/zotero (scripts/data/figures_layouts.jsonl),
labelled by seven labellers who looked at every page and never saw the detector, with each item's layout
marked: label on a line of its own, caption below a table, several items on a page, Chinese labels,
sideways, scanned. Each set's labels give kind, number as printed, page and caption start. A third of each
set's PDFs, chosen by a hash of the file name before anything was tuned, is the test split; tuning used
the dev split only. Continued parts of a long table ("Table 2 (Continued)") are not items: a detection
there counts neither way.

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

DATA = Path(__file__).resolve().parents[2] / "shared" / "data"
LABELS = Path(__file__).parent / "data"
# set -> (folder the label's "pdf" is relative to, label files, the split's salt)
SETS = {
    "shared": (DATA / "pdfs", sorted(LABELS.glob("figures_gold_*.jsonl")), ""),
    "libraries": (DATA, [LABELS / "figures_layouts.jsonl"], "layouts:"),
}
KINDS = ("figure", "table")
# Layout classes of the libraries set, as its labellers marked them.
CLASSES = {
    "label on its own line": lambda r: bool(r.get("label_alone")),
    "caption below a table": lambda r: r["kind"] == "table" and r.get("caption_position") == "below",
    "several items a page": lambda r: (r.get("same_page") or 1) >= 2,
    "Chinese label": lambda r: bool(re.search(r"[\u4e00-\u9fff]", r.get("label", ""))),
    "sideways": lambda r: bool(r.get("rotated")),
    "scanned": lambda r: bool(r.get("scanned")),
    "caption on another page": lambda r: bool(r.get("caption_page")),
}


def split_of(pdf: str, salt: str = "") -> str:
    """Fixed before tuning: a third of the PDFs, by hash, is the test split."""
    return "test" if int(hashlib.sha1((salt + pdf).encode()).hexdigest(), 16) % 3 == 0 else "dev"


def load_gold(split: str, which: str = "shared") -> dict[str, list[dict[str, Any]]]:
    _, files, salt = SETS[which]
    gold: dict[str, list[dict[str, Any]]] = {}
    for path in files:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if "error" in row or (split != "all" and split_of(row["pdf"], salt) != split):
                continue
            gold.setdefault(row["pdf"], [])
            if row["kind"] in KINDS:
                gold[row["pdf"]].append(row)
    return gold


def _key(kind: str, number: str, page: int) -> tuple[str, str, int]:
    return kind, number.strip().lower().replace(".", ""), page


def score(
    gold: dict[str, list[dict[str, Any]]], use_layout: bool, root: Path
) -> tuple[dict[str, Any], list[str]]:
    counts = {kind: {"gold": 0, "found": 0, "right": 0} for kind in KINDS}
    captions = {"gold": 0, "found": 0, "right": 0}
    classes = {name: {"gold": 0, "hit": 0, "found": 0, "right": 0} for name in CLASSES}
    pages = seconds = 0.0
    misses: list[str] = []
    for pdf, labels in sorted(gold.items()):
        found = inventory(root / pdf, use_layout=use_layout)
        pages += len(found.page_sizes)
        seconds += found.seconds
        detected = [e for e in found.elements if e.kind in KINDS]
        continued = {_key(r["kind"], r["number"], r["page"]) for r in labels if r.get("continued")}
        wanted = {_key(r["kind"], r["number"], r["page"]): r for r in labels if not r.get("continued")}
        got = {_key(e.kind, e.number, e.page): e for e in detected}
        got = {key: e for key, e in got.items() if key not in continued or key in wanted}
        _count_classes(classes, labels, wanted, got)
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
            elif row.get("caption"):
                misses.append(
                    f"caption {pdf} {key} got {element.caption[:60]!r} want {row['caption'][:60]!r}"
                )
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
    out["classes"] = {
        name: {
            "labelled": c["gold"],
            "recall": round(c["hit"] / c["gold"], 3),
            "precision (items found on its pages)": round(c["right"] / max(c["found"], 1), 3),
        }
        for name, c in classes.items()
        if c["gold"]
    }
    out["seconds_per_page"] = round(seconds / max(pages, 1), 3)
    return out, misses


def _count_classes(
    classes: dict[str, dict[str, int]],
    labels: list[dict[str, Any]],
    wanted: dict[tuple[str, str, int], dict[str, Any]],
    got: dict[tuple[str, str, int], Any],
) -> None:
    """Per layout class: its items found (recall), and of the items found on the pages that hold one
    of its items, how many are right (precision)."""
    for name, member in CLASSES.items():
        rows = [r for key, r in wanted.items() if member(r)]
        if not rows:
            continue
        pages = {r["page"] for r in rows}
        classes[name]["gold"] += len(rows)
        classes[name]["hit"] += sum(1 for r in rows if _key(r["kind"], r["number"], r["page"]) in got)
        on_pages = [key for key in got if key[2] in pages]
        classes[name]["found"] += len(on_pages)
        classes[name]["right"] += sum(1 for key in on_pages if key in wanted)


_LABEL = re.compile(
    r"^\s*(?:fig(?:ure)?|tab(?:le)?|图|表)\s?\.?\s*[\w.]+(?:\s?\.\s?\d+)?\s*[.:|—–-]?\s*", re.IGNORECASE
)


def _same_caption(found: str, label: str) -> bool:
    """The caption's first words, its "Figure 3:" label left out on both sides; spaces are not compared
    (a text layer puts them between Chinese characters and around punctuation)."""
    head = "".join(_LABEL.sub("", label).split())[:30].lower()
    return fuzz.partial_ratio(head, "".join(_LABEL.sub("", found).split())[: len(head) + 5].lower()) >= 85


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--set", choices=tuple(SETS), default="shared", dest="which")
    parser.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    parser.add_argument("--no-layout", action="store_true", help="Captions from the text layer only.")
    parser.add_argument("--misses", action="store_true", help="List what was missed or extra.")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    root, files, _ = SETS[args.which]
    if not root.is_dir() or not files:
        sys.exit(f"The PDFs ({root}) or the labels are missing.")
    summary, misses = score(load_gold(args.split, args.which), not args.no_layout, root)
    summary = {"set": args.which, "split": args.split, **summary}
    print(json.dumps(summary, indent=2) if args.json else "\n".join(f"{k}: {v}" for k, v in summary.items()))
    if args.misses:
        print("\n".join(misses))


if __name__ == "__main__":
    main()
