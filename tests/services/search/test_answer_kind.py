"""A question's kind (the review matrix's reading of its words) weighs the sentences of the sections that
answer that kind in zot_search's question answers: a limitation is admitted in the discussion in words of
its own ("The limitations of this study were ..."), even when the question says "drawbacks". Pure rule
first, then through a real MCP client on a real indexed PDF."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.services.paper_reading.roles import answer_kind
from tests.conftest import SectionedPaper, call_tool, sectioned_library, text_of


@pytest.mark.parametrize(
    ("question", "kind"),
    [
        ("What were the main drawbacks of the wavelet approach?", "limitation"),
        ("In the wrist-worn sensor study, what weakness did the authors admit?", "limitation"),
        ("How many participants were recorded?", "count"),
        ("What method was used to segment the beats?", "method"),
        ("Which colour was the device?", None),  # no known kind: no section is preferred
        ("Why can't the earlier result be applied in the compact region?", None),  # a reason, any section
        ("Who funded the wrist-worn sensor study?", "thanks"),
        ("Which grant supported the wavelet scalogram work?", "thanks"),
        ("Whom do the authors of the scalogram paper thank?", "thanks"),
        ("Whom do the authors acknowledge for the recordings?", "thanks"),
        ("Did the authors declare any conflicts of interest?", "thanks"),
        # a limitation the authors acknowledge is no thanks; a fund is a topic, not a funder
        ("What limitation do the authors acknowledge?", "limitation"),
        ("How did the hedge funds perform in the crisis?", None),
    ],
)
def test_the_kind_is_read_from_what_the_question_asks(question: str, kind: str | None) -> None:
    hint = answer_kind(question)
    assert (hint.name if hint else None) == kind


def test_only_the_thanks_kind_admits_a_role_passages_never_show() -> None:
    thanks = answer_kind("Who funded the wrist-worn sensor study?")
    assert thanks is not None and thanks.admits == {"acknowledgements"}
    assert thanks.reads_as("This work was supported by the Ministry of Science under Grant no. 106-2622.")
    for question in (
        "What were the main drawbacks of the wavelet approach?",
        "How many participants were recorded?",
    ):
        hint = answer_kind(question)
        assert hint is not None and hint.admits == frozenset()


def test_a_kind_names_the_sections_that_answer_it() -> None:
    hint = answer_kind("What were the main drawbacks of the wavelet approach?")
    assert hint is not None and "discussion" in hint.sections and "introduction" not in hint.sections
    assert hint.reads_as("The limitations of this study were that the dataset was small.")


SECTIONS: list[tuple[str | None, str]] = [
    (
        "1 Introduction",
        "Wrist photoplethysmography with a wavelet scalogram and a pretrained convolutional network can "
        "classify hypertension without an electrocardiogram. The scalogram turns each pulse into an image "
        "the convolutional network reads.",
    ),
    (
        "2 Methods",
        "Each wrist recording was cut into ten second windows. A continuous wavelet transform gave a "
        "scalogram of every window, and a pretrained convolutional network was fine-tuned on the "
        "scalograms for hypertension classes.",
    ),
    (
        "3 Results",
        "The scalogram network classified normotension against hypertension with an F1 score of 0.92. "
        "The wavelet scalogram approach beat the classifier on ten handcrafted pulse features.",
    ),
    (
        "4 Discussion",
        "Hypertension classes were balanced by resampling the scalograms. The limitations of this study "
        "were that only forty wrist recordings were available and each was two minutes long. Training the "
        "network took eleven hours on one graphics card.",
    ),
]
QUESTION = "What were the main drawbacks of the wavelet scalogram convolutional network for hypertension?"


@pytest.mark.slow
async def test_a_limitation_question_shows_the_admitted_limitation_early(tmp_path: Path) -> None:
    settings = sectioned_library(
        tmp_path, [SectionedPaper("Scalograms for hypertension", SECTIONS, "a.pdf")], seed=11
    )
    result = await call_tool(settings, "zot_search", home=tmp_path / "home", query=QUESTION)
    assert not result.is_error, text_of(result)
    passages = [line for line in text_of(result).splitlines() if line.startswith("   [")]
    shown = "\n".join(passages)
    limitation = next(n for n, line in enumerate(passages) if "limitations of this study" in line)
    # ahead of the results, whose sentences share more of the question's words; the methods sentence, which
    # names everything the question names, may come first by its meaning (index/sentence_vectors.py)
    assert all(limitation < n for n, line in enumerate(passages) if "Results]" in line), shown
