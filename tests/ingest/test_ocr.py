"""OCR of scanned pages in the pdfium parser: the engines, which pages are OCR'd, reading order, glued
words, and Zotero's full-text cache as the better fallback."""

from __future__ import annotations

from pathlib import Path

import pypdfium2 as pdfium
import pytest

from agent_zot.errors import AgentZotError
from agent_zot.ingest import ParsedDocument, extract_attachment
from agent_zot.ingest.clean import normalise_text
from agent_zot.ingest.layout import Region, render
from agent_zot.ingest.ocr import OcrConfig, OcrLine, load_engine, resolve
from agent_zot.ingest.ocr.pages import candidate, has_ink
from agent_zot.ingest.ocr.reading import engine_order, order_lines
from agent_zot.ingest.ocr.tesseract import parse_tsv
from agent_zot.ingest.ocr.words import split_glued, word_score
from agent_zot.ingest.pdfium import PdfiumParser
from tests.ingest.test_ingest_extract import attachment
from tests.ocr_factory import LEFT, RIGHT, SENTENCE, TITLE, recall, write_scanned_paper, write_text_paper

ENGINES = [pytest.param("tesseract", marks=pytest.mark.system("tesseract")), "rapidocr"]


@pytest.fixture(scope="module")
def scan(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_scanned_paper(tmp_path_factory.mktemp("ocr") / "scan.pdf", blank_page=True)


@pytest.fixture(scope="module")
def parsed(scan: Path) -> ParsedDocument:
    return PdfiumParser(OcrConfig("auto")).parse(scan, "SCAN0001")


@pytest.mark.parametrize("name", ENGINES)
@pytest.mark.slow
def test_each_engine_reads_a_known_sentence(scan: Path, name: str) -> None:
    document = pdfium.PdfDocument(scan)
    try:
        page = document[0]
        image = render(page)
        page.close()
    finally:
        document.close()
    lines = load_engine(name, threads=2).read(image)
    text = " ".join(line.text for line in lines)
    if name == "rapidocr":
        text = split_glued(text)  # it drops spaces; the parser splits glued words the same way
    assert recall(SENTENCE, text) >= 0.8, text
    assert all(0.0 <= line.score <= 1.0 for line in lines)
    assert all(line.box[0] < line.box[2] and line.box[1] < line.box[3] for line in lines)


@pytest.mark.slow
def test_scanned_pages_are_ocrd_and_marked(parsed: ParsedDocument) -> None:
    first = parsed.pages[0]
    assert first.ocr and parsed.ocr_pages == [1]
    assert parsed.ocr_engine == resolve("auto") and parsed.ocr_seconds > 0
    assert recall(SENTENCE, first.text) >= 0.8
    assert recall(TITLE, first.text) >= 0.75


@pytest.mark.slow
def test_blank_page_is_not_ocrd(parsed: ParsedDocument) -> None:
    blank = parsed.pages[1]
    assert not blank.ocr and blank.text == ""


@pytest.mark.slow
def test_columns_are_read_left_then_right(parsed: ParsedDocument) -> None:
    text = " ".join(parsed.pages[0].text.split())
    left = text.lower().find("debris cover")
    right = text.lower().find("sampling method")
    assert 0 <= left < right, text
    # The left column is read to its end before the right one starts: all three repetitions come first.
    assert text.lower().count("debris cover", 0, right) == 3


def test_page_with_a_text_layer_is_not_ocrd(tmp_path: Path) -> None:
    doc = PdfiumParser(OcrConfig("auto")).parse(write_text_paper(tmp_path / "text.pdf"), "TEXT0001")
    assert doc.ocr_pages == [] and doc.ocr_engine is None and doc.ocr_seconds == 0
    assert "debris cover" in doc.pages[0].text


@pytest.mark.slow
def test_ocr_off_leaves_scans_to_the_fallback(scan: Path) -> None:
    for parser in (PdfiumParser(OcrConfig("off")), PdfiumParser()):
        with pytest.raises(AgentZotError, match="no text layer"):
            parser.parse(scan, "SCAN0001")
    doc = extract_attachment(attachment(scan), ocr=OcrConfig("off"))
    assert doc.source == "none" and "no text layer" in (doc.fallback_reason or "")


@pytest.mark.slow
def test_full_text_cache_wins_only_when_it_reads_better(scan: Path, tmp_path: Path) -> None:
    good_cache = (TITLE + "\n" + LEFT * 3 + RIGHT * 3) * 2
    folder = tmp_path / "good"
    folder.mkdir()
    copy = folder / "scan.pdf"
    copy.write_bytes(scan.read_bytes())
    doc = extract_attachment(attachment(copy, cache=good_cache), ocr=OcrConfig("auto"))
    assert doc.source == "ft-cache" and "reads better than OCR" in (doc.fallback_reason or "")

    folder = tmp_path / "junk"
    folder.mkdir()
    copy = folder / "scan.pdf"
    copy.write_bytes(scan.read_bytes())
    doc = extract_attachment(attachment(copy, cache="%%% 0x1F ~~ page 1"), ocr=OcrConfig("auto"))
    assert doc.source == "pdfium" and doc.ocr_pages == [1]


@pytest.mark.slow
def test_candidates_and_ink(scan: Path, tmp_path: Path) -> None:
    document = pdfium.PdfDocument(scan)
    try:
        first, blank = document[0], document[1]
        assert candidate(first, "") and candidate(first, "Downloaded from a repository on 1 May")
        assert not candidate(first, "word " * 100)  # a usable text layer over an image: not OCR'd
        assert has_ink(render(first)) and not has_ink(render(blank))
        first.close()
        blank.close()
    finally:
        document.close()


def test_glued_words_are_split_and_real_words_kept() -> None:
    assert split_glued("Typicalkinds of moraine") == "Typical kinds of moraine"
    assert split_glued("covering amorediversesetof fields") == "covering a more diverse set of fields"
    assert split_glued("links toPubMed,which contains") == "links to PubMed, which contains"
    assert split_glued("as Farber(2019)is derived") == "as Farber (2019) is derived"
    assert split_glued("GlacierRetreatintheKarakoram") == "Glacier Retreat in the Karakoram"
    # a run too long to be a word is split even where a piece is a rare word
    long_run = split_glued("the metaphorforthequestionasanobjectorcontainer into")
    assert long_run.startswith("the metaphor for the question as an ") and long_run.endswith(
        " container into"
    )
    kept = "PageRank word2vec S2ORC unsupervised pretrained dataset getElementById arxiv.org state-of-the-art"
    assert split_glued(kept) == kept
    assert split_glued("two\nlines  kept") == "two\nlines  kept"


def test_word_score_counts_known_words() -> None:
    assert word_score("the glacier retreat was measured") == 5
    assert word_score("%%% 0x1F ~~ qzxv") == 0


def test_reading_order_drops_headers_and_figures() -> None:
    def line(text: str, left: float, top: float, right: float) -> OcrLine:
        return OcrLine(text, (left, top, right, top + 10), 0.9)

    regions = [
        Region("header", (0, 0, 300, 20), 0.9),
        Region("text", (10, 30, 140, 200), 0.9),
        Region("text", (160, 30, 290, 200), 0.9),
        Region("figure", (10, 210, 290, 280), 0.9),
    ]
    lines = [
        line("Running head", 20, 5, 200),
        line("right one", 170, 40, 280),
        line("left one", 20, 40, 130),
        line("right two", 170, 60, 280),
        line("left two", 20, 60, 130),
        line("axis label", 30, 230, 90),
        line("stray note", 20, 290, 120),
    ]
    text = order_lines(lines, regions, scale=1.0, page_width=300)
    assert text == "left one\nleft two\n\nright one\nright two\n\nstray note"


def test_tesseract_tsv_lines() -> None:
    header = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext"
    rows = [
        "5\t1\t1\t1\t1\t1\t10\t10\t40\t12\t96.0\tGlacier",
        "5\t1\t1\t1\t1\t2\t55\t10\t40\t12\t91.0\tretreat",
        "5\t1\t1\t1\t1\t3\t99\t10\t5\t5\t2.0\t~",
        "5\t1\t1\t1\t2\t1\t10\t30\t40\t12\t88.0\tmoraine",
        "4\t1\t1\t1\t2\t0\t10\t30\t40\t12\t-1\t",
    ]
    rows.append("5\t1\t1\t2\t1\t1\t10\t50\t40\t12\t90.0\tdeposits")
    lines = parse_tsv("\n".join([header, *rows]))
    assert [line.text for line in lines] == ["Glacier retreat", "moraine", "deposits"]
    assert lines[0].box == (10.0, 10.0, 95.0, 22.0)
    assert [line.paragraph for line in lines] == [0, 0, 1]
    assert engine_order(lines) == "Glacier retreat\nmoraine\n\ndeposits"


def test_a_word_hyphenated_at_a_line_end_is_joined() -> None:
    lines = [OcrLine("the exam-", (0, 0, 50, 10), 0.9), OcrLine("ple shows", (0, 12, 50, 22), 0.9)]
    assert normalise_text(engine_order(lines)) == "the example shows"
    text = order_lines(lines, [], scale=1.0, page_width=100)
    assert normalise_text(text) == "the example shows"
