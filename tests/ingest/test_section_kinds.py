"""Section kinds: a heading's role decided once, and consumers that never answer from thanks, reference
lists or author biographies (issue 54), through a real MCP client on a real indexed PDF."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.ingest.section_kinds import reads_as_biography, section_kind
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
        (None, "body"),
    ],
)
def test_a_heading_names_its_section_kind(heading: str | None, kind: str) -> None:
    assert section_kind(heading) == kind


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
async def test_targeted_answer_never_quotes_the_acknowledgements(client: Client) -> None:
    key = await _key(client)
    result = await client.call_tool(
        "zot_summarize",
        {"query": "who funded the coral bleaching survey?", "item_key": key, "force_mode": "targeted"},
        raise_on_error=False,
    )
    assert _leaks(text_of(result)) == [], text_of(result)
