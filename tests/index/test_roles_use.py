"""Summaries and the claim check choose sentences by role (issue 54): each comprehensive slot is filled from
its own sections (the problem from the abstract or the first page's opening text, not a later section
that talks about problems), never from thanks or biographies printed without a heading; the claim check
quotes a paper's own abstract sentence and never a reference entry, a caption, or a paper that shares one
word with the claim. Real PDFs (pdf_factory), a real library and index, fastmcp's in-memory client."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.index.sections import sentence_kinds, sentence_role
from tests.conftest import (
    SectionedPaper,
    connect,
    sectioned_library,
    text_of,
)

LATTICE = "Lattice: Simplified Batch Processing on Large Clusters"
# The front: no "Abstract" heading, as many PDFs print it.
PROBLEM = (
    "The problem we address is that programmers without experience of parallel systems cannot easily use "
    "the resources of a large distributed system."
)
OWN = "Lattice runs on large clusters of commodity PCs and processes many terabytes of data every day."
FRONT = f"Lattice is a programming model for processing and generating large data sets. {PROBLEM} {OWN}"
# A later section full of the research question's words: the report's "§6 Experience" as the question.
EXPERIENCE = (
    "Our experience shows which research question and which problem each team wanted to address, the "
    "challenge and goal of each project, and why the need for a simple model mattered to them."
)
THANKS = (
    "We thank Josh Levenberg for his feedback on the problem and research question we address, on the "
    "method and approach, and on the main results and findings."
)
BIO = (
    "Jeffrey Dane (jeff@example.com) is a Fellow in the Systems Infrastructure Group at Example Labs, "
    "where he studies the research question and the results of large clusters."
)


def _more(subject: str) -> str:
    """Plain sentences about ``subject``, so that each section fills chunks of its own."""
    return " ".join(
        f"Cluster {n} of the {subject} ran {n * 7} jobs an hour over {n + 2} weeks." for n in range(1, 9)
    )


LATTICE_PAPER: list[tuple[str | None, str]] = [
    (None, FRONT),
    (
        "1 Introduction",
        "Over the past five years many special-purpose computations processed raw data. "
        + _more("introduction"),
    ),
    (
        "2 Programming Model",
        "The computation takes a set of input pairs and produces output pairs. " + _more("model"),
    ),
    ("6 Experience", EXPERIENCE + " " + _more("experience")),
    (
        "7 Conclusions",
        "We conclude that restricting the programming model makes it easy to parallelize computations. "
        + _more("conclusion")
        + " "
        + THANKS
        + " "
        + BIO,
    ),
]

OCEAN = "Regional Ocean Warming under Emission Scenarios"
REFERENCE = (
    "Kumar, R., and Lee, S. 2019. Lattice jobs on clusters of commodity machines at scale. In Proceedings "
    "of the Symposium on Operating Systems, pp. 12-20."
)
CAPTION = "Figure 2: Lattice runs on commodity machines compared with ocean model runs for 2070."
ONE_WORD = "The regional ocean model runs were repeated for each of the four emission scenarios."
OCEAN_PAPER: list[tuple[str | None, str]] = [
    (None, "We project regional ocean warming for four emission scenarios. " + _more("ocean study")),
    ("2 Methods", ONE_WORD + " " + CAPTION + " " + _more("simulation")),
    ("5 Conclusions", "Warming is strongest in the north. " + _more("ocean conclusion") + " " + REFERENCE),
]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    papers = [
        SectionedPaper(LATTICE, LATTICE_PAPER, "lattice.pdf"),
        SectionedPaper(OCEAN, OCEAN_PAPER, "ocean.pdf"),
    ]
    return sectioned_library(tmp_path_factory.mktemp("roles-use"), papers, seed=55)


@pytest.fixture
async def client(library: Settings, tmp_path: Path) -> AsyncIterator[Client]:
    async with connect(library, home=tmp_path / "home") as connected:
        yield connected


def _words(text: str) -> str:
    return " ".join(text.split())


def _holds(text: str, piece: str) -> bool:
    return _words(piece)[:60] in _words(text)


async def _key(client: Client, query: str) -> str:
    found = await client.call_tool("zot_search", {"query": query}, raise_on_error=False)
    return str(found.structured_content["papers"][0]["key"])


@pytest.mark.parametrize(
    ("sentence", "role"),
    [
        ("Dean, J., and Ghemawat, S. 2004. MapReduce. In OSDI.", "references"),
        ("[3] J. Dean and S. Ghemawat.", "references"),
        ("Figure 3: Throughput of the cluster.", "caption"),
        ("arXiv:1903.10676v3 [cs.CL] 10 Sep 2019", "chrome"),
        ("This work was supported in part by NSF grant 1234.", "acknowledgements"),
        ("We thank the reviewers for their comments.", "acknowledgements"),
        # thanks with a word between ("also", "wish to"), or from one author (a book's preface)
        ("We also thank Anna Neufeld for her assistance in reformatting the code.", "acknowledgements"),
        ("We wish to thank the staff of the intensive care unit.", "acknowledgements"),
        ("I am grateful to my students, who found many errors.", "acknowledgements"),
        ("We also thought about thanking nobody in particular for the idea.", "results"),
        ("Figure 3 shows the throughput of the cluster.", "results"),
        ("The claim is supported by the data we collected in 2004.", "results"),
        ("[12] showed that clusters of commodity machines fail often.", "results"),
        ("Author Contributions: Y.L. and M.E. performed the statistical analysis.", "acknowledgements"),
        ("Conflicts of Interest: The authors declare no conflict of interest.", "acknowledgements"),
        # the statement's sentences after its head, on their own
        (
            "D.A., N.H., K.L., and R.W. conceived the study, provided directions, supervision, and/or revised "
            "the manuscript.",
            "acknowledgements",
        ),
        ("M.E. designed the study and led the investigation.", "acknowledgements"),
        ("Y.-T.Z. and K.L. analyzed the data.", "acknowledgements"),
        ("All authors approved the final manuscript.", "acknowledgements"),
        ("All authors have read and agreed to the published version of the manuscript.", "acknowledgements"),
        ("M.E. Smith et al. designed a cuffless monitor in 2015.", "results"),
        ("All authors of the cited trials used the same cuff.", "results"),
        ("Data Availability Statement: The data are on PhysioNet.", "acknowledgements"),
        ("Note: SBP refers to systolic blood pressure, DBP to diastolic.", "caption"),
        ("Note that SBP was measured at the arm of each subject.", "results"),
        # a table's note may open with a comma before the abbreviations it spells out; the body's "Note,
        # however, ..." is the body's
        ("Note, SBP refers to systolic blood pressure, PAT to pulse arrival time.", "caption"),
        ("Note, however, that the model exhibits nonphysical behavior for large speeds.", "results"),
        ("Note, we are providing the PPG segments to make comparison easier.", "results"),
        ("Funding agencies rarely pay for replication studies.", "results"),
        (
            "Faculty of Engineering, The University of Adelaide, SA 5005, Australia; derek.abbott@adelaide.edu.au",
            "chrome",
        ),
        ("The cuff (Omron HEM-7201) was placed at the upper arm of each subject.", "results"),
        # a table of contents' lines (dot leaders to a page number) are page furniture, not content
        (
            "7.1 Philosophies of Modeling . . . . . . . . . . . . . . . 201 7.1.1 Occam's Razor . . . . . . . . 201",
            "chrome",
        ),
        (
            "2.1 Probability ............................ 27 2.1.1 Probability vs. Statistics ....... 29",
            "chrome",
        ),
        ("42 3.5 Illustration ............................................", "chrome"),  # its number cut off
        # a book's imprint page: its numbers, cataloguing data and the publisher's legal notices
        ("ISBN 978-3-319-52011-7 ISBN 978-3-319-52012-4 (eBook) DOI 10.1007/978-3-319-52012-4", "chrome"),
        (
            "Library of Congress Control Number: 2016963332 © The Author(s) 2017 This work is subject to copyright.",
            "chrome",
        ),
        (
            "All rights are reserved by the Publisher, whether the whole or part of the material is concerned.",
            "chrome",
        ),
        ("The publisher remains neutral with regard to jurisdictional claims in published maps.", "chrome"),
        ("Printed on acid-free paper This Springer imprint is published by Springer Nature", "chrome"),
        (
            "The use of general descriptive names, registered names, trademarks, service marks, etc. does not imply.",
            "chrome",
        ),
        ("The advice in this book is to fit the simple model before the flexible one.", "results"),
        # a journal's first-page header (not its licence line: a page's footer may be read into a sentence)
        (
            "Contents lists available at ScienceDirect Information Sciences journal homepage: www.elsevier.com/locate/ins",
            "chrome",
        ),
        (
            "a r t i c l e i n f o Article history: Received 17 May 2018 Received in revised form 16 July 2018",
            "chrome",
        ),
        ("The history of the method goes back to the attribution of sources in the 1950s.", "results"),
        ("The library of the hospital lent us the twelve recorders used in the study.", "results"),
        ("The series converges to 1/2 . . . and so on for every later term.", "results"),
        # a list of names and places: the front matter's authors and affiliations, a series page, observers
        (
            "Petro Feketa, Humberto Stein Shiromoto, Sergey Dashkovskiy Department of Civil Engineering, "
            "University of Applied Sciences Erfurt, Altonaer Str. 25, 99085 Erfurt, Germany",
            "chrome",
        ),
        (
            "Springer Texts in Statistics Advisors: George Casella Stephen Fienberg Ingram Olkin Springer",
            "chrome",
        ),
        (
            "Vora Cepheid Observatory, Rawatbhata, India Martin Vrastak Zilina, LSO, Slovakia David E. Wright "
            "Yorick Observatory, Hampshire, UK",
            "chrome",
        ),
        # the author lines read with the title above them (no full stop between): most of its text is names
        (
            "Almost ISS property for feedback connected systems\nPetro Feketa, Humberto Stein Shiromoto, Sergey\n"
            "Department of Civil Engineering, University of Applied Sciences Erfurt, Altonaer Str.",
            "chrome",
        ),
        (
            "18.6.3 Pre-Conditioning for Feature Selection . . . . .",
            "chrome",
        ),  # a contents entry, page cut off
        # ... but not a statement full of names or acronyms, nor a title
        (
            "We compare several models, namely Convolutional Neural\nNetworks, Deep Belief Networks and Generative "
            "Adversarial\nNetworks, on the same data and report their errors here.",
            "results",
        ),
        (
            "The following methods will be discussed: Convolutional Neural Networks, Autoencoders, Recurrent "
            "Neural Networks, Deep Reinforcement Learning and Generative Adversarial Networks.",
            "results",
        ),
        (
            "Features were taken from ECG to PPG (PATRO, PATRa, PATRb, PATRS), and from ABP to PPG (PTTS).",
            "results",
        ),
        ("Evaluation of the Vibration Suppression Effect of Solar Arrays.", "results"),
        # the paper's outline of itself and its keyword lines share a question's words and answer nothing
        ("Section 3 discusses the precision of the limb-darkening calculator for transits.", "outline"),
        ("Finally, Section 5 summarizes the key points discussed in this paper.", "outline"),
        ("The remainder of the paper is structured as follows: Section 2 reviews related work.", "outline"),
        ("In Sections 2 and 3 we describe the data and the model.", "outline"),
        ("Keywords: blood pressure; photoplethysmography; deep learning", "outline"),
        ("Unified Astronomy Thesaurus concepts: Exoplanets (498); Transits (1711)", "outline"),
        ("Section 4 shows that the error halves when the window doubles.", "results"),  # a finding
        ("This section describes how the master pings every worker.", "results"),
    ],
)
def test_a_sentence_reads_as_its_role_whatever_its_heading(sentence: str, role: str) -> None:
    assert sentence_role(sentence, "results") == role


def test_a_caption_whose_label_was_split_off_is_still_a_caption() -> None:
    sentences = [
        "A total of 121 beats were analysed, as shown in Table 5.",
        "Table 5.",
        "The Pearson correlation coefficient between blood pressure and the arterial features.",
        "PATRb correlated best with systolic pressure, at -0.50.",
    ]
    kinds = sentence_kinds([("3. Results", None)] * 4, sentences, ("3. Results", "results"))
    assert kinds == ["results", "caption", "caption", "results"]


@pytest.mark.slow
async def test_summary_slots_come_from_their_roles_never_from_thanks_or_bios(client: Client) -> None:
    key = await _key(client, "Lattice batch processing")
    result = await client.call_tool(
        "zot_summarize",
        {"query": "comprehensive summary", "item_key": key, "force_mode": "comprehensive"},
        raise_on_error=False,
    )
    text = text_of(result)
    assert not result.is_error, text
    assert not _holds(text, THANKS) and not _holds(text, BIO), text
    aspects: dict[str, dict[str, Any]] = {a["aspect"]: a for a in result.structured_content["aspects"]}
    question = text.split("## Research question")[1].split("## ")[0]
    assert _holds(question, PROBLEM), text  # the front's problem statement, though no heading says so
    assert not _holds(question, EXPERIENCE), text
    roles = {p["role"] for p in aspects["research question"]["passages"]}
    assert roles <= {"abstract", "front", "introduction"}, aspects["research question"]


@pytest.mark.slow
async def test_claim_check_quotes_the_papers_own_sentence_never_references_captions_or_one_word(
    client: Client,
) -> None:
    result = await client.call_tool(
        "zot_search",
        {"query": "Lattice runs on commodity machines", "force_mode": "evidence"},
        raise_on_error=False,
    )
    text = text_of(result)
    assert not result.is_error, text
    assert _holds(text, OWN), text
    for junk in (REFERENCE, CAPTION, ONE_WORD):
        assert not _holds(text, junk), text
    # The ocean paper holds nothing but a reference entry, a caption and a sentence sharing "runs".
    assert [p["title"] for p in result.structured_content["papers"]] == [LATTICE], text
