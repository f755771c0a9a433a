"""A question that describes its paper ("in the study that compared …, how much …?") is answered from the
paper it describes, not from a close neighbour whose one chunk best matches what it asks: the describing
words are spread over the described paper's chunks (index/coverage.py). Real PDFs, the real index, fastmcp's
in-memory client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.index import retrieval
from agent_zot.index.coverage import (
    CLOSE_CALL,
    asks_about_a_paper,
    by_coverage,
    described_by,
    nearest_sentences,
)
from agent_zot.index.passages import ChunkHit
from agent_zot.index.sentence_vectors import SentenceVectors
from agent_zot.index.sentences import naming_phrase
from agent_zot.index.sparse import Bm25Encoder
from agent_zot.index.store import Hit
from agent_zot.services.context import AppContext
from tests.conftest import SectionedPaper, connect, sectioned_library, text_of

FILLER = (
    "The plots lie on loam and clay at three elevations, and each was instrumented before the growing season "
    "began. Crops were rotated between maize and wheat, irrigation followed the local schedule, and the "
    "records were checked for gaps after each storm. Probes that drifted were replaced and their records "
    "marked, and the weather station beside the plots logged rain, wind and air temperature every hour."
)
# The described paper: what it compared, its reference and its features, each in a paragraph of its own
DESCRIBED = SectionedPaper(
    title="Soil Moisture from Capacitive Probes, Estimated Three Ways",
    filename="described.pdf",
    sections=[
        ("Abstract", "We estimate soil moisture from capacitive probes buried in farm plots."),
        ("1 Sites", FILLER),
        (
            "2 Estimators",
            "Ridge regression, support vector regression and a genetic-algorithm-tuned network were compared. "
            + FILLER,
        ),
        (
            "3 Reference",
            "A neutron probe read beside every capacitive probe served as the reference. " + FILLER,
        ),
        ("4 Features", "Twenty-seven spectral features were extracted from each probe record."),
        (
            "5 Protocol",
            "Each record was split so that its first quarter fitted the estimators and the remaining three "
            "quarters assessed them.",
        ),
    ],
)
# The neighbour: the same field and much of the same method, and one passage that says in the question's
# words how records were used for training and testing
NEIGHBOUR = SectionedPaper(
    title="Recurrent Networks for Soil Moisture from Capacitive Probes",
    filename="neighbour.pdf",
    sections=[
        (
            "Abstract",
            "We compare support vector regression and a recurrent network on spectral features for estimating "
            "soil moisture from capacitive probes against a gravimetric reference.",
        ),
        ("1 Sites", FILLER),
        (
            "2 Training",
            "How much of each probe record was used for training and how much for testing: the first half of "
            "each probe record was used for training and the second half for testing.",
        ),
    ],
)
QUESTION = (
    "In the study that compared ridge regression, support vector regression and a genetic-algorithm-tuned "
    "network on twenty-seven spectral features with a neutron probe reference, how much of each probe record "
    "was used for training and how much for testing?"
)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return sectioned_library(tmp_path_factory.mktemp("coverage"), [NEIGHBOUR, DESCRIBED], seed=23)


@pytest.fixture
async def client(library: Settings, tmp_path: Path) -> AsyncIterator[Client]:
    async with connect(library, home=tmp_path / "home") as connected:
        yield connected


@pytest.mark.slow
async def test_a_question_that_describes_its_paper_is_answered_from_that_paper(client: Client) -> None:
    result = await client.call_tool("zot_search", {"query": QUESTION}, raise_on_error=False)
    assert not result.is_error, text_of(result)
    papers = result.structured_content["papers"]
    assert papers[0]["title"] == DESCRIBED.title, text_of(result)
    first = text_of(result).split("\n2. ")[0]
    assert "first quarter fitted the estimators" in first, text_of(result)


@pytest.mark.slow
async def test_a_question_about_a_topic_keeps_the_best_passage_first(client: Client) -> None:
    """No clause names a paper: the passage that answers best decides, wherever it is."""
    result = await client.call_tool(
        "zot_search",
        {"query": "How much of each probe record was used for training and how much for testing?"},
        raise_on_error=False,
    )
    assert result.structured_content["papers"][0]["title"] == NEIGHBOUR.title, text_of(result)


def _pool(key: str, *texts: str) -> list[ChunkHit]:
    return [
        ChunkHit(Hit(f"{key}-{n}", 1.0, {"item_key": key, "text": t}), 1.0, {"vector"})
        for n, t in enumerate(texts)
    ]


def test_coverage_reorders_only_the_first_papers_and_keeps_scores_in_range() -> None:
    pools = {
        "A": _pool("A", "records used for training and testing"),
        "B": _pool("B", "ridge regression and support vector regression", "a neutron probe reference"),
        "C": _pool("C", "soil moisture"),
    }
    ranked = [("A", 0.5), ("B", 0.45), ("C", 0.2)]
    question = "which study used ridge regression with a neutron probe reference for training?"
    out = by_coverage(ranked, pools, question, Bm25Encoder())
    assert [c.item_key for c in out] == ["B", "A", "C"]
    assert all(0 < c.score <= 0.5 for c in out) and out[0].score >= out[1].score >= out[2].score
    # Past the papers compared, the order and scores stay (capped at the last compared score).
    tail = by_coverage(ranked, pools, question, Bm25Encoder(), papers=2)
    assert [c.item_key for c in tail] == ["B", "A", "C"] and tail[2].score <= tail[1].score
    assert by_coverage(ranked, pools, question, Bm25Encoder(), weight=0.0)[0].item_key == "A"


# The same description in passing, in the middle of the question: no clause names the paper, but the first
# papers are a close call, so their coverage of the question decides.
IN_PASSING = (
    "How much of each probe record did the comparison of ridge regression, support vector regression and a "
    "genetic-algorithm-tuned network on twenty-seven spectral features with a neutron probe reference use "
    "for training and how much for testing?"
)


@pytest.mark.slow
async def test_a_question_describing_its_paper_in_passing_is_answered_from_that_paper(client: Client) -> None:
    result = await client.call_tool("zot_search", {"query": IN_PASSING}, raise_on_error=False)
    assert not result.is_error, text_of(result)
    assert result.structured_content["papers"][0]["title"] == DESCRIBED.title, text_of(result)


def test_coverage_weighs_a_question_that_names_its_paper_or_whose_first_papers_are_close() -> None:
    assert asks_about_a_paper(QUESTION, [1.0, 0.2])  # a clause names its paper: always
    assert asks_about_a_paper(IN_PASSING, [1.0, CLOSE_CALL])  # a close call between the first two
    assert not asks_about_a_paper(IN_PASSING, [1.0, CLOSE_CALL - 0.05])  # one paper clearly leads
    assert not asks_about_a_paper(IN_PASSING, [1.0])
    assert not asks_about_a_paper("probe records used for training and testing", [1.0, 0.95])  # a topic


def test_a_close_call_goes_to_the_paper_whose_own_description_the_question_resembles() -> None:
    pools = {"A": _pool("A", "records used for training"), "B": _pool("B", "records used for training")}
    ranked = [("A", 0.5), ("B", 0.48)]
    question = "in the farm sensing work, how much of each record was used for training?"
    assert by_coverage(ranked, pools, question, Bm25Encoder())[0].item_key == "A"  # the words tie
    out = by_coverage(ranked, pools, question, Bm25Encoder(), described={"A": 0.31, "B": 0.52})
    assert [c.item_key for c in out] == ["B", "A"]
    assert all(0 < c.score <= 0.5 for c in out) and out[0].score >= out[1].score


def _unit(*values: float) -> np.ndarray:
    vector = np.array(values, dtype=np.float32)
    return vector / np.linalg.norm(vector)


def _packed(*rows: np.ndarray) -> bytes:
    spans = tuple((10 * n, 10 * n + 9) for n in range(len(rows)))
    return SentenceVectors(spans, np.vstack(rows)).pack()


def test_a_close_call_goes_to_the_paper_one_of_whose_sentences_says_what_the_question_asks() -> None:
    question = _unit(1, 0, 0)
    pools = {"A": _pool("A", "records used for training"), "B": _pool("B", "records used for training")}
    stored = {
        "A-0": _packed(_unit(0, 1, 0), _unit(0.2, 0, 1)),  # about something else
        "B-0": _packed(_unit(0, 0, 1), _unit(0.9, 0.1, 0), _unit(0.8, 0, 0.2)),  # two sentences near it
    }
    nearest = nearest_sentences(question, pools, stored, ["A", "B"])
    assert nearest["B"] == pytest.approx((0.994 + 0.970) / 2, abs=0.01) and nearest["A"] < 0.25
    ranked = [("A", 0.5), ("B", 0.48)]
    text = "in the farm sensing work, how much of each record was used for training?"
    assert by_coverage(ranked, pools, text, Bm25Encoder())[0].item_key == "A"  # the words tie
    out = by_coverage(ranked, pools, text, Bm25Encoder(), sentences=nearest)
    assert [c.item_key for c in out] == ["B", "A"] and all(0 < c.score <= 0.5 for c in out)
    # nothing to tell apart: no vector, one paper, or sentences a model of another size made
    assert nearest_sentences(None, pools, stored, ["A", "B"]) == {}
    assert nearest_sentences(question, pools, stored, ["B"]) == {}
    assert nearest_sentences(_unit(1, 0, 0, 0), pools, stored, ["A", "B"]) == {}


@pytest.mark.slow
def test_the_description_a_question_resembles_is_read_from_each_papers_metadata_point(
    library: Settings,
) -> None:
    ctx = AppContext(library)
    try:
        resources = ctx.index_resources()
        keys = {c.title: c.key for c in ctx.library().items.values() if c.title}
        described, neighbour = keys[DESCRIBED.title], keys[NEIGHBOUR.title]
        question = resources.embedder.embed_query("water in the ground read by buried capacitance sensors")
        found = described_by(resources.store, question, [described, neighbour])
        assert set(found) == {described, neighbour} and found[described] > found[neighbour]
        assert described_by(resources.store, None, [described, neighbour]) == {}
    finally:
        ctx.close()


def test_the_words_naming_a_paper_are_found_wherever_the_question_puts_them() -> None:
    # a clause before the question, or after it (split_question's)
    assert naming_phrase("In the grazing survey of upland farms, did soil carbon rise?") == (
        "the grazing survey of upland farms"
    )
    # inside the question: a "the" phrase headed by a work noun, with what describes it after the noun up to
    # the question's own verb or a break
    assert (
        naming_phrase(
            "What do the authors of the two-stage clustering and belief-network identity study blame for most "
            "of their misidentifications?"
        )
        == "the two-stage clustering and belief-network identity study"
    )
    assert (
        naming_phrase(
            "Why were the volunteers in the one-arm ECG band study made to pedal between their rest minutes?"
        )
        == "the one-arm ECG band study"
    )
    assert (
        naming_phrase(
            "Which kind of regression was used as one of the learners in the three-learner study estimating soil "
            "moisture from probe capacitance, rise time and widths?"
        )
        == "the three-learner study estimating soil moisture from probe capacitance"
    )
    assert (
        naming_phrase(
            "Whom does the writer of the second-edition algorithms handbook hold responsible for its mistakes?"
        )
        == "the second-edition algorithms handbook"
    )
    # the work noun alone, named by what follows it; adjectives with a comma between them; the authors by what
    # they did (a verb of the question's own that is no auxiliary may run on into the phrase)
    named = naming_phrase(
        "Why does the work on grazing rotations with fixed rest periods pick LQ-type weights?"
    )
    assert named is not None and named.startswith("the work on grazing rotations with fixed rest periods")
    assert (
        naming_phrase("Why did the authors of the applied, less mathematical soil textbook revise its labs?")
        == "the applied, less mathematical soil textbook"
    )
    named = naming_phrase("Why do the authors who turn probe traces into moisture maps distrust winter data?")
    assert named is not None and named.startswith("the authors who turn probe traces into moisture maps")
    # no description: a bare "the study", or no work named at all
    assert naming_phrase("How many plots did the study instrument?") is None
    assert naming_phrase("Why was the large ImageNet CNN split across two GPUs?") is None


@pytest.mark.slow
async def test_a_close_call_compares_the_papers_descriptions_with_the_words_naming_the_paper(
    client: Client, library: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The question's other words ask what is in the paper (how records were split): the papers' own
    descriptions are matched by the words that describe the paper asked about."""
    seen: list[np.ndarray | None] = []

    def spy(store: object, question: np.ndarray | None, keys: list[str]) -> dict[str, float]:
        seen.append(question)
        return described_by(store, question, keys)  # type: ignore[arg-type]

    monkeypatch.setattr(retrieval, "described_by", spy)
    question = (
        "How much of each record did the authors of the three-way capacitive soil moisture study use for "
        "training and how much for testing?"
    )
    result = await client.call_tool("zot_search", {"query": question}, raise_on_error=False)
    assert not result.is_error, text_of(result)
    assert seen and seen[0] is not None, "coverage weighed no description"
    ctx = AppContext(library)
    try:
        embedder = ctx.index_resources().embedder
        naming = embedder.embed_query("the three-way capacitive soil moisture study")
        whole = embedder.embed_query(question)
    finally:
        ctx.close()
    assert np.allclose(seen[0], naming, atol=1e-5) and not np.allclose(seen[0], whole, atol=1e-3)
