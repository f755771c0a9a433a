"""How much page chrome a web snapshot's index loses, and how much of its article it keeps (issue 54).

    python scripts/bench_snapshots.py [--zotero ../shared/data/zotero] [--split heldout|tune|all] [--show]

The blocks are the non-blank lines (the paragraphs a passage is cited by) of what the whole-page HTML parser
(``visible_sections``, the reader before issue 54) indexes from each snapshot: its pages, then its split-off
reference list. scripts/data/snapshot_blocks.jsonl labels each by hand as "content" (the article: title,
byline, text, headings, captions, lists, tables, its reference list; an arXiv page's metadata table and
submission history) or "chrome" (menus, banners, skip links, breadcrumbs, search, sharing and bookmark
links, tool panels, sidebars, related and "next" articles, footers, tables of contents, navboxes, hatnotes).
The documents are the shared library's HTML snapshots and the two pages of tests/snapshot_pages.py; sorted
by the SHA-256 of their names, every third is held out (the "heldout" split, the one to report), the rest
were looked at while choosing the extractor's options ("tune").

For the reader now (``HtmlParser``: main content, else the visible text) it prints, per document and in
all, the share of chrome blocks removed and the share of content blocks kept, by blocks and by characters,
and the milliseconds a parse takes. A block is kept when it is a line of the new text, or one cell of a
table row there, or (24 characters or longer) part of a line there or 80% made of one. The old reader keeps every block by definition:
0% of chrome removed, 100% of content kept. --show lists the blocks judged wrongly.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import re
import sys
import tempfile
import time
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from agent_zot.ingest.document import build_document  # noqa: E402
from agent_zot.ingest.formats import HtmlParser, decode_html, section_label, visible_sections  # noqa: E402
from agent_zot.ingest.main_content import main_paragraphs  # noqa: E402
from tests import snapshot_pages  # noqa: E402

LABELS = REPO_ROOT / "scripts" / "data" / "snapshot_blocks.jsonl"
DEFAULT_ZOTERO = REPO_ROOT.parent / "shared" / "data" / "zotero"
TEST_PAGES = {"test:arxiv_abstract": snapshot_pages.ARXIV, "test:blog_article": snapshot_pages.BLOG}
_SPACES = re.compile(r"\s+")
_PART = 24  # a block this long may be matched in part (the parsers split and join inline runs apart)
_SHARE = 0.8


@dataclass
class Tally:
    blocks: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    kept: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    chars: dict[str, int] = field(default_factory=lambda: defaultdict(int))
    kept_chars: dict[str, int] = field(default_factory=lambda: defaultdict(int))

    def add(self, label: str, text: str, kept: bool) -> None:
        self.blocks[label] += 1
        self.chars[label] += len(text)
        if kept:
            self.kept[label] += 1
            self.kept_chars[label] += len(text)

    def merge(self, other: Tally) -> None:
        for mine, theirs in ((self.blocks, other.blocks), (self.kept, other.kept), (self.chars, other.chars)):
            for label, count in theirs.items():
                mine[label] += count
        for label, count in other.kept_chars.items():
            self.kept_chars[label] += count

    def line(self) -> str:
        def share(part: int, whole: int) -> str:
            return f"{100 * part / whole:5.1f}%" if whole else "    -"

        removed = share(self.blocks["chrome"] - self.kept["chrome"], self.blocks["chrome"])
        removed_chars = share(self.chars["chrome"] - self.kept_chars["chrome"], self.chars["chrome"])
        kept = share(self.kept["content"], self.blocks["content"])
        kept_chars = share(self.kept_chars["content"], self.chars["content"])
        counts = f"{self.blocks['chrome']:4d} chrome {self.blocks['content']:4d} content"
        return f"{counts}  chrome removed {removed} ({removed_chars} chars)  content kept {kept} ({kept_chars} chars)"


def split_of(name: str, names: list[str]) -> str:
    order = sorted(names, key=lambda n: hashlib.sha256(n.encode()).hexdigest())
    return "heldout" if order.index(name) % 3 == 2 else "tune"


def _flat(text: str) -> str:
    return _SPACES.sub(" ", text).strip()


def old_blocks(markup: str) -> list[str]:
    """The non-blank lines the whole-page reader indexes: its pages, then its reference list."""
    sections = visible_sections(markup)
    doc = build_document(
        "OLD", "html", [text for _, text in sections], [section_label(h) for h, _ in sections]
    )
    text = "\n".join(page.text for page in doc.pages) + "\n" + (doc.references_text or "")
    return [_flat(line) for line in text.splitlines() if line.strip()]


def kept_in(block: str, lines: set[str], joined: str) -> bool:
    """A block is kept when it is a line of the new text or a cell of a table row there; a longer one
    also when it is part of a line, or a line makes up 80% of it (a label the page hid, "Abstract:", gone)."""
    if block in lines:
        return True
    if len(block) >= _PART:
        return block in joined or any(len(line) >= _SHARE * len(block) and line in block for line in lines)
    return any(block in line.split(" | ") for line in lines if block in line)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--zotero", type=Path, default=DEFAULT_ZOTERO)
    parser.add_argument("--split", choices=("heldout", "tune", "all"), default="heldout")
    parser.add_argument("--show", action="store_true", help="list the blocks judged wrongly")
    args = parser.parse_args()

    labels: dict[str, list[dict[str, object]]] = defaultdict(list)
    for line in LABELS.read_text(encoding="utf-8").splitlines():
        row = json.loads(line)
        labels[str(row["doc"])].append(row)
    names = sorted(labels)
    total = Tally()
    times: list[float] = []
    scratch = Path(tempfile.mkdtemp(prefix="bench_snapshots"))
    main_paragraphs("<p>warm up</p>")  # the first call imports trafilatura: not a parse's time
    for name in names:
        split = split_of(name, names)
        if args.split != "all" and split != args.split:
            continue
        if name in TEST_PAGES:
            data = TEST_PAGES[name].encode()
        else:
            path = args.zotero / name
            if not path.exists():
                print(f"{name}: missing, skipped", file=sys.stderr)
                continue
            data = path.read_bytes()
        blocks = old_blocks(decode_html(data))
        rows = sorted(labels[name], key=lambda row: int(str(row["block"])))
        if len(blocks) != len(rows) or any(
            not block.startswith(_flat(str(row["text"]))[:60])
            for block, row in zip(blocks, rows, strict=True)
        ):
            raise SystemExit(f"{name}: the labels no longer match the old reader's blocks")
        copy = scratch / "snapshot.html"  # HtmlParser reads a file, as the indexer hands it one
        copy.write_bytes(data)
        started = time.perf_counter()
        doc = HtmlParser().parse(copy, "BENCH")
        times.append(time.perf_counter() - started)
        new_text = doc.text + "\n" + (doc.references_text or "")
        lines = {_flat(line) for line in new_text.splitlines() if line.strip()}
        joined = "\n".join(sorted(lines))
        tally = Tally()
        for block, row in zip(blocks, rows, strict=True):
            label = str(row["label"])
            kept = kept_in(block, lines, joined)
            tally.add(label, block, kept)
            if args.show and kept == (label == "chrome"):
                print(f"    {'kept chrome' if kept else 'lost content'}: {block[:100]}")
        total.merge(tally)
        print(f"{split:7s} {times[-1] * 1000:6.0f} ms  {tally.line()}  {name}")
    (scratch / "snapshot.html").unlink(missing_ok=True)
    scratch.rmdir()
    print(f"{args.split:7s} {sum(times) * 1000:6.0f} ms  {total.line()}  all ({len(times)} documents)")


if __name__ == "__main__":
    main()
