"""scripts/bench_answers.py: the scorer, the prompts, and the options it reads (no index, no model)."""

from __future__ import annotations

import importlib.util
import json
from collections import Counter
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

SCRIPTS = Path(__file__).parents[2] / "scripts"


@pytest.fixture(scope="module")
def bench() -> ModuleType:
    spec = importlib.util.spec_from_file_location("bench_answers", SCRIPTS / "bench_answers.py")
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


QUESTIONS: list[dict[str, Any]] = [
    {"id": "q1", "kind": "number", "question": "How many subjects?"},
    {"id": "q2", "kind": "number", "question": "How many segments?"},
    {"id": "q3", "kind": "reason", "question": "Why two GPUs?"},
    {"id": "q4", "kind": "reason", "question": "Why a ReLU?"},
    {"id": "q5", "kind": "method", "question": "Which filter?"},
]
CHOICES = {
    q["id"]: {"id": q["id"], "options": ["A a", "B b", "C c", "D d"], "correct": letter}
    for q, letter in zip(QUESTIONS, "ABCDA", strict=True)
}


def write_answers(path: Path, rows: list[dict[str, str]]) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    return path


def test_score_counts_right_answered_and_abstained(bench: ModuleType, tmp_path: Path) -> None:
    # q1 right (lower case, punctuation), q2 wrong, q3 abstains, q4 unusable, q5 missing
    answers = write_answers(
        tmp_path / "a.jsonl",
        [
            {"id": "q1", "letter": " a."},
            {"id": "q2", "letter": "C"},
            {"id": "q3", "letter": "E"},
            {"id": "q4", "letter": "the answer is D"},
        ],
    )
    table = bench.score(bench.read_letters(answers), QUESTIONS, CHOICES)
    overall = table["all"]
    assert (overall["n"], overall["right"]) == (5, 1)
    assert overall["accuracy"] == 0.2  # right / all questions
    assert overall["precision"] == 0.5  # right / answered A-D (q1, q2)
    assert overall["share_e"] == 0.2
    assert overall["invalid"] == 2  # q4's sentence and q5's missing row
    assert table["number"]["accuracy"] == 0.5 and table["number"]["precision"] == 0.5
    assert table["reason"]["share_e"] == 0.5 and table["reason"]["precision"] == 0.0


def test_compare_names_the_questions_each_gets_right(bench: ModuleType, tmp_path: Path) -> None:
    first = {"q1": "A", "q2": "B", "q3": "E"}
    second = {"q1": "A", "q2": "D", "q3": "C"}
    assert bench.changes(first, second, QUESTIONS, CHOICES) == {
        "only_first_right": ["q2"],
        "only_second_right": ["q3"],
    }
    table = bench.render(
        {"with": bench.score(first, QUESTIONS, CHOICES), "without": bench.score(second, QUESTIONS, CHOICES)}
    )
    assert "with" in table and "without" in table and "reason" in table


def test_readings_give_each_the_mean_the_majority_and_the_questions_they_split_on(bench: ModuleType) -> None:
    # right letters: A B C D A; q1 right thrice, q2 twice, q3 once, q4 never, q5 thrice
    readings = [
        {"q1": "A", "q2": "B", "q3": "C", "q4": "E", "q5": "A"},
        {"q1": "A", "q2": "B", "q3": "E", "q4": "E", "q5": "A"},
        {"q1": "A", "q2": "E", "q3": "E", "q4": "A", "q5": "A"},
    ]
    found = bench.readings(readings, QUESTIONS, CHOICES)
    assert [r["right"] for r in found["readings"]] == [4, 3, 2]
    assert found["mean_accuracy"] == 0.6  # 9 of 15
    assert found["majority_right"] == 3  # q1, q2, q5
    assert found["always_right"] == 2
    assert found["split"] == ["q2", "q3"]


def test_prompts_differ_only_by_the_tool_answer(bench: ModuleType) -> None:
    question, choice = QUESTIONS[0], CHOICES["q1"]
    tool = "1. [ABCD1234] Some paper (2018)\n   [p. 5 · Methods] Six subjects were used for training."
    with_answer = bench.build_prompt(question, choice, tool)
    without = bench.build_prompt(question, choice, None)
    for prompt in (with_answer, without):
        assert question["question"] in prompt
        for option in [*choice["options"], "E insufficient information"]:
            assert f"\n{option}" in prompt
        assert "one letter" in prompt
        assert "correct" not in prompt.lower()  # the key never reaches the model
    assert tool in with_answer and "Six subjects" not in without
    assert "Choose E if the material does not support any option" in with_answer


def test_every_library_question_has_four_options_balanced_over_letters(bench: ModuleType) -> None:
    questions = bench.load_questions("all", bench.LIBRARY_QUESTIONS)
    choices = bench.load_choices()
    assert {q["id"] for q in questions} == set(choices)
    for question in questions:
        item = choices[question["id"]]
        assert [o[:2] for o in item["options"]] == ["A ", "B ", "C ", "D "]
        assert len({o[2:] for o in item["options"]}) == 4
        assert item["correct"] in "ABCD"
        assert len(item["options"]["ABCD".index(item["correct"])].split()) <= 26  # letter + ≤ 25 words
    for split in ("dev", "test"):
        letters = Counter(choices[q["id"]]["correct"] for q in questions if q["split"] == split)
        assert max(letters.values()) - min(letters.values()) <= 1, (split, letters)


def test_a_batch_is_kept_or_left_out(bench: ModuleType) -> None:
    asked = [{"id": "a", "batch": None}, {"id": "b", "batch": "s33"}, {"id": "c", "batch": "s34"}]
    assert [q["id"] for q in bench.in_batch(asked, "s33")] == ["b"]
    assert [q["id"] for q in bench.in_batch(asked, None, ("s33", "s34"))] == ["a"]  # the first held-out set
    assert [q["id"] for q in bench.in_batch(asked, None)] == ["a", "b", "c"]


SHOWN_QUESTION = {
    "id": "q9",
    "kind": "reason",
    "page": 7,
    "answer": [
        "A linear kernel is chosen to lower the computation load for wearable applications. "
        "The kernel keeps the classifier small enough for the band's microcontroller."
    ],
}


def _answer_text(first: str, passage: str, page: int = 7) -> str:
    other = "OTHERKEY" if first == "ABCD1234" else "ABCD1234"
    return (
        f"2 papers for 'why a linear kernel?', best first (best sentences, PDF pages) ≈100 tokens:\n"
        f"1. [{first}] Zhang et al. (2017) A wearable band\n"
        f"   [p. {page} · Background] {passage}\n"
        f"2. [{other}] Someone (2019) Another paper\n"
    )


def test_shown_tells_the_paper_first_the_answer_whole_and_a_part_of_it(bench: ModuleType) -> None:
    whole = SHOWN_QUESTION["answer"][0]
    assert bench.shown_in(_answer_text("ABCD1234", whole), SHOWN_QUESTION, "ABCD1234") == {
        "first": True,
        "held": True,
        "part": True,
    }
    one = "A linear kernel is chosen to lower the computation load for wearable applications."
    assert bench.shown_in(_answer_text("ABCD1234", one), SHOWN_QUESTION, "ABCD1234") == {
        "first": True,
        "held": False,
        "part": True,
    }
    # the right words on another page, or in another paper, are no answer
    assert not bench.shown_in(_answer_text("ABCD1234", whole, page=3), SHOWN_QUESTION, "ABCD1234")["part"]
    found = bench.shown_in(_answer_text("OTHERKEY", whole), SHOWN_QUESTION, "ABCD1234")
    assert found == {"first": False, "held": False, "part": False}
