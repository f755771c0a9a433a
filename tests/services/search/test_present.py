"""How a `zot_search` answer spends its 8,000 characters: on passages, not on the venues, co-authors and long
titles of papers it shows without any."""

from __future__ import annotations

import re

from agent_zot.index.passages import Passage
from agent_zot.index.retrieval import PaperHit
from agent_zot.services.search.present import (
    ANSWER_BUDGET,
    FURTHER_CHARS,
    asked_words_held,
    paper_response,
    reads_further,
)
from agent_zot.zotero.models import Creator, Item, ZoteroDate

VENUE = "Proceedings of the Annual International Conference on Long Venue Names in Engineering"


LONG_TITLE = (
    "Blood Pressure Estimation Using Photoplethysmography Only: Comparison between Different Machine Learning "
    "Approaches"
)


def _item(key: str, title: str) -> Item:
    return Item(
        key=key,
        item_id=0,
        item_type="conferencePaper",
        library_id=0,
        fields={"title": title},
        base_fields={"publicationTitle": VENUE},
        creators=[Creator(0, "author", "Okafor"), Creator(1, "author", "Lindqvist")],
        date=ZoteroDate("2021", 2021),
    )


def _passage(page: int, words: int) -> Passage:
    return Passage(f"Sentence {page} " + "word " * words, "chunk", "ATT1", page, page, None, 1.0)


def _lines(text: str) -> dict[str, str]:
    """Each paper's line by its key ("2. [BBBB2222] Okafor (2021) Paper BBBB2222 — venue")."""
    return {m.group(1): line for line in text.splitlines() if (m := re.match(r"\d+\. \[(\w+)\]", line))}


def test_a_paper_shown_without_passages_is_named_briefly() -> None:
    items = {key: _item(key, f"Paper {key}") for key in ("AAAA1111", "BBBB2222")}
    items["CCCC3333"] = _item("CCCC3333", LONG_TITLE)
    budget = ANSWER_BUDGET["sentences"]
    assert budget is not None
    # the first paper's passages fill the answer: the others are listed by name only
    papers = [
        PaperHit("AAAA1111", 1.0, [_passage(n, 150) for n in range(1, 30)]),
        PaperHit("BBBB2222", 0.5, [_passage(1, 150)]),
        PaperHit("CCCC3333", 0.4, [_passage(2, 150)]),
    ]
    answer = paper_response(items, papers, scope="", query="words", detail="sentences")
    lines = _lines(answer.text)
    assert VENUE in lines["AAAA1111"] and "Okafor, Lindqvist (2021)" in lines["AAAA1111"]
    # by its first author, year and title, without its venue; a long title cut where it runs on
    assert lines["BBBB2222"] == "2. [BBBB2222] Okafor et al. (2021) Paper BBBB2222"
    assert VENUE not in lines["CCCC3333"] and LONG_TITLE not in lines["CCCC3333"]
    assert "Using Photoplethysmography Only: Comparison" in lines["CCCC3333"] and lines["CCCC3333"].endswith(
        "…"
    )
    assert len(answer.text) <= budget
    assert [bool(p["passages"]) for p in answer.data["papers"]] == [True, False, False]


def test_every_paper_shown_with_passages_keeps_its_venue() -> None:
    items = {key: _item(key, f"Paper {key}") for key in ("AAAA1111", "BBBB2222")}
    papers = [
        PaperHit("AAAA1111", 1.0, [_passage(1, 20)]),
        PaperHit("BBBB2222", 0.5, [_passage(2, 20)]),
    ]
    answer = paper_response(items, papers, scope="", query="words", detail="sentences")
    assert all(VENUE in line for line in _lines(answer.text).values())
    full = paper_response(items, papers, scope="", query="words", detail="full")  # no budget: as before
    assert all(VENUE in line for line in _lines(full.text).values())


def test_the_notes_that_follow_the_papers_fit_in_the_same_budget() -> None:
    """A mode's notes (the methods and datasets of the papers, who works on the topic) are part of the answer:
    the passages leave room for them, so the whole answer stays within its budget."""
    items = {key: _item(key, f"Paper {key}") for key in ("AAAA1111", "BBBB2222")}
    papers = [PaperHit("AAAA1111", 1.0, [_passage(n, 150) for n in range(1, 30)])]
    budget = ANSWER_BUDGET["sentences"]
    assert budget is not None
    notes = "In these papers:\n  Methods: " + ", ".join(f"method {n} ({n})" for n in range(60))
    answer = paper_response(
        items, papers, scope="", query="words", detail="sentences", reserve=len(notes) + 1
    )
    assert len(answer.text) + 1 + len(notes) <= budget
    alone = paper_response(items, papers, scope="", query="words", detail="sentences")
    assert len(alone.data["papers"][0]["passages"]) > len(answer.data["papers"][0]["passages"])


QUESTION = "In the vehicle-platoon paper, how long did solving the feasibility problem take?"


def _said(words: str, page: int) -> Passage:
    return Passage(f"{words} " + "filler " * 60, "chunk", "ATT1", page, page, None, 1.0)


def test_a_passage_holding_the_questions_own_words_answers_it() -> None:
    # the words that name the paper ("vehicle-platoon") are not what is asked
    assert asked_words_held(QUESTION, [_said("The platoon of vehicles was long.", 1)]) == 0.2
    assert asked_words_held(QUESTION, [_said("Solving this feasibility problem took 9 s.", 1)]) == 0.6
    assert asked_words_held("the?", [_said("Anything.", 1)]) == 1.0  # no words to hold


def test_an_answer_whose_shown_passages_miss_the_question_reads_further_in_its_first_two_papers() -> None:
    """The first paper's further passages take up to `FURTHER_CHARS[0]` more, the second's (the first may be
    the wrong one) `FURTHER_CHARS[1]` more; the papers after them keep at least what they showed."""
    items = {key: _item(key, f"Paper {key}") for key in ("AAAA1111", "BBBB2222", "CCCC3333")}
    shallow = [_said("The platoon had ten vehicles.", n) for n in range(1, 13)]
    deeper = [*shallow, *(_said("Each run took long to solve.", n) for n in range(13, 21))]
    second = [_said("A second paper.", 1)]
    second_deeper = [*second, *(_said("Its own runs.", n) for n in range(2, 9))]
    papers = [
        PaperHit("AAAA1111", 1.0, shallow, further=deeper),
        PaperHit("BBBB2222", 0.9, second, further=second_deeper),
        PaperHit("CCCC3333", 0.8, [_said("A third paper.", 1)]),
    ]
    usual = paper_response(items, papers, scope="", query=QUESTION, detail="sentences")
    assert reads_further(QUESTION, usual, papers)
    further = paper_response(items, papers, scope="", query=QUESTION, detail="sentences", further=True)
    shown = [len(p["passages"]) for p in further.data["papers"]]
    kept = [len(p["passages"]) for p in usual.data["papers"]]
    assert shown[0] > kept[0] and shown[1] > kept[1] == 1 and shown[2] >= kept[2] == 1
    assert len(usual.text) <= 8000 < len(further.text) <= 8000 + sum(FURTHER_CHARS)
    # many long further passages of the second paper take no more than its share: the others' stay
    wordy = [_said("Its own runs. " + "more words " * 40, n) for n in range(2, 20)]
    papers[1] = PaperHit("BBBB2222", 0.9, second, further=[*second, *wordy])
    crowded = paper_response(items, papers, scope="", query=QUESTION, detail="sentences", further=True)
    assert [len(p["passages"]) for p in crowded.data["papers"]] == [shown[0], 3, shown[2]]

    def second_paper(text: str) -> int:
        return sum(len(line) + 1 for line in text.splitlines() if "A second" in line or "Its own" in line)

    assert (
        second_paper(usual.text) < second_paper(crowded.text) <= second_paper(usual.text) + FURTHER_CHARS[1]
    )
    # a shown passage that holds the question's words: the usual answer stands
    papers[0] = PaperHit(
        "AAAA1111", 1.0, [_said("Solving the feasibility problem took 9 s.", 1)], further=deeper
    )
    assert not reads_further(
        QUESTION, paper_response(items, papers, scope="", query=QUESTION, detail="sentences"), papers
    )
    # nothing further to read (a topic search): the usual answer stands
    papers[0] = PaperHit("AAAA1111", 1.0, shallow)
    assert not reads_further(
        QUESTION, paper_response(items, papers, scope="", query=QUESTION, detail="sentences"), papers
    )
