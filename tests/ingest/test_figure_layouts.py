"""The figure and table inventory on layouts real libraries hold (issue 40): a caption whose label is set
in a font of its own, a label on a line of its own over its title or with no title at all, a table turned
sideways, a table caption at the foot of the page before its table, Chinese labels, and text layers that
split or repeat runs. PDFs are written with fpdf2; the text-layer cases that need a Chinese font are built
as runs directly."""

from __future__ import annotations

from pathlib import Path

from fpdf import FPDF

from agent_zot.ingest.figures import caption_candidates, inventory
from agent_zot.ingest.text_lines import Segment, page_lines

BODY = (
    "The measurements were repeated on every subject over three sessions and the averages are reported "
    "with their standard deviations in the sections that follow."
)


def _pdf() -> FPDF:
    pdf = FPDF(format="A4", unit="pt")
    pdf.set_auto_page_break(False)
    return pdf


def _found(path: Path) -> set[tuple[str, str, int]]:
    return {
        (e.kind, e.number, e.page) for e in inventory(path, use_layout=False).elements if e.kind != "equation"
    }


def test_a_label_in_a_font_of_its_own_and_a_label_alone_are_captions(tmp_path: Path) -> None:
    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(72, 60)
    pdf.multi_cell(450, 13, BODY)
    pdf.rect(120, 120, 300, 150)
    # "Fig. 1." in bold, its text in roman: two runs on one line
    pdf.set_font("Helvetica", "B", 9)
    pdf.text(72, 290, "Fig. 1.")
    pdf.set_font("Helvetica", size=9)
    pdf.text(104, 290, "Overview of the measurement set-up with its three sensors.")
    # "TABLE I" centred, its one-word title well below it
    pdf.set_font("Helvetica", size=8)
    pdf.text(280, 340, "TABLE I")
    pdf.text(276, 354, "RESULTS")
    pdf.rect(150, 362, 300, 80)
    # a patent drawing's bare label
    pdf.rect(150, 480, 300, 200)
    pdf.set_font("Helvetica", size=12)
    pdf.text(280, 700, "FIG. 2")
    path = tmp_path / "labels.pdf"
    pdf.output(str(path))

    found = _found(path)

    assert ("figure", "1", 1) in found
    assert ("table", "I", 1) in found
    assert ("figure", "2", 1) in found
    table = inventory(path, use_layout=False).find("table", "I")
    assert table is not None and "RESULTS" in table.caption


def test_a_sideways_table_is_found_by_its_turned_caption(tmp_path: Path) -> None:
    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    with pdf.rotation(90, 100, 700):
        pdf.text(100, 700, "Table 6 The comparison of the results of this paper with other works.")
    path = tmp_path / "sideways.pdf"
    pdf.output(str(path))

    assert ("table", "6", 1) in _found(path)


def test_a_table_caption_at_the_foot_of_a_page_belongs_to_the_next(tmp_path: Path) -> None:
    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.set_xy(72, 640)
    pdf.multi_cell(450, 13, BODY)
    pdf.text(72, 760, "Table 3. Forecast values of systolic and diastolic pressure.")
    pdf.add_page()
    pdf.rect(72, 60, 450, 120)
    pdf.set_xy(72, 200)
    pdf.multi_cell(450, 13, BODY)
    path = tmp_path / "foot.pdf"
    pdf.output(str(path))

    assert ("table", "3", 2) in _found(path)


def test_a_table_captioned_below_itself_at_the_foot_stays(tmp_path: Path) -> None:
    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", size=9)
    for row in range(6):
        y = 640 + row * 18
        for column, cell in enumerate(("Bin", str(row), f"{row * 1.5:.1f}")):
            pdf.text(100 + column * 120, y, cell)
    pdf.text(72, 760, "Table 1: Name and description of the bins used.")
    pdf.add_page()
    pdf.set_xy(72, 60)
    pdf.multi_cell(450, 13, BODY)
    path = tmp_path / "below.pdf"
    pdf.output(str(path))

    assert ("table", "1", 1) in _found(path)


def _run(text: str, left: float, top: float, right: float, bottom: float) -> Segment:
    return Segment(text, (left, top, right, bottom))


def test_runs_of_one_line_are_read_as_that_line() -> None:
    runs = [
        _run("T", 319, 154, 324, 159),
        _run("ABLE", 324, 155, 340, 159),
        _run("2.", 342, 154, 348, 159),
        _run("BLOOD PRESSURE CATEGORIES", 352, 155, 500, 159),
        _run("Ta", 96, 317, 103, 324),
        _run("Table 2: Overview of the performance of the models", 103, 317, 466, 326),
    ]

    lines = [line.text for line in page_lines(runs)]

    assert lines == [
        "TABLE 2. BLOOD PRESSURE CATEGORIES",
        "Table 2: Overview of the performance of the models",
    ]


def test_chinese_labels_are_captions_and_a_sentence_about_a_figure_is_not() -> None:
    runs = [
        _run("图", 58, 496, 65, 504),
        _run("1", 69, 497, 72, 503),
        _run("0", 73, 497, 77, 503),
        _run("外力扰动下机器人位姿表现", 86, 496, 194, 505),
        _run("表 4 . 1 实战命中率数据", 100, 600, 300, 610),
        _run("控制效果如", 57, 626, 110, 636),
        _run("图 3 所示。实验表明该方法有效", 57, 640, 240, 650),
    ]

    found = {(e.kind, e.number) for e, _ in caption_candidates(page_lines(runs), 1)}

    assert found == {("figure", "10"), ("table", "4.1")}


def _ruled_table(pdf: FPDF, top: float, rows: list[tuple[str, ...]], header: str | None = None) -> None:
    pdf.set_font("Helvetica", size=9)
    y = top
    if header is not None:  # a heading over all the columns
        pdf.text(200, y, header)
        y += 16
    for row in rows:
        pdf.line(72, y - 11, 500, y - 11)
        for column, cell in enumerate(row):
            pdf.text(80 + column * 110, y, cell)
        y += 16
    pdf.line(72, y - 11, 500, y - 11)


def test_a_tables_rows_come_from_its_text_layer_under_its_caption(tmp_path: Path) -> None:
    from agent_zot.ingest.figure_render import table_markdown, text_table_box

    pdf = _pdf()
    pdf.add_page()
    pdf.set_font("Helvetica", size=10)
    pdf.text(72, 80, "Table 2: Blood pressure of the three groups.")
    rows = [("Group", "Mean SBP", "Mean DBP", "Subjects"), ("Young", "118.2", "76.1", "41")]
    rows += [("Middle", "124.9", "80.3", "37"), ("Old", "131.5", "82.8", "29")]
    _ruled_table(pdf, 100, rows, header="Measured at rest, in mmHg")
    pdf.set_xy(72, 190)
    pdf.multi_cell(450, 13, BODY)
    path = tmp_path / "ruled.pdf"
    pdf.output(str(path))
    table = inventory(path, use_layout=False).find("table", "2")
    assert table is not None and table.caption_box is not None

    box = text_table_box(path, 1, table.caption_box)

    assert box is not None
    markdown = table_markdown(path, 1, box)
    assert markdown is not None
    lines = markdown.splitlines()
    assert "| Young | 118.2 | 76.1 | 41 |" in lines and "| Old | 131.5 | 82.8 | 29 |" in lines
    assert "measurements were repeated" not in markdown  # the prose under the table is not a row
