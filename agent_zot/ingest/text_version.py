"""Which stored texts an earlier release would read otherwise: the page-text rules each text version added.

An index keeps the page texts it was made from. When a release reads files better (a repository's cover
sheet left out, a font's symbol read as the ligature it stands for), an existing index keeps the old text
until its files change. The rules here apply to stored text as well as to a file's own, so an update finds
the few files whose text this release would store differently and reads only those again
(services/upkeep/reread.py), instead of every file of the library.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

from agent_zot.ingest.clean import join_accents, without_cover_sheet
from agent_zot.ingest.ligatures import glyph_ligatures

# The version of the page text a release stores; an index made before this module existed is version 0.
TEXT_VERSION = 1


def _version_1(pages: list[str]) -> list[str]:
    """2026-11-29: TeX's spacing accents joined to their letters ("Universit¨at"), a repository's cover
    sheet left out (HAL, ResearchGate, Taylor & Francis, JSTOR), ligatures a font mapped to an unrelated
    symbol mended ("di↵erent")."""
    texts, _ = without_cover_sheet([join_accents(page) for page in pages])
    return glyph_ligatures(texts)


_ADDED: dict[int, Callable[[list[str]], list[str]]] = {1: _version_1}


def reads_differently(pages: Sequence[str], since: int) -> bool:
    """Whether this release would store other text for a document whose stored page texts are ``pages``,
    read by a release of text version ``since``."""
    texts = list(pages)
    for version in range(since + 1, TEXT_VERSION + 1):
        texts = _ADDED[version](texts)
    return texts != list(pages)
