"""Passage retrieval on the 18 shared PDFs: does the answer hold the passage that answers the question?

    .venv/bin/python scripts/bench_passages.py [--split test|dev|all] [--work DIR] [--json] [--misses]
        [--pdf-dir DIR]

``--pdf-dir`` indexes another copy of the 18 PDFs (same file names, with metadata.csv), e.g. the image-only
copies ``scripts/bench_ocr.py --make-scans DIR`` writes: search quality on OCR'd papers.

1. Builds a Zotero library from ../shared/data/pdfs (one item per PDF, metadata from metadata.csv) and indexes
   it with the default embedded stack (`update-db`); with --work the library and index are kept and reused.
2. Asks every question of scripts/data/passage_questions.jsonl through fastmcp's in-memory client:
   `zot_search` (limit 5) with the question as a researcher typed it, and `zot_summarize` targeted on the
   right paper. The questions were written from the PDFs' text, each with its answering sentence(s) copied
   verbatim and its page; a third of them (`"split": "test"`) was set aside before any tuning and is the
   figure to report.
3. A returned passage answers when it is from the right paper, its pages include the answer's page, and it
   holds an answering sentence (fuzzy match, ≥ 90, so ligatures and hyphenation do not matter). Passages are
   read from the text the assistant gets (the structured content carries no passage text).

Reported: right paper @1/@5; answering passage among the passages of the top 1/3/5 papers (the issue's
measure); the first passage answers; summarize-targeted passage @1/@3/@5 and among all it returns; answer sizes
in tokens (characters/4), text and structured content.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastmcp import Client
from rapidfuzz import fuzz

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_index import build_pdf_library

QUESTIONS = Path(__file__).resolve().parent / "data" / "passage_questions.jsonl"
LIBRARY_QUESTIONS = Path(__file__).resolve().parent / "data" / "library_questions.jsonl"
SHARED_ZOTERO = Path(__file__).resolve().parents[2] / "shared" / "data" / "zotero"
SEARCH_LIMIT = 5
ANSWER_CHARS = 8000  # the size a default answer must hold the answering passage within
MATCH = 90  # rapidfuzz partial_ratio of an answer sentence within a passage

# The text form: "1. [KEY] ..." opens a paper; "   [p. 4 · Section] text" is one of its passages.
_PAPER_LINE = re.compile(r"^\d+\. \[([A-Z0-9]{8})\]")
# zot_summarize's text: "1. [p. 3 [103]] (Methods) text" or "2. [pp. 3–4] text".
_TARGETED_LINE = re.compile(
    r"^\d+\. \[(?:pp?\. (\d+)(?: \[[^\]]*\])?(?:–(\d+)(?: \[[^\]]*\])?)?|no page)\](?: \([^)]*\))? (.*)$"
)
_PASSAGE_LINE = re.compile(r"^\s+\[(?:pp?\. (\d+)(?:[–-](\d+))?[^\]]*|abstract[^\]]*|no page[^\]]*)\] (.*)$")


@dataclass(slots=True)
class Shown:
    """A passage as the assistant reads it."""

    item_key: str
    page_start: int | None
    page_end: int | None
    text: str


@dataclass(slots=True)
class Outcome:
    qid: str
    split: str
    kind: str
    paper_rank: int | None = None  # 1-based rank of the right paper among the returned papers
    passage_paper_rank: int | None = None  # rank of the first paper whose passages hold the answer
    first_passage: bool = False  # the very first passage of the answer is the answering one
    summarize_rank: int | None = None  # rank of the answering passage in zot_summarize targeted
    tokens: int = 0  # the text the assistant reads
    structured_tokens: int = 0  # the structured content sent beside it
    summarize_tokens: int = 0
    seconds: float = 0.0
    shown: list[str] = field(default_factory=list)
    default_holds: bool = False  # the default zot_search answer (no limit given) holds the passage
    default_chars: int = 0  # and its size, in characters of text


def load_questions(split: str, source: Path = QUESTIONS) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in source.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [q for q in rows if split == "all" or q["split"] == split]


def corpus_settings(corpus: str, work: Path) -> Settings:
    """Settings over a real library of ../shared/data/zotero, read in place, its index kept under work."""
    return Settings(
        zotero_data_dir=SHARED_ZOTERO / corpus, data_dir=work / corpus / "state", export_dir=work / "exports"
    )


def prepare_corpus(corpus: str, work: Path) -> Settings:
    """The index of a real library of ../shared/data/zotero, read in place (read-only), kept under work."""
    settings = corpus_settings(corpus, work)
    ctx = AppContext(settings, home=work / "home")
    try:
        # as `agent-zot update-db` builds it: with the graph, which the entity and graph modes answer from
        update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
    finally:
        ctx.close()
    return settings


def item_keys_by_path(settings: Settings) -> dict[str, str]:
    """The item key of each attachment file, by its path in the library folder ("storage/KEY/name.pdf")."""
    return _item_keys(settings, lambda attachment: f"storage/{attachment.key}/{attachment.path.name}")


def _item_keys(settings: Settings, name: Callable[[Any], str]) -> dict[str, str]:
    ctx = AppContext(settings)
    try:
        return {
            name(attachment): item.key
            for item in ctx.library().items.values()
            for attachment in item.attachments
            if attachment.path is not None
        }
    finally:
        ctx.close()


def prepare(work: Path, pdfs: Path | None = None) -> Settings:
    library = work / "library"
    if not (library / "zotero.sqlite").is_file():
        build_pdf_library(library, pdfs) if pdfs else build_pdf_library(library)
    settings = Settings(zotero_data_dir=library, data_dir=work / "state", export_dir=work / "exports")
    ctx = AppContext(settings)
    summary = update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
    ctx.close()
    print(
        f"index: {summary.indexed} indexed, {summary.unchanged} unchanged, {summary.ocr_pages} pages OCR'd "
        f"in {summary.ocr_seconds:.0f} s, {summary.seconds:.0f} s in all",
        file=sys.stderr,
    )
    return settings


def item_keys_by_file(settings: Settings) -> dict[str, str]:
    """The item key of each attachment file, by its file name (the shared PDFs' names are unique)."""
    return _item_keys(settings, lambda attachment: attachment.path.name)


def shown_passages(result: Any) -> list[Shown]:
    """The passages of a tool answer: from the structured content when it carries their text (the format
    before passages became sentence windows), else parsed from the text the assistant reads."""
    data = result.structured_content or {}
    papers = data.get("papers")
    if papers and any("text" in p for paper in papers for p in paper.get("passages", [])):
        return [
            Shown(paper["key"], p.get("page_start"), p.get("page_end"), p["text"])
            for paper in papers
            for p in paper.get("passages", [])
        ]
    if "passages" in data and all("text" in p for p in data["passages"]):
        key = data.get("item_key", "")
        return [Shown(key, p.get("page_start"), p.get("page_end"), p["text"]) for p in data["passages"]]
    return parse_text(result.content[0].text if result.content else "", data.get("item_key", ""))


def parse_text(text: str, item_key: str = "") -> list[Shown]:
    shown, current = [], item_key
    for line in text.splitlines():
        paper = _PAPER_LINE.match(line)
        if paper:
            current = paper.group(1)
            continue
        passage = _PASSAGE_LINE.match(line) or (_TARGETED_LINE.match(line) if item_key else None)
        if passage and current:
            start = int(passage.group(1)) if passage.group(1) else None
            end = int(passage.group(2)) if passage.group(2) else start
            shown.append(Shown(current, start, end, passage.group(3)))
    return shown


def _norm(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.casefold()))


def answers(passage: Shown, question: dict[str, Any], key: str) -> bool:
    if passage.item_key != key or passage.page_start is None:
        return False
    if not passage.page_start <= question["page"] <= (passage.page_end or passage.page_start):
        return False
    body = _norm(passage.text)
    for sentence in question["answer"]:
        wanted = _norm(sentence)
        if len(body) >= 0.6 * len(wanted) and fuzz.partial_ratio(wanted, body) >= MATCH:
            return True
    return False


def text_tokens(result: Any) -> int:
    return sum(len(block.text) for block in result.content if hasattr(block, "text")) // 4


async def ask(client: Client, question: dict[str, Any], key: str) -> Outcome:
    out = Outcome(question["id"], question["split"], question["kind"])
    started = time.perf_counter()
    result = await client.call_tool(
        "zot_search", {"query": question["question"], "limit": SEARCH_LIMIT}, raise_on_error=False
    )
    out.seconds = time.perf_counter() - started
    out.tokens = text_tokens(result)
    out.structured_tokens = len(json.dumps(result.structured_content or {}, ensure_ascii=False)) // 4
    papers = [p["key"] for p in (result.structured_content or {}).get("papers", [])]
    out.paper_rank = papers.index(key) + 1 if key in papers else None
    passages = shown_passages(result)
    out.shown = [f"{p.item_key} p{p.page_start}: {p.text[:160]}" for p in passages]
    hits = [p for p in passages if answers(p, question, key)]
    if hits:
        out.passage_paper_rank = papers.index(key) + 1
        out.first_passage = answers(passages[0], question, key)
    targeted = await client.call_tool(
        "zot_summarize",
        {"query": question["question"], "item_key": key, "force_mode": "targeted"},
        raise_on_error=False,
    )
    out.summarize_tokens = text_tokens(targeted)
    default = await client.call_tool("zot_search", {"query": question["question"]}, raise_on_error=False)
    out.default_chars = sum(len(block.text) for block in default.content if hasattr(block, "text"))
    out.default_holds = any(answers(p, question, key) for p in shown_passages(default))
    ranked = shown_passages(targeted)
    out.summarize_rank = next(
        (n for n, p in enumerate(ranked, 1) if answers(p, question, key)),
        None,
    )
    return out


def report(outcomes: list[Outcome]) -> dict[str, Any]:
    n = len(outcomes)

    def share(test: Any) -> float:
        return round(sum(1 for o in outcomes if test(o)) / n, 3) if n else 0.0

    return {
        "questions": n,
        "paper@1": share(lambda o: o.paper_rank == 1),
        "paper@5": share(lambda o: o.paper_rank is not None),
        "passage@1": share(lambda o: o.passage_paper_rank == 1),
        "passage@3": share(lambda o: o.passage_paper_rank is not None and o.passage_paper_rank <= 3),
        "passage@5": share(lambda o: o.passage_paper_rank is not None),
        "first_passage": share(lambda o: o.first_passage),
        "summarize@1": share(lambda o: o.summarize_rank == 1),
        "summarize@3": share(lambda o: o.summarize_rank is not None and o.summarize_rank <= 3),
        "summarize@5": share(lambda o: o.summarize_rank is not None and o.summarize_rank <= 5),
        "summarize_any": share(lambda o: o.summarize_rank is not None),
        "default_answer_holds": share(lambda o: o.default_holds),
        "default_answer_holds_within_8000": share(
            lambda o: o.default_holds and o.default_chars <= ANSWER_CHARS
        ),
        "default_answer_chars_p50": round(statistics.median(o.default_chars for o in outcomes)) if n else 0,
        "default_answer_chars_max": max((o.default_chars for o in outcomes), default=0),
        "search_tokens_mean": round(statistics.mean(o.tokens for o in outcomes)) if n else 0,
        "search_structured_tokens_mean": round(statistics.mean(o.structured_tokens for o in outcomes))
        if n
        else 0,
        "summarize_tokens_mean": round(statistics.mean(o.summarize_tokens for o in outcomes)) if n else 0,
        "search_p50_ms": round(1000 * statistics.median(o.seconds for o in outcomes)) if n else 0,
    }


async def run(settings: Settings, questions: list[dict[str, Any]], keys: dict[str, str]) -> list[Outcome]:
    ctx = AppContext(settings)
    outcomes = []
    async with Client(build_server(ctx)) as client:
        await client.call_tool("zot_search", {"query": "warm up the model"}, raise_on_error=False)
        for question in questions:
            outcomes.append(await ask(client, question, keys[question["file"]]))
    ctx.close()
    return outcomes


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument("--work", type=Path, default=None, help="keep the library and index here")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--misses", action="store_true", help="print what was shown for each miss")
    parser.add_argument("--pdf-dir", type=Path, default=None, help="index these PDFs (and metadata.csv)")
    parser.add_argument(
        "--library-questions",
        action="store_true",
        help="scripts/data/library_questions.jsonl over the real libraries of ../shared/data/zotero instead",
    )
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        outcomes = []
        if args.library_questions:
            questions = load_questions(args.split, LIBRARY_QUESTIONS)
            for corpus in sorted({q["corpus"] for q in questions}):
                settings = prepare_corpus(corpus, work)
                asked = [q for q in questions if q["corpus"] == corpus]
                outcomes += asyncio.run(run(settings, asked, item_keys_by_path(settings)))
        else:
            settings = prepare(work, args.pdf_dir)
            questions = load_questions(args.split)
            outcomes = asyncio.run(run(settings, questions, item_keys_by_file(settings)))
    result: dict[str, Any] = {"split": args.split, "overall": report(outcomes)}
    if args.split == "all":
        for part in ("dev", "test"):
            result[part] = report([o for o in outcomes if o.split == part])
    for kind in sorted({o.kind for o in outcomes}):
        result[kind] = report([o for o in outcomes if o.kind == kind])
    if args.misses:
        by_id = {q["id"]: q for q in questions}
        for o in outcomes:
            if o.passage_paper_rank is None:
                q = by_id[o.qid]
                print(
                    f"\nMISS {o.qid} (paper rank {o.paper_rank}) {q['question']}\n  want p{q['page']}: {q['answer'][0][:160]}"
                )
                for line in o.shown[:6]:
                    print("   ", line)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for name, row in result.items():
            if isinstance(row, dict):
                print(name, " ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
