"""Which PDF pages need OCR, and their text read by an engine in layout order.

A page needs OCR when its text layer is unusable and the page is not blank:

- fewer than ``MIN_TEXT_CHARS`` non-space characters of text (a scan, or a page number or stamp only), or
- fewer than ``STAMP_TEXT_CHARS`` while images cover most of the page (a scan carrying a repository's
  "downloaded from ..." line): its OCR text is then used only when it has more known words than the layer;

and the page, rendered, has some ink. The page is rendered once (``layout.SCALE`` pixels per point, less
for a page too large to fit ``orientation.MAX_PIXELS``) for both the layout detector and the engine; an
engine that reads columns itself (Tesseract) keeps its order and needs no layout model. A page turned
sideways is turned upright (90° first) and one the engine is unsure of is read the other way up too,
the surer reading kept; two book pages scanned side by side are read one after the other
(``orientation.py``). Tesseract reads in the item's language when its data is installed
(``language.py``). Runs inside a parse worker; the engine and the layout model load on the first page
that needs them, once per process.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import pypdfium2 as pdfium
import pypdfium2.raw as pdfium_c

from agent_zot.ingest import layout
from agent_zot.ingest.ocr import (
    OcrConfig,
    OcrEngine,
    OcrError,
    OcrLine,
    PageEvent,
    failure,
    installed,
    language,
    load_engine,
    resolve,
)
from agent_zot.ingest.ocr.orientation import halves, render_scale, sideways, turned
from agent_zot.ingest.ocr.reading import engine_order, order_lines
from agent_zot.ingest.ocr.words import split_glued, word_score

log = logging.getLogger(__name__)

MIN_TEXT_CHARS = 100
STAMP_TEXT_CHARS = 400
IMAGE_COVER = 0.5  # share of the page that images must cover for a page with a little text to be OCR'd
INK = 0.002  # share of dark pixels below which a rendered page counts as blank
_DARK = 160

# A page read with less confidence than this (the engine's, 0..1), or into fewer words, is read the other
# way up too, and the surer reading kept.
SURE = 0.7
FEW_WORDS = 10
_ENGINES: dict[tuple[str, int | None, str], OcrEngine] = {}


# Called as each page's OCR begins and ends: a parse worker tells its pool, which gives each page its own
# time budget and keeps the pages read so far (ingest/pool.py). Set once per worker process.
_on_page: Callable[[PageEvent], None] | None = None
# What the pool already knows of the next file this process reads: pages read before its worker was
# stopped (0-based index -> the text kept, None for "keep the layer") and pages skipped as over budget.
_resume: tuple[dict[int, str | None], frozenset[int]] = ({}, frozenset())


def on_page(callback: Callable[[PageEvent], None] | None) -> None:
    """Have ``callback`` called as every page this process OCRs begins and ends."""
    global _on_page
    _on_page = callback


def resume_from(known: dict[int, str | None], skip: frozenset[int]) -> None:
    """Read the next file without OCR of the pages in ``known`` (their outcome given) or ``skip``."""
    global _resume
    _resume = (dict(known), frozenset(skip))


def _tell(event: PageEvent) -> None:
    if _on_page is not None:
        _on_page(event)


@dataclass(slots=True)
class OcrResult:
    """Page texts after OCR: which pages (0-based) were read by OCR, with which engine, and how long it took."""

    texts: list[str]
    pages: set[int] = field(default_factory=set)
    engine: str | None = None
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


def _chars(text: str) -> int:
    return sum(1 for ch in text if not ch.isspace())


def _image_cover(page: pdfium.PdfPage) -> float:
    """Share of the page's area under image objects (overlaps counted twice; capped at 1)."""
    width, height = page.get_size()
    area = 0.0
    for obj in page.get_objects(filter=(pdfium_c.FPDF_PAGEOBJ_IMAGE,), max_depth=3):
        left, bottom, right, top = obj.get_bounds()
        area += max(0.0, right - left) * max(0.0, top - bottom)
    return min(1.0, area / max(1.0, width * height))


def candidate(page: pdfium.PdfPage, text: str) -> bool:
    """Whether the page's text layer is unusable enough to try OCR (blank pages are sorted out later)."""
    chars = _chars(text)
    return chars < MIN_TEXT_CHARS or (chars < STAMP_TEXT_CHARS and _image_cover(page) >= IMAGE_COVER)


def has_ink(image: Any) -> bool:
    """Whether a rendered page has anything on it (a blank page costs no OCR)."""
    gray = image.min(axis=2)
    return float((gray < _DARK).mean()) >= INK


def _engine(name: str, threads: int | None, code: str) -> OcrEngine:
    key = (name, threads, code)
    if key not in _ENGINES:
        _ENGINES[key] = load_engine(name, threads, code)
    return _ENGINES[key]


def _layout_errors() -> tuple[type[Exception], ...]:
    """layout.detect's own error, and the one rapid-layout wraps onnxruntime's failures in."""
    try:
        from rapid_layout.inference_engine.onnxruntime.main import ONNXRuntimeError
    except ImportError:
        return (layout.LayoutError,)
    return (layout.LayoutError, ONNXRuntimeError)


def read_page(page: pdfium.PdfPage, engine: OcrEngine) -> str | None:
    """The page's text by OCR in reading order, or None when the page is blank."""
    scale = render_scale(page.get_width(), page.get_height(), layout.SCALE)
    image = layout.render(page, scale)
    if not has_ink(image):
        return None
    first, second = (90, 270) if sideways(image) else (0, 180)
    text, sure = _read_image(turned(image, first) if first else image, engine, scale)
    # The engine is unsure of what it read (Tesseract reads a page the wrong way up at about 0.5, the right
    # way at 0.9), or read hardly anything (RapidOCR, on a page the wrong way up): the other way up may
    # read better. A page of a few words (a figure, a title page) pays a second reading.
    if len(text.split()) < FEW_WORDS or sure < SURE:
        other, other_sure = _read_image(turned(image, second), engine, scale)
        if other_sure > sure:
            return other
    return text


def _read_image(image: Any, engine: OcrEngine, scale: float) -> tuple[str, float]:
    """An upright page image's text, each of two pages side by side in turn, and the engine's confidence
    in it (its lines' scores weighted by their length)."""
    texts, lines = [], []
    for half in halves(image):
        text, found = _read_one(half, engine, scale)
        texts.append(text)
        lines += found
    length = sum(len(line.text) for line in lines)
    sure = sum(line.score * len(line.text) for line in lines) / length if length else 0.0
    return "\n\n".join(filter(None, texts)), sure


def _read_one(image: Any, engine: OcrEngine, scale: float) -> tuple[str, list[OcrLine]]:
    lines = engine.read(image, dpi=round(72 * scale))
    if not lines:
        return "", []
    if engine.reads_columns:
        text = engine_order(lines)
        return (split_glued(text) if engine.glues_words else text), lines
    try:
        regions = layout.detect(image, scale=scale)
    except _layout_errors() as err:  # no layout model: the engine's own line order
        if isinstance(failure(err, "layout"), MemoryError):
            raise MemoryError("layout detector: out of memory") from err
        log.debug("layout detector unavailable for OCR reading order: %s", err)
        regions = []
    text = order_lines(lines, regions, scale, image.shape[1] / scale)
    return (split_glued(text) if engine.glues_words else text), lines


def _in_its_language(
    page: pdfium.PdfPage, engine: OcrEngine, text: str, config: OcrConfig, result: OcrResult
) -> tuple[OcrEngine, str]:
    """The engine for the rest of the scan, and this page's text: read again in the language its English
    reading shows, when Tesseract has that language's data; else as it is, with a warning when the
    language is not English."""
    found = language.detect(text)
    if found is None or found == language.DEFAULT:
        return engine, text
    choice = language.choose(found, told_by="the scan's language (from its words)")
    if choice.warning:
        result.warnings.append(choice.warning)
        return engine, text
    engine = _engine("tesseract", config.threads, choice.code)
    return engine, read_page(page, engine) or text


def ocr_pages(pdf: pdfium.PdfDocument, texts: list[str], config: OcrConfig | None) -> OcrResult:
    """``texts`` (the text layer, one per page) with the pages that need it read by OCR instead."""
    result = OcrResult(list(texts))
    if config is None:
        return result
    todo: list[int] = []
    for index, layer in enumerate(texts):
        if _chars(layer) >= STAMP_TEXT_CHARS:
            continue
        page = pdf[index]
        try:
            if candidate(page, layer):
                todo.append(index)
        finally:
            page.close()
    if not todo:
        return result
    name = resolve(config.engine)
    if name is None:
        result.warnings.append(f"{len(todo)} pages need OCR, but OCR is off or no engine is installed")
        return result
    choice = language.choose(config.language) if name == "tesseract" else language.Choice("eng", "eng")
    name = language.engine_for(name, choice, installed("rapidocr"))
    if choice.warning and name == "tesseract":
        result.warnings.append(choice.warning)
    started = time.perf_counter()
    # With no Language field, the first page read tells the scan's language (Tesseract only: RapidOCR's
    # model takes none).
    undecided = name == "tesseract" and not config.language
    known, skip = _resume
    engine: OcrEngine | None = None
    try:
        for position, index in enumerate(todo, 1):
            if index in skip:
                continue
            if index in known:
                _keep(result, index, known[index])
                continue
            # The engine loads within the first page's budget: a slow load is that page's, not the file's
            _tell(PageEvent(index, position, len(todo), name))
            began = time.perf_counter()
            if engine is None:
                engine = _engine(name, config.threads, choice.code if name == "tesseract" else "")
            page = pdf[index]
            try:
                text = read_page(page, engine)
                if undecided and text:
                    undecided = False
                    engine, text = _in_its_language(page, engine, text, config, result)
            finally:
                page.close()
            kept = None if text is None or word_score(text) <= word_score(texts[index]) else text
            _keep(result, index, kept)  # blank, or no better than the little text layer it has: kept as is
            seconds = time.perf_counter() - began
            _tell(PageEvent(index, position, len(todo), name, done=True, text=kept, seconds=seconds))
    except OcrError as err:  # the engine could not load or failed: the pages read so far are kept
        result.warnings.append(f"OCR stopped: {err}")
    result.engine = name
    result.seconds = time.perf_counter() - started
    return result


def _keep(result: OcrResult, index: int, text: str | None) -> None:
    if text is not None:
        result.texts[index] = text
        result.pages.add(index)
