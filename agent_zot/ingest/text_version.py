"""Which stored texts an earlier release would read otherwise: the page-text rules each text version added.

An index keeps the page texts it was made from. When a release reads files better (a repository's cover
sheet left out, a font's symbol read as the ligature it stands for), an existing index keeps the old text
until its files change. Most rules here apply to stored text as well as to a file's own; a rule decided from
the page's geometry (which lines are body) is told from the PDF's text layer beside the stored text. So an
update finds the few files whose text this release would store differently and reads only those again
(services/upkeep/reread.py), instead of every file of the library.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent_zot.ingest.clean import join_accents, without_cover_sheet
from agent_zot.ingest.headings import find_headings
from agent_zot.ingest.ligatures import glyph_ligatures
from agent_zot.text import has_cjk

# The version of the page text a release stores; an index made before this module existed is version 0.
TEXT_VERSION = 3


def _version_1(pages: list[str]) -> list[str]:
    """2026-11-29: TeX's spacing accents joined to their letters ("Universit¨at"), a repository's cover
    sheet left out (HAL, ResearchGate, Taylor & Francis, JSTOR), ligatures a font mapped to an unrelated
    symbol mended ("di↵erent")."""
    texts, _ = without_cover_sheet([join_accents(page) for page in pages])
    return glyph_ligatures(texts)


_WORD = re.compile(r"[^\W\d_]{4,}")
MISSING_LINES = 3  # paragraph-long lines of one page missing from its stored text that tell a block lost
CHROME_LINES = 2  # lines this release takes for page chrome, stored word for word in one page's text


@dataclass(frozen=True, slots=True)
class StoredPdf:
    """A PDF pdfium read into the index: its file, and the page its reference list starts on (the list
    is stored apart from the page texts)."""

    path: Path
    references_page: int | None = None


def _version_2(pdf: StoredPdf, pages: Sequence[str]) -> bool:
    """2026-11-30: body prose no longer set aside as page chrome (ingest/line_roles.py): an abstract above
    a "© 2018 Published by Elsevier" line, a column above its page number, the prose pages of a paper whose
    tables and reference list are set smaller than its body; and a licence block set apart from the body
    taken out whole ("Original content from this work may be used under the terms of the Creative Commons
    …"). Told from the file's text layer (the roles are decided from its geometry, which the stored text no
    longer has): a page before the reference list whose stored text lacks ``MISSING_LINES`` or more of the
    paragraph-long lines this release keeps, or holds ``CHROME_LINES`` of those it takes for chrome (a page
    stored empty, a cover sheet, is not looked at)."""
    from agent_zot.ingest.line_roles import long_lines  # reads the PDF (pdfium): loaded when looked for

    for number, lines in enumerate(long_lines(pdf.path), 1):
        if number > len(pages) or (pdf.references_page and number >= pdf.references_page):
            break
        text = pages[number - 1]
        stored = set(_WORD.findall(text.lower()))
        if not stored:
            continue
        missing = 0
        for line in lines.kept:
            words = _WORD.findall(line.lower())
            if len(words) >= 4 and sum(word in stored for word in words) < len(words) / 2:
                missing += 1
        flat = " ".join(text.split())
        held = sum(1 for line in lines.chrome if " ".join(line.split()) in flat)
        if missing >= MISSING_LINES or held >= CHROME_LINES:
            return True
    return False


def _version_3(pages: Sequence[str]) -> bool:
    """2026-11-30: Chinese and Japanese headings name sections ("第 4 章 …", "4.1 本章简述", "摘 要",
    "参考文献"), and an English abstract a Chinese journal sets among its references is body text: a
    document whose stored pages hold such a heading was cut into chunks under the wrong sections (the
    stored text is the same; its chunks are not). No earlier release found a heading with CJK in it."""
    cjk = [page for page in pages if has_cjk(page)]
    return any(has_cjk(heading) for _, heading in find_headings(cjk, range(1, len(cjk) + 1)))


_ADDED: dict[int, Callable[[list[str]], list[str]]] = {1: _version_1}
# Versions told from the stored text without changing it: its chunks would be cut otherwise.
_TEXT_TOLD: dict[int, Callable[[Sequence[str]], bool]] = {3: _version_3}
# Versions told from the file itself (a PDF read by pdfium), not from its stored text.
_FILE_ADDED: dict[int, Callable[[StoredPdf, Sequence[str]], bool]] = {2: _version_2}


def reads_differently(pages: Sequence[str], since: int, pdf: StoredPdf | None = None) -> bool:
    """Whether this release would store other text for a document whose stored page texts are ``pages``,
    read by a release of text version ``since``; ``pdf``: the document's file, when pdfium read it (the
    versions told from the file are looked at only then)."""
    texts = list(pages)
    versions = range(since + 1, TEXT_VERSION + 1)
    for version in versions:
        if version in _ADDED:
            texts = _ADDED[version](texts)
    if texts != list(pages) or any(_TEXT_TOLD[v](pages) for v in versions if v in _TEXT_TOLD):
        return True
    return pdf is not None and any(_FILE_ADDED[v](pdf, pages) for v in versions if v in _FILE_ADDED)
