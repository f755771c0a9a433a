"""Page chrome (download stamps, sideways repository identifiers) and the text inside a vector drawing
stay out of the page text that becomes passages; the drawing's caption is still the figure inventory's."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.ingest.figures import inventory
from agent_zot.ingest.pdfium import PdfiumParser
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
