"""Which language an OCR engine reads a scan in: the item's Zotero "Language" field ("de", "German",
"fr-FR", "zh-CN", "deu"), mapped to Tesseract's language data ("deu", "fra", "chi_sim"), when that data is
installed; English otherwise, with a warning that says what to install.

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
_NAMES = {"deu": "German", "fra": "French", "spa": "Spanish", "ita": "Italian", "chi_sim": "Chinese"}
# Languages RapidOCR's bundled model reads (Chinese with English); it reads other Latin-script text without
# accents, which still beats Tesseract's English data on it only for Chinese.
RAPIDOCR_READS = frozenset({"chi_sim", "chi_tra", "eng"})


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


def choose(field: str, installed: frozenset[str] | None = None) -> Choice:
    """The language to read an item's scan in, from its Language field."""
    wanted = tesseract_code(field) or DEFAULT
    have = tesseract_languages() if installed is None else installed
    if wanted == DEFAULT or wanted in have:
        return Choice(wanted, wanted)
    name = _NAMES.get(wanted, wanted)
    package = "tesseract-ocr-" + wanted.replace("_", "-")
    return Choice(
        DEFAULT,
        wanted,
        f"the item's language is {name}, but Tesseract has no {wanted!r} data: read as English "
        f"(install {package}, or brew install tesseract-lang, then update-db --retry-failed)",
    )


def engine_for(engine: str, choice: Choice, rapidocr_installed: bool) -> str:
    """RapidOCR instead of Tesseract for a Chinese scan whose Tesseract data is missing."""
    if engine == "tesseract" and choice.warning and choice.wanted in RAPIDOCR_READS and rapidocr_installed:
        return "rapidocr"
    return engine
