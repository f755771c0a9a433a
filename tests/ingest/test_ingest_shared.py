"""The 18 real PDFs in ../shared/data/pdfs (skipped when that folder is absent)."""

from __future__ import annotations

import csv

import pypdfium2 as pdfium
import pytest

from agent_zot.ingest import ParsedDocument, ParseJob, extract_attachment, parse_many
from agent_zot.zotero.models import Attachment, LinkMode
from tests.conftest import SHARED_DATA

PDFS = SHARED_DATA / "pdfs"
pytestmark = pytest.mark.shared_data(PDFS / "metadata.csv")

# Page where the references section starts (checked by hand against the PDFs). Every paper but the
# one-page SciBERT excerpt has one: numbered ("[1]", "1."), author-year, and two without a heading
# (1001._0908.0054, and the OCR'd ZFN scan whose two columns interleave).
REFERENCES_PAGE = {
    "grobid__0807.3577.pdf": 14,
    "grobid__1001._0908.0054.pdf": 4,
    "grobid__MullenJSSv18i03.pdf": 39,
    "grobid__Wang-paperAVE2008.pdf": 5,
    "grobid__ZFN-A-054-0304-0272.pdf": 2,
    "grobid__gadr.pdf": 3,
    "grobid__sample1.pdf": 7,
    "grobid__test_Grobid_1_05452615.pdf": 7,
    "grobid__test_Grobid_2_05982691.pdf": 6,
    "grobid__tracemonkey-pldi-09.pdf": 14,
    "papermage__1903.10676.pdf": None,
    "papermage__2020.acl-main.447.pdf": 9,
    "papermage__2023.eacl-main.121.pdf": 10,
    "papermage__2203.00130v1.pdf": 30,
    "papermage__2206.10883v3.pdf": 10,
    "papermage__2302.07302v1.pdf": 14,
    "papermage__2304.02623v1.pdf": 3,
    "papermage__papermage.pdf": 7,
}
# Appendices after the references stay in the body: (file, text that must not be in references_text).
APPENDIX_AFTER_REFERENCES = [
    ("papermage__2020.acl-main.447.pdf", "A Background & Terminology"),
    ("papermage__2203.00130v1.pdf", "A INTERVIEWS WITH HEALTHCARE CONSUMERS AND PROVIDERS"),
    ("papermage__2206.10883v3.pdf", "A Multi-LexSum release"),
    ("grobid__MullenJSSv18i03.pdf", "A. Partitioned vs. unpartitioned variable projection algorithms"),
]


def metadata() -> list[dict[str, str]]:
    with (PDFS / "metadata.csv").open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh))


def attachment(name: str) -> Attachment:
    path = PDFS / name
    return Attachment(
        key=name.removesuffix(".pdf"),
        item_id=1,
        parent_key=None,
        title=name,
        link_mode=LinkMode.LINKED_FILE,
        content_type="application/pdf",
        raw_path=str(path),
        path=path,
        exists=path.is_file(),
    )


@pytest.fixture(scope="module")
def documents() -> dict[str, ParsedDocument]:
    return {row["file"]: extract_attachment(attachment(row["file"])) for row in metadata()}


def test_metadata_lists_the_expected_files() -> None:
    assert sorted(row["file"] for row in metadata()) == sorted(REFERENCES_PAGE)


@pytest.mark.parametrize("name", sorted(REFERENCES_PAGE))
@pytest.mark.slow
def test_every_pdf_yields_pages(documents: dict[str, ParsedDocument], name: str) -> None:
    doc = documents[name]
    pdf = pdfium.PdfDocument(PDFS / name)
    try:
        page_count = len(pdf)
    finally:
        pdf.close()
    assert doc.source == "pdfium", doc.fallback_reason
    assert doc.page_count == page_count == len(doc.pages)
    assert [p.number for p in doc.pages] == list(range(1, page_count + 1))
    assert doc.has_text


@pytest.mark.parametrize(("name", "page"), sorted(REFERENCES_PAGE.items()))
@pytest.mark.slow
def test_references_section_is_found(
    documents: dict[str, ParsedDocument], name: str, page: int | None
) -> None:
    doc = documents[name]
    assert doc.references_page == page
    if page is None:
        assert doc.references_text == ""
    else:
        assert len(doc.references_text) > 200


@pytest.mark.parametrize(("name", "heading"), APPENDIX_AFTER_REFERENCES)
@pytest.mark.slow
def test_appendix_after_references_stays_in_the_body(
    documents: dict[str, ParsedDocument], name: str, heading: str
) -> None:
    doc = documents[name]
    assert heading not in doc.references_text
    assert any(heading in page.text.splitlines() for page in doc.pages)


@pytest.mark.slow
def test_page_labels_of_the_eacl_paper(documents: dict[str, ParsedDocument]) -> None:
    pages = documents["papermage__2023.eacl-main.121.pdf"].pages
    assert [p.label for p in pages[:3]] == ["1650", "1651", "1652"]
    assert all("1651" not in p.text.splitlines()[-1:] for p in pages[1:2])


@pytest.mark.slow
def test_the_pool_parses_all_of_them() -> None:
    jobs = [ParseJob(attachment(row["file"])) for row in metadata()]
    outcomes = list(parse_many(jobs, workers=2, timeout_s=60, memory_mb=1024, parser="pdfium"))
    assert sorted(o.attachment_key for o in outcomes) == sorted(j.attachment.key for j in jobs)
    assert all(o.error is None and o.document is not None and o.document.has_text for o in outcomes)
