"""What a review-matrix cell offers depends on the kind of question (issue 54, session 25): each kind
weighs a sentence's place and wording by its own column of weights (matrix/weights.py), a data question
finds what the work was evaluated or illustrated on, a limitation question prefers an admitted weakness to
plans for future work, and a title and author block is never read as the abstract's opening. Real page
texts through the matrix's own sentence reader and scorer."""

from __future__ import annotations

from agent_zot.services.matrix.cells import MAX_CANDIDATES, PaperText, candidates, title_like
from agent_zot.services.matrix.weights import FEATURES, WEIGHTS, weights_of

TITLE = "Distributed Control of Vehicle Platoons With Separable Metrics Jane Roe, John Doe and Ada Moss"
ABSTRACT = (
    "This paper gives convex conditions for the synthesis of distributed controllers for networks of "
    "nonlinear systems. The conditions are checked one vehicle at a time, so the design scales to large "
    "networks."
)
ILLUSTRATED = (
    "The results are illustrated on a platoon of twelve heterogeneous vehicles in numerical simulations."
)
LIMITED = (
    "Our conditions are limited to input affine systems, and they cannot be satisfied when the drag term "
    "changes sign."
)
FUTURE = "In future work we plan to extend the approach to cascade systems and to output feedback."
PAGES: list[tuple[int | None, str]] = [
    (1, f"{TITLE}\n\n{ABSTRACT}\n1 Introduction\nPlatoons of trucks save fuel when they drive close together. "
        "A controller designed for the whole platoon at once does not scale with its length."),
    (2, "2 Main Result\nWe state the conditions as linear matrix inequalities in the metric of each vehicle. "
        "The metric is separable, so each inequality involves one vehicle and its neighbours. "
        "Theorem 1 states that the closed loop then contracts."),
    (3, f"3 Illustration\n{ILLUSTRATED} Each vehicle follows its predecessor at a fixed gap. "
        f"4 Conclusion\nWe gave separable conditions for distributed control. {LIMITED} {FUTURE}"),
]  # fmt: skip


def _paper() -> PaperText:
    return PaperText.of("ATTACH01", PAGES)


def test_each_question_kind_has_its_own_column_of_weights_over_the_same_features() -> None:
    assert {"other", "problem", "method", "data", "count", "result", "limitation"} <= set(WEIGHTS)
    assert all(set(column) == set(FEATURES) for column in WEIGHTS.values())
    # a limitation is told apart by where it is printed, a problem by the abstract's opening
    assert weights_of("limitation")["in_results"] > weights_of("problem")["in_results"]
    assert weights_of("problem")["opening"] > weights_of("result")["opening"]
    assert weights_of("a kind nobody asked for") == WEIGHTS["other"]


def test_a_title_and_author_block_is_not_the_abstracts_opening() -> None:
    paper = _paper()
    assert title_like(TITLE) and not title_like(ABSTRACT.split(". ")[0])
    title = next(s for s in paper.sentences if s.text.startswith("Distributed Control"))
    opening = paper.abstract_order()
    assert title.index not in opening
    first = next(s for s in paper.sentences if s.text.startswith("This paper gives"))
    assert opening[first.index] == 0
    found = candidates(paper, "What problem does the paper address?")
    assert found and found[0].text.startswith("This paper gives"), [c.text for c in found]


def test_a_data_question_finds_what_the_work_is_illustrated_on() -> None:
    found = candidates(_paper(), "What data is the work evaluated on?")
    assert found and found[0].text.startswith(ILLUSTRATED[:40]), [c.text for c in found]


def test_a_limitation_question_prefers_an_admitted_weakness_to_plans_for_future_work() -> None:
    found = candidates(_paper(), "What are the limitations of the work?")
    texts = [c.text for c in found]
    assert texts and texts[0].startswith(LIMITED[:40]), texts


def test_a_cell_may_offer_a_fourth_candidate() -> None:
    assert MAX_CANDIDATES == 4
    sentences = " ".join(
        f"We propose method {name}, a new approach that combines a {name} filter with a learned model. "
        f"Sensor {n} was mounted on pier {n + 3}."
        for n, name in enumerate(("alpha", "beta", "gamma", "delta", "epsilon"))
    )
    paper = PaperText.of(
        "ATTACH02", [(1, f"Abstract\n{sentences}\n1 Introduction\nSensors drift over time.")]
    )
    found = candidates(paper, "What method or approach does the paper propose?", alternative=0.0)
    assert len(found) == 4, [c.text for c in found]
