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
        # a reason, given in any section: read by how it is worded ("because", "is chosen to")
        ("Why can't the earlier result be applied in the compact region?", "reason"),
        ("In the arm-band study, why does the SVM use a linear kernel?", "reason"),
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


@pytest.mark.parametrize(
    ("sentence", "reads"),
    [
        ("A linear kernel is chosen to lower the computation load for wearable applications.", True),
        ("This difference could be caused by the geometric distortions at longer wavelengths.", True),
        ("The index tracked diastolic pressure poorly because the pulsatile part follows systole.", True),
        ("In order to reduce the influence of breathing, PTT was averaged over ten cycles.", True),
        ("Since 2015 the cohort has grown.", False),  # a date, not a reason
        ("The SVM was trained on 26 features of each heartbeat candidate.", False),
    ],
)
def test_a_why_question_weighs_the_sentences_that_give_a_reason(sentence: str, reads: bool) -> None:
    hint = answer_kind("In the arm-band study, why does the SVM use a linear kernel?")
    assert hint is not None and hint.name == "reason"
    # a reason is given beside what it explains, in any section; no role passages never show is admitted
    assert hint.sections == frozenset() and hint.admits == frozenset()
    assert hint.reads_as(sentence) is reads
    assert (hint.bonus(sentence, "methods") > 0) is reads


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
