"""The review matrix chooses a cell's candidates by the role of the section they sit in (issue 54): each
question kind is answered from its own sections (the problem from the abstract and introduction, a count
from the paper's own setup), never from thanks, reference entries or biographies, and no two candidates
are the same sentence. Through a real MCP client on real PDFs (pdf_factory's sectioned papers), indexed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.services.paper_reading.roles import FRONT, paper_sentences
from tests.conftest import (
    SectionedPaper,
    call_tool,
    sectioned_library,
    text_of,
)

PROBLEM_Q = "What problem does the paper address?"
COUNT_Q = "How many machines were used in the experiments?"

# The problem statement in the abstract and introduction; a decoy with the question's words in an
# implementation section, in the thanks and in a reference entry left in the body.
LANTERN_PROBLEM = (
    "Tide gauges on remote piers drop their readings whenever the cellular uplink fails, and operators "
    "cannot tell which hours are missing."
)
LANTERN_INTRO = (
    "Gaps in tide records corrupt storm-surge forecasts, and most pier stations upload over one fragile "
    "cellular link that fails for days."
)
DECOY = (
    "The implementation addresses the problem of scarce flash memory on each gauge, and it solves this "
    "problem of memory with a ring buffer that addresses pages by hour."
)
THANKS = (
    "We thank the Harbour Trust for discussions of the problem this paper addresses and for the pier access."
)
ENTRY = "[7] R. Alvarez, K. Mori. The problem of tide gauge gaps addressed. In Proc. OCEANS, 2017."


def _filler(subject: str, n: int = 6) -> str:
    return " ".join(
        f"Station {k} of the {subject} reported {k * 11} readings on day {k + 3} of the trial."
        for k in range(n)
    )


LANTERN: list[tuple[str | None, str]] = [
    ("Abstract", LANTERN_PROBLEM + " Lantern buffers readings on the gauge and backfills them later."),
    ("1 Introduction", LANTERN_INTRO + " " + _filler("introduction")),
    ("2 Design", "Lantern keeps an hourly digest of readings on every gauge. " + _filler("design")),
    ("3 Implementation", DECOY + " " + _filler("implementation")),
    ("4 Evaluation", "Lantern recovered every missing hour in the field trial. " + _filler("evaluation")),
    ("5 Notes", THANKS + " " + ENTRY),
]
# No "Abstract" heading: the first page's text before the first heading is the abstract.
HERON_PROBLEM = (
    "Heron studies why river sonar surveys miss juvenile salmon hidden under floating debris, which "
    "biases the counts that fishery quotas rely on."
)
HERON: list[tuple[str | None, str]] = [
    (None, HERON_PROBLEM + " Heron pairs each sonar ping with a drone image of the surface."),
    ("1 Background", _filler("background survey")),
    (
        "2 Implementation",
        "The problem the implementation addresses is the drone's short battery life, which the code "
        "solves by addressing images in batches. " + _filler("implementation"),
    ),
    ("3 Results", "Heron found 31 percent more juveniles than sonar alone. " + _filler("results")),
]
# A count in a related-work sentence against the paper's own setup.
CITED_COUNT = (
    "In their experiments, Okafor et al. [4] used a total of 512 machines to index gauge archives of a "
    "similar size."
)
OWN_COUNT = "We ran all experiments on 24 machines in two racks of our laboratory."
KESTREL: list[tuple[str | None, str]] = [
    (
        "Abstract",
        "Kestrel indexes tide gauge archives so that a surge forecaster can query a decade at once.",
    ),
    (
        "1 Introduction",
        "Surge forecasts need long gauge records. " + CITED_COUNT + " " + _filler("motivation"),
    ),
    ("3 Experimental Setup", OWN_COUNT + " " + _filler("setup", 3)),
    ("4 Results", "Kestrel answered a decade query in 4 seconds. " + _filler("results", 3)),
]
PAPERS = {
    "Lantern: backfilling tide gauge gaps": LANTERN,
    "Heron: sonar and drones for juvenile salmon": HERON,
    "Kestrel: indexing tide gauge archives": KESTREL,
}


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    papers = [
        SectionedPaper(title, sections, f"paper{n}.pdf", date="2022-00-00 2022")
        for n, (title, sections) in enumerate(PAPERS.items())
    ]
    return sectioned_library(
        tmp_path_factory.mktemp("matrix-roles"), papers, seed=54, collection="Field studies"
    )


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


def _cells(text: str) -> dict[str, list[list[str]]]:
    """Each row's cells (by the row's title), each cell its candidates' texts, best first."""
    rows: dict[str, list[list[str]]] = {}
    current: list[list[str]] = []
    for line in text.splitlines():
        if re.match(r"^\d+\. \[", line):
            current = rows.setdefault(next(t for t in PAPERS if t in line), [])
        elif re.match(r"^\s+Q\d+ ", line):
            current.append([line.split(": ", 1)[-1]])
        elif re.match(r"^\s+or ", line) and current:
            current[-1].append(line.split(": ", 1)[-1])
    return rows


def _has(candidate: str, sentence: str) -> bool:
    return _words(sentence)[:60] in _words(candidate)


@pytest.mark.slow
async def test_the_problem_comes_from_the_abstract_or_introduction_never_thanks_or_references(
    library: Settings,
) -> None:
    result = await call_tool(
        library, "zot_summarize", questions=[PROBLEM_Q], collection="Field studies", force_mode="matrix"
    )
    text = text_of(result)
    rows = _cells(text)
    assert set(rows) == set(PAPERS), text
    lantern, heron = (
        rows["Lantern: backfilling tide gauge gaps"][0],
        rows["Heron: sonar and drones for juvenile salmon"][0],
    )
    assert _has(lantern[0], LANTERN_PROBLEM) or _has(lantern[0], LANTERN_INTRO), text
    assert _has(heron[0], HERON_PROBLEM), text  # the abstract found by its place, with no heading
    for cell in (lantern, heron):
        assert not _has(cell[0], DECOY), text  # the section's role outweighs the question's words
        for candidate in cell:
            assert not any(_has(candidate, s) for s in (THANKS, ENTRY[4:])), text
        assert len({_words(c) for c in cell}) == len(cell), text


@pytest.mark.slow
async def test_a_count_comes_from_the_papers_own_setup_not_from_cited_work(library: Settings) -> None:
    result = await call_tool(
        library, "zot_summarize", questions=[COUNT_Q], collection="Field studies", force_mode="matrix"
    )
    text = text_of(result)
    kestrel = _cells(text)["Kestrel: indexing tide gauge archives"][0]
    assert _has(kestrel[0], OWN_COUNT) and kestrel[0].endswith("→ 24 machines"), text
    row = next(r for r in result.structured_content["rows"] if r["title"].startswith("Kestrel"))
    assert row["cells"][0]["quantity"]["value"] == 24


def test_the_first_pages_text_before_any_heading_is_the_front() -> None:
    pages = [
        (1, "A Title In Capitals\nThis abstract states the problem of missing readings in tide records.\n"
            "1 Introduction\nGauges fail often and nobody notices the gaps for weeks at a time."),
        (2, "2 Method\nWe buffer readings on each gauge and upload them when the link returns."),
    ]  # fmt: skip
    kinds = [(s.text.split("states")[0][-14:], s.kind) for s in paper_sentences(pages)]
    assert kinds == [
        ("This abstract ", FRONT),
        ("Gauges fail often and nobody notices the gaps for weeks at a time."[-14:], "introduction"),
        ("n the link returns."[-14:], "methods"),
    ], kinds


@pytest.mark.parametrize(
    ("sentence", "kind"),
    [
        (THANKS, "acknowledgements"),
        (
            "This work was supported by the European Commission under grant agreement 101017.",
            "acknowledgements",
        ),
        (ENTRY, "references"),
        ("Smith, J., & Jones, K. (2019). Gauges at sea. Journal of Tides, 12(3), 45-67.", "references"),
        ("Jane Roe is a Distinguished Engineer at Example Labs.", "biography"),
        ("Our design is supported by the results of the field trial.", "body"),
        ("[7] showed that gauges fail in storms, and we confirm it.", "body"),
    ],
)
def test_thanks_reference_entries_and_biographies_are_known_by_how_they_read(
    sentence: str, kind: str
) -> None:
    pages = [
        (1, "Abstract\nThe abstract of the paper says what it does in a sentence."),
        (2, f"3 Field Notes\n{sentence}"),
    ]
    assert paper_sentences(pages)[-1].kind == kind


def test_a_subsection_takes_its_sections_kind(tmp_path: Path) -> None:
    pages = [(3, "4 Evaluation\nWe measured the delay of every upload.\n4.2 Storm Days\n"
                 "On storm days the delay grew to an hour.")]  # fmt: skip
    assert [s.kind for s in paper_sentences(pages)] == ["results", "results"]
