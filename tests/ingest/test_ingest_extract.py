"""extract_attachment: choosing a reader by file type, and the fallback chain."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from agent_zot.errors import InvalidArgumentError
from agent_zot.ingest import PARSERS, ParseError, extract_attachment, get_parser
from agent_zot.ingest.docling_parser import NOT_INSTALLED
from agent_zot.ingest.formats import FT_CACHE_WARNING
from agent_zot.zotero.models import Attachment, LinkMode
from tests.pdf_factory import marker, write_paper, write_scanned

CACHED_TEXT = "Zotero's own extracted text.\nSecond line of the cache."


def attachment(
    path: Path | None,
    *,
    content_type: str = "application/pdf",
    cache: str | None = None,
    exists: bool | None = None,
    raw_path: str | None = None,
    link_mode: LinkMode = LinkMode.IMPORTED_FILE,
    key: str = "ATT12345",
) -> Attachment:
    """An attachment as the reader builds it; ``cache`` writes a .zotero-ft-cache beside the file."""
    cache_path = None
    if cache is not None:
        assert path is not None, "the cache is written beside the file"
        cache_path = path.parent / ".zotero-ft-cache"
        cache_path.write_text(cache, encoding="utf-8")
    return Attachment(
        key=key,
        item_id=1,
        parent_key="PARENT01",
        title="Full Text",
        link_mode=link_mode,
        content_type=content_type,
        raw_path=raw_path,
        path=path,
        exists=path is not None and path.exists() if exists is None else exists,
        fulltext_cache=cache_path,
    )


def test_pdf_is_parsed_with_pdfium(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "paper.pdf")
    doc = extract_attachment(attachment(spec.path, cache=CACHED_TEXT))
    assert doc.source == "pdfium" and doc.fallback_reason is None
    assert marker(1) in doc.pages[0].text
    assert doc.attachment_key == "ATT12345"


@pytest.mark.parametrize(
    ("writer", "reason"),
    [
        (lambda p: write_paper(p, password="pw").path, "encrypted PDF (a password is needed to open it)"),
        (lambda p: (p.write_bytes(b""), p)[1], "empty file (0 bytes)"),
        (lambda p: (p.write_bytes(b"%PDF-1.4 broken"), p)[1], "not a valid PDF (corrupt or truncated file)"),
        (lambda p: write_scanned(p), "no text layer (scanned PDF?)"),
    ],
    ids=["encrypted", "empty", "corrupt", "scanned"],
)
def test_unreadable_pdf_falls_back_to_the_fulltext_cache(tmp_path: Path, writer, reason: str) -> None:
    path = writer(tmp_path / "bad.pdf")
    doc = extract_attachment(attachment(path, cache=CACHED_TEXT))
    assert doc.source == "ft-cache"
    assert doc.fallback_reason == reason
    assert [p.text for p in doc.pages] == [CACHED_TEXT]
    assert doc.pages[0].number == 1 and doc.pages[0].label is None
    assert FT_CACHE_WARNING in doc.warnings


def test_unreadable_pdf_without_cache_gives_source_none(tmp_path: Path) -> None:
    path = write_paper(tmp_path / "locked.pdf", password="pw").path
    doc = extract_attachment(attachment(path))
    assert doc.source == "none" and doc.pages == []
    assert doc.fallback_reason == "encrypted PDF (a password is needed to open it)"


def test_blank_cache_counts_as_no_cache(tmp_path: Path) -> None:
    path = write_scanned(tmp_path / "scan.pdf")
    doc = extract_attachment(attachment(path, cache=" \n\x00 "))
    assert doc.source == "none" and doc.fallback_reason == "no text layer (scanned PDF?)"


def test_missing_file_uses_the_cache(tmp_path: Path) -> None:
    doc = extract_attachment(attachment(tmp_path / "gone.pdf", cache=CACHED_TEXT))
    assert doc.source == "ft-cache" and doc.fallback_reason == "file missing"


def test_missing_file_without_cache(tmp_path: Path) -> None:
    doc = extract_attachment(attachment(tmp_path / "gone.pdf"))
    assert doc.source == "none" and doc.fallback_reason == "file missing"


@pytest.mark.parametrize("raw", ["\\\\server\\share\\paper.pdf", "smb://server/share/paper.pdf"])
def test_network_path_is_a_missing_file_with_that_reason(raw: str) -> None:
    doc = extract_attachment(attachment(Path("/unreachable/paper.pdf"), raw_path=raw, exists=False))
    assert doc.source == "none"
    assert doc.fallback_reason == f"file missing (network path not reachable: {raw})"


def test_linked_url_has_no_file() -> None:
    doc = extract_attachment(attachment(None, content_type="text/html", link_mode=LinkMode.LINKED_URL))
    assert doc.source == "none" and doc.fallback_reason == "no file (a link to a web page)"


def test_html_snapshot(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.html"
    path.write_text("<html><body><h1>Title</h1><p>Snapshot body.</p></body></html>")
    doc = extract_attachment(attachment(path, content_type="text/html"))
    assert doc.source == "html" and "Snapshot body." in doc.pages[0].text


def test_type_is_guessed_from_extension_then_content(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "paper.pdf")
    assert extract_attachment(attachment(spec.path, content_type="")).source == "pdfium"
    renamed = tmp_path / "download.bin"
    renamed.write_bytes(spec.path.read_bytes())
    assert extract_attachment(attachment(renamed, content_type="application/octet-stream")).source == "pdfium"


def test_unsupported_type_uses_the_cache(tmp_path: Path) -> None:
    path = tmp_path / "slides.pptx"
    path.write_bytes(b"PK\x03\x04 not really")
    doc = extract_attachment(
        attachment(path, content_type="application/vnd.ms-powerpoint", cache=CACHED_TEXT)
    )
    assert doc.source == "ft-cache"
    assert doc.fallback_reason == "unsupported file type (application/vnd.ms-powerpoint)"


def test_unknown_parser_name_is_an_argument_error(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "paper.pdf")
    with pytest.raises(InvalidArgumentError, match="unknown PDF parser 'nope'"):
        extract_attachment(attachment(spec.path), parser="nope")


@pytest.fixture
def no_docling(monkeypatch: pytest.MonkeyPatch) -> None:
    """Make ``import docling`` fail even where docling happens to be installed."""
    for name in [m for m in sys.modules if m == "docling" or m.startswith("docling.")]:
        monkeypatch.delitem(sys.modules, name)  # already imported by another test: hide those too
    monkeypatch.setitem(sys.modules, "docling", None)


@pytest.mark.usefixtures("no_docling")
def test_docling_parser_says_how_to_install_it(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "paper.pdf")
    with pytest.raises(ParseError) as caught:
        get_parser("docling").parse(spec.path, "K")
    assert str(caught.value) == NOT_INSTALLED == "docling is not installed: pip install 'agent-zot[docling]'"


@pytest.mark.usefixtures("no_docling")
def test_docling_not_installed_falls_back_to_pdfium(tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "paper.pdf")
    doc = extract_attachment(attachment(spec.path), parser="docling")
    assert doc.source == "pdfium"
    assert doc.fallback_reason == f"docling: {NOT_INSTALLED}"
    assert marker(2) in doc.pages[1].text


def test_registry_lists_the_builtin_parsers() -> None:
    assert {"pdfium", "docling"} <= set(PARSERS)
    assert get_parser("pdfium").name == "pdfium"
