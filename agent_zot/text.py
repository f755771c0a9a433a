"""Text normalisation shared by search, matching, the graph and the exports: one `fold`, one ASCII fold,
one list of English function words, the acronyms a text defines."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence

from rapidfuzz import fuzz

# Letters NFKD does not decompose into a base letter plus marks.
_FOLD_EXTRA = str.maketrans(
    {"ø": "o", "Ø": "O", "æ": "ae", "Æ": "AE", "œ": "oe", "Œ": "OE", "ł": "l", "Ł": "L", "đ": "d", "Đ": "D",
     "ð": "d", "Ð": "D", "þ": "th", "Þ": "Th", "ı": "i", "ß": "ss"}
)  # fmt: skip
_NOT_ASCII_ALNUM = re.compile(r"[^a-z0-9]")
# Scripts written without spaces between words: Han ideographs (Chinese, Japanese kanji), kana. A character
# class's contents, for patterns elsewhere that need it inside their own.
CJK_CHARACTERS = "\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uf900-\ufaff"
# ...and Hangul syllables: the East Asian scripts whose names and titles are matched as runs of characters.
EAST_ASIAN_CHARACTERS = CJK_CHARACTERS + "\uac00-\ud7af"
_UNSPACED_RUN = re.compile(f"[{CJK_CHARACTERS}]+")
_WORD = re.compile(r"\w+")
_WHOLE_TITLE = 95  # rapidfuzz partial ratio of a title within a request that holds it


def fold(text: str) -> str:
    """Case- and accent-insensitive form, "Mächler" → "machler", "Łukasz" → "lukasz"; non-Latin scripts
    (CJK, Cyrillic, Greek) keep their letters."""
    if text.isascii():  # most metadata: NFKC/NFKD leave ASCII as it is, and it has no combining marks
        return text.lower()
    decomposed = unicodedata.normalize("NFKD", unicodedata.normalize("NFKC", text).translate(_FOLD_EXTRA))
    return "".join(ch for ch in decomposed if not unicodedata.combining(ch)).casefold()


def ascii_fold(text: str) -> str:
    """`fold` reduced to ASCII; other characters are dropped ("Müller-Lyer" → "muller-lyer")."""
    return fold(text).encode("ascii", "ignore").decode("ascii")


def ascii_key(text: str) -> str:
    """Lower-case ASCII letters and digits only: "Müller" → "muller", "O'Brien" → "obrien"."""
    return _NOT_ASCII_ALNUM.sub("", ascii_fold(text))


def spaced_cjk(text: str) -> str:
    """``text`` with each run of Chinese or Japanese characters followed by its overlapping character pairs
    ("深度学习" → "深度学习 深度 度学 学习"), the usual way to index such text without a segmenter: a word
    tokenizer takes a whole run for one word, so words inside it would never match. Other text is left
    as it is."""
    return _UNSPACED_RUN.sub(_bigrams, text)


def _bigrams(match: re.Match[str]) -> str:
    run = match.group()
    pairs = [run[i : i + 2] for i in range(len(run) - 1)]
    return " " + " ".join([run, *pairs]) + " "  # the whole run too: an exact phrase still matches as one


def has_cjk(text: str) -> bool:
    return _UNSPACED_RUN.search(text) is not None


def words(text: str) -> list[str]:
    """The folded words of ``text``."""
    return _WORD.findall(fold(text))


def holds_title(text: str, title: str) -> bool:
    """Whether ``text`` holds the whole of ``title`` (both folded), give or take a typo: a request that
    gives a paper's title names that paper. The caller decides how long a title must be to count."""
    return bool(title) and len(title) <= len(text) + 2 and fuzz.partial_ratio(title, text) >= _WHOLE_TITLE


STOPWORDS = frozenset(
    [
        "a",
        "an",
        "the",
        "of",
        "and",
        "or",
        "but",
        "nor",
        "for",
        "to",
        "in",
        "on",
        "at",
        "by",
        "with",
        "from",
        "as",
        "into",
        "onto",
        "via",
        "per",
        "than",
        "then",
        "that",
        "this",
        "these",
        "those",
        "there",
        "their",
        "its",
        "it",
        "is",
        "are",
        "was",
        "were",
        "be",
        "been",
        "being",
        "has",
        "have",
        "had",
        "do",
        "does",
        "did",
        "not",
        "no",
        "can",
        "could",
        "may",
        "might",
        "must",
        "shall",
        "should",
        "will",
        "would",
        "our",
        "we",
        "us",
        "you",
        "your",
        "they",
        "them",
        "he",
        "she",
        "his",
        "her",
        "i",
        "me",
        "my",
        "which",
        "who",
        "whom",
        "whose",
        "what",
        "when",
        "where",
        "why",
        "how",
        "all",
        "any",
        "both",
        "each",
        "few",
        "more",
        "most",
        "other",
        "some",
        "such",
        "only",
        "own",
        "same",
        "so",
        "too",
        "very",
        "also",
        "just",
        "using",
        "use",
        "used",
        "based",
        "new",
        "novel",
        "towards",
        "toward",
        "between",
        "within",
        "without",
        "about",
        "over",
        "under",
        "among",
        "against",
        "during",
        "before",
        "after",
        "above",
        "below",
        "up",
        "down",
        "out",
        "off",
        "again",
        "further",
        "once",
        "here",
        "et",
        "al",
        "eg",
        "ie",
        "etc",
        "vs",
    ]
)
"""English function words: no topic, name or concept is made of them alone."""


# Numbers spelled out: "ten participants", "twenty-four volunteers", "ten thousand machines", "a dozen".
_UNITS = ("two", "three", "four", "five", "six", "seven", "eight", "nine")
_TEENS = (
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
)
_TENS = ("twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
_SPELLED_VALUES = (
    {"one": 1}
    | {w: n for n, w in enumerate(_UNITS, 2)}
    | {w: n for n, w in enumerate(_TEENS, 10)}
    | {w: 10 * n for n, w in enumerate(_TENS, 2)}
)
# Words that multiply what comes before them (or one, after "a"): "a hundred", "ten thousand", "a dozen".
_SPELLED_SCALES = {"dozen": 12, "hundred": 100, "thousand": 1000, "million": 1_000_000}
_NUMBER_WORD = rf"(?:{'|'.join(sorted((*_SPELLED_VALUES, *_SPELLED_SCALES), key=len, reverse=True))})"
_SCALE_WORD = rf"(?:{'|'.join(_SPELLED_SCALES)})\b"
# A scale word alone is no number ("10 thousand" is read with its digits; "a thousand" is one); "and"
# joins only after a scale ("one hundred and twenty"), never two counts ("two and three").
SPELLED_NUMBER = re.compile(
    rf"\b(?:an?\s+(?={_SCALE_WORD})|(?!{_SCALE_WORD})){_NUMBER_WORD}"
    rf"(?:(?:-|\s+|(?<=hundred)\s+and\s+|(?<=thousand)\s+and\s+){_NUMBER_WORD})*\b",
    re.IGNORECASE,
)
_SPELLED_WORDS = re.compile(r"[a-z]+")


def spelled_value(spelled: str) -> int:
    """The value of a number in words: "twenty-four" 24, "ten thousand" 10000, "one hundred and twenty"
    120, "a dozen" 12."""
    total = group = 0
    for word in _SPELLED_WORDS.findall(spelled.lower()):
        if word in _SPELLED_VALUES:
            group += _SPELLED_VALUES[word]
        elif word in ("dozen", "hundred"):
            group = max(group, 1) * _SPELLED_SCALES[word]
        elif word in _SPELLED_SCALES:  # thousand, million close a group: "two hundred thousand and five"
            total += max(group, 1) * _SPELLED_SCALES[word]
            group = 0
    return total + group


def spelled_scaled(spelled: str) -> bool:
    """Whether a number in words has a scale word ("ten thousand", "a dozen")."""
    return any(word in _SPELLED_SCALES for word in _SPELLED_WORDS.findall(spelled.lower()))


def with_numerals(text: str) -> str:
    """``text`` followed by the digits of each number it spells out ("segments of two seconds" also
    matches "2 s"; "ten thousand" also "10,000"), for matching words against papers that write digits.
    A lone "one" is left alone: it is a pronoun more often than a count."""
    found: list[str] = []
    for match in SPELLED_NUMBER.finditer(text):
        value = spelled_value(match.group(0))
        if value == 1 and not spelled_scaled(match.group(0)):
            continue
        found.append(str(value) if value < 1000 else f"{value} {value:,}")
    return " ".join([text, *found]) if found else text


# --- acronyms a text defines ------------------------------------------------------------------------------------

_DEFINED_ACRONYM = re.compile(r"\(\s*([A-Z][A-Za-z0-9-]{1,9}?)s?\s*\)")
_EXPANSION_WORD = re.compile(r"[\w'-]+")


def acronym_definitions(text: str) -> set[tuple[str, str]]:
    """(acronym, expansion) as ``text`` defines them, "pulse transit time (PTT)": the words before the
    parenthesis whose initials spell the acronym (the parts of a hyphenated word count one each)."""
    pairs: set[tuple[str, str]] = set()
    for match in _DEFINED_ACRONYM.finditer(text):
        before = _EXPANSION_WORD.findall(text[max(0, match.start() - 160) : match.start()])[-10:]
        expansion = _expansion_for(before, match.group(1))
        if expansion:
            pairs.add((match.group(1), expansion))
    return pairs


def _expansion_for(words: list[str], acronym: str) -> str | None:
    """The trailing words whose initials spell the acronym (hyphen parts count: "short-term" -> s, t)."""
    letters = [c.lower() for c in acronym if c.isupper() or c.isdigit()]
    for start in range(len(words) - 1, -1, -1):
        candidate = words[start:]
        initials = [p[0].lower() for w in candidate for p in re.split(r"[-']", w) if p]
        if initials == letters or [w[0].lower() for w in candidate] == letters:
            return " ".join(candidate)
        if len(initials) > len(letters):
            return None
    return None


_STEMMED_WORD = re.compile(r"[a-z0-9]+")


def _plain_words(text: str) -> str:
    """Lower-case words with a plural "s" dropped, space-framed: "Pulse-transit times" -> " pulse transit time "."""
    words = [
        w[:-1] if len(w) > 3 and w.endswith("s") and not w.endswith("ss") else w
        for w in _STEMMED_WORD.findall(text.lower())
    ]
    return f" {' '.join(words)} "


def spelled_out_acronyms(question: str, texts: Sequence[str]) -> list[str]:
    """The acronyms ``texts`` define ("pulse transit time (PTT)") whose expansion the question spells out
    and whose acronym it does not use: where a paper says "PTT", the question's "pulse transit time" is meant."""
    asked = _plain_words(question)
    used = set(_WORD.findall(question))
    found: list[str] = []
    for text in texts:
        for acronym, expansion in sorted(acronym_definitions(text)):
            if acronym not in used and acronym not in found and _plain_words(expansion) in asked:
                found.append(acronym)
    return found
