"""Reference splitting and citation matching on the 18 real PDFs in ../shared/data (skipped when absent)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

from agent_zot.graph.matching import ReferenceMatcher
from agent_zot.graph.references import parse_reference, split_references_styled
from agent_zot.ingest import ParsedDocument, get_parser
from tests.conftest import SHARED_DATA

PDFS = SHARED_DATA / "pdfs"
pytestmark = [pytest.mark.slow, pytest.mark.shared_data(PDFS / "metadata.csv")]

# (style, entries) observed, checked by hand against the PDFs: numbered lists match their last number;
# 0807.3577 groups several references under one number ("[1] Perlmutter ...; Riess ...; Perlmutter ...")
# and has about 70 lines that each start a reference; the ZFN scan's two columns interleave on each
# line, so its 4 references come out as 2; author-year counts are those of the PDFs' lists, give or take
# a merged entry where a reference's first line does not look like the start of one.
EXPECTED = {
    "grobid__0807.3577.pdf": ("bracket+author-year", 66),
    "grobid__1001._0908.0054.pdf": ("bracket", 19),
    "grobid__MullenJSSv18i03.pdf": ("author-year", 17),
    "grobid__Wang-paperAVE2008.pdf": ("dotted", 12),
    "grobid__ZFN-A-054-0304-0272.pdf": ("bracket", 2),
    "grobid__gadr.pdf": ("dotted", 6),
    "grobid__sample1.pdf": ("bracket", 21),
    "grobid__test_Grobid_1_05452615.pdf": ("bracket", 23),
    "grobid__test_Grobid_2_05982691.pdf": ("bracket", 14),
    "grobid__tracemonkey-pldi-09.pdf": ("bracket", 19),
    "papermage__1903.10676.pdf": ("", 0),  # a one-page excerpt without references
    "papermage__2020.acl-main.447.pdf": ("author-year", 54),
    "papermage__2023.eacl-main.121.pdf": ("author-year", 64),
    "papermage__2203.00130v1.pdf": ("bracket", 111),
    "papermage__2206.10883v3.pdf": ("bracket", 64),
    "papermage__2302.07302v1.pdf": ("bracket", 65),
    "papermage__2304.02623v1.pdf": ("bracket", 35),
    "papermage__papermage.pdf": ("author-year", 50),
}
EXACT_STYLES = {"bracket", "dotted"}  # numbered lists: the count is the last number


def _eval_module() -> ModuleType:
    path = Path(__file__).resolve().parents[2] / "scripts" / "eval_references.py"
    spec = importlib.util.spec_from_file_location("eval_references", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def evaluation() -> ModuleType:
    return _eval_module()


@pytest.fixture(scope="module")
def documents() -> dict[str, ParsedDocument]:
    parser = get_parser("pdfium")
    return {name: parser.parse(PDFS / name, "KEY") for name in EXPECTED}


@pytest.mark.parametrize("name", sorted(EXPECTED))
def test_entry_counts(name: str, documents: dict[str, ParsedDocument]) -> None:
    style, entries = split_references_styled(documents[name].references_text or "")
    expected_style, expected_count = EXPECTED[name]
    assert style == expected_style
    if expected_style in EXACT_STYLES:
        assert len(entries) == expected_count
    else:
        assert abs(len(entries) - expected_count) <= max(2, expected_count // 10)


# ZFN's entries are two references each (interleaved columns), and are left out here.
@pytest.mark.parametrize("name", [n for n, (style, _) in EXPECTED.items() if style and "ZFN" not in n])
def test_entries_are_parsed(name: str, documents: dict[str, ParsedDocument]) -> None:
    refs = [parse_reference(e) for e in split_references_styled(documents[name].references_text or "")[1]]
    # Web sites without a date ("[3] SPECJVM98 - http://www.spec.org/jvm98/.") have no year.
    assert sum(1 for r in refs if r.year) >= 0.7 * len(refs)
    assert sum(1 for r in refs if r.authors) >= 0.7 * len(refs)
    if name.startswith("papermage__"):  # computer science lists: nearly every entry has a title
        assert sum(1 for r in refs if r.title) >= 0.9 * len(refs)


def test_in_set_citations_are_found_without_false_links(
    evaluation: ModuleType, documents: dict[str, ParsedDocument]
) -> None:
    rows = evaluation.load_rows(PDFS)
    matcher = ReferenceMatcher(evaluation.item_from_row(i, row) for i, row in enumerate(rows))
    found: set[tuple[str, str]] = set()
    for row in rows:
        _, entries = split_references_styled(documents[row["file"]].references_text or "")
        for entry in entries:
            match = matcher.match(parse_reference(entry), citing_key=row["file"])
            if match is not None:
                found.add((row["file"], match.item_key))
    expected = evaluation.expected_links(rows)
    assert ("papermage__papermage.pdf", "papermage__2020.acl-main.447.pdf") in expected  # the CSV is read
    assert len(expected) == 8
    assert found == expected


def test_scibert_is_cited_by_title_in_three_styles(
    evaluation: ModuleType, documents: dict[str, ParsedDocument]
) -> None:
    """ACL ("Sci-BERT" broken by a line), ACM numbered ("SciBERT") and ACL again ("SciB-ERT")."""
    rows = evaluation.load_rows(PDFS)
    matcher = ReferenceMatcher(evaluation.item_from_row(i, row) for i, row in enumerate(rows))
    for citing in (
        "papermage__2020.acl-main.447.pdf",
        "papermage__2302.07302v1.pdf",
        "papermage__papermage.pdf",
    ):
        _, entries = split_references_styled(documents[citing].references_text or "")
        scibert = [e for e in entries if "Beltagy, Kyle Lo, and Arman Cohan. 2019" in e]
        assert len(scibert) == 1, citing
        match = matcher.match(parse_reference(scibert[0]), citing_key=citing)
        assert match is not None and match.item_key == "papermage__1903.10676.pdf"
        assert match.method == "title" and match.confidence >= 0.9
