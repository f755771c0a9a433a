"""A query that gives a paper's title finds that paper first (index/titled.py): in a library of one field,
where every paper shares the title's words, through the MCP client; and the rules that say when words are
a title."""

from __future__ import annotations

from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.index.store import Hit
from agent_zot.index.titled import channels_finding, titled
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import connect, guard_database, index_library, library_settings, text_of
from tests.pdf_factory import pages_pdf

ONLY_PPG = "Blood Pressure Estimation Using Photoplethysmography Only: A Comparison of Three Learners"
AND_TITLE = "Photoplethysmography and Deep Learning: Ranking Hypertension Risk"
CLAIM_TITLE = "Grazing Lowers Soil Carbon in Dry Grasslands"


def record(key: str, title: str) -> Hit:
    return Hit(id=key, score=0.5, payload={"item_key": key, "title": title, "kind": "metadata"})


def test_a_paper_brought_in_by_its_record_is_found_by_the_channels_that_found_the_record() -> None:
    by_channel = {"dense": [record("A", ONLY_PPG)], "sparse": [record("B", AND_TITLE), record("A", ONLY_PPG)]}
    assert channels_finding("A", by_channel) == {"vector", "sparse"}
    assert channels_finding("B", by_channel) == {"sparse"}
    assert channels_finding("A", {"dense": [record("A", ONLY_PPG)]}) == {"vector"}


def test_a_query_holding_a_whole_title_names_its_paper() -> None:
    records = [record("A", "Growth Model Interpretation of Planet Size Distribution")]
    assert titled("summarize growth model interpretation of planet size distribution", records) == records[0]
    assert titled("planet size distribution", records) is None  # a topic's words, not the title


def test_a_query_that_is_a_main_title_names_its_paper_and_one_holding_it_needs_more_words() -> None:
    records = [record("A", "InstaBP Monitoring: Cuff-less Blood Pressure on a Smartphone")]
    assert titled("InstaBP monitoring", records) == records[0]  # the query is the main title
    assert titled("how accurate is InstaBP monitoring?", records) is None  # two words held among others
    longer = [record("B", "Blood Pressure Estimation Using Photoplethysmography Only: A Comparison")]
    assert titled("summarize blood pressure estimation using photoplethysmography only", longer) == longer[0]


def test_a_whole_title_names_its_paper_before_another_papers_main_title() -> None:
    book = record("BOOK", "Kepler Data Processing Handbook")
    chapter = record("CHAPTER", "Kepler Data Processing Handbook: Transiting Planet Search")
    assert titled("Kepler Data Processing Handbook", [chapter, book]) == book
    assert titled("Kepler Data Processing Handbook: Transiting Planet Search", [book, chapter]) == chapter


def test_of_copies_under_one_title_the_one_the_passages_ranked_first_is_named() -> None:
    copies = [
        record("COPY1", "CARMENES instrument overview"),
        record("COPY2", "CARMENES instrument overview"),
    ]
    assert titled("CARMENES instrument overview", copies, ["X", "COPY2", "COPY1"]) == copies[1]


def test_a_claim_is_a_title_only_when_it_is_the_title_alone() -> None:
    records = [record("A", CLAIM_TITLE)]
    assert titled(CLAIM_TITLE.lower() + ".", records, alone=True) == records[0]
    assert titled(f"Does the evidence say that {CLAIM_TITLE.lower()}?", records, alone=True) is None
    assert titled(f"Does the evidence say that {CLAIM_TITLE.lower()}?", records) == records[0]


# Neighbours whose every page says the words of the titles asked for below, far more often than the papers
# that bear those titles do.
_NEIGHBOUR = (
    "Blood pressure estimation using photoplethysmography is studied here. Our blood pressure estimation "
    "uses photoplethysmography only, and deep learning on photoplethysmography ranks hypertension risk. "
    "Photoplethysmography and deep learning estimate blood pressure from the pulse wave of each subject."
)


_ASIDE = (
    "Recordings were taken in an operating theatre with a patient monitor sampling at one hundred hertz, "
    "segmented into five-second windows, filtered, and checked by hand for motion and clipping."
)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("titled")
    b = ZoteroLibraryBuilder(root / "library", shape="z7", seed=11)
    for n, title in enumerate(
        [
            "Blood Pressure Estimation Using Photoplethysmography on the Wrist",
            "Cuffless Blood Pressure Estimation Based on Photoplethysmography",
            "Novel Blood Pressure Estimation Using a Single Photoplethysmography Feature",
            "Continuous Blood Pressure Estimation Using Photoplethysmography and Deep Learning",
        ]
    ):
        item = b.add_item("journalArticle", title=title, date=f"201{n}-00-00 201{n}", abstractNote=_NEIGHBOUR)
        pages = [f"{_NEIGHBOUR} Study {n}, part {part}." for part in range(3)]
        b.add_attachment(item, filename=f"n{n}.pdf", content=pages_pdf(root / f"n{n}.pdf", pages))
    papers = {
        ONLY_PPG: "Three learners were compared on 32 surgical cases: a regression tree, a support vector "
        "machine and linear regression. The regression tree met the accuracy standard for devices.",
        AND_TITLE: "A pretrained convolutional network classified scalograms of 121 recordings into three "
        "classes of risk, with F-scores between 80 and 93 percent.",
        CLAIM_TITLE: "Across 40 paddocks, grazed plots held less carbon in the topsoil than fenced plots after "
        "ten years, most of all where rainfall was lowest.",
    }
    for n, (title, text) in enumerate(papers.items()):
        # a long structured abstract, as journals print them, that barely says the title's words
        abstract = "\n\n".join(f"{head}\n{text} {_ASIDE}" for head in ("Introduction", "Methods", "Results"))
        item = b.add_item("journalArticle", title=title, date=f"202{n}-00-00 202{n}", abstractNote=abstract)
        b.add_attachment(item, filename=f"p{n}.pdf", content=pages_pdf(root / f"p{n}.pdf", [text, text]))
    db = guard_database(b.build())
    return index_library(library_settings(db.parent, root), root / "home")


@pytest.fixture
async def client(library: Settings, tmp_path: Path) -> AsyncIterator[Client]:
    async with connect(library, home=tmp_path / "home") as connected:
        yield connected


async def search(client: Client, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool("zot_search", arguments, raise_on_error=False)
    assert not result.is_error, text_of(result)
    assert isinstance(result.structured_content, dict)
    return result.structured_content


@pytest.mark.slow
@pytest.mark.parametrize(
    "query", [ONLY_PPG, ONLY_PPG.split(":")[0], f"papers titled {ONLY_PPG.split(':')[0]}"]
)
async def test_a_title_finds_its_paper_first_among_papers_that_say_its_words_more(
    client: Client, query: str
) -> None:
    data = await search(client, query=query)
    titles = [paper["title"] for paper in data["papers"]]
    assert titles[0] == ONLY_PPG, titles
    # the neighbours still follow: the title adds its paper, it does not hide the rest
    assert len(titles) > 3


@pytest.mark.slow
async def test_a_title_that_reads_as_two_topics_is_searched_whole(client: Client) -> None:
    data = await search(client, query=AND_TITLE)
    assert data["papers"][0]["title"] == AND_TITLE
    assert data["route"]["subqueries"] == [] and "title" in data["route"]["reason"]
    split = await search(client, query="photoplethysmography and pulse wave analysis")
    assert split["route"]["subqueries"], "a query naming two topics is still searched as two"


@pytest.mark.slow
async def test_a_title_that_reads_as_a_claim_is_searched_unless_a_claim_check_is_asked_for(
    client: Client,
) -> None:
    data = await search(client, query=CLAIM_TITLE)
    assert data["route"]["mode"] == "fast" and "title" in data["route"]["reason"]
    assert data["papers"][0]["title"] == CLAIM_TITLE
    checked = await search(client, query=CLAIM_TITLE, force_mode="evidence")
    assert checked["route"]["mode"] == "evidence" and "claim" in checked
    claim = await search(client, query="grazing lowers soil carbon")
    assert claim["route"]["mode"] == "evidence", "a claim that is no paper's title is still checked"


@pytest.mark.slow
async def test_a_title_outside_the_filters_is_not_brought_in(client: Client) -> None:
    data = await search(client, query=ONLY_PPG, year_max=2015)
    assert ONLY_PPG not in [paper["title"] for paper in data["papers"]]
