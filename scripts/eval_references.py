"""Evaluate reference splitting, parsing and matching on the 18 real PDFs in ../shared/data/pdfs.

Per PDF: the split style, entries, entries with a year/title/DOI/arXiv id, and the in-set citations
found by matching every entry against items built from metadata.csv; then precision and recall of the
in-set citation links (metadata.csv's ``in_set_citations`` column, plus the links listed in
EXTRA_LINKS that the column misses).

    .venv/bin/python scripts/eval_references.py [PDF_DIR]
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

from agent_zot.graph.matching import ReferenceMatcher
from agent_zot.graph.references import parse_reference, split_references_styled
from agent_zot.ingest import get_parser
from agent_zot.zotero.models import Creator, Item, ZoteroDate

PDF_DIR = Path(__file__).resolve().parents[2] / "shared" / "data" / "pdfs"
# A link metadata.csv does not list but the PDF has: PaperMage's list cites "Paper plain: Making medical
# research papers approachable to healthcare consumers..." (August et al. 2023, the TOCHI version).
EXTRA_LINKS = {("papermage__papermage.pdf", "papermage__2203.00130v1.pdf")}
_NOTE = re.compile(r"\s*\([A-Z][A-Z ]{4,}:[^)]*\)\s*$")  # "(ONE PAGE ONLY: results table page)"


def load_rows(pdf_dir: Path) -> list[dict[str, str]]:
    with (pdf_dir / "metadata.csv").open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def item_from_row(index: int, row: dict[str, str]) -> Item:
    fields = {"title": _NOTE.sub("", row["title"])}
    if row["doi"]:
        fields["DOI"] = row["doi"]
    if row["arxiv"]:
        fields["extra"] = f"arXiv: {row['arxiv']}"
    creators = []
    for n, name in enumerate(a.strip() for a in row["authors"].split(";")):
        if name and name != "et al.":
            last, _, first = name.partition(",")
            creators.append(Creator(n, "author", last.strip(), first.strip()))
    year = int(row["year"]) if row["year"].isdigit() else None
    return Item(
        key=row["file"],
        item_id=index,
        item_type="journalArticle",
        library_id=1,
        fields=fields,
        base_fields={},
        creators=creators,
        date=ZoteroDate(row["year"], year) if year else None,
    )


def expected_links(rows: list[dict[str, str]]) -> set[tuple[str, str]]:
    """(citing file, cited file) from ``in_set_citations`` ("cites S2ORC, SciBERT"), names being the
    part of a title before its colon."""
    by_name = {row["title"].split(":")[0].strip().lower(): row["file"] for row in rows}
    links: set[tuple[str, str]] = set()
    for row in rows:
        names = row["in_set_citations"].removeprefix("cites").split(",")
        links |= {(row["file"], by_name[n.strip().lower()]) for n in names if n.strip()}
    return links | EXTRA_LINKS


def evaluate(pdf_dir: Path) -> tuple[set[tuple[str, str]], set[tuple[str, str]]]:
    rows = load_rows(pdf_dir)
    matcher = ReferenceMatcher(item_from_row(i, row) for i, row in enumerate(rows))
    parser = get_parser("pdfium")
    found: set[tuple[str, str]] = set()
    print(
        f"{'file':38} {'style':20} {'entries':>7} {'year':>5} {'title':>5} {'doi':>4} {'arxiv':>5}  matched"
    )
    for row in rows:
        doc = parser.parse(pdf_dir / row["file"], "KEY")
        style, entries = split_references_styled(doc.references_text or "")
        refs = [parse_reference(entry) for entry in entries]
        matches = [m for m in (matcher.match(r, citing_key=row["file"]) for r in refs) if m]
        found |= {(row["file"], m.item_key) for m in matches}
        counts = [sum(1 for r in refs if getattr(r, f)) for f in ("year", "title", "doi", "arxiv")]
        cited = ", ".join(f"{m.item_key.split('__')[1][:18]}({m.method} {m.confidence:.2f})" for m in matches)
        print(
            f"{row['file'][:38]:38} {style or '-':20} {len(entries):7} "
            + " ".join(f"{c:5}" for c in counts)
            + f"  {cited}"
        )
    return found, expected_links(rows)


def main() -> int:
    pdf_dir = Path(sys.argv[1]) if len(sys.argv) > 1 else PDF_DIR
    if not (pdf_dir / "metadata.csv").is_file():
        print(f"no metadata.csv in {pdf_dir}")
        return 1
    found, expected = evaluate(pdf_dir)
    hits = found & expected
    precision = len(hits) / len(found) if found else 1.0
    recall = len(hits) / len(expected) if expected else 1.0
    print(f"\nin-set links: expected {len(expected)}, found {len(found)}, correct {len(hits)}")
    print(f"precision {precision:.2f}  recall {recall:.2f}")
    for link in sorted(found - expected):
        print("  false link:", link)
    for link in sorted(expected - found):
        print("  missed link:", link)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
