"""A question that names what a section's heading names finds that section: `zot_summarize` targeted and
`zot_search` rank a passage whose heading (and text) fits the question above one that only mentions the
question's words in passing, through a real MCP client on a real indexed PDF."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.index.chunk_sentences import ChunkSentences
from agent_zot.index.sections import sentence_sections
from agent_zot.index.sentences import sentence_spans
from agent_zot.ingest.headings import find_headings, heading_lines
from tests.conftest import (
    SectionedPaper,
    connect,
    sectioned_library,
    text_of,
)

TITLE = "Relay: Batch Computation on Shared Clusters"
# The features list names failures, workers and handling in passing; the section that answers is headed
# "Worker Failure" and says "failed", never "failures".
FEATURES = (
    "The library offers automatic partitioning of the input, the handling of machine failures so that "
    "crashed workers are replaced, locality-aware scheduling of tasks, and status pages for workers."
)
ANSWER = "The master pings every worker periodically and marks a worker that stays silent as failed."
OFF_TOPIC = "Timing tables for the benchmark runs are printed in the appendix of the technical report."

# (heading or None, paragraph) in reading order; headings are set in bold on their own line.
PAPER: list[tuple[str | None, str]] = [
    (
        "1 Introduction",
        "Many teams run large batch computations over logs, crawled pages and sensor "
        "archives. Each computation is simple, but the input is large and must be spread over many machines. "
        "Writing the code that spreads the work, balances it and recovers from crashes hides the simple "
        "computation under a great deal of plumbing.",
    ),
    (None, FEATURES),
    (
        None,
        "We describe the interface, an implementation tuned for commodity machines, and measurements of "
        "its performance on a range of tasks run in production over several years.",
    ),
    (
        "2 Programming Model",
        "A computation takes a set of input records and produces a set of output "
        "records. The user writes two functions: one turns an input record into intermediate pairs, and the "
        "other merges all intermediate values that share a key into a smaller set of values.",
    ),
    (
        "3 Implementation",
        "Many implementations of the interface are possible; the right choice depends on "
        "the environment. This section describes one aimed at racks of commodity machines joined by switched "
        "Ethernet, with storage on inexpensive disks attached to the machines themselves.",
    ),
    (
        "3.1 Execution Overview",
        "The input is split into pieces that are processed in parallel by different "
        "machines. One copy of the program becomes the master and the rest are workers that are assigned "
        "work by the master. The master picks idle workers and assigns each one a map task or a reduce task. "
        "A worker reads its piece of the input, parses the records and buffers the intermediate pairs in "
        "memory, writing them to local disk from time to time.",
    ),
    (
        "3.2 Master Data Structures",
        "The master keeps several data structures. For each task it stores the "
        "state, which is idle, in progress or completed, and the identity of the machine running it. It also "
        "passes the locations of intermediate files from the map tasks to the reduce tasks.",
    ),
    (
        "3.3 Fault Tolerance",
        "Because the library is built to process very large inputs on hundreds or "
        "thousands of machines, it must tolerate the loss of machines gracefully and keep going.",
    ),
    (
        "Worker Failure",
        ANSWER + " Any map task a silent worker completed is reset to its initial idle state "
        "and becomes eligible for scheduling on other machines. A task in progress on that machine is reset to "
        "idle in the same way. Completed map tasks run again because their output sits on the local disk of "
        "the lost machine, while completed reduce tasks keep their output in the global file system.",
    ),
    (
        "Master Failure",
        "The master writes periodic checkpoints of its data structures. If the master task "
        "dies, a new copy starts from the last checkpointed state; since there is only one master, its loss "
        "is unlikely, and the current implementation simply aborts the computation.",
    ),
    (
        "3.4 Locality",
        "Network bandwidth is a scarce resource in this environment. The master takes the "
        "location of input files into account and tries to schedule a map task on a machine that holds a "
        "replica of its input, or failing that near one, on the same network switch.",
    ),
    (
        "4 Performance",
        "We measure the library on two computations running on a cluster of about eighteen "
        "hundred machines: a search for a rare pattern through a terabyte of records, and a sort of a "
        "terabyte of data. Both finish in a few minutes, most of it spent reading the input.",
    ),
    # a heading that names the question over a sentence that answers nothing
    ("Worker Failures in Production", OFF_TOPIC),
]


def test_a_paragraph_heading_between_two_sentences_is_a_heading() -> None:
    page = "\n".join(
        [
            "Relay: Batch Computation on Shared Clusters",  # a title opens the page: no sentence before it
            "Jane Roe and John Doe",  # an author line after a title
            "3.3 Fault Tolerance",
            "The library must tolerate the loss of machines gracefully.",
            "Worker Failure",
            "The master pings every worker periodically and marks silent ones as failed.",
            "A wrapped line ends in the middle of a sentence about",
            "Master Failure Modes",  # after a line that does not end a sentence: the same sentence
            "the master, which writes checkpoints of its state regularly.",
        ]
    )
    assert find_headings([page], [4]) == [(4, "3.3 Fault Tolerance"), (4, "Worker Failure")]


def test_a_sentence_is_under_the_last_heading_before_it_and_that_heading_under_its_parent() -> None:
    text = (
        "gracefully and keep going.\nWorker Failure\nThe master pings every worker.\nMaster Failure\n"
        "The master writes checkpoints.\n3.4 Locality\nBandwidth is scarce."
    )
    spans = sentence_spans(text, heading_lines(text))
    heads = {i: text[a:b] for i, (a, b) in enumerate(spans) if (a, b) in heading_lines(text)}
    under = sentence_sections("3.3 Fault Tolerance", heads, len(spans))
    assert under == [
        ("3.3 Fault Tolerance", None),
        ("Worker Failure", "3.3 Fault Tolerance"),
        ("Worker Failure", "3.3 Fault Tolerance"),
        ("Master Failure", "3.3 Fault Tolerance"),
        ("Master Failure", "3.3 Fault Tolerance"),
        ("3.4 Locality", None),
        ("3.4 Locality", None),
    ]


@pytest.mark.parametrize(
    ("strays", "label"),
    [
        # a first page's author lines, one with affiliation marks that reads as a numbered heading
        ("Ludi Wang ,\n1 Wei Zhou,2 Ying Xing ,1 and Xiaoguang Zhou 1\n", None),
        # a citation mark or a section number left alone on its line: no words
        ("[34].\n2.3.\n", "1. Introduction"),
    ],
)
def test_a_stray_kept_out_of_the_words_is_no_heading_to_cite_them_by(strays: str, label: str | None) -> None:
    """Author lines, citation marks and bare numbers are never a passage's words, and the sentences after
    them are still cited by the heading they are under."""
    section = label and "1. Introduction"
    text = (
        f"{strays}The prevention of hypertension has attracted increasing attention in recent years.\n"
        "2. Data Description\nThe database holds recordings from over ninety patients."
    )
    sentences = ChunkSentences({"text": text, "section": section})
    said = sentences.sentences().index(
        "The prevention of hypertension has attracted increasing attention in recent years."
    )
    assert set(range(said)) <= sentences.headings
    labels = [section for section, _ in sentences.sections]
    assert labels[said] == label
    assert labels[-1] == "2. Data Description"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    paper = SectionedPaper(TITLE, PAPER, "relay.pdf", date="2004-00-00 2004", title_in_pdf=False)
    return sectioned_library(tmp_path_factory.mktemp("headings"), [paper], seed=11)


@pytest.fixture
async def client(library: Settings, tmp_path: Path) -> AsyncIterator[Client]:
    async with connect(library, home=tmp_path / "home") as connected:
        yield connected


async def _targeted(client: Client, question: str) -> tuple[str, dict[str, Any]]:
    found = await client.call_tool("zot_search", {"query": "Relay batch computation"}, raise_on_error=False)
    key = found.structured_content["papers"][0]["key"]
    result = await client.call_tool(
        "zot_summarize", {"query": question, "item_key": key, "force_mode": "targeted"}, raise_on_error=False
    )
    assert not result.is_error, text_of(result)
    return text_of(result), result.structured_content


@pytest.mark.slow
@pytest.mark.parametrize(
    "question",
    ["how does it handle worker failures?", "How does Relay handle worker failures?"],
)
async def test_the_section_whose_heading_fits_the_question_comes_first(client: Client, question: str) -> None:
    text, data = await _targeted(client, question)
    first = next(line for line in text.splitlines() if line.startswith("1. "))
    assert ANSWER in first, text
    assert data["passages"][0]["section"] == "Worker Failure"  # cited by the heading it is under
    assert OFF_TOPIC not in first  # a heading that fits over words that do not answer is no answer


@pytest.mark.slow
async def test_search_within_the_paper_ranks_the_same_way(client: Client) -> None:
    result = await client.call_tool(
        "zot_search", {"query": "How does Relay handle worker failures?"}, raise_on_error=False
    )
    passages = text_of(result).splitlines()
    assert ANSWER in passages[2], passages


def test_a_running_header_that_numbers_an_open_section_is_no_new_section() -> None:
    """A chapter's header set atop each of its pages ("第 5 章 …", "3 Methods") lands inside a chunk of one
    of its subsections; the sentences after it stay in that subsection. The next chapter's heading moves on."""
    cjk = sentence_sections(
        "5.2.3 发射延迟的量测", {1: "第 5 章 机器人目标的精准打击", 3: "5.2.4 延迟的省略"}, 5
    )
    assert [heading for heading, _ in cjk] == ["5.2.3 发射延迟的量测"] * 3 + ["5.2.4 延迟的省略"] * 2
    english = sentence_sections("3.2 Data", {1: "3 Methods", 2: "4 Results"}, 3)
    assert [heading for heading, _ in english] == ["3.2 Data", "3.2 Data", "4 Results"]
