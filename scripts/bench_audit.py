"""Citation audit on the 18 shared PDFs: drafts with correct citations and planted faults.

    .venv/bin/python scripts/bench_audit.py [--split test|dev|all] [--work DIR] [--json] [--show]

1. Builds a Zotero library from ../shared/data/pdfs and indexes it (as scripts/bench_passages.py does;
   with --work the library and index are kept and reused).
2. Writes drafts from the answer sentences of scripts/data/passage_questions.jsonl (each copied from its
   PDF with its page). The question split carries over: the test third was set aside before any tuning
   of the audit and is the figure to report. Each claim sentence gets, by a seeded draw, either a correct
   citation (right item, right page; a third of them quote a phrase of the paper) or one planted fault:
   - unknown_key: a key no library item has;
   - wrong_page: the right item, a page at least three pages away from the claim;
   - quote_not_found: the right citation, with a phrase in quotation marks taken from another paper;
   - wrong_paper: the claim attributed to another of the 18 papers;
   - uncited: the claim with no citation at all.
   Sentences about the draft itself ("In this section we ...") sit between the claims and cite nothing.
   Drafts rotate through the citation styles: Pandoc keys, LaTeX \\citep, author-year, DOIs.
3. Audits each draft (services.audit, as `agent-zot audit` does) and scores: a planted fault is found when
   its sentence gets a finding of the matching kind; a finding of any fault kind on a sentence that did not
   get that fault is a false alarm. Precision and recall per kind and overall, false alarms on correct
   citations, and the time to audit a 5,000-word draft with 60 citations.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent_zot.config import Settings
from agent_zot.formats import bibtex_keys
from agent_zot.services.audit.audit_draft import audit_draft
from agent_zot.services.audit.report import author_year, problems
from agent_zot.services.context import AppContext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_passages import item_keys_by_file, load_questions, prepare

FAULT_OF = {
    "unknown_key": "unknown_key",
    "wrong_page": "wrong_page",
    "quote_not_found": "quote_not_found",
    "wrong_paper": "unsupported",
    "uncited": "uncited_claim",
}
# Planted condition weights: half the claims are cited correctly.
CONDITIONS = (
    ("correct", 10),
    ("unknown_key", 2),
    ("wrong_page", 2),
    ("quote_not_found", 2),
    ("wrong_paper", 2),
    ("uncited", 2),
)
STYLES = ("pandoc", "latex", "author_year", "doi")
CLAIMS_PER_DRAFT = 12
FILLER = (
    "In this section we review the work this argument builds on.",
    "We now turn to the evidence for each part of the argument.",
    "The rest of this chapter is organised as follows.",
    "Our own approach differs in the data it starts from and in what it asks of the reader.",
    "This section summarises what the literature says about the question.",
    "We return to these points in the discussion at the end of the chapter.",
)
_LEAD = re.compile(
    r"^(?:however|thus|therefore|moreover|furthermore|in addition|finally|hence|indeed|overall),\s*", re.I
)


@dataclass(slots=True)
class Planted:
    sentence: str  # the claim as written in the draft, without its citation
    condition: str
    style: str
    file: str
    qid: str


@dataclass(slots=True)
class Scored:
    found: dict[str, int] = field(default_factory=dict)  # per fault kind: planted and flagged
    planted: dict[str, int] = field(default_factory=dict)
    flagged: dict[str, int] = field(default_factory=dict)
    false_alarm_correct: int = 0  # correct citations with any fault
    correct: int = 0
    seconds: list[float] = field(default_factory=list)


def claim_text(answer: str, *, reported: bool = True) -> str:
    text = " ".join(answer.split()).replace('"', "'").replace("“", "'").replace("”", "'")
    text = re.sub(r"\s*\[\d+(?:[,–-]\s*\d+)*\]", "", text)  # the paper's own numbered references
    # The papers' own author-year citations would be citations of works outside the library.
    text = re.sub(r"\s*\([^()]*\b(?:19|20)\d{2}[a-z]?\)", "", text)
    text = re.sub(
        r"\b[A-Z][\w-]+(?: et al\.| and [A-Z][\w-]+)? \((?:19|20)\d{2}[a-z]?\)", "earlier work", text
    )
    text = _LEAD.sub("", text)
    if not reported:
        return text.rstrip(" .")
    # A writer reports a paper's "we" as the authors' (a draft's own "we" needs no citation).
    text = re.sub(r"^We\b", "The authors", text)
    text = re.sub(r"\bwe\b", "they", text)
    text = re.sub(r"\b[Oo]ur\b", "their", text)
    text = text[0].upper() + text[1:]
    return text.rstrip(" .")


def citation(style: str, key: str, item: Any, page: int | None) -> str:
    if style == "latex":
        return f"~\\citep[p.~{page}]{{{key}}}" if page else f"~\\citep{{{key}}}"
    if style == "author_year":
        label = author_year(item)
        return f" ({label}, p. {page})" if page else f" ({label})"
    if style == "doi" and item is not None and item.doi:
        return f" [doi:{item.doi}, p. {page}]" if page else f" [doi:{item.doi}]"
    return f" [@{key}, p. {page}]" if page else f" [@{key}]"


def build_drafts(
    questions: list[dict[str, Any]], ctx: AppContext, keys: dict[str, str], seed: int
) -> list[tuple[str, list[Planted]]]:
    library = ctx.library()
    exported = bibtex_keys(list(library.items.values()))
    page_count = {f: _pages(ctx, keys[f]) for f in keys}
    rng = random.Random(seed)
    drafts = []
    order = list(questions)
    rng.shuffle(order)
    names, weights = zip(*CONDITIONS, strict=True)
    for number, start in enumerate(range(0, len(order), CLAIMS_PER_DRAFT)):
        style = STYLES[number % len(STYLES)]
        parts, planted = [], []
        for q in order[start : start + CLAIMS_PER_DRAFT]:
            condition = rng.choices(names, weights)[0]
            file, page = q["file"], q["page"]
            item = library.items[keys[file]]
            text = claim_text(q["answer"][0])
            cited_item, cited_page = item, page
            if condition == "correct" and rng.random() < 1 / 3:
                text = _quote_own(text, " ".join(q["answer"][0].split()), rng)
            if condition == "quote_not_found":
                other = rng.choice([o for o in questions if o["file"] != file])
                text = _quote_other(text, claim_text(other["answer"][0]), rng)
            if condition == "wrong_page":
                far = [p for p in range(1, page_count[file] + 1) if abs(p - page) >= 3]
                if not far:
                    condition = "correct"
                else:
                    cited_page = rng.choice(far)
            if condition == "wrong_paper":
                other_file = rng.choice([f for f in keys if f != file])
                cited_item = library.items[keys[other_file]]
                cited_page = rng.randint(1, max(1, page_count[other_file]))
            key = exported[cited_item.key]
            if condition == "unknown_key":
                key = (
                    rng.choice(("nobody", "fictional", "zanzibar", "quillfeather"))
                    + str(rng.randint(1990, 2005))
                    + "study"
                )
                cited_item = None
            cited_style = (
                style if not (style == "doi" and (cited_item is None or not cited_item.doi)) else "pandoc"
            )
            if condition == "unknown_key" and cited_style == "author_year":
                cite = f" (Quillfeather et al., {rng.randint(1990, 2005)}, p. {page})"
            elif condition == "unknown_key" and cited_style == "doi":
                cite = f" [doi:10.9999/nonexistent.{rng.randint(1000, 9999)}, p. {page}]"
            elif condition == "uncited":
                cite = ""
            else:
                cite = citation(cited_style, key, cited_item, cited_page)
            if style == "latex":  # LaTeX's special characters, escaped as a LaTeX writer would
                text = re.sub(r"([%&#_$])", r"\\\1", text)
            parts.append(text + cite + ".")
            planted.append(Planted(text, condition, cited_style, file, q["id"]))
            if rng.random() < 0.5:
                parts.append(rng.choice(FILLER))
        body = " ".join(parts)
        if style == "latex":
            body = (
                "\\documentclass{article}\n\\begin{document}\n\\section{Background}\n"
                + body
                + "\n\\end{document}\n"
            )
        else:
            body = "# Background\n\n" + body + "\n"
        drafts.append((body, planted))
    return drafts


def _pages(ctx: AppContext, item_key: str) -> int:
    state = ctx.index().state
    return max((r.pages for r in state.attachments_of(item_key)), default=1)


def _quote_own(text: str, original: str, rng: random.Random) -> str:
    """A phrase of the claim put in quotation marks, only where the claim still has the paper's words."""
    words = text.split()
    spans = [
        (start, size)
        for size in (7, 6, 5)
        for start in range(len(words) - size + 1)
        if " ".join(words[start : start + size]) in original
    ]
    if len(words) < 10 or not spans:
        return text
    start, size = rng.choice(spans)
    quoted = "“" + " ".join(words[start : start + size]) + "”"
    return " ".join([*words[:start], quoted, *words[start + size :]])


def _quote_other(text: str, other: str, rng: random.Random) -> str:
    words = other.split()
    start = rng.randint(0, max(0, len(words) - 7))
    phrase = " ".join(words[start : start + 6])
    return f"{text}, described as “{phrase}”"


def score(ctx: AppContext, drafts: list[tuple[str, list[Planted]]], show: bool) -> Scored:
    scored = Scored()
    for text, planted in drafts:
        started = time.perf_counter()
        result = audit_draft(ctx, text)
        scored.seconds.append(time.perf_counter() - started)
        flagged: dict[int, set[str]] = {}
        for audit, _check, finding in problems(result):
            index = _planted_index(audit.sentence.prose, planted)
            flagged.setdefault(index, set()).add(finding.kind)
        for index, plant in enumerate(planted):
            kinds = flagged.get(index, set())
            expected = FAULT_OF.get(plant.condition)
            if expected:
                scored.planted[expected] = scored.planted.get(expected, 0) + 1
                if expected in kinds:
                    scored.found[expected] = scored.found.get(expected, 0) + 1
            else:
                scored.correct += 1
                scored.false_alarm_correct += bool(kinds)
            for kind in kinds:
                scored.flagged[kind] = scored.flagged.get(kind, 0) + 1
                if show and kind != expected:
                    print(
                        f"FALSE {kind} ({plant.condition}, {plant.style}, {plant.qid}): {plant.sentence[:120]}"
                    )
            if show and expected and expected not in kinds:
                print(
                    f"MISS {expected} ({plant.style}, {plant.qid}) got {sorted(kinds)}: {plant.sentence[:120]}"
                )
        for kind in flagged.get(-1, set()):
            scored.flagged[kind] = scored.flagged.get(kind, 0) + 1
            if show:
                print(f"FALSE {kind} on a non-claim sentence")
    return scored


def _planted_index(prose: str, planted: list[Planted]) -> int:
    words = set(prose.casefold().split())
    best, overlap = -1, 0.5
    for index, plant in enumerate(planted):
        mine = set(plant.sentence.casefold().split())
        # the audit's sentence may be one of two sentences a planted claim holds
        share = len(words & mine) / max(1, len(words))
        if share > overlap:
            best, overlap = index, share
    return best


def report(scored: Scored) -> dict[str, Any]:
    rows: dict[str, Any] = {}
    for kind in FAULT_OF.values():
        planted, found, flagged = (
            scored.planted.get(kind, 0),
            scored.found.get(kind, 0),
            scored.flagged.get(kind, 0),
        )
        rows[kind] = {
            "planted": planted,
            "recall": round(found / planted, 3) if planted else None,
            "precision": round(found / flagged, 3) if flagged else None,
        }
    planted, found, flagged = (
        sum(scored.planted.values()),
        sum(scored.found.values()),
        sum(scored.flagged.values()),
    )
    rows["overall"] = {
        "planted": planted,
        "recall": round(found / planted, 3) if planted else None,
        "precision": round(found / flagged, 3) if flagged else None,
        "correct_citations": scored.correct,
        "false_alarms_on_correct": scored.false_alarm_correct,
        "audit_seconds_median": round(statistics.median(scored.seconds), 2) if scored.seconds else None,
    }
    return rows


def long_draft(
    questions: list[dict[str, Any]], ctx: AppContext, keys: dict[str, str]
) -> tuple[str, int, int]:
    """About 5,000 words with 60 correct citations: every answer sentence, the first 60 cited, the others
    and filler between them left uncited."""
    library = ctx.library()
    exported = bibtex_keys(list(library.items.values()))
    parts = []
    for number, q in enumerate(questions):
        text = claim_text(q["answer"][0])
        cite = f" [@{exported[keys[q['file']]]}, p. {q['page']}]" if number < 60 else ""
        parts.append(text + cite + ".")
        parts.append(FILLER[number % len(FILLER)])
        parts.append(FILLER[(number + 3) % len(FILLER)])
    draft = "# Draft\n\n" + " ".join(parts) + "\n"
    words = len(draft.split())
    while words < 5000:
        draft += " ".join(FILLER) + "\n"
        words = len(draft.split())
    return draft, words, 60


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument("--work", type=Path, default=None, help="keep the library and index here")
    parser.add_argument("--seeds", type=int, default=3, help="drafts are drawn this many times")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--show", action="store_true", help="print every miss and false alarm")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        work = args.work or Path(tmp)
        settings: Settings = prepare(work)
        keys = item_keys_by_file(settings)
        ctx = AppContext(settings)
        result: dict[str, Any] = {}
        splits = ("dev", "test") if args.split == "all" else (args.split,)
        for split in splits:
            questions = load_questions(split)
            drafts = [d for seed in range(args.seeds) for d in build_drafts(questions, ctx, keys, seed)]
            result[split] = report(score(ctx, drafts, args.show))
        text, words, cited = long_draft(load_questions("all"), ctx, keys)
        audit_draft(ctx, text[:2000])  # models loaded before the clock starts, as in a running server
        started = time.perf_counter()
        audited = audit_draft(ctx, text)
        seconds = time.perf_counter() - started
        result["long_draft"] = {
            "words": words,
            "citations": len(audited.checks),
            "planted_citations": cited,
            "seconds": round(seconds, 2),
            "false_alarms": sum(1 for _, c, f in problems(audited) if c is not None),
        }
        ctx.close()
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for split, rows in result.items():
            print(split)
            if "words" in rows:
                print("  ", rows)
                continue
            for kind, row in rows.items():
                print(f"  {kind:16}", " ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
