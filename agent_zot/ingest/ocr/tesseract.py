"""OCR with the system's Tesseract (``tesseract`` binary, in a language it has data for; English by
default), called per page with the image on stdin and TSV (word boxes with block/paragraph/line numbers)
on stdout. No Python wrapper is needed for
that, and none would remove the binary dependency."""

from __future__ import annotations

import os
import shutil
import subprocess
from collections import defaultdict
from typing import Any

from agent_zot.ingest.ocr import OcrError, OcrLine

_TIMEOUT_S = 300.0  # one page; the pool's per-page budget (ocr_page_timeout_s) is the real limit
_MIN_CONFIDENCE = 10.0  # words Tesseract is this unsure of are mostly specks and figure lines read as text


class TesseractEngine:
    name = "tesseract"
    glues_words = False
    reads_columns = True  # its page segmentation finds columns and paragraphs

    def __init__(self, threads: int | None = None, language: str = "eng") -> None:
        binary = shutil.which("tesseract")
        if binary is None:
            raise OcrError(
                "The OCR engine tesseract is not installed.",
                hint="apt-get install tesseract-ocr tesseract-ocr-eng (or brew install tesseract).",
            )
        self._binary = binary
        self._language = language
        # Tesseract's OpenMP threads fight the other parse workers for the CPUs: one page, `threads` threads.
        self._env = dict(os.environ, OMP_THREAD_LIMIT=str(threads or 1))

    def read(self, image: Any, dpi: int = 144) -> list[OcrLine]:
        gray = (image[:, :, 0] * 0.299 + image[:, :, 1] * 0.587 + image[:, :, 2] * 0.114).astype("uint8")
        height, width = gray.shape
        pgm = f"P5\n{width} {height}\n255\n".encode("ascii") + gray.tobytes()  # no image library needed
        command = [self._binary, "stdin", "stdout", "-l", self._language, "--dpi", str(dpi), "tsv"]
        try:
            done = subprocess.run(
                command, input=pgm, capture_output=True, env=self._env, timeout=_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as err:
            raise OcrError(f"tesseract failed on a page: {err}") from err
        if done.returncode != 0:
            message = done.stderr.decode("utf-8", "replace").strip().splitlines()
            raise OcrError(f"tesseract failed on a page: {message[-1] if message else done.returncode}")
        return parse_tsv(done.stdout.decode("utf-8", "replace"))


def parse_tsv(tsv: str) -> list[OcrLine]:
    """Tesseract's word rows grouped into its lines, in its order."""
    words: dict[tuple[int, ...], list[tuple[str, float, tuple[int, int, int, int]]]] = defaultdict(list)
    for row in tsv.splitlines()[1:]:
        cells = row.split("\t")
        if len(cells) != 12 or cells[0] != "5":
            continue
        text, confidence = cells[11].strip(), float(cells[10])
        if not text or confidence < _MIN_CONFIDENCE:
            continue
        left, top, width, height = (int(v) for v in cells[6:10])
        key = tuple(int(v) for v in cells[1:5])  # page, block, paragraph, line
        words[key].append((text, confidence, (left, top, left + width, top + height)))
    lines = []
    paragraphs: dict[tuple[int, ...], int] = {}
    for key, found in words.items():
        paragraph = paragraphs.setdefault(key[:3], len(paragraphs))
        boxes = [box for _, _, box in found]
        box = (
            float(min(b[0] for b in boxes)),
            float(min(b[1] for b in boxes)),
            float(max(b[2] for b in boxes)),
            float(max(b[3] for b in boxes)),
        )
        score = sum(c for _, c, _ in found) / len(found) / 100
        lines.append(OcrLine(" ".join(t for t, _, _ in found), box, score, paragraph))
    return lines
