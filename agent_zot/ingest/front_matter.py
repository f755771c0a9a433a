"""Title, authors and year of a PDF that Zotero holds without a parent item (so without metadata): from
the PDF's document info when it is plausible, else from the title block of its first page
(ingest/title_block.py). Authors are read only from the lines between the title and the abstract, never
guessed from body text; a year only from a copyright, venue or date line of the first page.
"""

from __future__ import annotations

import re
import time
from pathlib import Path

import pypdfium2 as pdfium

from agent_zot.ingest.models import ParseError
from agent_zot.ingest.pdfium import open_pdf
from agent_zot.ingest.title_block import SUPERSCRIPT, Line, fix_accents, page_lines, printed_year, title_block
from agent_zot.zotero.file_metadata import FrontMatter

_FILE_NAME = re.compile(r"\.(?:pdf|docx?|dvi|tex|ps|rtf|odt|pptx?|indd|qxd|txt)\s*$", re.IGNORECASE)
_TOOL_TITLE = re.compile(r"^(?:microsoft\s+\w+|untitled|powerpoint presentation|slide \d+)\b", re.IGNORECASE)
_IDENTIFIER = re.compile(r"^(?:doi:|arxiv:|https?:|www\.|10\.\d{4,}/)", re.IGNORECASE)
_AUTHOR_SEPARATORS = re.compile(r"\s*(?:[,;&|·•∗*†‡§¶♠♢♡♣♦□⋄♮$+#()\[\]{}<>=/\\\d]|\band\b|\s{2,})\s*")
_PARTICLES = frozenset(
    {"van", "von", "der", "den", "de", "da", "di", "del", "della", "la", "le", "du", "dos"}
)
_PARTICLES |= {"bin", "ibn", "al", "el", "ter", "ten", "zu", "y"}
_TITLES = re.compile(r"^(?:dr|prof|mr|ms|mrs)\.?\s+", re.IGNORECASE)
# Words of affiliations, not of names ("Google Brain", "Saarland University", "Vrije Universiteit").
_AFFILIATION = re.compile(
    r"^(?:univ\w*|institut\w*|department|dept|school|college|faculty|laborator\w*|labs?|research|center|centre"
    r"|inc|corp\w*|company|ltd|gmbh|foundation|academy|hospital|brain|sciences?|technology|engineering"
    r"|national|group|division|google|microsoft|ibm|amazon|facebook|meta|deepmind|openai|nvidia|apple"
    r"|intel|adobe|ai|usa|uk|china|germany|france|japan|india|canada|korea|italy|spain|australia)$",
    re.IGNORECASE,
)
_NAME_WORD = re.compile(r"^(?:[^\W\d_]\.)+$|^[^\W\d_][^\W\d_'’\-]*(?:[-'’][^\W\d_]+)*\.?$")
_STOP = re.compile(
    r"^(?:a\s?b\s?s\s?t\s?r\s?a\s?c\s?t|summary|keywords|index terms|introduction|1\.?\s+intro)", re.I
)
_MAX_AUTHORS = 50


def read_front_matter(path: Path) -> FrontMatter | None:
    """The paper's title (with authors and year where found), or None when neither the document info
    nor the first page gives a plausible title. Raises ParseError when the file cannot be opened."""
    pdf = open_pdf(path)
    try:
        info = pdf.get_metadata_dict(skip_empty=True)
        lines: list[Line] = []
        height = 0.0
        if len(pdf) > 0:
            page = pdf[0]
            try:
                textpage = page.get_textpage()
                try:
                    lines, height = page_lines(page, textpage), page.get_height()
                finally:
                    textpage.close()
            finally:
                page.close()
    except pdfium.PdfiumError as err:
        raise ParseError(f"the first page could not be read ({err})") from err
    finally:
        pdf.close()
    return combine(info.get("Title", ""), info.get("Author", ""), lines, height)


def combine(info_title: str, info_author: str, lines: list[Line], page_height: float) -> FrontMatter | None:
    """The document info where plausible, the first page's title block for the rest."""
    block = title_block(lines, page_height) if lines else None
    page_text = " ".join(line.plain for line in lines).lower()
    title = plausible_title(info_title)
    if title and page_text and not _printed_on(title, page_text) and block is not None:
        title = ""  # a template's or another file's title: the page does not print it
    source = "document info" if title else "first page"
    title = title or (block.title if block else "")
    if not title:
        return None
    authors = info_authors(info_author) or (author_names(block.author_lines) if block else ())
    return FrontMatter(title, authors, printed_year(lines, time.gmtime().tm_year + 1), source)


def plausible_title(text: str) -> str:
    """The document info's Title when it reads as a paper's title ("" for a file name, a tool's
    placeholder such as "Microsoft Word - draft3.docx", an identifier, or one word)."""
    title = " ".join(text.split())
    if (
        len(title) < 8
        or len(title.split()) < 2
        or _FILE_NAME.search(title)
        or _TOOL_TITLE.search(title)
        or _IDENTIFIER.search(title)
        or sum(ch.isalpha() for ch in title) < 0.6 * len(title.replace(" ", ""))
    ):
        return ""
    return title


def _printed_on(title: str, page_text: str) -> bool:
    """Most of the title's words are on the page (a template's leftover title is not)."""
    words = [w for w in re.findall(r"\w+", title.lower()) if len(w) > 2]
    return not words or sum(w in page_text for w in words) >= 0.6 * len(words)


def info_authors(text: str) -> tuple[str, ...]:
    """The document info's Author as names, or () unless every part reads as a person's name ("ibm", a
    user name, a company are not). "Lamport, Leslie" is one name; "A; B" and "A, B and C" are several."""
    text = " ".join(text.split())
    if not text:
        return ()
    if ";" in text:
        parts = text.split(";")
    else:
        parts = re.split(r",|\band\b|&", text)
        if len(parts) == 2 and all(len(p.split()) == 1 for p in parts):  # "Surname, Given"
            parts = [f"{parts[1]} {parts[0]}"]
    names = [name_of(part) for part in parts if part.strip()]
    return tuple(n for n in names if n) if names and all(names) else ()


def name_of(text: str) -> str:
    """A person's name as printed, tidied ("Dr. Saeed Murtaza" -> "Saeed Murtaza", "TAL AUGUST" ->
    "Tal August"), or "" when ``text`` does not read as one (an affiliation, an address, a place)."""
    text = _TITLES.sub("", " ".join(text.replace(SUPERSCRIPT, " ").split()).strip(" .-'’"))
    words = text.split()
    if not 2 <= len(words) <= 5 or any(_AFFILIATION.match(w.strip(".")) for w in words):
        return ""
    for word in words:
        if word.lower() in _PARTICLES:
            continue
        if not _NAME_WORD.match(word) or not word[0].isupper():
            return ""
    if words[-1].lower() in _PARTICLES or all(len(w.rstrip(".")) == 1 for w in words):
        return ""
    if text.isupper():
        text = " ".join(w if len(w.rstrip(".")) == 1 else w.capitalize() for w in words)
    return text


def author_names(lines: list[Line]) -> tuple[str, ...]:
    """The names on the lines under a title, down to the abstract: a line counts when it starts with a
    name (an affiliation, address or e-mail line does not); its names run until its first part that is
    not one ("TAL AUGUST, University of Washington, USA" gives one name)."""
    names: list[str] = []
    for line in lines:
        plain = line.plain
        if _STOP.match(plain) or _running_text(plain):
            break
        if "@" in plain or "http" in plain.lower() or re.search(r"\d{3}", plain):
            continue
        for part in _AUTHOR_SEPARATORS.split(fix_accents(line.text)):
            part = part.strip(" .'’\"")
            if not part:
                continue
            name = name_of(part)
            if not name:
                break
            if name not in names:
                names.append(name)
    return tuple(names[:_MAX_AUTHORS])


def _running_text(text: str) -> bool:
    """A sentence of body text (the abstract without its heading), where the author lines have ended."""
    words = text.split()
    return len(words) >= 10 and sum(w[:1].islower() for w in words) >= 0.5 * len(words)
