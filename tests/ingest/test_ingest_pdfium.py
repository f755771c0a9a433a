"""The pdfium parser on PDFs made by tests/pdf_factory.py, and on broken ones."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.ingest import ParsedDocument, ParseError
from agent_zot.ingest.pdfium import PdfiumParser
from tests.pdf_factory import (
    HEADER,
    HYPHEN_HEAD,
    HYPHEN_TAIL,
    REFERENCES,
    PaperSpec,
    heading,
    marker,
    write_garbage,
    write_paper,
    write_scanned,
    write_truncated,
)


def parse(path: Path) -> ParsedDocument:
    return PdfiumParser().parse(path, "KEY1")


@pytest.fixture(params=[False, True], ids=["one-column", "two-columns"])
def paper(request: pytest.FixtureRequest, tmp_path: Path) -> PaperSpec:
    return write_paper(tmp_path / "paper.pdf", body_pages=4, two_columns=request.param)


def test_each_marker_lands_on_its_page(paper: PaperSpec) -> None:
    doc = parse(paper.path)
    assert doc.source == "pdfium"
    assert doc.page_count == paper.page_count == len(doc.pages)
    assert [p.number for p in doc.pages] == list(range(1, paper.page_count + 1))
    for page in doc.pages:
        for other in paper.body_pages:
            assert (marker(other) in page.text) == (other == page.number)


def test_running_header_and_page_numbers_are_removed(paper: PaperSpec) -> None:
    doc = parse(paper.path)
    for page in doc.pages:
        assert HEADER not in page.text
        lines = page.text.splitlines()
        assert str(page.number) not in (lines[:1] + lines[-1:]), page.text
    assert HEADER not in doc.references_text


def test_hyphenated_line_break_is_joined(paper: PaperSpec) -> None:
    first = parse(paper.path).pages[0].text
    assert paper.hyphenated_word in first
    assert HYPHEN_HEAD + "-" not in first
    assert f"\n{HYPHEN_TAIL} " not in first


def test_references_are_split_off_with_their_start_page(paper: PaperSpec) -> None:
    doc = parse(paper.path)
    assert doc.references_page == paper.references_page
    for entry in REFERENCES:
        assert entry in doc.references_text
    assert "References" not in doc.references_text.splitlines()[0]
    assert all("[1] A. Author" not in page.text for page in doc.pages)
    assert (paper.references_page, "References") in doc.headings


def test_numbered_headings_are_found(paper: PaperSpec) -> None:
    doc = parse(paper.path)
    for number in paper.body_pages:
        assert (number, heading(number)) in doc.headings


def test_page_labels_are_read(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "labels.pdf", page_labels=True)
    doc = parse(spec.path)
    assert [p.label for p in doc.pages] == spec.labels


def test_pages_without_labels_have_none(paper: PaperSpec) -> None:
    assert all(p.label is None for p in parse(paper.path).pages)


def test_page_without_text_layer_gives_empty_text_and_a_warning(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "mixed.pdf", body_pages=3, image_page=True)
    doc = parse(spec.path)
    image_page = doc.pages[3]
    assert image_page.number == 4 and image_page.text == ""
    assert doc.warnings == [f"no text layer on 1 of {spec.page_count} pages"]
    assert doc.references_page == spec.references_page


def test_scanned_pdf_raises_no_text_layer(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match=r"no text layer \(scanned PDF\?\)"):
        parse(write_scanned(tmp_path / "scan.pdf"))


def test_encrypted_pdf_raises_a_clear_error(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "locked.pdf", password="secret")
    with pytest.raises(ParseError, match="encrypted PDF"):
        parse(spec.path)


def test_zero_byte_file_raises(tmp_path: Path) -> None:
    empty = tmp_path / "empty.pdf"
    empty.write_bytes(b"")
    with pytest.raises(ParseError, match=r"empty file \(0 bytes\)"):
        parse(empty)


def test_truncated_pdf_raises(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "whole.pdf")
    with pytest.raises(ParseError, match="not a valid PDF"):
        parse(write_truncated(tmp_path / "cut.pdf", spec.path))


def test_garbage_bytes_raise(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="not a valid PDF"):
        parse(write_garbage(tmp_path / "garbage.pdf"))


def test_missing_file_raises(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="file not found"):
        parse(tmp_path / "nowhere.pdf")


def test_paper_without_references_keeps_all_text(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "norefs.pdf", references=False)
    doc = parse(spec.path)
    assert doc.references_text == "" and doc.references_page is None
    assert all(marker(n) in doc.pages[n - 1].text for n in spec.body_pages)


def test_web_page_saved_as_pdf_says_so(tmp_path: Path) -> None:
    path = tmp_path / "download.pdf"
    path.write_text("<!DOCTYPE html><html><body>Please log in</body></html>")
    with pytest.raises(ParseError, match="not a PDF but a web page"):
        parse(path)
