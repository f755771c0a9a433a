"""A question's default answer shows its first paper in depth; when the next papers score as well as the
first (which paper holds the answer is a close call), the depth is shared between them. Pure rule first,
then through a real MCP client on real indexed PDFs."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.index.retrieval import Depth
from tests.conftest import SectionedPaper, call_tool, sectioned_library, text_of

DEPTH = Depth(by_rank=(14, 1), shared=(8, 5, 5, 1), close=0.85)


@pytest.mark.parametrize(
    ("scores", "counts"),
    [
        ([1.0], [14, 1]),
        ([], [14, 1]),
        ([1.0, 0.5, 0.4], [14, 1]),  # the first stands out
        ([1.0, 0.9, 0.3], [8, 5, 1]),  # one close paper
        ([1.0, 0.95, 0.9, 0.88], [8, 5, 5, 1]),  # two close papers, never more
        ([1.0, 0.5, 0.95], [14, 1]),  # only papers next to the top count (scores come sorted)
        ([0.0, 0.0], [14, 1]),  # no scores to compare
    ],
)
def test_counts_by_how_close_the_next_papers_score(scores: list[float], counts: list[int]) -> None:
    assert DEPTH.counts(scores) == counts


SECTIONS: list[tuple[str | None, str]] = [
    (
        "1 Introduction",
        "Photoplethysmography measures blood volume changes at the fingertip with a light source and a "
        "photodiode. Cuffless blood pressure estimation from this signal would allow continuous monitoring "
        "outside the clinic.",
    ),
    (
        "2 Methods",
        "Each recording was cut into beats at the foot of the pulse. Twelve morphological features were "
        "taken from every beat, among them the systolic upstroke time and the dicrotic notch height. A "
        "gradient boosted model mapped the features to systolic and diastolic pressure.",
    ),
    (
        "3 Results",
        "The mean absolute error was 4.1 mmHg for systolic and 2.9 mmHg for diastolic pressure. The "
        "upstroke time carried most of the model's weight.",
    ),
    (
        "4 Limitations",
        "The recordings came from resting adults in one hospital, so the model may not hold during "
        "exercise or in children. Motion artifacts were removed by hand before training.",
    ),
]
OFF_TOPIC: list[tuple[str | None, str]] = [
    (
        "1 Introduction",
        "Exoplanet transit times drift when ephemerides are old. A network of small telescopes observes "
        "transits to keep the predictions within a few minutes.",
    ),
    (
        "2 Data",
        "Light curves from amateur observatories were fitted with a transit model and combined with times "
        "from space telescopes.",
    ),
]
# A passage holds most of its words: the answer does not read further (a second paper then shows more).
QUESTION = "Which beat features did the gradient boosted model map to systolic and diastolic pressure?"


async def _passages_by_rank(root: Path, papers: list[SectionedPaper]) -> list[int]:
    root.mkdir()
    settings = sectioned_library(root, papers, seed=5)
    home = root / "home"
    result = await call_tool(settings, "zot_search", home=home, query=QUESTION)
    assert not result.is_error, text_of(result)
    return [len(paper["passages"]) for paper in result.structured_content["papers"]]


@pytest.mark.slow
async def test_two_papers_that_answer_alike_share_the_depth(tmp_path: Path) -> None:
    twins = [
        SectionedPaper("Cuffless pressure from fingertip pulses", SECTIONS, "a.pdf"),
        SectionedPaper("Fingertip pulses and cuffless pressure", SECTIONS, "b.pdf"),
    ]
    counts = await _passages_by_rank(tmp_path / "twins", twins)
    assert counts[0] >= 2 and counts[1] >= 2, counts  # the second paper is shown, not named only


@pytest.mark.slow
async def test_a_paper_that_stands_out_keeps_the_depth(tmp_path: Path) -> None:
    papers = [
        SectionedPaper("Cuffless pressure from fingertip pulses", SECTIONS, "a.pdf"),
        SectionedPaper("Keeping exoplanet ephemerides fresh", OFF_TOPIC, "b.pdf"),
    ]
    counts = await _passages_by_rank(tmp_path / "one", papers)
    assert counts[0] >= 3 and all(n <= 1 for n in counts[1:]), counts
