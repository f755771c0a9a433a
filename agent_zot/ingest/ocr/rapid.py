"""OCR with RapidOCR: PP-OCRv4 detection and recognition ONNX models shipped inside the
``rapidocr-onnxruntime`` wheel (16 MB; nothing is downloaded), run by onnxruntime on the CPU."""

from __future__ import annotations

from typing import Any

from agent_zot.ingest.layout import quietly
from agent_zot.ingest.ocr import OcrError, OcrLine, failure

# A page rendered at 2 pixels per point is 1224 x 1584 for US Letter: let it through unshrunk.
_MAX_SIDE = 3000


class RapidOcrEngine:
    name = "rapidocr"
    glues_words = True  # its recogniser often drops the space between two English words
    reads_columns = False  # its lines come top to bottom across the whole page

    def __init__(self, threads: int | None = None) -> None:
        try:
            from rapidocr_onnxruntime import RapidOCR
            from rapidocr_onnxruntime.utils.infer_engine import ONNXRuntimeError
        except ImportError as err:
            raise OcrError(
                "The OCR engine rapidocr is not installed.", hint="pip install rapidocr-onnxruntime"
            ) from err
        options: dict[str, Any] = {"max_side_len": _MAX_SIDE}
        if threads:
            options["intra_op_num_threads"] = threads
            options["inter_op_num_threads"] = 1
        self._engine = quietly(lambda: RapidOCR(**options))
        self._errors = (RuntimeError, ValueError, ONNXRuntimeError)  # it wraps onnxruntime's in its own

    def read(self, image: Any, dpi: int = 144) -> list[OcrLine]:  # the dpi is for Tesseract
        try:
            # No per-line direction classifier: it reads the lines of an upside-down page the right way
            # round but leaves them in reverse order, where without it such a page reads as nonsense and
            # pages.read_page turns it over.
            found, _elapsed = self._engine(image, use_cls=False)
        except self._errors as err:
            raise failure(err, "rapidocr") from err
        lines = []
        for points, text, score in found or []:
            xs = [float(p[0]) for p in points]
            ys = [float(p[1]) for p in points]
            if text.strip():
                lines.append(OcrLine(text.strip(), (min(xs), min(ys), max(xs), max(ys)), float(score)))
        return lines
