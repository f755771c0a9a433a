"""OCR of PDF pages that have no usable text layer (scanned papers).

Engines sit behind one small Protocol (``OcrEngine``), one module each: ``rapidocr`` (PP-OCRv4 ONNX models
shipped inside the ``rapidocr-onnxruntime`` wheel; always installable from PyPI) and ``tesseract`` (the
system's ``tesseract`` binary with its language data: ``language.py`` picks it). ``auto`` takes the most
accurate one installed: tesseract, then rapidocr (see docs/performance.md, "OCR of scanned pages", for
the measurements).

An engine reads a whole rendered page into lines with pixel boxes; ``pages.py`` decides which pages need
OCR, orders the lines by the page layout (columns, headers and footers dropped) unless the engine reads
columns itself (Tesseract does, better than the layout model's regions: see the benchmark), and splits
glued words.
"""

from __future__ import annotations

import importlib.util
import shutil
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agent_zot.backends import Backends
from agent_zot.errors import AgentZotError

OcrChoice = Literal["auto", "rapidocr", "tesseract", "off"]
# Seconds an engine takes a page with one thread (docs/performance.md, "OCR of scanned pages"): the ETA's
# guess before a page is measured, and what doctor says installing Tesseract saves
OCR_SECONDS_A_PAGE = {"tesseract": 1.9, "rapidocr": 12.8}


class OcrError(AgentZotError):
    """An OCR engine is not installed or failed on a page."""


@dataclass(frozen=True, slots=True)
class OcrLine:
    """One line of recognised text; ``box`` is (left, top, right, bottom) in the image's pixels."""

    text: str
    box: tuple[float, float, float, float]
    score: float  # the engine's confidence, 0..1
    paragraph: int = 0  # the engine's paragraph number, for engines that order their own lines


class OcrEngine(Protocol):
    """Reads the text lines of one rendered page (an RGB numpy array)."""

    name: str
    glues_words: bool  # whether it tends to drop the spaces between words (they are then split again)
    reads_columns: bool  # whether its own line order follows the columns (else the layout model orders them)

    def read(self, image: Any, dpi: int = 144) -> list[OcrLine]: ...


@dataclass(frozen=True, slots=True)
class OcrConfig:
    """What a parser worker needs to OCR pages: which engine (``auto`` or a name) and how many CPU threads
    one page may use (None: the engine's default). Picklable: it travels to the worker processes."""

    engine: OcrChoice = "auto"
    threads: int | None = None
    language: str = ""  # the item's Language field as Zotero holds it ("de", "German"); "" when unknown


@dataclass(frozen=True, slots=True)
class PageEvent:
    """A scanned page's OCR beginning, or (``done``) ending with the text the page keeps."""

    page: int  # 0-based index in the file
    position: int  # 1-based, among the pages of this file that need OCR
    count: int  # pages of this file that need OCR
    engine: str
    done: bool = False
    text: str | None = None  # done: the OCR text the page takes; None: blank, or no better than its layer
    seconds: float = 0.0


def failure(err: BaseException, what: str) -> Exception:
    """What an onnxruntime failure inside an engine means: a failed allocation (the worker's memory cap) is
    a MemoryError, so the pool reports "exceeded memory limit" and replaces the worker; else an OcrError."""
    if "bad_alloc" in str(err) or isinstance(err, MemoryError):
        return MemoryError(f"{what}: out of memory")
    return OcrError(f"{what} failed on a page: {str(err).strip().splitlines()[-1:]}")


def installed(name: str) -> bool:
    """Whether an engine can run here, without loading it."""
    if name == "rapidocr":
        return importlib.util.find_spec("rapidocr_onnxruntime") is not None
    if name == "tesseract":
        return shutil.which("tesseract") is not None
    return False


def resolve(choice: OcrChoice) -> str | None:
    """The engine ``choice`` names, None for ``off``; ``auto`` is the best installed one (None if none is)."""
    if choice == "off":
        return None
    if choice == "auto":
        return next((name for name in ENGINE_NAMES if installed(name)), None)
    name = OCR_ENGINES.canonical(choice)  # an unknown name gets the list of engines there are
    if not installed(name):
        raise OcrError(
            f"The OCR engine {choice!r} is not installed.",
            hint="Install it (rapidocr: pip install rapidocr-onnxruntime; tesseract: apt-get install "
            'tesseract-ocr tesseract-ocr-eng) or set ocr = "auto".',
        )
    return name


def _tesseract(threads: int | None = None, code: str = "") -> OcrEngine:
    from agent_zot.ingest.ocr.tesseract import TesseractEngine

    return TesseractEngine(threads, code or "eng")


def _rapidocr(threads: int | None = None, code: str = "") -> OcrEngine:
    from agent_zot.ingest.ocr.rapid import RapidOcrEngine

    return RapidOcrEngine(threads)  # its models read every script: no language to pass


# The order "auto" tries them in: most accurate first. Factories import their engine, so a worker that
# never OCRs never pays for it.
OCR_ENGINES: Backends[OcrEngine] = Backends(
    "OCR engine", {"tesseract": _tesseract, "rapidocr": _rapidocr}, error=OcrError
)
ENGINE_NAMES = OCR_ENGINES.names


def load_engine(name: str, threads: int | None = None, code: str = "") -> OcrEngine:
    """A new engine by name; ``code`` is the Tesseract language data to read with ("deu"; English when
    empty)."""
    return OCR_ENGINES.create(name, threads, code)
