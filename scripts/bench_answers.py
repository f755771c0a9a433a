"""End to end as the assistant sees it: can a language model answer the library questions from the default
`zot_search` answer alone, and how much does that answer add over no answer at all?

    .venv/bin/python scripts/bench_answers.py dump --split test [--batch NAME] --work DIR --out OUT
    .venv/bin/python scripts/bench_answers.py score --answers OUT/with.jsonl --split test [--batch NAME] \\
        [--skip-batch NAME ...] [--compare OUT/without.jsonl] [--json]
    .venv/bin/python scripts/bench_answers.py shown --dump OUT --work DIR --split test [--compare OUT2] [--json]
    .venv/bin/python scripts/bench_answers.py readings --answers READING1.jsonl READING2.jsonl ... --split test

``dump`` indexes the shared libraries of ../shared/data/zotero the questions are about, the way
``scripts/bench_passages.py --library-questions`` does (the indexes are kept under ``--work`` and reused),
and asks each question of the split through fastmcp's in-memory client exactly as an assistant would first
ask it: ``zot_search`` with the question as its query and nothing else (all defaults). It writes
``OUT/<id>.txt`` (the text the assistant reads), ``OUT/prompts_with.jsonl`` and ``OUT/prompts_without.jsonl``
(one ``{"id", "prompt"}`` a line: the question, options A–E, E = insufficient information, and in "with"
the tool's answer; the answer is one letter) and ``OUT/summary.json`` (answer sizes).

The prompts go to a model that sees nothing else (a fresh, blind session per prompt file); its replies are
collected as jsonl ``{"id", "letter"}`` and ``score`` prints, overall and per kind of question: accuracy
(right / all questions), precision (right / answered A–D), the share answered E; ``--compare`` puts a
second file beside it and counts the questions one gets right and the other not.

``readings`` takes several readings of the same answers by fresh readers: two readings differ by about two
questions in 288 with every answer byte-identical, so a figure near a threshold is read several times and
reported as each reading, their mean and the majority (a question right when most readings get it), with
the questions the readings split on.

``shown`` reads a dump without a model: per question, whether the answer names the right paper first
("first"), shows its answering sentence(s) whole ("held": bench_passages' fuzzy match, on the right page)
and shows at least one sentence of a several-sentence answer ("part"); a reader mostly answers E where
"part" fails (dev, session 42: 24 of its 25 misses), so it tells what a change does before a reading.

Data: scripts/data/library_questions.jsonl (written from the PDFs, each with its verbatim answering
sentence(s)) and scripts/data/library_choices.jsonl (per question four options, one a paraphrase of that
answer, three wrong for that paper; the right letter balanced over A–D by a seeded shuffle). ``--split test``
is the held-out third, set aside before any tuning: the figure to report; ``dev`` may be looked at.
``--batch`` keeps the questions of one batch (``"batch"`` in the questions file: a set written at one time,
e.g. "s33", 48 questions written from the PDFs in session 33 and only ever read, never tuned on);
``--skip-batch`` leaves batches out (the test split's first 144: ``--skip-batch s33 --skip-batch s34
--skip-batch s35``). scripts/bench_open_answers.py asks the same questions without options.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import re
import statistics
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_passages import (
    _PAPER_LINE,
    LIBRARY_QUESTIONS,
    answers,
    corpus_settings,
    item_keys_by_path,
    load_questions,
    parse_text,
    prepare_corpus,
)

CHOICES = Path(__file__).resolve().parent / "data" / "library_choices.jsonl"
OPTION_LETTERS = frozenset("ABCD")
LETTERS = OPTION_LETTERS | {"E"}  # sets: "" is in every string
NONE_OF_THEM = "E insufficient information"

_TASK_WITH = (
    "Answer a multiple-choice question about a paper in a researcher's library. Below the options is what "
    "the library search tool (zot_search) returned for the question; use only that material."
)
_TASK_WITHOUT = "Answer a multiple-choice question about a paper in a researcher's library."
_REPLY_WITH = (
    "Reply with one letter (A, B, C, D or E) and nothing else. Choose E if the material does not "
    "support any option."
)
_REPLY_WITHOUT = (
    "Reply with one letter (A, B, C, D or E) and nothing else. Choose E if you have nothing that "
    "supports any option."
)


def load_jsonl(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def load_choices(path: Path = CHOICES) -> dict[str, dict[str, Any]]:
    return {row["id"]: row for row in load_jsonl(path)}


def build_prompt(question: dict[str, Any], choice: dict[str, Any], tool_answer: str | None) -> str:
    """The whole prompt for one question; ``tool_answer`` None: the same question with no material."""
    options = "\n".join([*choice["options"], NONE_OF_THEM])
    parts = [
        _TASK_WITHOUT if tool_answer is None else _TASK_WITH,
        f"Question: {question['question']}",
        f"Options:\n{options}",
    ]
    if tool_answer is not None:
        parts.append(f"Search tool answer:\n<<<\n{tool_answer.strip()}\n>>>")
    parts.append(_REPLY_WITHOUT if tool_answer is None else _REPLY_WITH)
    return "\n\n".join(parts)


def tool_text(result: Any) -> str:
    return "\n".join(block.text for block in result.content if hasattr(block, "text"))


async def _ask_all(settings: Any, home: Path, questions: list[dict[str, Any]]) -> dict[str, str]:
    from fastmcp import Client

    from agent_zot.mcp.server import build_server
    from agent_zot.services.context import AppContext

    ctx = AppContext(settings, home=home)  # the fake home prepare_corpus indexed with
    texts = {}
    try:
        async with Client(build_server(ctx)) as client:
            for question in questions:
                result = await client.call_tool(
                    "zot_search", {"query": question["question"]}, raise_on_error=False
                )
                texts[question["id"]] = tool_text(result)
    finally:
        ctx.close()
    return texts


def in_batch(
    questions: list[dict[str, Any]], batch: str | None, skip: Sequence[str] = ()
) -> list[dict[str, Any]]:
    """The questions of one batch (a set written at one time, e.g. "s33"); all of them when ``batch`` is None;
    less those of the batches in ``skip`` (the test split's first 144: ``skip=("s33", "s34", "s35")``)."""
    return [q for q in questions if (batch is None or q.get("batch") == batch) and q.get("batch") not in skip]


def dump(split: str, work: Path, out: Path, batch: str | None = None) -> dict[str, Any]:
    questions = in_batch(load_questions(split, LIBRARY_QUESTIONS), batch)
    choices = load_choices()
    missing = [q["id"] for q in questions if q["id"] not in choices]
    if missing:
        raise SystemExit(f"no options in {CHOICES.name} for {', '.join(missing)}")
    out.mkdir(parents=True, exist_ok=True)
    texts: dict[str, str] = {}
    for corpus in sorted({q["corpus"] for q in questions}):
        settings = prepare_corpus(corpus, work)
        asked = [q for q in questions if q["corpus"] == corpus]
        texts |= asyncio.run(_ask_all(settings, work / "home", asked))
    with (
        (out / "prompts_with.jsonl").open("w", encoding="utf-8") as with_file,
        (out / "prompts_without.jsonl").open("w", encoding="utf-8") as without_file,
    ):
        for question in questions:
            qid, text = question["id"], texts[question["id"]]
            (out / f"{qid}.txt").write_text(text, encoding="utf-8")
            for handle, material in ((with_file, text), (without_file, None)):
                row = {"id": qid, "prompt": build_prompt(question, choices[qid], material)}
                handle.write(json.dumps(row, ensure_ascii=False) + "\n")
    sizes = [len(texts[q["id"]]) for q in questions]
    summary = {
        "split": split,
        "questions": len(questions),
        "answer_chars_p50": round(statistics.median(sizes)) if sizes else 0,
        "answer_chars_max": max(sizes, default=0),
        "answer_chars_by_id": {q["id"]: len(texts[q["id"]]) for q in questions},
    }
    (out / "summary.json").write_text(json.dumps(summary, indent=2), encoding="utf-8")
    return summary


_SENTENCE_END = re.compile(r"(?<=[.!?。])\s+")
_PART_CHARS = 25  # a piece of an answer shorter than this ("Table 3.") tells nothing on its own


def shown_in(text: str, question: dict[str, Any], key: str) -> dict[str, bool]:
    """What an answer's ``text`` shows of ``question``, whose paper is the item ``key``: the paper first,
    the answer held whole, a part of it (one of its sentences) held."""
    papers = [m.group(1) for line in text.splitlines() if (m := _PAPER_LINE.match(line))]
    passages = parse_text(text)
    held = any(answers(p, question, key) for p in passages)
    pieces = [s for a in question["answer"] for s in _SENTENCE_END.split(a) if len(s) > _PART_CHARS]
    part = held or any(answers(p, question | {"answer": [s]}, key) for p in passages for s in pieces)
    return {"first": bool(papers) and papers[0] == key, "held": held, "part": part}


def shown(dump_dir: Path, work: Path, questions: list[dict[str, Any]]) -> dict[str, dict[str, int]]:
    """``shown_in`` for each question a dump in ``dump_dir`` answered, counted overall and per kind."""
    keys: dict[str, dict[str, str]] = {}
    groups: dict[str, dict[str, int]] = {}
    for question in questions:
        answer = dump_dir / f"{question['id']}.txt"
        if not answer.is_file():
            continue
        corpus = question["corpus"]
        if corpus not in keys:
            keys[corpus] = item_keys_by_path(corpus_settings(corpus, work))
        found = shown_in(answer.read_text(encoding="utf-8"), question, keys[corpus][question["file"]])
        for name in ("all", question["kind"]):
            row = groups.setdefault(name, {"n": 0, "first": 0, "held": 0, "part": 0})
            row["n"] += 1
            for measure, value in found.items():
                row[measure] += value
    return groups


def read_letters(path: Path) -> dict[str, str]:
    """The letter of each answer, upper-cased; anything not A–E is kept as given and scored as wrong."""
    letters = {}
    for row in load_jsonl(path):
        letter = str(row.get("letter", "")).strip().strip(".()").upper()
        letters[row["id"]] = letter
    return letters


def score(
    letters: dict[str, str], questions: list[dict[str, Any]], choices: dict[str, dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Overall and per kind: n, right, accuracy (right / all), precision (right / answered A–D), the share
    answered E, and how many had no usable letter (missing or not A–E)."""
    groups: dict[str, list[dict[str, Any]]] = {"all": questions}
    for question in questions:
        groups.setdefault(question["kind"], []).append(question)
    table = {}
    for name, group in groups.items():
        given = [letters.get(q["id"], "") for q in group]
        right = sum(1 for q, g in zip(group, given, strict=True) if g == choices[q["id"]]["correct"])
        answered = sum(1 for g in given if g in OPTION_LETTERS)
        n = len(group)
        table[name] = {
            "n": n,
            "right": right,
            "accuracy": round(right / n, 3) if n else 0.0,
            "precision": round(right / answered, 3) if answered else 0.0,
            "share_e": round(sum(1 for g in given if g == "E") / n, 3) if n else 0.0,
            "invalid": sum(1 for g in given if g not in LETTERS),
        }
    return table


def changes(
    first: dict[str, str], second: dict[str, str], questions: list[dict[str, Any]], choices: dict[str, Any]
) -> dict[str, list[str]]:
    def right(letters: dict[str, str], qid: str) -> bool:
        return letters.get(qid) == choices[qid]["correct"]

    ids = [q["id"] for q in questions]
    return {
        "only_first_right": [i for i in ids if right(first, i) and not right(second, i)],
        "only_second_right": [i for i in ids if right(second, i) and not right(first, i)],
    }


def readings(
    letters: Sequence[dict[str, str]], questions: list[dict[str, Any]], choices: dict[str, dict[str, Any]]
) -> dict[str, Any]:
    """Several readings of the same answers (fresh readers each): each reading's accuracy, their mean, the
    accuracy by majority (a question right when more than half its readings are), the questions right in
    every reading, and those the readings split on (the readers' noise, not the answers)."""
    ids = [q["id"] for q in questions]
    right = {qid: sum(given.get(qid) == choices[qid]["correct"] for given in letters) for qid in ids}
    n, count = len(ids), len(letters)
    each = [score(given, questions, choices)["all"] for given in letters]
    return {
        "n": n,
        "readings": [{"right": row["right"], "accuracy": row["accuracy"]} for row in each],
        "mean_accuracy": round(sum(row["right"] for row in each) / (count * n), 3) if n and count else 0.0,
        "majority_right": sum(1 for qid in ids if 2 * right[qid] > count),
        "always_right": sum(1 for qid in ids if right[qid] == count),
        "split": [qid for qid in ids if 0 < right[qid] < count],
    }


def render(tables: dict[str, dict[str, dict[str, Any]]]) -> str:
    names = list(tables)
    columns = ("accuracy", "precision", "share_e", "invalid")
    head = f"{'kind':<11}{'n':>4}" + "".join(f"  {c[:9]:>9}" for _ in names for c in columns)
    lines = [" " * 15 + "".join(f"  {n[:42]:<42}" for n in names), head]
    first = tables[names[0]]
    for kind in ["all", *sorted(k for k in first if k != "all")]:
        cells = "".join(f"  {tables[n][kind][c]:>9}" for n in names for c in columns)
        lines.append(f"{kind:<11}{first[kind]['n']:>4}{cells}")
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    dumping = commands.add_parser("dump", help="ask the questions; write answers and prompts")
    dumping.add_argument("--split", choices=("test", "dev", "all"), default="test")
    dumping.add_argument("--work", type=Path, required=True, help="the libraries' indexes, kept and reused")
    dumping.add_argument("--out", type=Path, required=True)
    dumping.add_argument("--batch", default=None, help='only the questions of one batch, e.g. "s33"')
    scoring = commands.add_parser("score", help="score a model's letters")
    scoring.add_argument("--answers", type=Path, required=True, help='jsonl {"id", "letter"}')
    scoring.add_argument("--compare", type=Path, default=None, help="a second answers file beside it")
    scoring.add_argument("--split", choices=("test", "dev", "all"), default="test")
    scoring.add_argument("--batch", default=None, help='only the questions of one batch, e.g. "s33"')
    scoring.add_argument("--skip-batch", action="append", default=[], help="leave out a batch (repeatable)")
    scoring.add_argument("--json", action="store_true")
    reading = commands.add_parser("readings", help="several readings of the same answers: mean and majority")
    reading.add_argument("--answers", type=Path, nargs="+", required=True, help="one letters file a reading")
    reading.add_argument("--split", choices=("test", "dev", "all"), default="test")
    showing = commands.add_parser("shown", help="what the dumped answers show, without a model")
    showing.add_argument("--dump", type=Path, required=True, help="a dump's OUT folder")
    showing.add_argument("--work", type=Path, required=True, help="the --work the dump indexed under")
    showing.add_argument("--compare", type=Path, default=None, help="a second dump beside it")
    showing.add_argument("--split", choices=("test", "dev", "all"), default="test")
    showing.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.command == "shown":
        asked = load_questions(args.split, LIBRARY_QUESTIONS)
        found = {
            str(d): shown(d, args.work, asked) for d in [args.dump, *([args.compare] if args.compare else [])]
        }
        if args.json:
            print(json.dumps(found, indent=2))
            return
        for name, groups in found.items():
            print(name)
            for kind in ["all", *sorted(k for k in groups if k != "all")]:
                row = groups[kind]
                print(
                    f"  {kind:<11}{row['n']:>4}  first {row['first']:>4}  held {row['held']:>4}  part {row['part']:>4}"
                )
        return
    if args.command == "dump":
        summary = dump(args.split, args.work, args.out, args.batch)
        summary.pop("answer_chars_by_id")
        print(json.dumps(summary))
        return
    if args.command == "readings":
        asked = load_questions(args.split, LIBRARY_QUESTIONS)
        print(json.dumps(readings([read_letters(p) for p in args.answers], asked, load_choices()), indent=2))
        return
    questions = in_batch(load_questions(args.split, LIBRARY_QUESTIONS), args.batch, args.skip_batch)
    choices = load_choices()
    files = [args.answers, *([args.compare] if args.compare else [])]
    letters = {str(path): read_letters(path) for path in files}
    tables = {name: score(given, questions, choices) for name, given in letters.items()}
    result: dict[str, Any] = {"split": args.split, "scores": tables}
    if args.compare:
        result["changes"] = changes(*letters.values(), questions, choices)
    if args.json:
        print(json.dumps(result, indent=2))
        return
    print(render(tables))
    if args.compare:
        for name, ids in result["changes"].items():
            print(f"{name}: {len(ids)} {' '.join(ids)}")


if __name__ == "__main__":
    main()
