"""Which language an OCR engine reads a scan in: the item's Zotero "Language" field ("de", "German",
"fr-FR", "zh-CN", "deu"), mapped to Tesseract's language data ("deu", "fra", "chi_sim"), when that data is
installed; English otherwise, with a warning that says what to install. An item without the field has
its scan's language told from the words of its first page read in English (``detect``: the common short
words of each language survive a reading with English data).

RapidOCR's bundled model reads Chinese and Latin-script text; it takes no language. A Chinese or Japanese
scan whose Tesseract data is missing is read by RapidOCR when it is installed (``engine_for``).
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from functools import lru_cache

DEFAULT = "eng"

# ISO 639-1 code or English name -> Tesseract's data name. Zotero's field is free text: people write
# "en", "en-US", "English", "eng", "Deutsch".
_CODES = {
    "en": "eng",
    "english": "eng",
    "de": "deu",
    "german": "deu",
    "deutsch": "deu",
    "fr": "fra",
    "french": "fra",
    "français": "fra",
    "francais": "fra",
    "es": "spa",
    "spanish": "spa",
    "español": "spa",
    "it": "ita",
    "italian": "ita",
    "pt": "por",
    "portuguese": "por",
    "nl": "nld",
    "dutch": "nld",
    "sv": "swe",
    "swedish": "swe",
    "da": "dan",
    "danish": "dan",
    "no": "nor",
    "nb": "nor",
    "norwegian": "nor",
    "fi": "fin",
    "finnish": "fin",
    "pl": "pol",
    "polish": "pol",
    "cs": "ces",
    "czech": "ces",
    "ru": "rus",
    "russian": "rus",
    "uk": "ukr",
    "ukrainian": "ukr",
    "el": "ell",
    "greek": "ell",
    "tr": "tur",
    "turkish": "tur",
    "la": "lat",
    "latin": "lat",
    "ja": "jpn",
    "japanese": "jpn",
    "ko": "kor",
    "korean": "kor",
    "zh": "chi_sim",
    "chinese": "chi_sim",
    "中文": "chi_sim",
    "ar": "ara",
    "arabic": "ara",
    "he": "heb",
    "hebrew": "heb",
}
_TRADITIONAL = ("zh-tw", "zh-hk", "zh-hant", "zh_tw", "zh_hk")
_NAMES = {
    "deu": "German",
    "fra": "French",
    "spa": "Spanish",
    "ita": "Italian",
    "por": "Portuguese",
    "nld": "Dutch",
    "chi_sim": "Chinese",
}
# Languages RapidOCR's bundled model reads (Chinese with English); it reads other Latin-script text without
# accents, which still beats Tesseract's English data on it only for Chinese.
RAPIDOCR_READS = frozenset({"chi_sim", "chi_tra", "eng"})


# The commonest short words of the languages a scan is told apart in (kept to words that do not occur in
# the others' lists, so one list's hits speak for its language).
_COMMON_WORDS = {
    "eng": "the of and to in is that for with as was on are by this from be which or",
    "deu": "der die und das ist nicht mit den von zu sich des auf eine dem ein wird auch als nach",
    "fra": "le la les et des est une du dans que pour qui sur au pas par plus ce sont avec",
    "spa": "el los las del y que por una con para como más pero sus se fue este entre",
    "ita": "il di che della per sono gli nel alla delle con non una questo anche dei",
    "por": "os das dos uma que para com não mais pelo pela são foi seu sua também",
    "nld": "het een van en de is dat niet op te zijn voor met als wordt ook bij",
}
_WORDS = {code: frozenset(words.split()) for code, words in _COMMON_WORDS.items()}
_MIN_WORDS = 40  # a page with fewer words is not enough to tell its language
_MIN_HITS = 0.12  # the winning list must hold this share of the page's words
_LEAD = 1.5  # and this many times the runner-up's


@dataclass(frozen=True, slots=True)
class Choice:
    """The Tesseract language to read with and, when the wanted one is not installed, why not."""

    code: str
    wanted: str
    warning: str | None = None


def tesseract_code(field: str) -> str | None:
    """Tesseract's data name for a Zotero Language field, None when the field is empty or unknown."""
    text = field.strip().lower()
    if not text:
        return None
    if text.startswith(_TRADITIONAL):
        return "chi_tra"
    if re.fullmatch(r"[a-z]{3}(_[a-z]{3,4})?", text) and text not in _CODES:
        return text  # already Tesseract's name ("deu", "chi_sim")
    head = re.split(r"[-_ ,;/(]", text, maxsplit=1)[0]
    return _CODES.get(text) or _CODES.get(head)


@lru_cache(maxsize=1)
def tesseract_languages() -> frozenset[str]:
    """The language data the installed Tesseract has (empty when there is no tesseract)."""
    binary = shutil.which("tesseract")
    if binary is None:
        return frozenset()
    try:
        done = subprocess.run(
            [binary, "--list-langs"], capture_output=True, text=True, timeout=30, check=False
        )
    except (OSError, subprocess.TimeoutExpired):
        return frozenset()
    lines = (done.stdout + done.stderr).splitlines()
    return frozenset(line.strip() for line in lines if line.strip() and " " not in line.strip())


def choose(
    field: str, installed: frozenset[str] | None = None, *, told_by: str = "the item's language"
) -> Choice:
    """The language to read an item's scan in, from its Language field (or a language ``detect`` found,
    with ``told_by`` saying so in the warning)."""
    wanted = tesseract_code(field) or DEFAULT
    have = tesseract_languages() if installed is None else installed
    if wanted == DEFAULT or wanted in have:
        return Choice(wanted, wanted)
    name = _NAMES.get(wanted, wanted)
    package = "tesseract-ocr-" + wanted.replace("_", "-")
    return Choice(
        DEFAULT,
        wanted,
        f"{told_by} is {name}, but Tesseract has no {wanted!r} data: read as English "
        f"(install {package}, or brew install tesseract-lang, then update-db --item for it)",
    )


def detect(text: str) -> str | None:
    """The language of a page's text, among those of ``_COMMON_WORDS``, or None when it cannot be told."""
    words = re.findall(r"[^\W\d_]+", text.lower())
    if len(words) < _MIN_WORDS:
        return None
    hits = sorted(
        ((sum(1 for w in words if w in common), code) for code, common in _WORDS.items()), reverse=True
    )
    (best, code), (second, _) = hits[0], hits[1]
    if best < _MIN_HITS * len(words) or best < _LEAD * second:
        return None
    return code


def engine_for(engine: str, choice: Choice, rapidocr_installed: bool) -> str:
    """RapidOCR instead of Tesseract for a Chinese scan whose Tesseract data is missing."""
    if engine == "tesseract" and choice.warning and choice.wanted in RAPIDOCR_READS and rapidocr_installed:
        return "rapidocr"
    return engine
