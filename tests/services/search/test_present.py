"""How a `zot_search` answer spends its 8,000 characters: on passages, not on the venues, co-authors and long
titles of papers it shows without any."""

from __future__ import annotations

import re

from agent_zot.index.passages import Passage
from agent_zot.index.retrieval import PaperHit
from agent_zot.services.search.present import ANSWER_BUDGET, paper_response
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
