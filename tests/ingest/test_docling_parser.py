"""The optional docling parser, run for real: docling's model-free native PDF pipeline (installed with the
dev extras as ``docling-slim[format-pdf]``; no layout models, no downloads)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_zot.ingest import ParseError, ParseJob, extract_attachment, get_parser, parse_many
from agent_zot.ingest.docling_parser import DoclingParser
from agent_zot.zotero.models import Attachment, LinkMode
from tests.conftest import SHARED_DATA
from tests.pdf_factory import HEADER, LABEL_START, REFERENCES, marker, write_paper, write_scanned

pytestmark = pytest.mark.slow

SHARED_PDFS = SHARED_DATA / "pdfs"


def pdf_attachment(path: Path, key: str = "DOCL0001") -> Attachment:
    return Attachment(
        key=key,
        item_id=1,
        parent_key="ITEM0001",
        title=path.name,
        link_mode=LinkMode.IMPORTED_FILE,
        content_type="application/pdf",
        raw_path=f"storage:{path.name}",
        path=path,
        exists=True,
    )


@pytest.fixture(scope="module")
def parser() -> DoclingParser:
    return DoclingParser()  # one converter for the module: building it costs a few seconds


def test_pages_labels_and_text_land_where_the_pdf_has_them(parser: DoclingParser, tmp_path: Path) -> None:
    spec = write_paper(tmp_path / "paper.pdf", page_labels=True, two_columns=True)
    doc = parser.parse(spec.path, "DOCL0001")
    assert doc.source == "docling"
    assert [p.number for p in doc.pages] == list(range(1, spec.page_count + 1))
    assert [p.label for p in doc.pages] == spec.labels == [str(LABEL_START + i) for i in range(4)]
    for page in spec.body_pages:
        body = doc.pages[page - 1].text
        assert marker(page) in body
        assert all(marker(other) not in body for other in spec.body_pages if other != page)


def test_running_headers_dropped_hyphens_joined_references_kept_aside(
    parser: DoclingParser, tmp_path: Path
) -> None:
    spec = write_paper(tmp_path / "paper.pdf")
    doc = parser.parse(spec.path, "DOCL0001")
    body = "\n".join(p.text for p in doc.pages)
    assert HEADER not in body
    # The word broken as "exam-" / "ple" comes back in one piece (docling keeps a hard hyphen as written).
    assert re.search(r"\bexam-?ple\b", doc.pages[0].text)
    assert doc.references_page == spec.references_page
    assert doc.references_text is not None
    assert all(ref[:30] in doc.references_text for ref in REFERENCES)
    assert REFERENCES[0][:30] not in body
    assert (1, "1 Introduction") in doc.headings


def test_scanned_and_broken_files_fail_with_their_reason(parser: DoclingParser, tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="scanned"):
        parser.parse(write_scanned(tmp_path / "scan.pdf"), "DOCL0001")
    broken = tmp_path / "broken.pdf"
    broken.write_bytes(b"%PDF-1.4\nnot really a PDF")
    with pytest.raises(ParseError, match="docling could not convert the file"):
        parser.parse(broken, "DOCL0002")


def test_extract_falls_back_to_pdfium_when_docling_fails(tmp_path: Path) -> None:
    """A file docling cannot read still gets its text (pdfium), with docling's reason recorded."""
    spec = write_paper(tmp_path / "paper.pdf")
    doc = extract_attachment(pdf_attachment(spec.path), parser="docling")
    assert doc.source == "docling" and doc.fallback_reason is None
    scan = write_scanned(tmp_path / "scan.pdf")
    fallback = extract_attachment(pdf_attachment(scan), parser="docling")
    assert fallback.pages == [] or all(not p.text for p in fallback.pages)
    assert fallback.fallback_reason is not None and "docling" in fallback.fallback_reason


def test_docling_runs_in_the_worker_pool(tmp_path: Path) -> None:
    papers = [write_paper(tmp_path / f"p{i}.pdf", body_pages=2 + i) for i in range(2)]
    jobs = [ParseJob(pdf_attachment(s.path, key=f"DOCL000{i}")) for i, s in enumerate(papers)]
    outcomes = {
        o.attachment_key: o
        for o in parse_many(jobs, workers=2, timeout_s=120, memory_mb=None, parser="docling")
    }
    for i, spec in enumerate(papers):
        outcome = outcomes[f"DOCL000{i}"]
        assert outcome.error is None and outcome.document is not None
        assert outcome.document.source == "docling"
        assert len(outcome.document.pages) == spec.page_count


@pytest.mark.shared_data(SHARED_PDFS)
def test_shared_pdfs_have_the_pages_pdfium_sees(parser: DoclingParser) -> None:
    pdfium = get_parser("pdfium")
    for path in sorted(SHARED_PDFS.glob("*.pdf"))[:3]:
        doc = parser.parse(path, "DOCL0001")
        reference = pdfium.parse(path, "DOCL0001")
        assert len(doc.pages) == len(reference.pages), path.name
        words = sum(len(p.text.split()) for p in doc.pages)
        expected = sum(len(p.text.split()) for p in reference.pages)
        assert words > 0.8 * expected, path.name
        assert doc.references_page == reference.references_page, path.name
