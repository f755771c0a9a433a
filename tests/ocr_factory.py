"""Scanned test PDFs: a text page written with fpdf2, rendered by pdfium and saved as an image-only PDF
(no text layer), the way a scanner without OCR leaves a paper."""

from __future__ import annotations

from pathlib import Path

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
