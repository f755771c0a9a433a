"""Test PDFs made with fpdf2: papers with running headers, page numbers, a hyphenated line break, a
references section and page labels; an image-only ("scanned") PDF; encrypted and broken files.

Every body page carries a unique marker sentence ("Marker sentence for page N.") so tests can check
which text landed on which page.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from pathlib import Path

from fpdf import FPDF
from PIL import Image

HEADER = "Journal of Synthetic Test Documents, Volume 7 (2024)"
HYPHEN_HEAD, HYPHEN_TAIL = "exam", "ple"  # written as "exam-" at a line end and "ple" on the next line
LABEL_START = 101  # first page label of papers made with page_labels=True

_BODY = (
    "Parsing scientific documents is a common task in digital libraries and search systems. "
    "We describe a pipeline that extracts text page by page and keeps the page numbers, so that "
    "each passage can be cited precisely. The approach is evaluated on a small test collection "
    "and compared with earlier tools that were designed for the same purpose."
)
REFERENCES = [
    "[1] A. Author and B. Writer. A study of text extraction. Journal of Parsing, 12(3):1-10, 2019.",
    "[2] C. Scholar et al. Page numbers in practice. In Proceedings of the Library Conference, 2020.",
    "[3] D. Reader. Running headers considered harmful. Document Engineering, 4:55-60, 2018.",
    "[4] E. Editor and F. Fellow. Hyphenation and its discontents. Typography Letters, 2021.",
    "[5] G. Grader. Bibliographies at scale. ACM Transactions on Libraries, 9(1):1-20, 2022.",
]


_SECTIONS = ["Introduction", "Related Work", "Methods", "Results", "Discussion", "Conclusion"]


def marker(page: int) -> str:
    return f"Marker sentence for page {page}."


def heading(page: int) -> str:
    """The numbered section heading that opens body page ``page``."""
    return f"{page} {_SECTIONS[(page - 1) % len(_SECTIONS)]}"


@dataclass
class PaperSpec:
    """What was written where, for assertions."""

    path: Path
    page_count: int
    body_pages: list[int]
    references_page: int | None
    labels: list[str] = field(default_factory=list)
    hyphenated_word: str = HYPHEN_HEAD + HYPHEN_TAIL


class _Paper(FPDF):
    """Header on every page, the page number centred at the foot of every page."""

    def header(self) -> None:
        self.set_font("Helvetica", "I", 9)
        self.cell(0, 8, HEADER, align="C", new_x="LMARGIN", new_y="NEXT")
        self.ln(4)

    def footer(self) -> None:
        self.set_y(-15)
        self.set_font("Helvetica", size=9)
        self.cell(0, 8, str(self.page_no()), align="C")


def _lines(pdf: FPDF, lines: list[str], width: float) -> None:
    for line in lines:
        pdf.multi_cell(width, 5, line, new_x="LMARGIN" if width == 0 else "LEFT", new_y="NEXT")


def _body_page(pdf: FPDF, page: int, *, two_columns: bool, hyphen: bool, body: str = _BODY) -> None:
    pdf.set_font("Helvetica", "B", 12)
    pdf.cell(0, 8, heading(page), new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    paragraphs = [marker(page) + " " + body, body]
    if hyphen:
        # An explicit line break after "exam-": the break a justified layout would make.
        paragraphs.append(f"The hyphenated word in this {HYPHEN_HEAD}-")
        paragraphs.append(f"{HYPHEN_TAIL} must be joined by the parser.")
    if not two_columns:
        _lines(pdf, paragraphs, 0)
        return
    top, column = pdf.get_y(), (pdf.w - pdf.l_margin - pdf.r_margin - 10) / 2
    _lines(pdf, paragraphs[:1] + paragraphs[2:], column)
    pdf.set_xy(pdf.l_margin + column + 10, top)
    _lines(pdf, [_BODY, _BODY], column)


def write_paper(
    path: Path,
    *,
    body_pages: int = 3,
    two_columns: bool = False,
    references: bool | list[str] = True,
    page_labels: bool = False,
    body: str = _BODY,
    page_bodies: list[str] | None = None,
    image_page: bool = False,
    password: str | None = None,
) -> PaperSpec:
    """A paper: ``body_pages`` pages of text (the hyphenated break on page 1), an optional page with
    only an image, and a "References" page with numbered entries. ``page_bodies`` gives each body page
    its own text (and sets the page count)."""
    if page_bodies is not None:
        body_pages = len(page_bodies)
    pdf = _Paper(format="A4")
    pdf.set_auto_page_break(auto=True, margin=20)
    for page in range(1, body_pages + 1):
        pdf.add_page()
        if page_labels and page == 1:
            pdf.set_page_label(label_style="D", label_start=LABEL_START)
        text = page_bodies[page - 1] if page_bodies is not None else body
        _body_page(pdf, page, two_columns=two_columns, hyphen=page == 1, body=text)
    if image_page:
        pdf.add_page()
        pdf.image(Image.new("RGB", (120, 80), (90, 90, 90)), x=30, y=40, w=120)
    references_page = None
    if references:
        pdf.add_page()
        references_page = pdf.page_no()
        pdf.set_font("Helvetica", "B", 12)
        pdf.cell(0, 8, "References", new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=9)
        _lines(pdf, REFERENCES if references is True else references, 0)
    if password:
        pdf.set_encryption(owner_password="owner-" + password, user_password=password)
    pdf.output(str(path))
    count = pdf.page_no()
    labels = [str(LABEL_START + i) for i in range(count)] if page_labels else []
    return PaperSpec(path, count, list(range(1, body_pages + 1)), references_page, labels)


def write_scanned(path: Path, pages: int = 2) -> Path:
    """A PDF whose pages hold only an image (no text layer), like a scan without OCR."""
    pdf = FPDF(format="A4")
    for _ in range(pages):
        pdf.add_page()
        pdf.image(Image.new("L", (200, 280), 200), x=10, y=10, w=190)
    pdf.output(str(path))
    return path


def write_truncated(path: Path, source: Path, keep: int = 400) -> Path:
    """The first ``keep`` bytes of a PDF: a damaged download."""
    path.write_bytes(source.read_bytes()[:keep])
    return path


def write_garbage(path: Path) -> Path:
    path.write_bytes(b"%PDF-1.7\n" + bytes(range(256)) * 8)
    return path


def write_front_page(
    path: Path,
    *,
    title: str,
    authors: str,
    affiliations: list[str],
    abstract: str = _BODY,
    venue: str | None = None,
    info_title: str | None = None,
    info_author: str | None = None,
) -> Path:
    """A paper's first page as journals set it: an optional venue line, the title in large type (wrapped
    when long), the author line, affiliation and e-mail lines, then the abstract and a body page; the PDF's
    document info holds ``info_title`` and ``info_author`` when given."""
    pdf = FPDF(format="A4")
    if info_title is not None:
        pdf.set_title(info_title)
    if info_author is not None:
        pdf.set_author(info_author)
    pdf.add_page()
    if venue:
        pdf.set_font("Helvetica", "I", 8)
        pdf.cell(0, 5, venue, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(6)
    pdf.set_font("Helvetica", "B", 20)
    pdf.multi_cell(0, 9, title, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(4)
    pdf.set_font("Helvetica", size=12)
    pdf.cell(0, 7, authors, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=9)
    for line in affiliations:
        pdf.cell(0, 5, line, align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.ln(8)
    pdf.set_font("Helvetica", "B", 10)
    pdf.cell(0, 6, "Abstract", align="C", new_x="LMARGIN", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    _lines(pdf, [abstract, _BODY], 0)
    _body_page(pdf, 1, two_columns=False, hyphen=False)
    pdf.output(str(path))
    return path


def write_sectioned_paper(
    path: Path, sections: list[tuple[str | None, str]], title: str | None = None
) -> bytes:
    """One page of sections: each (heading or None, text), the heading bold on its own line, an optional
    title above them; the PDF's bytes, for an attachment."""
    pdf = FPDF(format="A4")
    pdf.add_page()
    if title is not None:
        pdf.set_font("Helvetica", "B", 14)
        pdf.multi_cell(0, 8, title, new_x="LMARGIN", new_y="NEXT")
    for heading_text, text in sections:
        if heading_text is not None:
            pdf.set_font("Helvetica", "B", 11)
            pdf.cell(0, 7, heading_text, new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.multi_cell(0, 5, text, new_x="LMARGIN", new_y="NEXT")
        pdf.ln(2)
    pdf.output(str(path))
    return path.read_bytes()


STAMP_FOOTER = (
    "Downloaded from https://academic.example.org/jsd/article/7/2/101/5551234 by guest on 12 March 2019"
)


ARXIV_STAMP = "arXiv:2001.01123v2 [cs.CL] 3 Jan 2020"  # set sideways in the margin of page 1

BESIDE = "Beside the drawing, this paragraph explains the protocol in plain words."
_ORDINALS = ["first", "second", "third", "fourth", "fifth", "sixth"]


def write_stamped_paper(path: Path, labels: list[str], caption: str, pages: int = 3) -> Path:
    """A paper as a repository hands it out: an arXiv identifier set sideways in the left margin of
    page 1 and a "Downloaded from …" line at the foot of every page; on page 2 a vector drawing (boxes and arrows,
    each box with a short ``labels`` entry, a legend under it) beside a body paragraph, its ``caption``
    under it. Every page has its marker sentence (``marker``)."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    for page in range(1, pages + 1):
        pdf.add_page()
        pdf.set_xy(25, 25)
        pdf.set_font("Helvetica", "B", 12)
        pdf.cell(0, 8, heading(page), new_x="LMARGIN", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.set_x(25)
        opening = f"The {_ORDINALS[page - 1]} page opens with words of its own. {marker(page)} "
        pdf.multi_cell(160, 5, opening + _BODY, new_x="LEFT", new_y="NEXT")
        # the stamps come between the paragraphs in content order: not among a page's first or last lines
        if page == 1:
            pdf.set_font("Helvetica", size=18)
            with pdf.rotation(90, x=14, y=200):
                pdf.text(14, 200, ARXIV_STAMP)
        pdf.set_font("Helvetica", size=7)
        pdf.text(30, 287, STAMP_FOOTER)
        pdf.set_font("Helvetica", size=10)
        if page != 2:
            pdf.set_x(25)
            pdf.multi_cell(160, 5, _BODY + " " + _BODY, new_x="LEFT", new_y="NEXT")
            continue
        top = pdf.get_y() + 6
        _drawing(pdf, 25, top, labels)
        pdf.set_font("Helvetica", size=9)
        pdf.set_xy(25, top + 78)
        pdf.multi_cell(80, 4.5, caption, new_x="LEFT", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.set_xy(112, top)
        pdf.multi_cell(73, 5, BESIDE + " " + _BODY, new_x="LEFT", new_y="NEXT")
    pdf.output(str(path))
    return path


def _drawing(pdf: FPDF, left: float, top: float, labels: list[str]) -> None:
    """Boxes in two rows joined by arrows, each with a label in small type, step numbers by the arrows
    and a legend: the text a vector diagram leaves in a PDF's text layer."""
    pdf.set_draw_color(40, 40, 40)
    pdf.set_font("Helvetica", size=7)
    boxes = [(left + 4 + (i % 2) * 44, top + 6 + (i // 2) * 26) for i in range(len(labels))]
    for (x, y), label in zip(boxes, labels, strict=True):
        pdf.rect(x, y, 32, 12)
        pdf.text(x + 3, y + 7, label)
    for step, ((x1, y1), (x2, y2)) in enumerate(itertools.pairwise(boxes), start=1):
        pdf.line(x1 + 16, y1 + 12, x2 + 16, y2)
        pdf.text((x1 + x2) / 2 + 18, (y1 + y2) / 2 + 8, str(step))
    pdf.line(left, top + 62, left + 80, top + 62)
    for i, entry in enumerate(["Legend:", "Control", "Data"]):
        pdf.text(left + 2 + i * 24, top + 68, entry)


ELSEVIER_STAMP = "© 2018 Published by Elsevier Inc."
ABSTRACT = (
    "Artifacts in physiological signals recorded during intensive care are frequent and lead to false "
    "alarms at the bedside. We trained a deep belief network on arterial pressure pulses labelled by two "
    "clinicians and compared it with a widely used signal abnormality index. The network found corrupted "
    "beats with an accuracy of 95.9 percent against 84.3 percent for the index, and it could improve the "
    "quality of continuous monitoring in clinical practice."
)


LICENCE = [
    "Original content from this work may be used under the terms",
    "of the Creative Commons Attribution 4.0 licence. Any further",
    "distribution of this work must maintain attribution to the author(s) and the title",
    "of the work, journal citation and DOI.",
]


def write_abstract_over_stamp(path: Path, *, licence: bool = False) -> Path:
    """A journal's first page as Elsevier sets it: the abstract in smaller type than the body, the
    publisher's "© 2018 Published by Elsevier Inc." right under its last line, then the body; with
    ``licence``, the body's first paragraph is followed by a licence block in small type (as the AAS
    journals set it at the foot of a column), then a second paragraph."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    pdf.add_page()
    pdf.set_xy(25, 25)
    pdf.set_font("Helvetica", "B", 14)
    pdf.multi_cell(
        160, 7, "Automated artifact elimination with a deep belief network", new_x="LEFT", new_y="NEXT"
    )
    pdf.set_font("Helvetica", size=7.5)
    pdf.set_xy(25, pdf.get_y() + 8)
    pdf.multi_cell(160, 3.6, ABSTRACT, new_x="LEFT", new_y="NEXT")
    pdf.multi_cell(160, 3.6, ELSEVIER_STAMP, align="R", new_x="LEFT", new_y="NEXT")
    pdf.set_xy(25, pdf.get_y() + 10)
    pdf.set_font("Helvetica", "B", 10)
    pdf.cell(0, 6, "1. Introduction", new_x="LEFT", new_y="NEXT")
    pdf.set_font("Helvetica", size=10)
    pdf.multi_cell(160, 5, " ".join([marker(1), _BODY, _BODY, _BODY, _BODY]), new_x="LEFT", new_y="NEXT")
    if licence:
        pdf.set_font("Helvetica", size=7)
        pdf.set_xy(25, pdf.get_y() + 4)
        for line in LICENCE:
            pdf.cell(160, 3.2, line, new_x="LEFT", new_y="NEXT")
        pdf.set_font("Helvetica", size=10)
        pdf.set_xy(25, pdf.get_y() + 4)
        pdf.multi_cell(160, 5, " ".join([_BODY, _BODY]), new_x="LEFT", new_y="NEXT")
    pdf.output(str(path))
    return path


CATALOGUE_HEAD = "The Journal of Synthetic Catalogues, 265:4 (20pp), 2023 March, Lee, Park and Tsang"
CATALOGUE_PROSE = (
    "Finally, we need to note here that the fits of the space-based light curves did not leave Gaussian "
    "residuals, most probably because the limb-darkening coefficients were held fixed."
)
# A stamp's phrase in a sentence of the prose: page chrome only in a line set apart from the body.
CATALOGUE_RELEASE = (
    "The first catalogue was published online with the data release of 2022, as were its updates."
)


def write_catalogue_paper(path: Path, prose_pages: int = 2, table_pages: int = 6) -> Path:
    """A catalogue paper: a few pages of prose in body type, then many pages of tables in small type (more
    characters than the prose), a running head in small type over every page and the page number right
    under the last line of text. Each prose page has its marker sentence; the first holds ``CATALOGUE_PROSE``
    twice (the second just above its page number), the second ``CATALOGUE_RELEASE`` twice."""
    pdf = FPDF(format="A4")
    pdf.set_auto_page_break(auto=False)
    for page in range(1, prose_pages + table_pages + 1):
        pdf.add_page()
        pdf.set_font("Helvetica", size=7)
        pdf.set_xy(20, 12)
        pdf.cell(170, 4, CATALOGUE_HEAD, align="C")
        pdf.set_xy(20, 24)
        if page <= prose_pages:
            pdf.set_font("Helvetica", size=10)
            last = CATALOGUE_PROSE if page == 1 else CATALOGUE_RELEASE
            text = " ".join([marker(page), *[_BODY] * 4, last, *[_BODY] * 5, last])
            pdf.multi_cell(170, 5, text, new_x="LEFT", new_y="NEXT")
        else:
            pdf.set_font("Helvetica", size=7)
            for row in range(60):
                n = (page * 60 + row) * 7
                cells = [
                    f"WASP-{n % 997}b",
                    f"{2450000 + n}.{n % 97:02d}",
                    f"{n % 13}.{n % 89:04d}",
                    "0.0012",
                ]
                pdf.cell(
                    170,
                    4,
                    "   ".join([*cells, "Kokori et al. 2022, ExoClock observations"]),
                    new_x="LEFT",
                    new_y="NEXT",
                )
        pdf.set_font("Helvetica", size=10)
        pdf.set_xy(20, pdf.get_y() + 1)
        pdf.cell(170, 5, str(page), align="C")
    pdf.output(str(path))
    return path


def pages_pdf(path: Path, pages: list[str]) -> bytes:
    """A PDF with one page of plain text for each of ``pages``, written to ``path``; its bytes."""
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    for text in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, text)
    pdf.output(str(path))
    return path.read_bytes()
