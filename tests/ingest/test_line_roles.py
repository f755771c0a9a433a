"""Page chrome (download stamps, sideways repository identifiers) and the text inside a vector drawing
stay out of the page text that becomes passages; the drawing's caption is still the figure inventory's."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.ingest.figures import inventory
from agent_zot.ingest.line_roles import document_roles
from agent_zot.ingest.pdfium import PdfiumParser
from agent_zot.ingest.text_geometry import TextLine
from tests.pdf_factory import (
    ABSTRACT,
    ARXIV_STAMP,
    BESIDE,
    CATALOGUE_PROSE,
    CATALOGUE_RELEASE,
    ELSEVIER_STAMP,
    LICENCE,
    STAMP_FOOTER,
    marker,
    write_abstract_over_stamp,
    write_catalogue_paper,
    write_stamped_paper,
)

DRAWINGS = [
    (
        ["Primary Replica", "Secondary Replica", "Client", "Log Store"],
        "Figure 1: Replication with a primary copy.",
    ),
    (["Encoder", "Decoder", "Attention", "Tokens 512"], "Figure 1: The model and the flow of its tokens."),
]


@pytest.mark.parametrize(("labels", "caption"), DRAWINGS)
def test_stamps_and_drawing_labels_stay_out_of_the_page_text(
    labels: list[str], caption: str, tmp_path: Path
) -> None:
    path = write_stamped_paper(tmp_path / "stamped.pdf", labels, caption)
    doc = PdfiumParser().parse(path, "STAMPED")
    for page in doc.pages:
        assert marker(page.number) in page.text
        assert "Downloaded from" not in page.text
        assert "arXiv:" not in page.text and ARXIV_STAMP[:20] not in page.text
    second = doc.pages[1].text
    assert " ".join(second.split()).count(BESIDE) == 1  # the paragraph beside the drawing
    assert caption.split(": ")[1].split()[0] in second  # the caption is body text
    for label in [*labels, "Legend:"]:
        assert label not in second, label
    roles = {role for _, role, _ in doc.set_aside}
    assert roles == {"chrome", "figure_text"}
    assert any(text == STAMP_FOOTER for _, _, text in doc.set_aside)


@pytest.mark.parametrize(("labels", "caption"), DRAWINGS)
def test_the_drawings_caption_is_still_in_the_figure_inventory(
    labels: list[str], caption: str, tmp_path: Path
) -> None:
    path = write_stamped_paper(tmp_path / "stamped.pdf", labels, caption)
    found = inventory(path, use_layout=False)
    figure = found.find("figure", "1")
    assert figure is not None and figure.page == 2
    assert figure.caption.startswith(caption[:20])


def test_a_reference_list_in_small_type_keeps_its_entries_whatever_addresses_they_name() -> None:
    # A reference list is set smaller than the body, line after line; an entry naming an address or
    # "Published online" must not turn it, and the entries next to it, into page chrome.
    body = [
        TextLine(
            f"Body text of the paper runs on here as a paragraph, line {i} of it.",
            (0, 0),
            (72, 100 + 14 * i, 540, 112 + 14 * i),
            10.0,
        )
        for i in range(12)
    ]
    entries = [
        "[7] V. Bala, E. Duesterwald, and S. Banerjia. Dynamo: A transparent",
        "dynamic optimization system. In Proceedings of PLDI, 2000.",
        "[8] C. Palmer. Scholarly information practices. Published online at:",
        "http://www.oclc.org/programs/publications/reports/2009.pdf",
        "[9] C. Chambers and D. Ungar. Customization: Optimizing Compiler",
        "Technology for SELF. In Proceedings of PLDI, pages 146-160, 1989.",
    ]
    refs = [
        TextLine(text, (0, 0), (72, 300 + 9 * i, 300, 308 + 9 * i), 8.0) for i, text in enumerate(entries)
    ]
    lines = body + refs
    roles = document_roles([lines], [(612.0, 792.0)])[0]
    kept = [line.text for line, role in zip(lines, roles, strict=True) if role == "body"]
    # every line of the entries stays; a bare address on a line of its own may go
    assert [text for text in entries if text in kept] == [
        text for text in entries if not text.startswith("http")
    ]


def _words(text: str) -> str:
    return " ".join(text.replace("-\n", "").split())


def test_an_abstract_over_the_publishers_stamp_stays_in_the_page_text(tmp_path: Path) -> None:
    # Elsevier sets "© 2018 Published by Elsevier Inc." right under the abstract, in the abstract's type: the
    # stamp goes, and takes none of the abstract's lines with it (its last, short line included).
    doc = PdfiumParser().parse(write_abstract_over_stamp(tmp_path / "elsevier.pdf"), "ELSEVIER")
    text = _words(doc.pages[0].text)
    assert ABSTRACT in text and marker(1) in text
    assert ELSEVIER_STAMP not in text
    assert [line for _, _, line in doc.set_aside] == [ELSEVIER_STAMP]


def test_a_licence_block_in_small_type_goes_whole_and_the_body_around_it_stays(tmp_path: Path) -> None:
    # "Original content from this work may be used under the terms of the Creative Commons ...": its lines
    # go together, the first one too, so the body's sentence around it is read whole.
    path = write_abstract_over_stamp(tmp_path / "licensed.pdf", licence=True)
    doc = PdfiumParser().parse(path, "LICENSED")
    assert [line for _, _, line in doc.set_aside] == [ELSEVIER_STAMP, *LICENCE]
    text = _words(doc.pages[0].text)
    assert "Creative Commons" not in text and "Original content" not in text
    assert text.count("Parsing scientific documents") == 6


def test_a_catalogue_papers_prose_stays_whatever_its_tables_outnumber(tmp_path: Path) -> None:
    # Six pages of tables in small type outnumber two pages of prose, and the page number sits right under
    # the prose's last line: the prose is the page's body all the same (a line of it naming a stamp's
    # phrase, "published online", too), and the page number is not.
    doc = PdfiumParser().parse(write_catalogue_paper(tmp_path / "catalogue.pdf"), "CATALOGUE")
    first, second = (_words(page.text) for page in doc.pages[:2])
    assert marker(1) in first and first.count(CATALOGUE_PROSE) == 2
    assert marker(2) in second and second.count(CATALOGUE_RELEASE) == 2
    assert first.count("Parsing scientific documents") == 9
    aside = {(number, line) for number, _, line in doc.set_aside}
    assert {(1, "1"), (2, "2")} <= aside
    assert not any(number <= 2 and len(line) > 8 for number, line in aside)
