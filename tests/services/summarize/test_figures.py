"""A paper's figures, tables and equations (`zot_summarize` mode `figures`), through a real fastmcp client:
listed from the text layer, one shown as an MCP image cropped by the real layout detector, a table as
Markdown rows, any page as an image, and the same as resources. The PDFs are built here with fpdf2 (a
chart, a ruled table, a numbered equation) and, where present, the shared real papers."""

from __future__ import annotations

import base64
import io
import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.apps import UI_EXTENSION_ID, UI_MIME_TYPE
from fpdf import FPDF
from mcp.client.extension import advertise
from mcp.shared.exceptions import MCPError
from PIL import Image

from agent_zot.config import Settings
from agent_zot.ingest.figure_render import png_of, table_markdown
from agent_zot.ingest.figures import inventory
from agent_zot.mcp.server import build_server
from agent_zot.services import tools
from agent_zot.services.context import AppContext
from agent_zot.services.summarize.figures import target_of
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import SHARED_DATA, call_tool, guard_database, library_settings

TITLE = "Growth curves of synthetic test organisms"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
SHARED_S2ORC = SHARED_DATA / "pdfs" / "papermage__2020.acl-main.447.pdf"


def paper_pdf() -> bytes:
    """Two pages: a bar chart over its caption, a ruled table under its caption, a numbered equation, and
    sentences that cite each."""
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(72, 60)
    pdf.multi_cell(
        450,
        13,
        "1 Introduction. We grew three organisms. As shown in Figure 1, the growth rate of "
        "the first organism rises steadily over the ten days of the trial.",
    )
    pdf.set_fill_color(40, 90, 160)
    pdf.set_draw_color(0, 0, 0)
    pdf.line(120, 300, 480, 300)
    pdf.line(120, 120, 120, 300)
    for i, height in enumerate((60, 110, 150, 95, 170)):
        pdf.rect(140 + i * 65, 300 - height, 40, height, style="FD")
    pdf.set_xy(72, 315)
    pdf.multi_cell(
        450, 13, "Figure 1: Growth rate of the first organism per day of the trial, measured in millimetres."
    )
    pdf.set_xy(72, 360)
    pdf.multi_cell(450, 13, "Table 1: Final sizes of the three organisms after ten days.")
    pdf.set_xy(120, 385)
    with pdf.table(width=300, col_widths=(150, 75, 75), text_align="LEFT", line_height=16) as table:
        for row in (
            ("Organism", "Size", "Days"),
            ("Alpha", "12.5", "10"),
            ("Beta", "8.1", "10"),
            ("Gamma", "15.0", "10"),
        ):
            cells = table.row()
            for value in row:
                cells.cell(value)
    pdf.set_xy(72, 500)
    pdf.multi_cell(450, 13, "The growth follows a simple law of the form given below.")
    pdf.set_font("Helvetica", size=14)
    pdf.text(230, 540, "g = r * t + c")
    pdf.set_font("Helvetica", size=10)
    pdf.text(500, 540, "(1)")
    pdf.add_page()
    pdf.set_xy(72, 60)
    pdf.multi_cell(
        450, 13, "2 Results. Table 1 lists the final sizes of the organisms. Equation (1) fits the data well."
    )
    return bytes(pdf.output())


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("figures")
    builder = ZoteroLibraryBuilder(root / "zotero")
    item = builder.add_item("journalArticle", title=TITLE, creators=[("Ada", "Grower")], date="2021")
    builder.add_attachment(item, filename="grower2021.pdf", content=paper_pdf())
    if SHARED_S2ORC.is_file():
        s2orc = builder.add_item(
            "conferencePaper",
            title="S2ORC: The Semantic Scholar Open Research Corpus",
            date="2020",
            creators=[("Kyle", "Lo")],
        )
        builder.add_attachment(s2orc, filename="s2orc.pdf", content=SHARED_S2ORC.read_bytes())
    db = guard_database(builder.build())
    return library_settings(db.parent, root)


async def summarize(settings: Settings, home: Path, apps: bool = False, **arguments: Any) -> Any:
    extensions = [advertise(UI_EXTENSION_ID, {"mimeTypes": [UI_MIME_TYPE]})] if apps else []
    return await call_tool(settings, "zot_summarize", home=home, extensions=extensions, **arguments)


def images_of(result: Any) -> list[Image.Image]:
    return [
        Image.open(io.BytesIO(base64.b64decode(block.data)))
        for block in result.content
        if getattr(block, "type", "") == "image"
    ]


async def test_the_figures_and_tables_of_a_paper_are_listed_with_pages_and_captions(
    library: Settings, tmp_path: Path
) -> None:
    result = await summarize(library, tmp_path, query=f"list the figures and tables of '{TITLE}'")
    data, text = result.structured_content, result.content[0].text
    assert data["route"]["mode"] == "figures" and not result.is_error
    assert "- Figure 1 (p. 1): Growth rate of the first organism per day" in text
    assert "- Table 1 (p. 1): Final sizes of the three organisms after ten days." in text
    assert "Equations: (1) p. 1" in text
    assert data["counts"] == {"figure": 1, "table": 1, "equation": 1}
    assert images_of(result) == []  # a list costs no image tokens


@pytest.mark.slow
async def test_only_a_client_that_renders_apps_gets_the_lists_thumbnails(
    library: Settings, tmp_path: Path
) -> None:
    query = f"list the figures and tables of '{TITLE}'"
    plain = await summarize(library, tmp_path, query=query)
    rich = await summarize(library, tmp_path, apps=True, query=query)
    ctx = AppContext(library, home=tmp_path)
    try:
        direct = tools.call(ctx, "zot_summarize", query=query)
    finally:
        ctx.close()
    assert plain.content[0].text == direct.text == rich.content[0].text
    assert plain.structured_content == json.loads(json.dumps(direct.data))
    assert "view" not in plain.structured_content and callable(direct.view)
    data = rich.structured_content
    assert {k: v for k, v in data.items() if k != "view"} == plain.structured_content
    thumbs = data["view"]["thumbnails"]
    assert len(thumbs) == len(data["elements"]) == 3  # the figure, the table, the equation (no picture)
    kinds = [e["kind"] for e in data["elements"]]
    assert thumbs[kinds.index("equation")] is None
    for kind in ("figure", "table"):
        uri = thumbs[kinds.index(kind)]
        assert uri.startswith("data:image/png;base64,")  # drawn shapes: PNG (a photograph: JPEG)
        png = base64.b64decode(uri.split(",", 1)[1])
        assert png.startswith(PNG_SIGNATURE) and len(png) <= 60_000
        picture = Image.open(io.BytesIO(png))
        assert max(picture.size) <= 240 and min(picture.size) > 10
        if kind == "figure":
            assert picture.width > picture.height  # the chart's region, not the tall page
    assert data["view"]["pages"] == 2  # the paper's two pages: the page picker's bound


def test_without_the_layout_detector_a_thumbnail_is_the_elements_page(
    library: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_zot.ingest import layout
    from agent_zot.services.summarize.figure_thumbs import thumbnails
    from agent_zot.services.summarize.figures import cached_inventory, pdf_of

    def missing() -> None:  # as when rapid-layout is not installed
        raise layout.LayoutError("The layout detector (rapid-layout) is not installed.")

    monkeypatch.setattr(layout, "_engine", missing)
    ctx = AppContext(library, home=tmp_path)
    try:
        item = next(i for i in ctx.library().items.values() if i.title == TITLE)
        path = pdf_of(item)
    finally:
        ctx.close()
    figure = cached_inventory(path).find("figure", "1")
    assert figure is not None
    [uri] = thumbnails(path, [figure])["thumbnails"]
    picture = Image.open(io.BytesIO(base64.b64decode(uri.split(",", 1)[1])))
    assert picture.height > picture.width  # the whole A4 page, still a picture


async def test_one_figure_comes_back_as_an_image_of_its_region_with_the_sentences_citing_it(
    library: Settings, tmp_path: Path
) -> None:
    result = await summarize(library, tmp_path, query=f"what does figure 1 of '{TITLE}' show?")
    text = result.content[0].text
    [image] = images_of(result)
    assert image.height < image.width <= 1200  # the chart's wide region, not the tall page
    assert "Figure 1 (p. 1): Growth rate of the first organism" in text
    assert "Cited in:\n- p. 1: " in text and "As shown in Figure 1, the growth rate" in text
    element = result.structured_content["element"]
    assert element["as"] == "image" and element["box"] is not None and element["page"] == 1


@pytest.mark.slow
async def test_a_table_comes_back_as_markdown_rows(library: Settings, tmp_path: Path) -> None:
    result = await summarize(library, tmp_path, query=TITLE, figure="Table 1")
    text = result.content[0].text
    assert result.structured_content["route"]["mode"] == "figures"  # the argument picks the mode
    assert "| Organism | Size | Days |" in text and "| Beta | 8.1 | 10 |" in text
    assert "- p. 2: 2 Results. Table 1 lists the final sizes" in text
    assert images_of(result) == []


@pytest.mark.slow
async def test_an_equation_and_a_page_come_back_as_images(library: Settings, tmp_path: Path) -> None:
    equation = await summarize(library, tmp_path, query=f"equation 1 of '{TITLE}'")
    assert len(images_of(equation)) == 1 and "Equation (1) fits the data" in equation.content[0].text
    page = await summarize(library, tmp_path, query=f"show me page 2 of '{TITLE}' as an image")
    [image] = images_of(page)
    assert page.structured_content["page"] == 2 and image.height > image.width  # a whole A4 page


async def test_what_is_not_there_gets_an_answer_the_assistant_can_act_on(
    library: Settings, tmp_path: Path
) -> None:
    missing = await summarize(library, tmp_path, query=TITLE, figure="Figure 7")
    assert (
        missing.is_error
        and "No figure 7" in missing.content[0].text
        and "figures 1" in missing.content[0].text
    )
    nonsense = await summarize(library, tmp_path, query=TITLE, figure="the blue one")
    assert nonsense.is_error and "figure='Figure 3'" in nonsense.content[0].text
    past_end = await summarize(library, tmp_path, query=TITLE, figure="page 9")
    assert past_end.is_error and "there is no page 9" in past_end.content[0].text


@pytest.mark.slow
async def test_figures_tables_and_pages_are_resources(library: Settings, tmp_path: Path) -> None:
    ctx = AppContext(library, home=tmp_path)
    key = next(i.key for i in ctx.library().items.values() if i.title == TITLE)
    try:
        async with Client(build_server(ctx)) as client:
            templates = {t.uri_template for t in await client.list_resource_templates()}
            assert "zotero://item/{key}/figure/{number}" in templates
            for uri in (
                f"zotero://item/{key}/figure/1",
                f"zotero://item/{key}/table/1",
                f"zotero://item/{key}/page/2/image",
            ):
                [content] = await client.read_resource(uri)
                assert content.mime_type == "image/png"
                assert base64.b64decode(content.blob).startswith(PNG_SIGNATURE)
            with pytest.raises(MCPError, match="No table 4"):
                await client.read_resource(f"zotero://item/{key}/table/4")
    finally:
        ctx.close()


def test_requests_name_their_target() -> None:
    assert target_of("what does Fig. 3 show") == target_of("figure 3")
    assert target_of("TABLE II of the paper").name == "table II"
    assert target_of("eq. (4)") is None or target_of("eq. 4").name == "equation 4"
    assert target_of("page 12 as an image").name == "page 12"
    assert target_of("list the figures") is None


@pytest.mark.shared_data(SHARED_S2ORC)
@pytest.mark.slow
def test_a_real_paper_gives_its_figures_tables_and_rows() -> None:
    found = inventory(SHARED_S2ORC, use_layout=False)
    assert [e.number for e in found.of_kind("figure")] == ["1", "2", "3", "4"]
    assert [e.number for e in found.of_kind("table")] == [str(n) for n in range(1, 10)]
    table = inventory(SHARED_S2ORC, layout_pages={6}).find("table", "6")
    assert table is not None and table.box is not None
    rows = table_markdown(SHARED_S2ORC, table.page, table.box)
    assert rows is not None and "| Paper clustering | 0.93 | 0.89 |" in rows
    figure = inventory(SHARED_S2ORC, layout_pages={5}).find("figure", "2")
    assert figure is not None and figure.box is not None
    image = Image.open(io.BytesIO(png_of(SHARED_S2ORC, figure.page, figure.box)))
    assert 300 < image.width <= 1200 and image.height <= 1200


README = Path(__file__).resolve().parents[3] / "README.md"
README_LIST = "list the figures and tables of the S2ORC paper"
README_FIGURE = "what does Figure 2 of the S2ORC paper show?"
README_PAGE = "show me page 3 of the S2ORC paper as an image"


@pytest.mark.shared_data(SHARED_S2ORC)
@pytest.mark.slow
async def test_the_readme_figure_examples(library: Settings, tmp_path: Path) -> None:
    text = " ".join(README.read_text(encoding="utf-8").split())
    assert (
        README_LIST in text and README_FIGURE in text and README_PAGE in text and 'figure="Table 6"' in text
    )
    listing = await summarize(library, tmp_path, query=README_LIST)
    assert (
        "- Figure 2 (p. 5): Distribution of papers by Microsoft Academic field of study."
        in listing.content[0].text
    )
    assert listing.structured_content["counts"]["table"] == 9
    figure = await summarize(library, tmp_path, query=README_FIGURE)
    [image] = images_of(figure)
    assert image.height > image.width / 2 and "Distribution of papers" in figure.content[0].text
    table = await summarize(library, tmp_path, query="the S2ORC paper", figure="Table 6")
    assert "| Paper clustering | 0.93 | 0.89 |" in table.content[0].text
    page = await summarize(library, tmp_path, query=README_PAGE)
    assert page.structured_content["page"] == 3 and len(images_of(page)) == 1


@pytest.mark.parametrize(
    ("query", "expected"),
    [
        (
            f"show me the growth rate figure of '{TITLE}'",
            "Figure 1 (p. 1): Growth rate of the first organism",
        ),
        (f"show me the table of final sizes in '{TITLE}'", "| Beta | 8.1 | 10 |"),
    ],
)
async def test_a_figure_or_table_asked_for_by_what_it_shows(
    library: Settings, tmp_path: Path, query: str, expected: str
) -> None:
    """No number, but the words of one caption: that part, not the list of them all."""
    result = await summarize(library, tmp_path, query=query)
    assert not result.is_error and expected in result.content[0].text, result.content[0].text
    assert "element" in result.structured_content


async def test_words_no_caption_holds_still_list_the_parts(library: Settings, tmp_path: Path) -> None:
    result = await summarize(library, tmp_path, query=f"list the figures of '{TITLE}'")
    assert (
        "- Figure 1 (p. 1): Growth rate" in result.content[0].text
        and "element" not in result.structured_content
    )


def test_a_sentence_that_runs_into_table_1_is_not_its_caption(tmp_path: Path) -> None:
    """ "… are listed in" ends one line and "Table 1: FuzzDelSol is able to find …" opens the next: the
    sentence goes on. Table 1's caption is the one over the table on the next page."""
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    pdf.set_font("Helvetica", size=10)
    pdf.add_page()
    pdf.set_xy(72, 60)
    pdf.multi_cell(450, 13, "The crashes we found in the sixteen targets are listed in")
    pdf.set_xy(72, 73)
    pdf.multi_cell(450, 13, "Table 1: FuzzDelSol is able to find crashes in every target we tried it on.")
    pdf.add_page()
    pdf.set_xy(72, 60)
    pdf.multi_cell(450, 13, "Table 1: Crashes found per target after one day of fuzzing.")
    pdf.set_xy(120, 85)
    with pdf.table(width=300, col_widths=(150, 150), text_align="LEFT", line_height=16) as table:
        for row in (("Target", "Crashes"), ("libpng", "3"), ("sqlite", "5")):
            cells = table.row()
            for value in row:
                cells.cell(value)
    path = tmp_path / "fuzz.pdf"
    path.write_bytes(bytes(pdf.output()))
    table = inventory(path, use_layout=False).find("table", "1")
    assert table is not None and table.page == 2 and table.caption.startswith("Table 1: Crashes found")
