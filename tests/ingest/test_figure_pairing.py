"""Which rows and caption belong to which table (issue 54): a table is named by its own caption's number
(Roman "Table II" too), gets the region on its caption's side, and its rows are never glued into its
caption; "Cited in" comes from the body text, not from inside a figure or table; a label alone on its line
takes the caption text set a little below it. PDFs are written with fpdf2; regions come from the real
layout detector, or are given as the detector reports them."""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from agent_zot.config import Settings
from agent_zot.ingest.figures import Element, attach_regions, inventory
from agent_zot.ingest.layout import Region
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, guard_database, library_settings

TITLE = "Tablet servers of a distributed storage system"
BODY = (
    "The measurements were repeated on every subject over three sessions and the averages are reported "
    "with their standard deviations in the sections that follow."
)
CLUSTERS = ["Servers    Clusters   Share", "0..19      259        0.64", "20..49     47         0.12"]
TABLES = ["Project    Size TB    Cells", "Crawl      800        9.1", "Analytics  20         0.5"]


def _pdf() -> FPDF:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    return pdf


def _prose(pdf: FPDF, top: float, text: str = BODY) -> None:
    pdf.set_font("Times", size=10)
    pdf.set_xy(72, top)
    pdf.multi_cell(450, 13, text)


def _rows(pdf: FPDF, top: float, lines: list[str]) -> float:
    """A table set as one text run a row (as pdfium reports many), tight under what is above it."""
    pdf.set_font("Courier", size=9)
    for line in lines:
        pdf.text(150, top, line)
        top += 11
    return top


def roman_tables_pdf() -> bytes:
    """Two tables as IEEE sets them: "TABLE II" on a line of its own over its title, the rows right under
    the title, then "TABLE III" and its rows."""
    pdf = _pdf()
    _prose(pdf, 50, "The clusters are described in Table II and the tables in Table III. " + BODY)
    pdf.set_font("Times", size=9)
    pdf.text(270, 125, "TABLE II")
    pdf.text(190, 136, "DISTRIBUTION OF TABLET SERVERS IN CLUSTERS")
    bottom = _rows(pdf, 145, CLUSTERS)
    pdf.set_font("Times", size=9)
    pdf.text(268, bottom + 10, "TABLE III")
    pdf.text(190, bottom + 21, "CHARACTERISTICS OF TABLES IN PRODUCTION")
    bottom = _rows(pdf, bottom + 30, TABLES)
    _prose(pdf, bottom + 20)
    return bytes(pdf.output())


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("pairing")
    builder = ZoteroLibraryBuilder(root / "zotero")
    item = builder.add_item("conferencePaper", title=TITLE, creators=[("Fay", "Chang")], date="2006")
    builder.add_attachment(item, filename="chang2006.pdf", content=roman_tables_pdf())
    db = guard_database(builder.build())
    return library_settings(db.parent, root)


async def test_table_ii_shows_its_own_rows_and_a_clean_caption(library: Settings, tmp_path: Path) -> None:
    result = await call_tool(library, "zot_summarize", home=tmp_path, query=TITLE, figure="Table II")
    text = result.content[0].text
    assert "\nTable II (p. 1): DISTRIBUTION OF TABLET SERVERS IN CLUSTERS\n" in text, text
    assert "| Servers | Clusters | Share |" in text and "| 259 | 0.64 |" in text
    assert "Crawl" not in text and "TABLE III" not in text  # not the next table's rows
    assert result.structured_content["element"]["caption"].endswith("IN CLUSTERS")


async def test_a_roman_table_is_found_by_its_arabic_number_and_named_as_printed(
    library: Settings, tmp_path: Path
) -> None:
    result = await call_tool(library, "zot_summarize", home=tmp_path, query=TITLE, figure="Table 3")
    text = result.content[0].text
    assert "\nTable III (p. 1): CHARACTERISTICS OF TABLES IN PRODUCTION\n" in text, text
    assert "| Crawl | 800 | 9.1 |" in text and "Servers" not in text


def test_a_table_is_not_cited_by_the_next_tables_number_or_its_own_rows(tmp_path: Path) -> None:
    path = tmp_path / "roman.pdf"
    path.write_bytes(roman_tables_pdf())
    found = inventory(path, use_layout=False)
    table = found.find("table", "II")
    assert table is not None
    # "TABLE III" is no mention of Table II, and the rows under a caption are no sentence citing it
    assert [sentence for _, sentence in table.citing] == [
        "The clusters are described in Table II and the tables in Table III."
    ]


def _ruled(pdf: FPDF, top: float, rows: list[tuple[str, str, str]]) -> float:
    pdf.set_xy(72, top)
    with pdf.table(width=300, col_widths=(150, 75, 75), text_align="LEFT", line_height=13, align="LEFT") as t:
        for row in rows:
            cells = t.row()
            for value in row:
                cells.cell(value)
    return pdf.get_y()


def test_a_captions_sentence_ends_before_its_tables_header_row(tmp_path: Path) -> None:
    """ "Table 3: … production." set right over a ruled table: the header row's first cell is no part of
    the caption, and stays the first row."""
    pdf = _pdf()
    _prose(pdf, 50)
    pdf.set_font("Helvetica", size=9)
    pdf.set_xy(72, 120)
    pdf.multi_cell(450, 11, "Table 3: Characteristics of tables in production.")
    bottom = _ruled(pdf, pdf.get_y() + 2, [("Project", "Size TB", "Cells"), ("Crawl", "800", "9.1")])
    _prose(pdf, bottom + 20)
    path = tmp_path / "ruled.pdf"
    pdf.output(str(path))

    table = inventory(path, use_layout=False).find("table", "3")

    assert table is not None and table.caption == "Table 3: Characteristics of tables in production."


def _table(number: int, top: float) -> Element:
    return Element("table", str(number), 1, f"Table {number}: Results.", caption_box=(100, top, 400, top + 9))


@pytest.mark.parametrize(
    ("captions", "regions", "expected"),
    [
        # captions above their tables; the first table ends 3 pt above the second caption
        ([_table(1, 100), _table(2, 200)], [(90, 116, 410, 197), (90, 216, 410, 300)], [1, 2]),
        # captions below their tables; the second table starts 5 pt under the first caption
        ([_table(1, 200), _table(2, 320)], [(90, 100, 410, 196), (90, 214, 410, 316)], [1, 2]),
    ],
)
def test_each_caption_gets_the_region_on_its_side(
    captions: list[Element], regions: list[tuple[float, float, float, float]], expected: list[int]
) -> None:
    found = [Region("table", box, 0.9) for box in regions]

    attach_regions(captions, found, (595.0, 842.0), 1)

    assert [found.index(next(r for r in found if r.box == e.box)) + 1 for e in captions] == expected


def test_a_region_that_holds_its_caption_at_its_top_is_that_tables() -> None:
    """The detector often draws a table's box around the caption over it: that table's, not the
    caption's below."""
    tables = [_table(2, 120), _table(3, 196)]
    found = [Region("figure", (139, 116, 404, 186), 0.7)]

    attach_regions(tables, found, (595.0, 842.0), 1)

    assert tables[0].box == (139, 129, 404, 186) and tables[1].box is None  # less its caption


def test_cited_in_comes_from_the_body_not_from_inside_a_figure(tmp_path: Path) -> None:
    pdf = _pdf()
    _prose(pdf, 50, "Figure 1 shows the read path of a tablet server. " + BODY)
    pdf.set_font("Helvetica", size=8)
    for left, label in ((110, "memtable"), (230, "Figure 1 read op"), (370, "on disk.")):
        pdf.rect(left, 140, 100, 40)
        pdf.text(left + 8, 163, label)
    pdf.set_font("Times", size=9)
    pdf.text(72, 215, "Figure 1: Tablet representation and the read path.")
    _prose(pdf, 240)
    path = tmp_path / "figure.pdf"
    pdf.output(str(path))

    figure = inventory(path, use_layout=False).find("figure", "1")

    assert figure is not None
    assert [sentence for _, sentence in figure.citing] == ["Figure 1 shows the read path of a tablet server."]


def test_a_label_alone_takes_the_caption_set_below_it(tmp_path: Path) -> None:
    """ "FIG. 1." on a line of its own under the drawing, its caption text a few lines further down."""
    pdf = _pdf()
    _prose(pdf, 50)
    pdf.rect(200, 120, 200, 120)
    pdf.set_font("Times", size=9)
    pdf.text(285, 258, "FIG. 1.")
    pdf.text(250, 284, "Commutativity property of schedules.")
    _prose(pdf, 320)
    path = tmp_path / "label.pdf"
    pdf.output(str(path))

    figure = inventory(path, use_layout=False).find("figure", "1")

    assert figure is not None and figure.caption == "FIG. 1. Commutativity property of schedules."
