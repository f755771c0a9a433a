"""A figure or table asked for by what it shows, with no paper named ("the execution overview figure"):
the papers whose indexed captions hold the description are found, never a paper whose title merely looks
like the words. One clear match is shown; several are asked back, each with its figure; none is said,
with how to go on."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from agent_zot.config import Settings
from agent_zot.services.routing import route
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, guard_database, index_library, library_settings, text_of
from tests.services.summarize.test_figures import TITLE as GROWTH_TITLE
from tests.services.summarize.test_figures import images_of, paper_pdf

MAPREDUCE = "MapReduce: Simplified Data Processing on Large Clusters"
FUZZING = "Efficient Online Fuzzing of Executables"  # "execution" is close to its "Executables"
YEAST = "Yeast cultures under heat stress"


def figure_pdf(body: str, caption: str) -> bytes:
    """One page: a paragraph citing the figure, a drawn box (the figure) and its caption under it."""
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(72, 60)
    pdf.multi_cell(450, 13, body)
    pdf.rect(150, 130, 300, 150, style="D")
    pdf.line(150, 130, 450, 280)
    pdf.set_xy(72, 300)
    pdf.multi_cell(450, 13, caption)
    return bytes(pdf.output())


def build(root: Path) -> Settings:
    b = ZoteroLibraryBuilder(root / "zotero")
    papers = [
        (
            MAPREDUCE,
            ("Jeffrey", "Dean"),
            "3 Implementation. Figure 1 shows the overall flow of a MapReduce operation in our implementation.",
            "Figure 1: Execution overview",
        ),
        (
            FUZZING,
            ("Ana", "Fuzzer"),
            "4 Evaluation. Figure 1 compares the fuzzers on the benchmark programs over a day.",
            "Figure 1: Coverage of the benchmark programs over time for each fuzzer.",
        ),
        (
            YEAST,
            ("Bea", "Brewer"),
            "2 Results. Figure 1 shows that the yeast cultures grow more slowly under heat stress.",
            "Figure 1: Growth rate of the yeast cultures per hour at three temperatures.",
        ),
    ]
    for title, author, body, caption in papers:
        item = b.add_item("journalArticle", title=title, creators=[author], date="2020")
        b.add_attachment(item, filename=f"{author[1]}.pdf", content=figure_pdf(body, caption))
    growth = b.add_item("journalArticle", title=GROWTH_TITLE, creators=[("Ada", "Grower")], date="2021")
    b.add_attachment(growth, filename="grower2021.pdf", content=paper_pdf())
    db = guard_database(b.build())
    return library_settings(db.parent, root)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("figure-lookup")
    return index_library(build(root), root / "home")


@pytest.fixture(scope="module")
def unindexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return build(tmp_path_factory.mktemp("figure-lookup-bare"))


def test_a_figure_described_by_what_it_shows_routes_to_figures() -> None:
    for query in ("the execution overview figure", "the growth rate diagram", "the table of final sizes"):
        assert route("zot_summarize", query).mode == "figures", query


@pytest.mark.slow
async def test_the_one_paper_whose_caption_fits_is_shown_with_that_figure(
    indexed: Settings, tmp_path: Path
) -> None:
    result = await call_tool(indexed, "zot_summarize", home=tmp_path, query="the execution overview figure")
    text = text_of(result)
    assert not result.is_error, text
    assert MAPREDUCE in text and "Figure 1 (p. 1): Execution overview" in text, text
    assert FUZZING not in text and len(images_of(result)) == 1
    assert result.structured_content["element"]["number"] == "1"


@pytest.mark.slow
async def test_the_figure_argument_alone_describes_the_figure(indexed: Settings, tmp_path: Path) -> None:
    """``figure`` is a typed argument: with no query and no paper it is the description, as in a query."""
    result = await call_tool(indexed, "zot_summarize", home=tmp_path, figure="the execution overview")
    text = text_of(result)
    assert not result.is_error, text
    assert MAPREDUCE in text and "Figure 1 (p. 1): Execution overview" in text, text
    assert result.structured_content["route"]["mode"] == "figures"


@pytest.mark.slow
async def test_a_table_by_its_caption_words_comes_back_as_rows(indexed: Settings, tmp_path: Path) -> None:
    result = await call_tool(
        indexed, "zot_summarize", home=tmp_path, query="show me the table of final sizes"
    )
    text = text_of(result)
    assert not result.is_error and GROWTH_TITLE in text and "| Beta | 8.1 | 10 |" in text, text


@pytest.mark.slow
async def test_several_papers_with_a_fitting_figure_are_asked_back_with_their_figures(
    indexed: Settings, tmp_path: Path
) -> None:
    result = await call_tool(indexed, "zot_summarize", home=tmp_path, query="show me the growth rate figure")
    text = text_of(result)
    assert result.is_error, text
    assert YEAST in text and GROWTH_TITLE in text and "Figure 1" in text, text
    assert MAPREDUCE not in text and FUZZING not in text


@pytest.mark.slow
async def test_no_paper_with_such_a_figure_is_said_with_how_to_go_on(
    indexed: Settings, tmp_path: Path
) -> None:
    result = await call_tool(
        indexed, "zot_summarize", home=tmp_path, query="the protein folding energy diagram"
    )
    text = text_of(result)
    assert result.is_error and "No figure" in text and "caption" in text, text
    assert "name the paper" in text.lower()
    assert not any(title in text for title in (MAPREDUCE, FUZZING, YEAST, GROWTH_TITLE))


@pytest.mark.slow
async def test_a_named_paper_is_still_the_one_asked_about(indexed: Settings, tmp_path: Path) -> None:
    result = await call_tool(
        indexed, "zot_summarize", home=tmp_path, query="the growth rate figure of the yeast cultures paper"
    )
    text = text_of(result)
    assert not result.is_error and YEAST in text and "Growth rate of the yeast cultures" in text, text


async def test_without_an_index_no_paper_is_guessed_from_the_description(
    unindexed: Settings, tmp_path: Path
) -> None:
    result = await call_tool(unindexed, "zot_summarize", home=tmp_path, query="the execution overview figure")
    text = text_of(result)
    assert result.is_error and "update-db" in text and "name the paper" in text.lower(), text
    assert FUZZING not in text


@pytest.mark.parametrize("query", ["list all figures", "list the figures and tables"])
async def test_a_figure_list_with_no_paper_asks_which_paper(
    unindexed: Settings, tmp_path: Path, query: str
) -> None:
    result = await call_tool(unindexed, "zot_summarize", home=tmp_path, query=query)
    text = text_of(result)
    assert result.is_error and text.startswith("Which paper?") and "names no paper" in text, text
