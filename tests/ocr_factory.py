"""Scanned test PDFs: a text page written with fpdf2, rendered by pdfium and saved as an image-only PDF
(no text layer), the way a scanner without OCR leaves a paper."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from fpdf import FPDF

TITLE = "Glacier Retreat in the Karakoram"
LEFT = (
    "Typical kinds of moraine deposits record the retreat of the glacier. "
    "We measured the thickness of the debris cover at forty sites along the valley floor during two summers. "
)
RIGHT = (
    "The second column explains the sampling method. "
    "Stone samples were dated with cosmogenic beryllium isotopes in a laboratory near the coast. "
)
SENTENCE = "We measured the thickness of the debris cover at forty sites along the valley floor"


def write_text_paper(path: Path, *, blank_page: bool = False) -> Path:
    """One two-column page with a title (and a blank second page with ``blank_page``), with a text layer."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 16)
    pdf.set_xy(20, 20)
    pdf.cell(0, 10, TITLE)
    pdf.set_font("Helvetica", size=11)
    pdf.set_xy(20, 40)
    pdf.multi_cell(80, 6, LEFT * 3)
    pdf.set_xy(110, 40)
    pdf.multi_cell(80, 6, RIGHT * 3)
    if blank_page:
        pdf.add_page()
    pdf.output(str(path))
    return path


def scanned_copy(source: Path, target: Path, scale: float = 2.0) -> Path:
    """An image-only copy of ``source``: each page rendered at ``scale`` pixels per point (grey, as many
    scans are), the page size kept."""
    document = pdfium.PdfDocument(source)
    try:
        images = []
        for page in document:
            images.append(page.render(scale=scale).to_pil().convert("L"))
            page.close()
    finally:
        document.close()
    images[0].save(target, "PDF", resolution=72 * scale, save_all=True, append_images=images[1:])
    return target


def write_scanned_paper(path: Path, *, blank_page: bool = False) -> Path:
    text = write_text_paper(path.with_name(path.stem + "-text.pdf"), blank_page=blank_page)
    return scanned_copy(text, path)


def words(text: str) -> list[str]:
    return [w.strip(".,;:").lower() for w in text.split() if w.strip(".,;:")]


def recall(expected: str, text: str) -> float:
    """Share of the expected words found in ``text`` (OCR may misread a few)."""
    found = set(words(text))
    wanted = words(expected)
    return sum(1 for w in wanted if w in found) / len(wanted)


SECOND_PAGE = "The rivers below the glacier carried fine silt far into the plains every spring."


def _page_image(source: Path) -> Any:
    document = pdfium.PdfDocument(source)
    try:
        page = document[0]
        image = page.render(scale=2.0).to_pil().convert("L")
        page.close()
    finally:
        document.close()
    return image


def write_turned_scan(path: Path, degrees: int) -> Path:
    """An image-only copy of the text paper turned ``degrees`` clockwise, as a scanner fed it sideways."""
    image = _page_image(write_text_paper(path.with_name(path.stem + "-text.pdf")))
    image.rotate(-degrees, expand=True).save(path, "PDF", resolution=144)
    return path


def write_spread_scan(path: Path) -> Path:
    """Two printed pages scanned side by side onto one landscape page: the text paper on the left, a
    page of one other sentence, repeated down a single wide column, on the right."""
    from PIL import Image

    left = _page_image(write_text_paper(path.with_name(path.stem + "-left.pdf")))
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(False)
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.set_xy(20, 20)
    pdf.multi_cell(170, 6, (SECOND_PAGE + " ") * 8)
    right_pdf = path.with_name(path.stem + "-right.pdf")
    pdf.output(str(right_pdf))
    right = _page_image(right_pdf)
    spread = Image.new("L", (left.width + right.width, left.height), 255)
    spread.paste(left, (0, 0))
    spread.paste(right, (left.width, 0))
    spread.save(path, "PDF", resolution=144)
    return path
