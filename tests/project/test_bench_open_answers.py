"""scripts/bench_open_answers.py: open prompts, the judge's blind items and the scorer (no index, no model)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPTS = Path(__file__).parents[2] / "scripts"

QUESTIONS: list[dict[str, Any]] = [
    {
        "id": f"q{n}",
        "kind": "number",
        "question": f"How many subjects in study {n}?",
        "answer": [f"We had {n}."],
    }
    for n in range(1, 5)
]
CHOICES = {
    q["id"]: {"id": q["id"], "options": ["A one", "B two", "C three", "D four"], "correct": "ABCD"[n]}
    for n, q in enumerate(QUESTIONS)
}


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    sys.path.insert(0, str(SCRIPTS))
    spec = importlib.util.spec_from_file_location("bench_open_answers", SCRIPTS / "bench_open_answers.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_prompts_hold_no_options_and_differ_only_by_the_tool_answer(
    bench: ModuleType, tmp_path: Path
) -> None:
    dump = tmp_path / "dump"
    dump.mkdir()
    for q in QUESTIONS:
        (dump / f"{q['id']}.txt").write_text(
            f"1. [K] Paper on {q['id']}\n   [p. 2] We had 7 subjects.", "utf-8"
        )
    assert bench.write_prompts(QUESTIONS, dump, tmp_path / "out") == 4
    rows = {
        reader: [
            json.loads(line)
            for line in (tmp_path / "out" / f"prompts_{reader}.jsonl").read_text().splitlines()
        ]
        for reader in ("with", "without")
    }
    with_, without = rows["with"][0]["prompt"], rows["without"][0]["prompt"]
    assert "We had 7 subjects." in with_ and "We had 7 subjects." not in without
    assert QUESTIONS[0]["question"] in with_ and QUESTIONS[0]["question"] in without
    assert not any(option in with_ for option in ("A one", "B two", "E insufficient"))
    (dump / "q4.txt").unlink()
    with pytest.raises(SystemExit, match="q4"):
        bench.write_prompts(QUESTIONS, dump, tmp_path / "out")


def test_the_judge_sees_neither_the_reader_nor_abstentions(bench: ModuleType) -> None:
    replies = {
        "with": {"q1": "One subject.", "q2": "Insufficient information.", "q3": "Three."},
        "without": {"q1": "insufficient information", "q2": "Two, probably.", "q4": ""},
    }
    items, key = bench.judge_items(replies, QUESTIONS, CHOICES)
    assert sorted(tuple(v) for v in key.values()) == [("with", "q1"), ("with", "q3"), ("without", "q2")]
    assert all(set(item) == {"id", "question", "reference", "reference_short", "candidate"} for item in items)
    by_id = {item["id"]: item for item in items}
    q3 = next(i for i, (reader, qid) in key.items() if qid == "q3")
    assert by_id[q3]["reference"] == "We had 3." and by_id[q3]["reference_short"] == "three"


def test_score_counts_grades_per_reader(bench: ModuleType) -> None:
    key = {"j1": ["with", "q1"], "j2": ["with", "q2"], "j3": ["with", "q3"], "j4": ["without", "q1"]}
    grades = {"j1": "right", "j2": "partial", "j3": "so-so", "j4": "right"}  # an unknown grade is wrong
    table = bench.score(grades, key, QUESTIONS)
    assert table["with"] == {
        "n": 4,
        "right": 1,
        "partial": 1,
        "wrong": 1,
        "abstained": 1,
        "accuracy": 0.25,
        "precision": 0.333,
    }
    assert (table["without"]["right"], table["without"]["abstained"], table["without"]["precision"]) == (
        1,
        3,
        1.0,
    )
