"""End to end without options: can a language model answer the library questions in its own words from the
default `zot_search` answer alone? The multiple-choice figure (scripts/bench_answers.py) has a blind spot:
a reader who knows the field often tells the right option from written wrong ones without any material
(session 35: 41 of 48 fresh questions with no answer at all), so its no-answer baseline says little about
what the tool adds. Asked in its own words, the same reader has only what it knows or what it was given.

    .venv/bin/python scripts/bench_open_answers.py prompts --answers DUMP --split test [--batch NAME] --out OUT
    .venv/bin/python scripts/bench_open_answers.py judge --with OUT/with.jsonl --without OUT/without.jsonl \\
        --split test [--batch NAME] --out JUDGE
    .venv/bin/python scripts/bench_open_answers.py score --grades JUDGE/grades.jsonl --key JUDGE/key.json \\
        --split test [--batch NAME] [--json]

``prompts`` reads the tool answers ``scripts/bench_answers.py dump`` wrote (``DUMP/<id>.txt``) and writes
``OUT/prompts_with.jsonl`` and ``OUT/prompts_without.jsonl`` (one ``{"id", "prompt"}`` a line: the question,
and in "with" the tool's answer; the reply is an answer of at most 40 words or "insufficient information").
The replies, collected as jsonl ``{"id", "answer"}`` from readers that see nothing else, go to ``judge``:
it leaves out the abstentions and writes ``JUDGE/items.jsonl`` (both files' answers shuffled under opaque
ids, each beside the question, its verbatim answering sentences and the right option's short form; the
judge does not see which reader gave it nor the tool's answer) and ``JUDGE/key.json``. A judge that sees
nothing else grades each item "right", "partial" or "wrong" (jsonl ``{"id", "grade"}``), and ``score``
prints per reader: accuracy (right / all questions), partial, wrong, abstained, and precision (right /
answered; an answer that says anything wrong is not right).
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_answers import in_batch, load_choices, load_jsonl
from bench_passages import LIBRARY_QUESTIONS, load_questions

ABSTAIN = "insufficient information"
GRADES = ("right", "partial", "wrong")
READERS = ("with", "without")

_TASK_WITH = (
    "Answer a question about a paper in a researcher's library. Below the question is what the library "
    "search tool (zot_search) returned for it; use only that material."
)
_TASK_WITHOUT = "Answer a question about a paper in a researcher's library."
_REPLY_WITH = (
    f"Reply with the answer in at most 40 words, specific where the material is (numbers, names, the stated "
    f'reason), and nothing else; reply "{ABSTAIN}" if the material does not hold the answer.'
)
_REPLY_WITHOUT = (
    f'Reply with the answer in at most 40 words and nothing else; reply "{ABSTAIN}" if you have no basis '
    "for one."
)


def build_prompt(question: dict[str, Any], tool_answer: str | None) -> str:
    """The prompt for one question; ``tool_answer`` None: the same question with no material."""
    parts = [_TASK_WITHOUT if tool_answer is None else _TASK_WITH, f"Question: {question['question']}"]
    if tool_answer is not None:
        parts.append(f"Search tool answer:\n<<<\n{tool_answer.strip()}\n>>>")
    parts.append(_REPLY_WITHOUT if tool_answer is None else _REPLY_WITH)
    return "\n\n".join(parts)


def write_prompts(questions: list[dict[str, Any]], answers: Path, out: Path) -> int:
    """The open prompts of ``questions`` from the tool answers under ``answers`` (``<id>.txt``)."""
    missing = [q["id"] for q in questions if not (answers / f"{q['id']}.txt").is_file()]
    if missing:
        raise SystemExit(f"no tool answer in {answers} for {', '.join(missing)} (run bench_answers.py dump)")
    out.mkdir(parents=True, exist_ok=True)
    for reader in READERS:
        with (out / f"prompts_{reader}.jsonl").open("w", encoding="utf-8") as handle:
            for question in questions:
                text = (answers / f"{question['id']}.txt").read_text(encoding="utf-8")
                prompt = build_prompt(question, text if reader == "with" else None)
                handle.write(json.dumps({"id": question["id"], "prompt": prompt}, ensure_ascii=False) + "\n")
    return len(questions)


def abstains(answer: str) -> bool:
    return not answer.strip() or answer.strip().strip(".").lower() == ABSTAIN


def judge_items(
    replies: dict[str, dict[str, str]],
    questions: list[dict[str, Any]],
    choices: dict[str, dict[str, Any]],
    seed: int = 35,
) -> tuple[list[dict[str, str]], dict[str, list[str]]]:
    """The items a judge grades (every reader's non-abstaining answer, shuffled under opaque ids) and the key
    from item id to (reader, question id)."""
    asked = {q["id"]: q for q in questions}
    pairs = [
        (reader, qid, answer)
        for reader, answers in replies.items()
        for qid, answer in answers.items()
        if qid in asked and not abstains(answer)
    ]
    random.Random(seed).shuffle(pairs)
    items, key = [], {}
    for n, (reader, qid, answer) in enumerate(pairs, 1):
        choice = choices[qid]
        right = choice["options"]["ABCD".index(choice["correct"])][2:]
        item_id = f"j{n:03d}"
        key[item_id] = [reader, qid]
        items.append(
            {
                "id": item_id,
                "question": asked[qid]["question"],
                "reference": " ".join(asked[qid]["answer"]),
                "reference_short": right,
                "candidate": answer,
            }
        )
    return items, key


def score(
    grades: dict[str, str], key: dict[str, list[str]], questions: list[dict[str, Any]]
) -> dict[str, dict[str, Any]]:
    """Per reader: n, right, partial, wrong, abstained, accuracy (right / n), precision (right / answered)."""
    asked = {q["id"] for q in questions}
    given: dict[str, dict[str, str]] = {reader: {} for reader in READERS}
    for item_id, (reader, qid) in key.items():
        if qid in asked:
            grade = grades.get(item_id, "")
            given.setdefault(reader, {})[qid] = grade if grade in GRADES else "wrong"
    table = {}
    n = len(asked)
    for reader, by_question in given.items():
        counts = {grade: sum(1 for g in by_question.values() if g == grade) for grade in GRADES}
        answered = sum(counts.values())
        table[reader] = {
            "n": n,
            **counts,
            "abstained": n - answered,
            "accuracy": round(counts["right"] / n, 3) if n else 0.0,
            "precision": round(counts["right"] / answered, 3) if answered else 0.0,
        }
    return table


def _replies(path: Path) -> dict[str, str]:
    return {row["id"]: str(row.get("answer", "")) for row in load_jsonl(path)}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    commands = parser.add_subparsers(dest="command", required=True)
    for name, text in (
        ("prompts", "write open prompts"),
        ("judge", "build the judge's items"),
        ("score", ""),
    ):
        sub = commands.add_parser(name, help=text or "score the judge's grades")
        sub.add_argument("--split", choices=("test", "dev", "all"), default="test")
        sub.add_argument("--batch", default=None, help='only the questions of one batch, e.g. "s35"')
        sub.add_argument("--skip-batch", action="append", default=[], help="leave out a batch (repeatable)")
        if name == "prompts":
            sub.add_argument("--answers", type=Path, required=True, help="a bench_answers.py dump folder")
            sub.add_argument("--out", type=Path, required=True)
        elif name == "judge":
            sub.add_argument("--with", dest="with_", type=Path, required=True, help='jsonl {"id", "answer"}')
            sub.add_argument("--without", type=Path, required=True, help='jsonl {"id", "answer"}')
            sub.add_argument("--out", type=Path, required=True)
        else:
            sub.add_argument("--grades", type=Path, required=True, help='jsonl {"id", "grade"}')
            sub.add_argument("--key", type=Path, required=True, help="the key.json judge wrote")
            sub.add_argument("--json", action="store_true")
    args = parser.parse_args()
    questions = in_batch(load_questions(args.split, LIBRARY_QUESTIONS), args.batch, args.skip_batch)
    if args.command == "prompts":
        print(json.dumps({"prompts": write_prompts(questions, args.answers, args.out), "out": str(args.out)}))
    elif args.command == "judge":
        replies = {"with": _replies(args.with_), "without": _replies(args.without)}
        items, key = judge_items(replies, questions, load_choices())
        args.out.mkdir(parents=True, exist_ok=True)
        lines = "".join(json.dumps(item, ensure_ascii=False) + "\n" for item in items)
        (args.out / "items.jsonl").write_text(lines, encoding="utf-8")
        (args.out / "key.json").write_text(json.dumps(key, indent=1), encoding="utf-8")
        print(json.dumps({"items": len(items), "out": str(args.out)}))
    else:
        grades = {row["id"]: str(row.get("grade", "")).strip().lower() for row in load_jsonl(args.grades)}
        key = json.loads(args.key.read_text(encoding="utf-8"))
        table = score(grades, key, questions)
        if args.json:
            print(json.dumps(table, indent=2))
            return
        columns = ("n", "right", "partial", "wrong", "abstained", "accuracy", "precision")
        print(f"{'reader':<9}" + "".join(f"{c:>11}" for c in columns))
        for reader, row in table.items():
            print(f"{reader:<9}" + "".join(f"{row[c]:>11}" for c in columns))


if __name__ == "__main__":
    main()
