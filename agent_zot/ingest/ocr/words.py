"""Words an OCR engine glued together, split again ("Typicalkinds" -> "Typical kinds"), and a measure of
how much of a text is real words (to compare OCR with Zotero's full-text cache).

The splitting is deliberately narrow: a wrongly split real word ("Bigtable" -> "Big table") costs search
more than a glued pair left alone. Only tokens of letters are touched, never ones with digits or inner
capitals (identifiers, acronyms, "PageRank", "S2ORC", "word2vec"); a token is split only when it is not a
known word itself and every piece is a common word. Word frequencies come from ``wordninja`` (English,
about 126,000 words ordered by frequency), which also finds the most likely split.
"""

from __future__ import annotations

import re
from functools import lru_cache
from types import ModuleType

_KNOWN_RANK = 50_000  # more frequent than this: a word in its own right (the tail holds "ofthe", "inthe")
_SHORT_PIECE_RANK = 20_000  # a three-letter piece must be this common ("sai", "xiv" are not)
_MIN_GLUED = 5  # shorter tokens are left alone ("isa", "ofa" are rare; "tho", "lan" are real)
# A run of letters this long is no English word: its split is taken when every piece is a known word,
# however rare ("metaphorforthequestionasanobjectorcontainer" holds "objector").
_LONG_RUN = 20
_MIN_CAMEL = 16  # "GlacierRetreatintheKarakoram" is split at its capitals; "PageRank", "GitHub" are not
# Pieces shorter than three letters must be one of these function words ("Saierand" is not "Sai er and").
_SHORT_WORDS = frozenset(
    re.findall(r"\w+", "a an as at be by do he if in is it me my no of on or so to up us we")
)
# A split whose first piece is a prefix or whose last is a suffix-like word is most likely one real word
# missing from the frequency list ("pretrained", "dataset", "pairwise").
_PREFIXES = frozenset(
    re.findall(
        r"\w+",
        "pre re un non sub co multi inter semi anti auto bi de dis mis post super micro macro meta hyper "
        "cross over under out self",
    )
)
_SUFFIXES = frozenset(re.findall(r"\w+", "set sets wise like less ness able based free ware"))
# "toPubMed", "andFarber": a function word glued to a capitalised one ("getElementById" stays).
_GLUE_WORDS = _SHORT_WORDS | frozenset(
    re.findall(
        r"\w+",
        "and the for with than from that which are was were has have into our its their this these those "
        "between",
    )
)
_HUMPS = re.compile(r"(?<=[a-z]{3})(?=[A-Z][a-z]{2})")

_TOKEN = re.compile(r"\S+")
_LETTERS = re.compile(r"[A-Za-z]+")
# Punctuation an engine left without its space: "corpora.Of", "PubMed,which", "(2019)is", "Farber(2019)".
_AFTER_STOP = re.compile(r"(?<=[a-z]{2}[.!?])(?=[A-Z][a-z])")
_AFTER_COMMA = re.compile(r"(?<=[A-Za-z]{2}[,;])(?=[A-Za-z]{2})")
_AFTER_COLON = re.compile(r"(?<=[A-Za-z0-9]:)(?=[A-Z])")
_AFTER_BRACKET = re.compile(r"(?<=\))(?=[a-z]{2})")
_BEFORE_BRACKET = re.compile(r"(?<=[a-z]{3})(?=\((?:[A-Z0-9]))")
_PUNCT_GAPS = (_AFTER_STOP, _AFTER_COMMA, _AFTER_COLON, _AFTER_BRACKET, _BEFORE_BRACKET)
_CAMEL_GLUE = re.compile(r"^([a-z]{2,})([A-Z][A-Za-z]*)$")


@lru_cache(maxsize=1)
def _ninja() -> ModuleType:
    """wordninja loads its word list on import (0.2 s): only processes that read pages pay for it."""
    import wordninja

    return wordninja


@lru_cache(maxsize=1)
def _ranks() -> dict[str, int]:
    model = _ninja().DEFAULT_LANGUAGE_MODEL
    return {word: rank for rank, word in enumerate(model._wordcost)}


def _rank(word: str) -> int:
    return _ranks().get(word.lower(), 10**9)


def word_rank(word: str) -> int:
    """The word's frequency rank in English, 0 the most frequent (case-insensitive); 10**9 when unknown."""
    return _rank(word)


def word_ranks() -> dict[str, int]:
    """Every known English word (lower case) with its frequency rank, loaded once a process."""
    return _ranks()


def is_word(token: str) -> bool:
    """A known English word (case-insensitive)."""
    return _rank(token) < _KNOWN_RANK


def _good_piece(piece: str) -> bool:
    if len(piece) < 3:
        return piece.lower() in _SHORT_WORDS
    return _rank(piece) < (_SHORT_PIECE_RANK if len(piece) == 3 else _KNOWN_RANK)


def _split_letters(run: str) -> str:
    """A run of letters, split into common words when it is none itself."""
    if is_word(run):
        return run
    if len(run) >= _MIN_CAMEL and len(_HUMPS.findall(run)) >= 2:
        return " ".join(_split_letters(part) for part in _HUMPS.sub(" ", run).split(" "))
    if len(run) < _MIN_GLUED or not run[1:].islower():
        camel = _CAMEL_GLUE.match(run)
        if camel and camel.group(1) in _GLUE_WORDS:
            return camel.group(1) + " " + camel.group(2)
        return run
    pieces = _ninja().split(run)
    if len(pieces) < 2 or "".join(pieces) != run:
        return run
    if pieces[0].lower() in _PREFIXES or pieces[-1].lower() in _SUFFIXES:
        return run
    good = _good_piece if len(run) < _LONG_RUN else _known_piece
    return " ".join(pieces) if all(good(piece) for piece in pieces) else run


def _known_piece(piece: str) -> bool:
    """A piece of a run too long to be one word: any word the frequency list holds (a rare one such as
    "objector" included), short ones only as function words."""
    if len(piece) < 3:
        return piece.lower() in _SHORT_WORDS
    return _rank(piece) < 10**9


def _split_token(token: str) -> str:
    for gap in _PUNCT_GAPS:
        token = gap.sub(" ", token)
    if " " in token:
        return " ".join(_split_token(part) for part in token.split(" "))
    if any(ch.isdigit() for ch in token):
        return token
    return _LETTERS.sub(lambda m: _split_letters(m.group()), token)


def is_common_word(token: str, top: int = 20_000) -> bool:
    """One of the ``top`` most frequent English words (case-insensitive): "Results" is, "Bigtable" and
    "Chubby" are not, so a capitalised sentence opener that is not common is likely a name."""
    return _rank(token) < top


def split_glued(text: str) -> str:
    """``text`` with glued words split; whitespace between tokens (line breaks) is kept as it is."""
    return _TOKEN.sub(lambda m: _split_token(m.group()), text)


def word_score(text: str) -> int:
    """How many tokens of ``text`` are known English words: the measure by which OCR text and Zotero's
    full-text cache are compared (junk characters, glued words and broken words all count for nothing)."""
    return sum(1 for token in _LETTERS.findall(text) if len(token) > 1 and is_word(token))
