"""Section kinds: a heading's role decided once, and consumers that never answer from thanks, reference
lists or author biographies (issue 54), through a real MCP client on a real indexed PDF."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.ingest.section_kinds import payload_kind, reads_as_biography, section_kind
from tests.conftest import (
    SectionedPaper,
    connect,
    sectioned_library,
    text_of,
)


@pytest.mark.parametrize(
    ("heading", "kind"),
    [
        ("5. Acknowledgments", "acknowledgements"),
        ("ACKNOWLEDGEMENTS", "acknowledgements"),
        ("About the Authors", "biography"),
        ("Biographies", "biography"),
        ("References", "references"),
        ("7 Bibliography", "references"),
        ("Appendix A", "appendix"),
        ("Appendix B: Proofs", "appendix"),
        ("Supplementary Material", "appendix"),
        ("Abstract", "abstract"),
        ("1 Introduction", "introduction"),
        ("I. INTRODUCTION", "introduction"),
        ("Background", "background"),
        ("2 Related Work", "background"),
        ("Methods", "methods"),
        ("2. Materials and Methods", "methods"),
        ("Experimental Setup", "methods"),
        ("3 Implementation", "methods"),
        ("4 Evaluation", "results"),
        ("Results", "results"),
        ("5.1 Experiments", "results"),
        ("Discussion", "discussion"),
        ("Limitations", "limitations"),
        ("6 Conclusion", "conclusion"),
        ("7 CONCLUSIONS", "conclusion"),
        ("Future Work", "limitations"),
        ("3.3 Fault Tolerance", "body"),
        ("Worker Failure", "body"),
        # Chinese theses and journal papers
        ("摘要：", "abstract"),
        ("摘 要", "abstract"),
        ("0 引言", "introduction"),
        ("第 1 章 绪 论", "introduction"),
        ("1.2 国内外研究现状", "background"),
        ("第 4 章 机器人运动学建模与状态观测", "methods"),
        ("第五章 实验结果与分析", "results"),
        ("4.1 本章简述", "body"),
        ("2.5 本章小结", "body"),  # a chapter's own summary is no conclusion of the paper
        ("结论与展望", "conclusion"),
        ("参 考 文 献", "references"),
        ("致 谢", "acknowledgements"),
        ("附录 A 程序清单", "appendix"),
        ("參考文獻", "references"),  # traditional Chinese
        ("1. はじめに", "introduction"),  # Japanese
        ("4 実験結果", "results"),
        ("5. 考察", "discussion"),
        ("謝辞", "acknowledgements"),
        (None, "body"),
    ],
)
def test_a_heading_names_its_section_kind(heading: str | None, kind: str) -> None:
    assert section_kind(heading) == kind


@pytest.mark.parametrize(
    ("heading", "kind"),
    [
        # Two sections under one heading: the first that names a kind wins.
        ("4.3 Limitations and suggestions", "limitations"),
        ("Strengths and limitations", "limitations"),
        ("5 Discussion and Conclusion", "discussion"),
        ("6. DISCUSSION AND CONCLUSIONS", "discussion"),
        ("8 DISCUSSION & FUTURE WORK", "discussion"),
        ("Conclusions and outlook", "conclusion"),
        ("VI. CONCLUSIONS AND FUTURE WORKS", "conclusion"),
        ("5. Concluding remarks and open problems", "conclusion"),
        ("1 Introduction and Related Work", "introduction"),
        ("II. BACKGROUND & RELATED WORKS", "background"),
        ("Data and methods", "methods"),
        ("II. MATERIALS AND METHOD", "methods"),
        ("Experimental results and analysis", "results"),
        ("IV. EXPERIMENT AND RESULT", "results"),
        ("3 Assumptions and main results", "results"),
        ("5.3. Sources of error and limitations", "limitations"),
        # Today's whole-heading answers stand.
        ("Results and Discussion", "results"),
        ("Summary and Conclusions", "conclusion"),
        # A kind word qualified by the words before it, or followed by what it is of.
        ("Study limitations", "limitations"),
        ("Performance evaluation", "results"),
        ("4.2 Simulation results", "results"),
        ("4.3.1 K-fold cross validation results", "results"),
        ("Proposed method", "methods"),
        ("III. PROPOSED METHOD FOR ESTIMATING BP", "methods"),
        ("1.3 Our approach", "methods"),
        ("2.1. Experimental procedure", "methods"),
        ("Materials", "methods"),
        ("3 The S2ORC dataset", "methods"),
        ("6.1. Results from Linear Model", "results"),
        ("Related studies", "background"),
        ("II. RELATED AREA AND LITERATURE STUDY", "background"),
        ("Theoretical background", "background"),
        ("General discussion of the findings", "discussion"),
        ("8.2 Design implications", "discussion"),
        ("8.5 Future directions", "limitations"),
        ("Limitations of this study", "limitations"),
        ("3.6 Discussion: A Comparison of the Selection", "discussion"),
        # Topic headings stay body, however close to a kind word.
        ("Handling Worker Failures", "body"),
        ("3.2 Algorithm", "body"),
        ("Deep Learning", "body"),
        ("5.6. Case study: Multiexperiment analysis", "body"),
        ("3.2 RQ2: Can we reduce annotator workload", "body"),
        ("3.3 DESIGN GOALS", "body"),
        ("Challenges for High Variety Data", "body"),
        ("2 Survey of human evaluation practices", "body"),
        ("Consistency model", "body"),
        ("Master operation", "body"),
        # A sentence is no heading, even a short one that ends in a kind word.
        ("We now present the results.", "body"),
        ("These are our main findings", "body"),
        ("Results from the survey were mixed", "body"),
        ("The method of Smith and colleagues is used in all of our experiments", "body"),
        # Sections consumers leave out stay strict: content is never left out for a near miss.
        ("Author Contributions", "body"),
        ("Acknowledgements and results", "results"),
        ("Funding of the experiments", "body"),
        ("Referenced methods", "methods"),
        ("Authors and results", "results"),
    ],
)
def test_a_heading_with_more_words_still_names_its_kind(heading: str, kind: str) -> None:
    assert section_kind(heading) == kind


def test_an_index_written_before_a_wider_rule_reads_the_kind_its_heading_names() -> None:
    # Written by an older release, whose rule left "Study limitations" as body: no rebuild is needed.
    older = {"section": "4.3 Study limitations", "section_kind": "body"}
    assert payload_kind(older) == "limitations"
    assert payload_kind({"section": "4.3 Study limitations"}) == "limitations"
    assert payload_kind({"section": "3.3 Fault Tolerance", "section_kind": "body"}) == "body"
    assert payload_kind({"section": "Notes", "section_kind": "acknowledgements"}) == "acknowledgements"


@pytest.mark.parametrize(
    ("sentence", "bio"),
    [
        ("Jeffrey Dean (jeff@google.com) is a Google Fellow in the Systems Infrastructure Group.", True),
        ("Sanjay Ghemawat is a Distinguished Engineer at Google.", True),
        ("He received his Ph.D. from the University of Washington in 1996.", True),
        ("MapReduce is a programming model and an associated implementation.", False),
        ("The master is a single process that keeps the metadata in memory.", False),
        ("He et al. is a paper that engineers measured.", False),
    ],
)
def test_a_biography_sentence_reads_as_one(sentence: str, bio: bool) -> None:
    assert reads_as_biography(sentence) is bio


TITLE = "Tessera: Replicated Logs for Coral Reef Sensor Networks"
THANKS = (
    "We thank the Hollow Creek reef consortium for funding the coral bleaching survey, and our colleagues "
    "for their feedback on the research question, on the problem this paper addresses and why it matters, "
    "on the method, approach, data and experimental setup, and on the main results and findings."
)
BIO = (
    "Jane Roe is a Distinguished Engineer at Example Labs. She received her Ph.D. in the main results and "
    "findings of replicated logs, the research question and the method and experimental setup of sensor data."
)
REFERENCE = (
    "[1] A. Smith. The research question of replicated logs: method, approach and findings. In SOSP, 2003."
)
INTRO = (
    "The problem this paper addresses is how reef sensor networks can keep an ordered log of readings when "
    "radio links fail for hours. This research question matters because bleaching alerts need every reading."
)


def _more(subject: str) -> str:
    """Ten plain sentences about ``subject``, so that each section fills chunks of its own."""
    return " ".join(
        f"Reef station {n} of the {subject} logged {n * 7} readings an hour over {n + 2} weeks."
        for n in range(1, 11)
    )


PAPER: list[tuple[str | None, str]] = [
    ("Abstract", "Tessera keeps replicated logs of reef sensor readings across flaky radio links."),
    ("1 Introduction", INTRO + " " + _more("motivating problem")),
    (
        "2 Methods",
        "Our approach replicates each log segment to three buoys. The data come from forty sensors, and the "
        "experimental setup ran for six months on two reefs with scripted link failures. " + _more("method"),
    ),
    (
        "3 Results",
        "The main result is that Tessera lost no readings in 182 days, while the baseline lost 4.1 percent; "
        "the evaluation shows a median delay of 3.2 seconds. " + _more("evaluation"),
    ),
    (
        "4 Conclusions",
        "We conclude that segment replication makes reef logs complete; the implication for monitoring "
        "programmes is that cheap buoys suffice. A limitation is that we studied only two reefs. "
        + _more("conclusion"),
    ),
    ("ACKNOWLEDGMENTS", THANKS),
    ("ABOUT THE AUTHORS", BIO),
    ("REFERENCES", REFERENCE),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    paper = SectionedPaper(TITLE, PAPER, "tessera.pdf", date="2021-00-00 2021")
    return sectioned_library(tmp_path_factory.mktemp("section-kinds"), [paper], seed=54)


@pytest.fixture
async def client(library: Settings, tmp_path: Path) -> AsyncIterator[Client]:
    async with connect(library, home=tmp_path / "home") as connected:
        yield connected


def _words(text: str) -> str:
    return " ".join(text.split())


def _leaks(text: str) -> list[str]:
    """Pieces of thanks, biography or reference text found in ``text``."""
    flat = _words(text)
    pieces = [THANKS[:60], THANKS[-60:], BIO[:50], BIO[-50:], REFERENCE[4:60]]
    return [piece for piece in pieces if _words(piece) in flat]


async def _key(client: Client) -> str:
    found = await client.call_tool("zot_search", {"query": "Tessera replicated logs"}, raise_on_error=False)
    return str(found.structured_content["papers"][0]["key"])


@pytest.mark.slow
async def test_comprehensive_summary_never_fills_a_slot_with_thanks_bios_or_references(
    client: Client,
) -> None:
    key = await _key(client)
    result = await client.call_tool(
        "zot_summarize",
        {"query": "comprehensive summary", "item_key": key, "force_mode": "comprehensive"},
        raise_on_error=False,
    )
    assert not result.is_error, text_of(result)
    assert _leaks(text_of(result)) == [], text_of(result)
    aspects: list[dict[str, Any]] = result.structured_content["aspects"]
    question = aspects[0]
    assert question["aspect"] == "research question"
    roles = [p["role"] for p in question["passages"]]
    assert roles and all(r in ("abstract", "introduction") for r in roles), text_of(result)


@pytest.mark.slow
async def test_claim_check_never_cites_the_acknowledgements(client: Client) -> None:
    result = await client.call_tool(
        "zot_search",
        {
            "query": "the Hollow Creek reef consortium funded the coral bleaching survey",
            "force_mode": "evidence",
        },
        raise_on_error=False,
    )
    assert not result.is_error, text_of(result)
    assert _leaks(text_of(result)) == [], text_of(result)


@pytest.mark.slow
async def test_who_funded_it_is_answered_by_the_thanks_and_by_nothing_else_of_the_back_matter(
    client: Client,
) -> None:
    """The thanks are never a passage, except for the one question they answer: who funded the work (in
    a targeted answer and in the default search answer alike, and first)."""
    key = await _key(client)
    targeted = await client.call_tool(
        "zot_summarize",
        {"query": "who funded the coral bleaching survey?", "item_key": key, "force_mode": "targeted"},
        raise_on_error=False,
    )
    assert not targeted.is_error, text_of(targeted)
    assert _leaks(text_of(targeted)) == [THANKS[:60], THANKS[-60:]], text_of(targeted)
    found = await client.call_tool(
        "zot_search",
        {"query": "Which grant supported the Tessera reef sensor log work?"},
        raise_on_error=False,
    )
    first = next(line for line in text_of(found).splitlines() if line.startswith("   ["))
    assert "Hollow Creek reef consortium" in first, text_of(found)
    assert _leaks(text_of(found)) == [THANKS[:60], THANKS[-60:]], text_of(found)


@pytest.mark.slow
async def test_a_question_sharing_the_thanks_words_is_not_answered_from_them(client: Client) -> None:
    result = await client.call_tool(
        "zot_search",
        {"query": "What were the main results and findings of Tessera's method and experimental setup?"},
        raise_on_error=False,
    )
    assert not result.is_error, text_of(result)
    assert _leaks(text_of(result)) == [], text_of(result)
