"""Page chrome (download stamps, sideways repository identifiers) and the text inside a vector drawing
stay out of the page text that becomes passages; the drawing's caption is still the figure inventory's."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.ingest.figures import inventory
from agent_zot.ingest.line_roles import document_roles
from agent_zot.ingest.pdfium import PdfiumParser
from agent_zot.ingest.text_geometry import TextLine
from tests.pdf_factory import ARXIV_STAMP, BESIDE, STAMP_FOOTER, marker, write_stamped_paper

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
