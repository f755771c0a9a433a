"""Page layout from the detector that ships inside `rapid-layout` (``layout_cdla.onnx``, about 0.2 s a page
on 2 cores): regions of text, titles, figures, tables, their captions, headers, footers, references and
display equations, in PDF points.

The model file is the one inside the installed package; nothing is downloaded. It loads on first use, once
per process (a pool worker loads its own), and is shared by the threads of that process.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_zot.errors import AgentZotError

# Pixels per PDF point when a page is rendered for the detector: scale 2 is what the model was measured at.
SCALE = 2.0
MIN_SCORE = 0.5
KINDS = (
    "text",
    "title",
    "figure",
    "figure_caption",
    "table",
    "table_caption",
    "header",
    "footer",
    "reference",
    "equation",
)


class LayoutError(AgentZotError):
    """The layout detector is not installed or could not run."""


@dataclass(frozen=True, slots=True)
class Region:
    """One detected region; ``box`` is (left, top, right, bottom) in PDF points from the page's top-left."""

    kind: str  # one of KINDS
    box: tuple[float, float, float, float]
    score: float

    @property
    def width(self) -> float:
        return self.box[2] - self.box[0]

    @property
    def height(self) -> float:
        return self.box[3] - self.box[1]


_ENGINE: Any = None
_LOCK = threading.Lock()


def _engine() -> Any:
    global _ENGINE
    with _LOCK:
        if _ENGINE is None:
            try:
                import rapid_layout
                from rapid_layout import RapidLayout
            except ImportError as err:
                raise LayoutError(
                    "The layout detector (rapid-layout) is not installed.",
                    hint="pip install 'rapid-layout>=1.2,<1.3' (it ships its model; nothing is downloaded).",
                ) from err
            model = Path(rapid_layout.__file__).parent / "models" / "layout_cdla.onnx"
            if not model.is_file():
                raise LayoutError(f"rapid-layout's bundled model is missing ({model}).")
            _ENGINE = quietly(lambda: RapidLayout(model_type="pp_layout_cdla", model_dir_or_path=str(model)))
        return _ENGINE


def quietly(make: Callable[[], Any]) -> Any:
    """Build a rapid* engine without its INFO lines (each of its classes makes a logger of its own at INFO
    with its own handler, so only a global switch silences them while it loads)."""
    before = logging.root.manager.disable
    logging.disable(logging.INFO)
    try:
        return make()
    finally:
        logging.disable(before)


def detect(image: Any, *, scale: float = SCALE, min_score: float = MIN_SCORE) -> list[Region]:
    """The regions of one rendered page (an RGB numpy array rendered at ``scale`` pixels per point)."""
    engine = _engine()
    try:
        found = engine(image)
    except (RuntimeError, ValueError) as err:  # onnxruntime and shape errors
        raise LayoutError(f"The layout detector failed on a page: {err}") from err
    regions = []
    for box, kind, score in zip(found.boxes or [], found.class_names or [], found.scores or [], strict=False):
        if float(score) < min_score or kind not in KINDS:
            continue
        left, top, right, bottom = (float(v) / scale for v in box)
        regions.append(Region(str(kind), (left, top, right, bottom), float(score)))
    return regions


def render(page: Any, scale: float = SCALE) -> Any:
    """A pypdfium2 page as an RGB numpy array at ``scale`` pixels per point."""
    bitmap = page.render(scale=scale, rev_byteorder=True)
    try:
        return bitmap.to_numpy()[:, :, :3].copy()
    finally:
        bitmap.close()
