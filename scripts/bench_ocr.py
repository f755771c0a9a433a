"""OCR of scanned pages: each engine against the text layer, on image-only copies of the shared PDFs.

    .venv/bin/python scripts/bench_ocr.py [--pages-per-pdf 2] [--engines tesseract,rapidocr] [--json]
    .venv/bin/python scripts/bench_ocr.py --make-scans DIR   # whole image-only copies (+ metadata.csv)
    .venv/bin/python scripts/bench_ocr.py --as-scanned [--pages-per-pdf 1] [--every 4]  # turned, spread, huge

``--as-scanned`` reads the sampled pages as scanners leave them, through update-db's own page reader
(ingest/ocr/pages.read_page: orientation, two-page spreads, the pixel bound): each page upright, turned
90°, 180° and 270°, two consecutive sampled pages side by side on one landscape page, and the page stored at
one point per pixel of a 300-dpi scan (4.2 times its size). Character error rate against the text layer
(a spread against both pages' text), seconds per page, and the process's peak memory.

1. Sample: ``--pages-per-pdf`` pages of every PDF in ../shared/data/pdfs (the first page and pages spread
   evenly after it). Each sampled page is rendered at 2 pixels per point (144 dpi, grey) and put into an
   image-only PDF page, as a scanner without OCR leaves it; that page is rendered again for the engine,
   as update-db does.
2. Each engine reads every sampled page in a fresh process (one CPU thread per page, as a parse worker with
   two workers on two cores): the engine's lines in its own order, and in layout order (ingest/ocr/reading.py,
   the layout detector's regions), and for rapidocr with glued words split (ingest/ocr/words.py).
3. Against the page's text layer (pdfium, cleaned the same way): character error rate and word error rate
   (Levenshtein distance over characters / words, divided by the text layer's length; reading-order
   differences count as errors), and word recall and precision as bags of words (order-free: what a keyword
   search sees). Pages per second (engine + layout + ordering; rendering excluded), and peak memory of the
   process (Python, onnxruntime) and of its tesseract children.

``--make-scans DIR`` writes image-only copies of the whole PDFs and their metadata.csv, for
``scripts/bench_passages.py --pdf-dir DIR`` (search quality on OCR'd papers).
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import resource
import shutil
import statistics
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

import pypdfium2 as pdfium
from rapidfuzz.distance import Levenshtein

from agent_zot.ingest import layout
from agent_zot.ingest.clean import normalise_text
from agent_zot.ingest.ocr import installed, load_engine
from agent_zot.ingest.ocr.pages import read_page
from agent_zot.ingest.ocr.reading import engine_order, order_lines
from agent_zot.ingest.ocr.words import split_glued
from agent_zot.ingest.worker_limits import peak_rss_mb

PDFS = Path(__file__).resolve().parents[2] / "shared" / "data" / "pdfs"
SCAN_SCALE = 2.0  # 144 dpi: a common office-scanner setting, and what the engines see in update-db


def scanned_images(path: Path, pages: list[int] | None) -> list[Any]:
    """Grey PIL images of ``pages`` (0-based; all when None) rendered as a scanner would."""
    document = pdfium.PdfDocument(path)
    try:
        indexes = range(len(document)) if pages is None else pages
        images = []
        for index in indexes:
            page = document[index]
            images.append(page.render(scale=SCAN_SCALE).to_pil().convert("L"))
            page.close()
        return images
    finally:
        document.close()


def save_scan(images: list[Any], target: Path) -> Path:
    images[0].save(target, "PDF", resolution=72 * SCAN_SCALE, save_all=True, append_images=images[1:])
    return target


def sample_pages(count: int, per_pdf: int) -> list[int]:
    if count <= per_pdf:
        return list(range(count))
    return sorted({round(i * (count - 1) / (per_pdf - 1)) if per_pdf > 1 else 0 for i in range(per_pdf)})


def text_layer(path: Path, index: int) -> str:
    document = pdfium.PdfDocument(path)
    try:
        page = document[index]
        textpage = page.get_textpage()
        text = textpage.get_text_bounded()
        textpage.close()
        page.close()
        return text
    finally:
        document.close()


def flat(text: str) -> str:
    return " ".join(normalise_text(text).split())


def _bag(text: str) -> Counter[str]:
    return Counter(w.strip(".,;:()[]\"'").lower() for w in text.split() if w.strip(".,;:()[]\"'"))


def scores(truth: str, text: str) -> dict[str, float]:
    truth, text = flat(truth), flat(text)
    truth_words, words = truth.split(), text.split()
    bag_truth, bag = _bag(truth), _bag(text)
    common = sum((bag_truth & bag).values())
    return {
        "cer": Levenshtein.distance(truth, text) / max(1, len(truth)),
        "wer": Levenshtein.distance(truth_words, words) / max(1, len(truth_words)),
        "word_recall": common / max(1, sum(bag_truth.values())),
        "word_precision": common / max(1, sum(bag.values())),
    }


def run_engine(name: str, scans: list[tuple[str, int, Path]], queue: Any) -> None:
    """In a fresh process: read every scanned page; put per-page scores and the totals on ``queue``."""
    engine = load_engine(name, threads=1)
    rows, busy = [], 0.0
    for file, index, scan in scans:
        document = pdfium.PdfDocument(scan)
        page = document[0]
        image = layout.render(page, layout.SCALE)
        width = page.get_width()
        page.close()
        document.close()
        started = time.perf_counter()
        lines = engine.read(image)
        regions = layout.detect(image, scale=layout.SCALE)
        ordered = order_lines(lines, regions, layout.SCALE, width)
        busy += time.perf_counter() - started
        variants = {"engine_order": engine_order(lines), "layout_order": ordered}
        if engine.glues_words:
            variants["layout_order_split"] = split_glued(ordered)
        truth = text_layer(PDFS / file, index)
        rows.append({"file": file, "page": index + 1} | {k: scores(truth, v) for k, v in variants.items()})
        print(f"  {name} {file} p{index + 1}: {rows[-1]['layout_order']}", file=sys.stderr)
    children = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss / 1024
    queue.put({"rows": rows, "seconds": busy, "peak_rss_mb": peak_rss_mb(), "children_peak_rss_mb": children})


HUGE = 300 / 72  # a 300-dpi scan whose PDF page is one point per scanner pixel


def scanned_variants(pdf: Path, index: int, work: Path) -> list[tuple[str, Path]]:
    """(variant, image-only PDF) for one page: upright, turned, and stored huge."""
    image = scanned_images(pdf, [index])[0]
    found = []
    for degrees in (0, 90, 180, 270):
        target = work / f"{pdf.stem}-p{index + 1}-r{degrees}.pdf"
        image.rotate(-degrees, expand=True).save(target, "PDF", resolution=72 * SCAN_SCALE)
        found.append((f"turned {degrees}" if degrees else "upright", target))
    big = pdf_page_image(pdf, index, HUGE)
    target = work / f"{pdf.stem}-p{index + 1}-huge.pdf"
    big.save(target, "PDF", resolution=72)  # one point per pixel: a page 4.2 times the size
    found.append(("huge page", target))
    return found


def pdf_page_image(pdf: Path, index: int, scale: float) -> Any:
    document = pdfium.PdfDocument(pdf)
    try:
        page = document[index]
        image = page.render(scale=scale).to_pil().convert("L")
        page.close()
        return image
    finally:
        document.close()


def spread_of(left: Any, right: Any, target: Path) -> Path:
    from PIL import Image

    spread = Image.new("L", (left.width + right.width, max(left.height, right.height)), 255)
    spread.paste(left, (0, 0))
    spread.paste(right, (left.width, 0))
    spread.save(target, "PDF", resolution=72 * SCAN_SCALE)
    return target


def run_as_scanned(name: str, scans: list[tuple[str, str, Path]], queue: Any) -> None:
    """In a fresh process: read every variant through update-db's page reader."""
    engine = load_engine(name, threads=1)
    rows = []
    for variant, truth, scan in scans:
        document = pdfium.PdfDocument(scan)
        page = document[0]
        started = time.perf_counter()
        text = read_page(page, engine) or ""
        seconds = time.perf_counter() - started
        page.close()
        document.close()
        rows.append(
            {"variant": variant, "seconds": seconds, "peak_rss_mb": peak_rss_mb()} | scores(truth, text)
        )
        print(f"  {name} {scan.name}: cer {rows[-1]['cer']:.3f} {seconds:.1f} s", file=sys.stderr)
    queue.put(rows)


def summarise_as_scanned(rows: list[dict[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for variant in dict.fromkeys(row["variant"] for row in rows):
        mine = [row for row in rows if row["variant"] == variant]
        out[variant] = {
            "pages": len(mine),
            "cer": round(statistics.mean(r["cer"] for r in mine), 3),
            "cer_median": round(statistics.median(r["cer"] for r in mine), 3),
            "word_recall": round(statistics.mean(r["word_recall"] for r in mine), 3),
            "s_per_page": round(statistics.mean(r["seconds"] for r in mine), 2),
        }
    out["peak_rss_mb"] = round(max(row["peak_rss_mb"] or 0 for row in rows))
    return out


def as_scanned(per_pdf: int, engines: list[str], every: int = 1) -> dict[str, Any]:
    work = Path(__import__("tempfile").mkdtemp(prefix="bench-ocr-scanned-"))
    scans: list[tuple[str, str, Path]] = []
    pages: list[tuple[Path, int]] = []
    for pdf in sorted(PDFS.glob("*.pdf"))[::every]:
        document = pdfium.PdfDocument(pdf)
        count = len(document)
        document.close()
        for index in sample_pages(count, per_pdf):
            truth = text_layer(pdf, index)
            pages.append((pdf, index))
            scans.extend((variant, truth, path) for variant, path in scanned_variants(pdf, index, work))
    for (left_pdf, left), (right_pdf, right) in zip(pages[::2], pages[1::2], strict=False):
        target = work / f"spread-{left_pdf.stem}-{right_pdf.stem}.pdf"
        images = scanned_images(left_pdf, [left])[0], scanned_images(right_pdf, [right])[0]
        truth = text_layer(left_pdf, left) + "\n" + text_layer(right_pdf, right)
        scans.append(("two pages side by side", truth, spread_of(*images, target)))
    result: dict[str, Any] = {"sample": f"{len(pages)} pages, {len(scans)} scans"}
    result |= each_engine(engines, run_as_scanned, scans, summarise_as_scanned)
    shutil.rmtree(work)
    return result


def each_engine(engines: list[str], target: Any, scans: list[Any], summary: Any) -> dict[str, Any]:
    """``target(name, scans, queue)`` for each installed engine in a fresh process (its own peak memory),
    its result put through ``summary``."""
    found: dict[str, Any] = {}
    context = multiprocessing.get_context("spawn")
    for name in engines:
        if not installed(name):
            found[name] = "not installed"
            continue
        queue = context.Queue()
        process = context.Process(target=target, args=(name, scans, queue))
        process.start()
        found[name] = summary(queue.get())
        process.join()
    return found


def summarise(result: dict[str, Any]) -> dict[str, Any]:
    rows = result["rows"]
    out: dict[str, Any] = {
        "pages": len(rows),
        "pages_per_s": round(len(rows) / result["seconds"], 3),
        "s_per_page": round(result["seconds"] / len(rows), 2),
        "peak_rss_mb": round(result["peak_rss_mb"] or 0),
        "tesseract_peak_rss_mb": round(result["children_peak_rss_mb"]),
    }
    for variant in [k for k in rows[0] if k not in ("file", "page")]:
        for metric in ("cer", "wer", "word_recall", "word_precision"):
            values = [row[variant][metric] for row in rows]
            out[f"{variant}.{metric}"] = round(statistics.mean(values), 3)
            if metric in ("cer", "wer"):
                out[f"{variant}.{metric}_median"] = round(statistics.median(values), 3)
    return out


def make_scans(target: Path) -> None:
    target.mkdir(parents=True, exist_ok=True)
    for pdf in sorted(PDFS.glob("*.pdf")):
        save_scan(scanned_images(pdf, None), target / pdf.name)
        print(f"scanned {pdf.name}", file=sys.stderr)
    shutil.copy(PDFS / "metadata.csv", target / "metadata.csv")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--pages-per-pdf", type=int, default=2)
    parser.add_argument("--engines", default="tesseract,rapidocr")
    parser.add_argument("--make-scans", type=Path, default=None, help="write image-only copies here and stop")
    parser.add_argument("--as-scanned", action="store_true", help="turned, spread and huge pages")
    parser.add_argument("--every", type=int, default=1, help="with --as-scanned: every Nth PDF only")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if args.make_scans:
        make_scans(args.make_scans)
        return
    if args.as_scanned:
        print(json.dumps(as_scanned(args.pages_per_pdf, args.engines.split(","), args.every), indent=2))
        return
    work = Path(__import__("tempfile").mkdtemp(prefix="bench-ocr-"))
    scans = []
    for pdf in sorted(PDFS.glob("*.pdf")):
        document = pdfium.PdfDocument(pdf)
        count = len(document)
        document.close()
        for index in sample_pages(count, args.pages_per_pdf):
            scan = save_scan(scanned_images(pdf, [index]), work / f"{pdf.stem}-p{index + 1}.pdf")
            scans.append((pdf.name, index, scan))
    result: dict[str, Any] = {
        "sample": f"{len(scans)} pages ({args.pages_per_pdf} per PDF, {SCAN_SCALE * 72:g} dpi)"
    }
    result |= each_engine(args.engines.split(","), run_engine, scans, summarise)
    shutil.rmtree(work)
    if args.json:
        print(json.dumps(result, indent=2))
    else:
        for name, row in result.items():
            print(name, row if isinstance(row, str) else " ".join(f"{k}={v}" for k, v in row.items()))


if __name__ == "__main__":
    main()
