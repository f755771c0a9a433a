"""The demo's own PDF writer makes real PDFs that the default parser reads page by page."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium

from agent_zot.ingest import get_parser
from agent_zot.zotero.demo_pdf import write_text_pdf

REFS = [
    f"[{i}] A. Author and B. Writer. A study of page number {i}. Journal of Tests, 20{10 + i}."
    for i in range(1, 5)
]


def test_text_pdf_round_trips_through_the_parser(tmp_path: Path) -> None:
    paragraphs = [
        f"Paragraph {i} about page-aware parsing (with parentheses) and café." * 6 for i in range(40)
    ]
    path = write_text_pdf(tmp_path / "paper.pdf", "A (demo) paper", [*paragraphs, "References", *REFS])
    assert len(pdfium.PdfDocument(str(path))) > 2
    document = get_parser("pdfium").parse(path, "KEY23456")
    assert document.pages[0].text.startswith("A (demo) paper")
    assert "Paragraph 39" in " ".join(p.text for p in document.pages)
    assert "café" in document.pages[0].text
    assert document.references_text.startswith("[1] A. Author") and "[4]" in document.references_text
    assert not document.warnings
