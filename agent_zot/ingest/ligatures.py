"""Words a PDF's text layer broke at a ligature or a kerning gap, mended once per document at indexing.

Some fonts map their ligature glyphs (fi, fl, ff, ffi, ffl) to nothing, so the text layer loses them
("Reerences", "dicult", "inuence"), keeps only their first letter ("efect", "coefcient", "Scientifc"), or
puts a gap where they were ("di erent"); others place a gap inside a word ("Bigtab le", "r unning") or drop
a hyphen at a line end ("sig/nals"). A token is mended only when it is no known English word and the repair
gives one, by word frequencies (``ocr.words``), so names, acronyms and foreign words mostly stay:

- Always: a lowercase token of four letters or more, no known word (or one so rare that the repair is a
  hundred times more frequent: "diferent"), to which exactly one ligature insertion gives a common word;
  a capitalised or all-caps token only when that word is long ("Reerences", "REERENCES"); and any
  insertion or join that gives a word the same document holds as a whole token ("Bigtab le").
- "o" between two words is "of" ("Methods o gesture analysis") unless its neighbours read it as a
  variable ("where o is", "i and o are"); in a document that shows the loss, always.
- Only in a document that shows the loss (at least two different tokens mended by the first rule, or
  "o" for "of" three times over): capitalised and short tokens ("Efect", "fve") and the "Th" ligature
  ("Tese"). A single "Dey", "Ines" or "Karlof" is a name, not a lost ligature.
- Two neighbours (on one line, or across a line break) are joined when at least one is no word (a
  single letter other than "a" and "I" is none) and the join, with or without a ligature between, is a
  word: any listed one when neither piece is, a common one otherwise ("sig nals", "di erent"); or the
  document writes the join whole more often than the broken piece ("Bigtab le"). A single letter joins
  only a lowercase fragment ("r unning", not "R n" or "to u"); a pair the document hyphenates elsewhere
  ("limb-darkening") stays apart.

- A symbol standing for a ligature inside a word ("di↵erent", "e↵ect": LaTeX Type 1 fonts map "ff" to
  U+21B5), where the same symbol makes common words of two different tokens the same way.
- A hyphen standing for the "Th" ligature ("-e University", "-erefore"), where the document shows it three
  times or more.

Tokens next to hyphens, digits, slashes, dots inside a name, or a detached accent ("M ´ uller") are left
alone: identifiers, URLs, compounds and mis-extracted diacritics are not lost ligatures.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Sequence
from functools import lru_cache
from itertools import islice

from agent_zot.ingest.ocr.words import word_rank as _rank
from agent_zot.ingest.ocr.words import word_ranks as _ranks

_LIGATURES = ("f", "fi", "fl", "ff", "ffi", "ffl")
_AFTER_F = ("i", "l")  # the ligature's first "f" kept, the rest lost: "Scientifc", "infuence"
_KNOWN = 50_000  # a token more frequent than this is a word in its own right (as ocr.words.is_word)
_COMMON = 20_000  # a repair must give a word at least this frequent
_LISTED = 10**9  # ocr.words' rank of a token it does not list
_RARE_RATIO = 100  # a listed but rare token is mended only to a word this many times more frequent
_MIN_LOWER = 4  # shorter lowercase tokens ("oot", "awn") are mended only where the loss is shown
_MIN_LONG = 8  # a capitalised or all-caps repair this long is no name ("References", "Scientific")
_MIN_JOINED = 4  # shorter joins are variables or initials ("R n", "a b")
_MIN_UPPER = 6  # shorter all-caps tokens are acronyms
_EVIDENCE = 2  # distinct tokens mended by the first rule that show a document lost its ligatures
_O_EVIDENCE = 3  # "word o word" this often is a lost "of"
_AMBIGUOUS = 10  # the best repair must be this many times more frequent than the next one
_SINGLE_WORDS = frozenset({"a", "i"})
_DIACRITICS = frozenset("´`¨ˆ˜˘ˇ˚¸^~")
# Neighbours of an "o" that is a variable, not a lost "of" ("where o is", "map of o and", "i and o are").
_BEFORE_VARIABLE = frozenset(re.findall(r"\w+", "where and or of if let with then when that at by to for"))
_AFTER_VARIABLE = frozenset(
    re.findall(r"\w+", "is are was were and or be has have can will must may denotes represents")
)

# A token of ASCII letters standing alone: after a space, a line start or an opening bracket or quote;
# before a space, a closing mark, or a dot that ends a sentence (not "file.py", "www.heart.org").
_TOKEN = re.compile(r"(?:^|(?<=[\s(\[{\"“‘]))[A-Za-z]+(?=[\s,;:!?)\]}\"”’]|\.(?!\w)|$)")
# "-e", "-erefore": a word whose "Th" ligature the text layer reads as a hyphen, standing alone.
_HYPHEN_TH = re.compile(r"(?:^|(?<=[\s(\[{\"“‘]))-([a-z]+)(?=[\s,;:!?)\]}\"”’]|\.(?!\w)|$)")
_TH_EVIDENCE = 3  # a document shows the hyphen for "Th" this often before any is mended
# Words and hyphenated compounds, for the document's vocabulary.
_WORDS = re.compile(r"(?<![\w-])[A-Za-z]+(?:-[A-Za-z]+)*(?![\w-])")


def _shape(token: str) -> str | None:
    if token.islower():
        return "lower"
    if token[0].isupper() and (len(token) == 1 or token[1:].islower()):
        return "title"
    if token.isupper() and len(token) >= _MIN_UPPER:
        return "upper"
    return None  # "dV", "xF", "PageRank", "CLS": identifiers and acronyms


@lru_cache(maxsize=262_144)
def _rank_of(token: str) -> int:
    """The token's frequency rank (cached: most tokens of a document recur)."""
    return _rank(token)


@lru_cache(maxsize=65_536)
def _insertions(token: str) -> tuple[tuple[tuple[int, str], ...], dict[str, str]]:
    """Every spelling of ``token`` with one lost ligature put back: the listed words among them by
    frequency rank, and all of them (lowercase, to look up in a document's vocabulary, to the token's case)."""
    shape = _shape(token)
    if shape is None:
        return (), {}
    lower = token.lower()
    found: set[str] = set()
    first = 1 if shape == "title" else 0  # a capital is the word's first letter, nothing was lost before it
    for i in range(first, len(lower) + 1):
        pieces = _LIGATURES + (_AFTER_F if i and lower[i - 1] == "f" else ())
        found.update(lower[:i] + piece + lower[i:] for piece in pieces)
    cased = {"title": str.capitalize, "upper": str.upper}.get(shape, str)
    ranks = _ranks()
    spelled = {word: cased(word) for word in found}
    return tuple(sorted((ranks[word], spelled[word]) for word in found if word in ranks)), spelled


def _best(
    ranked: Sequence[tuple[int, str]], spelled: dict[str, str], held: frozenset[str], common: int = _COMMON
) -> str | None:
    """The candidate the document holds as a token (``held``: its lowercase words), else the one
    clearly most frequent word, at least as frequent as ``common``."""
    in_document = held.intersection(spelled)
    if len(in_document) == 1:
        return spelled[next(iter(in_document))]
    if not ranked or ranked[0][0] >= common:
        return None
    if len(ranked) > 1 and ranked[1][0] < ranked[0][0] * _AMBIGUOUS:
        return None
    return ranked[0][1]


def _mend(token: str, vocabulary: _Vocabulary, shown: bool) -> str | None:
    """``token`` with its lost ligature put back, None when it is not clearly broken."""
    rank = _rank_of(token)
    if rank < _KNOWN or len(token) < 2:
        return None
    ranked, keys = _insertions(token)
    word = _best(ranked, keys, vocabulary.held, _KNOWN if shown else _COMMON)
    if word is None and shown and token[0] in "Tt" and len(token) >= 3:  # the "Th" ligature: "Tese", "Tey"
        th = token[0] + "h" + token[1:]
        word = _best([(_rank(th), th)], {th.lower(): th}, vocabulary.held)
    if word is None:
        return None
    if word.lower() in vocabulary.held and len(token) >= _MIN_LOWER:
        return word
    if rank < _LISTED and _rank(word) * _RARE_RATIO > rank:  # "reusing" is a word, not "refusing"
        return None
    if shown:
        return word
    if token.islower():
        return word if len(token) >= _MIN_LOWER else None
    return word if len(word) >= _MIN_LONG else None


@lru_cache(maxsize=262_144)
def _fragment(token: str) -> bool:
    """A piece of a word rather than a word: no known word, or a letter that is no word on its own."""
    if len(token) == 1:
        return token.lower() not in _SINGLE_WORDS
    return _rank_of(token) >= _KNOWN


def _join(first: str, second: str, vocabulary: _Vocabulary) -> str | None:
    """The word two neighbouring fragments make, None when they are not one."""
    if not second.islower() or _shape(first) not in {"lower", "title"} or len(first + second) < _MIN_JOINED:
        return None
    broken = _fragment(first), _fragment(second)
    if not any(broken):
        return None
    short, long = sorted((first, second), key=len)
    # A single letter joins only a lowercase fragment of a word: "r unning", "e cient", "Inclusio n";
    # not "R n", "to u", "scheme s" (variables next to words).
    if len(short) == 1 and not (short.islower() and len(long) >= 3 and _fragment(long)):
        return None
    whole = first + second
    if vocabulary[f"{first}-{second}".lower()]:  # "Limb darkening" where "limb-darkening" is written
        return None
    pieces = [piece.lower() for piece, lost in zip((first, second), broken, strict=True) if lost]
    # The document writes the word whole more often than its broken piece: "Bigtab le" beside "Bigtable"
    # (not "dataset is" beside one glued "datasetis").
    held = vocabulary[whole.lower()]
    if held >= 2 and all(held > vocabulary[piece] for piece in pieces):
        return whole
    # Two pieces that are no words may make a rarer one ("bene fits"); "sig nals" ("sig" is listed) and
    # "r unning" (a letter) must make a common one.
    if _rank(whole) < (_KNOWN if all(broken) and len(short) > 1 else _COMMON):
        return whole
    ranked = sorted((_rank(first + piece + second), first + piece + second) for piece in _LIGATURES)
    return ranked[0][1] if ranked[0][0] < _COMMON else None  # "di erent", "e cient"


class _Vocabulary:
    """How often a document writes each word and hyphenated compound (lowercase)."""

    def __init__(self, pages: Sequence[str]) -> None:
        self.counts = Counter(word.lower() for page in pages for word in _WORDS.findall(page))
        self.held = frozenset(self.counts)

    def __getitem__(self, word: str) -> int:
        return self.counts[word]


def _mend_page(page: _Page, vocabulary: _Vocabulary, shown: bool) -> str:
    text, tokens, words, broken = page.text, page.tokens, page.words, page.broken
    out: list[str] = []
    at = 0
    # Most tokens are words next to words: only fragments, their neighbours and "o" are looked at.
    for i in [i for i, word in enumerate(words) if broken[i] or broken[i + 1] or word == "o"]:
        token = tokens[i]
        start, end = token.span()
        if start < at or (start >= 2 and text[start - 1] == " " and text[start - 2] in _DIACRITICS):
            continue  # joined to the token before; or after a detached accent ("M ´ uller")
        following = tokens[i + 1] if i + 1 < len(tokens) else None
        if following is not None and text[end : following.start()] in {" ", "\n"}:
            whole = _join(words[i], words[i + 1], vocabulary)
            if whole is not None:
                out.append(text[at:start] + whole)
                at = following.end()
                continue
        word = words[i]
        mended = _lost_of(text, tokens, i, shown) if word == "o" else _mend(word, vocabulary, shown)
        if mended is not None:
            out.append(text[at:start] + mended)
            at = end
    out.append(text[at:])
    return "".join(out)


def _lost_of(page: str, tokens: Sequence[re.Match[str]], i: int, shown: bool) -> str | None:
    """ "of" for an "o" between words ("Methods o gesture analysis"); outside a document that shows the
    loss, not where "o" reads as a variable ("where o is", "f, i and o are")."""
    if not _o_between_words(page, tokens, i):
        return None
    before, after = tokens[i - 1].group().lower(), tokens[i + 1].group()
    if shown or (before not in _BEFORE_VARIABLE and after not in _AFTER_VARIABLE):
        return "of"
    return None


def _o_between_words(page: str, tokens: Sequence[re.Match[str]], i: int) -> bool:
    """ "o" after a word and before a lowercase word, one space either side."""
    if i == 0 or i + 1 >= len(tokens):
        return False
    before, token, after = tokens[i - 1], tokens[i], tokens[i + 1]
    return (
        page[before.end() : token.start()] == " "
        and page[token.end() : after.start()] == " "
        and len(after.group()) >= 2
        and after.group().islower()
    )


class _Page:
    """A page's text, its standalone tokens, their words and which of them are fragments of a word."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.tokens = list(_TOKEN.finditer(text))
        self.words = [token.group() for token in self.tokens]
        self.broken = [_fragment(word) for word in self.words] + [False]


def _shows_loss(pages: Sequence[_Page], vocabulary: _Vocabulary) -> bool:
    """Whether the document lost ligatures throughout, so weaker signs of it can be trusted."""
    lost_of = sum(
        _lost_of(page.text, page.tokens, i, False) is not None
        for page in pages
        for i, word in enumerate(page.words)
        if word == "o"
    )
    if lost_of >= _O_EVIDENCE:
        return True
    lowercase = {
        word
        for page in pages
        for word, lost in zip(page.words, page.broken[:-1], strict=True)
        if lost and word.islower()
    }
    mended = (word for word in lowercase if _mend(word, vocabulary, False))
    return next(islice(mended, _EVIDENCE - 1, None), None) is not None


def _th_for_hyphen(texts: Sequence[str]) -> list[str]:
    """ "-e" -> "The", "-erefore" -> "Therefore": some publishers' fonts map the "Th" ligature to a hyphen.
    Mended only in a document that shows it at least ``_TH_EVIDENCE`` times (a lone "-e" is a suffix
    being discussed), and only where "-" + the rest is no word and "Th" + the rest a common one."""

    def repair(match: re.Match[str]) -> str:
        word = "Th" + match.group(1)
        return word if _rank_of(word) < _COMMON else match.group()

    found = sum(
        repair(match) != match.group() for text in texts if "-" in text for match in _HYPHEN_TH.finditer(text)
    )
    if found < _TH_EVIDENCE:
        return list(texts)
    return [_HYPHEN_TH.sub(repair, text) if "-" in text else text for text in texts]


# A symbol inside a word where a font without a proper text mapping put its ligature glyph: LaTeX's Type 1
# fonts give "di↵erent", "e↵ect", "o↵er" (the "ff" glyph read as U+21B5). Not a letter, digit, space,
# hyphen, quote, bracket or accent: those are words, compounds and mis-placed diacritics.
_GLYPH_IN_WORD = re.compile(
    r"(?<![\w-])([A-Za-z]+)([^\w\s\-‐‑–—'’‘\"“”()\[\]{}.,;:!?/\\´`¨ˆ˜˘ˇ˚¸^~])([a-z]+)(?![\w-])"
)
_GLYPH_PIECES = ("ff", "fi", "fl", "ffi", "ffl", "ft", "ti", "tt")
_GLYPH_EVIDENCE = 2  # distinct words one glyph mends the same way before the document's glyph is trusted


def glyph_ligatures(texts: Sequence[str]) -> list[str]:
    """Words whose ligature a font mapped to an unrelated symbol, mended: each symbol stands for the one
    ligature that makes common words of at least ``_GLYPH_EVIDENCE`` different tokens of the document, and
    is replaced only where that gives a listed word ("K↵" and "↵(V)", the same glyph in formulas, stay)."""
    found = [m for text in texts for m in _GLYPH_IN_WORD.finditer(text)]
    if not found:
        return list(texts)
    votes: dict[str, Counter[str]] = {}
    for glyph, words in _group_by_glyph(found).items():
        for piece in _GLYPH_PIECES:
            mended = sum(_rank_of((a + piece + b).lower()) < _COMMON for a, b in words)
            if mended >= _GLYPH_EVIDENCE:
                votes.setdefault(glyph, Counter())[piece] = mended
    chosen = {glyph: counts.most_common(1)[0][0] for glyph, counts in votes.items()}
    if not chosen:
        return list(texts)

    def repair(match: re.Match[str]) -> str:
        piece = chosen.get(match.group(2))
        word = f"{match.group(1)}{piece}{match.group(3)}" if piece else ""
        return word if piece and _rank_of(word.lower()) < _LISTED else match.group()

    return [_GLYPH_IN_WORD.sub(repair, text) for text in texts]


def _group_by_glyph(found: Sequence[re.Match[str]]) -> dict[str, set[tuple[str, str]]]:
    grouped: dict[str, set[tuple[str, str]]] = {}
    for match in found:
        grouped.setdefault(match.group(2), set()).add((match.group(1), match.group(3)))
    return grouped


def restore_words(texts: Sequence[str]) -> list[str]:
    """The cleaned page texts of one document with words broken at ligatures or gaps mended."""
    texts = glyph_ligatures(_th_for_hyphen(texts))
    pages = [_Page(text) for text in texts]
    vocabulary = _Vocabulary(texts)
    shown = _shows_loss(pages, vocabulary)
    return [_mend_page(page, vocabulary, shown) if page.tokens else page.text for page in pages]
