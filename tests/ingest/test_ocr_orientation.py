"""Scans as scanners leave them (issue 40): a page fed sideways or upside down is read the right way up,
two book pages scanned side by side are read one after the other, a page too large for a worker's memory
is rendered smaller, and Tesseract reads in the item's language when it has that language's data (and
says what to install when it has not). Real Tesseract, real scanned PDFs written here."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from agent_zot.ingest import extract_attachment
from agent_zot.ingest.ocr import OcrConfig, language
from agent_zot.ingest.ocr.orientation import MAX_PIXELS, halves, render_scale, sideways, turned
from agent_zot.ingest.pdfium import PdfiumParser
from tests.ingest.test_ingest_extract import attachment
from tests.ocr_factory import (
    SECOND_PAGE,
    SENTENCE,
    TITLE,
    recall,
    write_spread_scan,
    write_turned_scan,
)

TESSERACT = OcrConfig("tesseract", threads=2)


@pytest.mark.parametrize("degrees", [90, 180, 270])
@pytest.mark.slow
@pytest.mark.system("tesseract")
def test_a_turned_scan_is_read_the_right_way_up(tmp_path: Path, degrees: int) -> None:
    path = write_turned_scan(tmp_path / f"turned{degrees}.pdf", degrees)

    document = PdfiumParser(TESSERACT).parse(path, "TURNED01")

    assert document.ocr_pages == [1]
    assert recall(SENTENCE, document.pages[0].text) >= 0.8, document.pages[0].text
    assert recall(TITLE, document.pages[0].text) >= 0.75


@pytest.mark.slow
def test_rapidocr_turns_an_upside_down_page_over(tmp_path: Path) -> None:
    """RapidOCR reads almost nothing of a page the wrong way up (its line classifier is off, so it cannot
    read the lines right way round in reverse order): the page is turned over and read again."""
    path = write_turned_scan(tmp_path / "upside-down.pdf", 180)

    document = PdfiumParser(OcrConfig("rapidocr", threads=2)).parse(path, "TURNED02")

    text = document.pages[0].text
    assert recall(SENTENCE, text) >= 0.8, text
    assert text.find("Glacier") < text.find("laboratory")  # top of the page first


@pytest.mark.slow
@pytest.mark.system("tesseract")
def test_two_pages_scanned_side_by_side_are_read_one_after_the_other(tmp_path: Path) -> None:
    path = write_spread_scan(tmp_path / "spread.pdf")

    text = PdfiumParser(TESSERACT).parse(path, "SPREAD01").pages[0].text

    assert recall(SENTENCE, text) >= 0.8 and recall(SECOND_PAGE, text) >= 0.8
    # the left page's last words come before the right page's first: no line runs across the fold
    assert text.lower().rfind("laboratory") < text.lower().find("rivers"), text


def test_the_fold_between_two_pages_is_found_and_a_single_page_is_left_whole() -> None:
    page = np.full((400, 300, 3), 255, dtype=np.uint8)
    page[40:360:12, 30:270] = 0  # lines of "text"
    spread = np.concatenate([page, page], axis=1)
    shadow = spread.copy()
    shadow[:, 295:305] = 20  # a dark fold from top to bottom

    assert [abs(half.shape[1] - 300) <= 2 for half in halves(spread)] == [True, True]
    assert len(halves(shadow)) == 2
    assert len(halves(page)) == 1
    assert not sideways(page) and sideways(turned(page, 90))


def test_a_huge_page_is_rendered_within_the_pixel_bound() -> None:
    scale = render_scale(2480, 3508, 2.0)  # a 300-dpi scan stored at one point a pixel

    assert 2480 * 3508 * scale**2 <= MAX_PIXELS * 1.001
    assert render_scale(595, 842, 2.0) == 2.0


def test_the_items_language_picks_tesseracts_data_and_names_what_is_missing() -> None:
    installed = frozenset({"eng", "deu", "osd"})

    assert language.choose("de", installed).code == "deu"
    assert language.choose("German", installed).code == "deu"
    assert language.choose("en-US", installed) == language.Choice("eng", "eng")
    assert language.choose("", installed).code == "eng"
    french = language.choose("fr-FR", installed)
    assert french.code == "eng" and french.wanted == "fra"
    assert french.warning is not None and "tesseract-ocr-fra" in french.warning
    chinese = language.choose("zh-CN", installed)
    assert language.engine_for("tesseract", chinese, rapidocr_installed=True) == "rapidocr"
    assert language.engine_for("tesseract", french, rapidocr_installed=True) == "tesseract"


@pytest.mark.slow
@pytest.mark.system("tesseract")
def test_a_scan_in_a_language_without_data_is_read_and_says_what_to_install(tmp_path: Path) -> None:
    path = write_turned_scan(tmp_path / "french.pdf", 0)
    missing = next(
        code for code in ("fra", "ita", "spa", "por") if code not in language.tesseract_languages()
    )
    field = {"fra": "French", "ita": "Italian", "spa": "Spanish", "por": "Portuguese"}[missing]

    document = extract_attachment(attachment(path), ocr=TESSERACT, language=field)

    assert recall(SENTENCE, document.text) >= 0.8
    assert any(f"tesseract-ocr-{missing}" in warning for warning in document.warnings), document.warnings


GERMAN = (
    "Die Gletscher der Alpen sind in den letzten hundert Jahren stark zurückgegangen. Wir haben die Dicke "
    "der Schuttdecke an vierzig Stellen im Tal gemessen, und die Ergebnisse zeigen, dass sie nicht überall "
    "gleich ist. Auf dem unteren Teil des Gletschers ist die Decke dicker als auf dem oberen, und sie wird "
    "mit der Zeit auch dicker. "
)


@pytest.mark.slow
@pytest.mark.system("tesseract")
def test_a_scans_language_is_told_from_its_words_when_the_item_has_none(tmp_path: Path) -> None:
    from fpdf import FPDF

    from tests.ocr_factory import scanned_copy

    pdf = FPDF(format="A4")
    pdf.add_page()
    pdf.set_font("Helvetica", size=11)
    pdf.multi_cell(170, 6, GERMAN * 3)
    text = tmp_path / "german-text.pdf"
    pdf.output(str(text))
    scan = scanned_copy(text, tmp_path / "german.pdf")

    document = extract_attachment(attachment(scan), ocr=TESSERACT)

    assert "Gletscher" in document.text
    if "deu" in language.tesseract_languages():  # read again with the German data
        assert not any("deu" in warning for warning in document.warnings)
    else:
        assert any("German" in warning and "tesseract-ocr-deu" in warning for warning in document.warnings), (
            document.warnings
        )


def test_the_language_of_a_text_is_told_by_its_common_words() -> None:
    assert language.detect(GERMAN * 2) == "deu"
    french = (
        "Les glaciers des Alpes ont beaucoup reculé depuis un siècle. Nous avons mesuré la couverture de "
        "débris dans la vallée et les résultats montrent que son épaisseur est plus grande sur le bas du "
        "glacier que sur le haut, et qu'elle augmente avec le temps pour les sites observés. "
    )
    assert language.detect(french * 2) == "fra"
    assert language.detect(SENTENCE * 5) == "eng"
    assert language.detect("Gletscher Alpen") is None  # too few words to tell
