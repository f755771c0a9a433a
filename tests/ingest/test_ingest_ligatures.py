"""Words a text layer broke at a lost ligature or a gap, mended at indexing (ingest/ligatures.py).

The broken strings are as pdfium read them from real papers (the shared PDFs and the user libraries in
the shared data); the negatives are names, acronyms, variables and foreign words from the same papers.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from fpdf import FPDF

from agent_zot.ingest.document import build_document
from agent_zot.ingest.ligatures import restore_words
from agent_zot.ingest.pdfium import PdfiumParser, read_pages
from tests.pdf_factory import REFERENCES


def mend(text: str) -> str:
    return restore_words([text])[0]


@pytest.mark.parametrize(
    ("broken", "mended"),
    [
        (
            "Thus, backstepping may be dicult (if not impossible)",
            "Thus, backstepping may be difficult (if not impossible)",
        ),
        (
            "In Section IV, sucient conditions are developed",
            "In Section IV, sufficient conditions are developed",
        ),
        (
            "variants in novel pathways inuence blood pressure",
            "variants in novel pathways influence blood pressure",
        ),
        ("Volume 2018 Scientic Programming", "Volume 2018 Scientific Programming"),
        ("5. Reerences", "5. References"),
        (
            "Methods o gesture analysis",
            "Methods of gesture analysis",
        ),  # "o" between words, not a variable  # a heading: a long capitalised repair is no name
        ("CMB power spectrums for diferent contents", "CMB power spectrums for different contents"),
        ("Guides Local Fund for Scientifc and", "Guides Local Fund for Scientific and"),  # "fi" kept its "f"
    ],
)
def test_lost_ligatures_are_put_back(broken: str, mended: str) -> None:
    assert mend(broken) == mended


@pytest.mark.parametrize(
    ("broken", "mended"),
    [
        ("when a user is r unning the test", "when a user is running the test"),
        (
            "The resulting downsampled sig\nnals are referred",
            "The resulting downsampled signals are referred",
        ),
        ("a set of param eters and associ\nated weights", "a set of parameters and associated weights"),
        ("Screening Inclusio n Architecture", "Screening Inclusion Architecture"),
        ("results are di erent and e cient", "results are different and efficient"),  # ligature became a gap
        (
            "Bigtab le stores rows. Bigtable scales. Bigtable is fast.",
            "Bigtable stores rows. Bigtable scales. Bigtable is fast.",
        ),
    ],
)
def test_split_words_are_joined(broken: str, mended: str) -> None:
    assert mend(broken) == mended


@pytest.mark.parametrize(
    "text",
    [
        "Matthew Honnibal, Ines Montani, and R. Dey, 2020",  # names one ligature away from words
        "Chris Karlof and D. Wagner; N.P. Kool, J.A.R. van Waes; Git repository",
        "the CLS token on AWS for ICUs",  # acronyms
        "feedback law k : R n → Rm for x ∈ R n, with respect to u, the Rn",  # variables
        "where o is the origin, and f, i and o are the gates; the map of o and its prototypes",
        "xf = dV / dt in my_var and foo.py at www.heart.org/HighBloodPre\nssure/Know",  # identifiers, URLs
        "self-efcacy and re-use, e-mail, x-ray, k-means and Limb darkening beside limb-darkening",
        "the 3 rd and 10 th rows; 12 ms",  # numbers
        "I ran a test; a part of it is apart",  # "a" and "I" are words
        "Wie der russische Verteidigungsminister; ve ˇ cino modernih; Sandra Mitrovic and Henning M ´ uller",
        "reusing rationales can increase development effort; the scheme s = 2",
        "Te results and Tis work",  # "Te", "Tis" are listed words
    ],
)
def test_words_that_are_not_broken_stay(text: str) -> None:
    assert mend(text) == text


def test_a_document_that_lost_its_ligatures_has_its_short_and_capitalised_words_mended_too() -> None:
    """Only where other pages show the loss are a capitalised word, a short one and a Th ligature taken
    for broken: a single "Efect" or "Tese" elsewhere may be a name."""
    pages = [
        "the control efect of the fexible plate was verifed in the frst test",
        "Based on the Kirchhof assumption. Efect of Damping. Tese results hold. The fve parts.",
    ]
    assert restore_words(pages) == [
        "the control effect of the flexible plate was verified in the first test",
        "Based on the Kirchhoff assumption. Effect of Damping. These results hold. The five parts.",
    ]
    assert restore_words(pages[1:]) == pages[1:]


def test_repeated_lost_of_is_mended_without_other_evidence() -> None:
    page = "Methods o gesture analysis\nthe role o hands in the study o speech, in terms o timing"
    assert (
        mend(page)
        == "Methods of gesture analysis\nthe role of hands in the study of speech, in terms of timing"
    )


def test_the_references_heading_and_the_headings_are_found_once_mended() -> None:
    body = "Our method is dicult to beat and gives sucient accuracy on every test we ran in this study."
    pages = [
        f"1 Introduction\n{body}",
        f"2 Methods o gesture analysis\n{body}",
        "5. Reerences\n" + "\n".join(REFERENCES),
    ]
    doc = build_document("K", "pdfium", pages)
    assert (3, "5. References") in doc.headings
    assert doc.references_page == 3 and doc.references_text.startswith("[1] A. Author")
    assert "difficult to beat and gives sufficient accuracy" in doc.pages[0].text


def test_a_pdf_whose_text_layer_lost_its_ligatures_is_read_mended(tmp_path: Path) -> None:
    """A PDF made by fpdf2 whose text layer holds the broken words, as a font without ligature mappings
    leaves them: pdfium reads them so, the parser mends them."""
    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=11)
    lines = [
        "1 Introduction",
        "The control efect of a fexible plate is dicult to measure with sucient accuracy.",
        "We frst defne the feld model and then verify it; the r unning time is reported.",
        "2 Results",
        "The coefcient of the flter was identifed in the experiment described above.",
    ]
    for _ in range(2):
        pdf.add_page()
        for line in lines:
            pdf.cell(0, 8, line, new_x="LMARGIN", new_y="NEXT")
    pdf.add_page()
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 8, "5. Reerences", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=9)
    for entry in REFERENCES:
        pdf.cell(0, 6, entry, new_x="LMARGIN", new_y="NEXT")
    path = tmp_path / "lost.pdf"
    pdf.output(str(path))
    assert "is dicult to measure" in read_pages(path)[0].texts[0]  # the text layer holds the loss
    doc = PdfiumParser().parse(path, "K")
    text = doc.pages[0].text
    assert "The control effect of a flexible plate is difficult to measure with sufficient accuracy." in text
    assert "We first define the field model and then verify it; the running time is reported." in text
    assert "The coefficient of the filter was identified" in text
    assert doc.references_page == 3 and (3, "5. References") in doc.headings


def test_captions_are_mended_with_the_pages_vocabulary() -> None:
    from agent_zot.ingest.figures import Element, _mend_captions

    elements = [
        Element("figure", "1", 1, caption="Figure 1: Bigtab le servers r unning the benchmark."),
        Element("table", "2", 2, caption="Table 2: Dicult cases for Bigtable clients."),
    ]
    body = "Bigtable stores data in tablets. Each Bigtable cluster has many tablet servers. " * 3

    _mend_captions(elements, [body, body])

    assert elements[0].caption == "Figure 1: Bigtable servers running the benchmark."
    assert elements[1].caption.startswith("Table 2: Difficult cases")


def test_a_th_ligature_read_as_a_hyphen_is_mended_where_the_document_shows_it() -> None:
    # Some publishers' fonts map the "Th" ligature to a hyphen: "-e University", "-erefore", "-ey".
    pages = [
        "2.1. Online Database. -e University of Queensland collected the data. -is set is open.",
        "-erefore the features were dropped. -ey were collinear, and -ree of them remain.",
        "A -test of the -admissable set and the -ed suffix stay as printed.",
    ]
    mended = restore_words(pages)
    assert (
        mended[0]
        == "2.1. Online Database. The University of Queensland collected the data. This set is open."
    )
    assert mended[1] == "Therefore the features were dropped. They were collinear, and Three of them remain."
    assert mended[2] == pages[2]


def test_a_lone_leading_hyphen_is_not_read_as_a_lost_th() -> None:
    pages = ["The suffix -e marks the plural here; see the -ed form below."]
    assert restore_words(pages) == pages


def test_a_ligature_read_as_an_unrelated_symbol_is_mended_where_it_makes_words() -> None:
    # As pdfium reads a HAL preprint set in LaTeX's Type 1 fonts (the shared control-theory library): the
    # "ff" glyph comes out as U+21B5, which the same fonts also print for alpha inside formulas.
    pages = [
        "A constructive approach is also suggested employing a di↵erential inclusion representation.",
        "The functions ↵1(||x||) and K↵ are of class K; the di↵erent controllers have an e↵ect on V.",
        "Rn⇥n is a matrix and Andrieu⇤ an author mark; the function is di↵erentiable.",
    ]
    mended = restore_words(pages)
    assert mended[0] == (
        "A constructive approach is also suggested employing a differential inclusion representation."
    )
    assert mended[1] == (
        "The functions ↵1(||x||) and K↵ are of class K; the different controllers have an effect on V."
    )
    assert mended[2] == "Rn⇥n is a matrix and Andrieu⇤ an author mark; the function is differentiable."


def test_a_symbol_inside_one_word_alone_is_no_evidence_of_a_lost_ligature() -> None:
    pages = ["The ratio x↵y and a single di↵erent token, with caf→bar as a formula."]
    assert restore_words(pages) == pages
