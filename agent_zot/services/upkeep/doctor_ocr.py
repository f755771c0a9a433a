"""doctor's OCR line: which engine reads scanned pages here and, when Tesseract is missing and the library
has scans, what installing it would save (docs/performance.md, "OCR of scanned pages")."""

from __future__ import annotations

from collections.abc import Collection

from agent_zot.config import Settings
from agent_zot.ingest.ocr import ENGINE_NAMES, OCR_SECONDS_A_PAGE, installed
from agent_zot.services.upkeep.doctor_report import Check

INSTALL_TESSERACT = (
    "apt-get install tesseract-ocr (macOS: brew install tesseract; Windows: the UB Mannheim installer)"
)


def ocr_check(settings: Settings, *, scanned_pages: int, engines: Collection[str] | None = None) -> Check:
    """``scanned_pages``: pages of this library's files read by OCR; ``engines``: the engines installed
    (default: those found here)."""
    here = set(engines) if engines is not None else {name for name in ENGINE_NAMES if installed(name)}
    scans = f"; {scanned_pages:,} pages of this library were read by OCR" if scanned_pages else ""
    if settings.ocr == "off":
        return Check("ocr", "ok", f"off: scanned pages are not read{scans}")
    choice = settings.ocr
    engine = next((n for n in ENGINE_NAMES if n in here), None) if choice == "auto" else choice
    if engine is None or engine not in here:
        return Check(
            "ocr",
            "warn",
            f"no OCR engine installed: scanned pages are indexed from metadata only{scans}",
            f"pip install rapidocr-onnxruntime, or (faster) {INSTALL_TESSERACT}.",
        )
    detail = f"{engine} reads scanned pages (ocr = {choice}){scans}"
    if engine == "tesseract":
        return Check("ocr", "ok", detail)
    fast, slow = OCR_SECONDS_A_PAGE["tesseract"], OCR_SECONDS_A_PAGE[engine]
    saving = (
        f": about {scanned_pages * (slow - fast) / 60:,.0f} min less for this library's {scanned_pages:,} "
        f"scanned pages ({slow:g} s a page against {fast:g} s, one thread; docs/performance.md)"
        if scanned_pages
        else f" ({slow:g} s a page against {fast:g} s, one thread) and reads them more accurately"
    )
    return Check(
        "ocr", "warn" if scanned_pages else "ok", detail, f"Install Tesseract, {INSTALL_TESSERACT}{saving}."
    )
