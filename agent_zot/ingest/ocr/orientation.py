"""Scanned pages as scanners leave them: turned 90° or upside down, two book pages side by side, pages so
large that rendering them at OCR resolution would not fit a worker's memory.

- ``render_scale``: pixels per point for a page, lowered so the page stays within ``MAX_PIXELS``.
- ``sideways``: whether the text lines run up the page. Within a narrow strip of a page, the pixel rows
  between two lines of text hold no ink; the columns between words rarely line up over many lines. So
  the share of blank rows against blank columns tells which way the lines run.
- ``halves``: a landscape image cut at its gutter when it holds two pages (an empty or dark band down the
  middle that no line crosses).

Which way a sideways page is turned (90° or 270°), and whether an upright-looking page is upside down,
is settled by reading it both ways (pages.py): the reading with more known words wins.
"""

from __future__ import annotations

from typing import Any

import numpy as np

# A page rendered for OCR holds at most this many pixels (3 bytes each, plus the engines' working copies):
# an A4 page at 2 px/pt is 2.0 M; a scan stored with 1 pt per scanner pixel at 300 dpi would be 35 M.
MAX_PIXELS = 6_000_000
_DARK = 160
_SIDEWAYS_RATIO = 1.5  # blank columns must outnumber blank rows this much (160 of 163 real pages right)
_STRIPS = 6
_MIN_INK_SHARE = 0.005  # too little ink to tell (a near-empty page): taken as upright
_SPREAD_ASPECT = 1.2  # width / height from which an image may be two pages
_GUTTER_BAND = (0.35, 0.65)  # where the fold may be, as shares of the width
_GUTTER_INK = 0.2  # the fold's column holds at most this share of the mean column's ink


def render_scale(width_pt: float, height_pt: float, wanted: float) -> float:
    """``wanted`` pixels per point, or less when the page would exceed ``MAX_PIXELS``."""
    area = max(1.0, width_pt * height_pt)
    return min(wanted, (MAX_PIXELS / area) ** 0.5)


def _ink(image: Any) -> Any:
    return image.min(axis=2) < _DARK if image.ndim == 3 else image < _DARK


def _blank_share(ink: Any, across: int) -> float:
    """The share of blank pixel lines inside the inked extent of each of ``_STRIPS`` strips: rows within
    vertical strips (``across`` = 1) or columns within horizontal strips (``across`` = 0)."""
    length = ink.shape[1] if across == 1 else ink.shape[0]
    lines = blank = 0
    for index in range(_STRIPS):
        part = slice(index * length // _STRIPS, (index + 1) * length // _STRIPS)
        profile = (ink[:, part] if across == 1 else ink[part, :]).sum(axis=across)
        inked = np.flatnonzero(profile)
        if inked.size < 10:
            continue
        inner = profile[inked[0] : inked[-1] + 1]
        lines += inner.size
        blank += int((inner == 0).sum())
    return blank / lines if lines else 0.0


def sideways(image: Any) -> bool:
    """Whether the page's text runs vertically (the page is turned 90° one way or the other)."""
    ink = _ink(image)
    if ink.mean() < _MIN_INK_SHARE:
        return False
    return _blank_share(ink, 0) > _SIDEWAYS_RATIO * _blank_share(ink, 1)


def turned(image: Any, degrees: int) -> Any:
    """The image turned ``degrees`` clockwise (90, 180, 270), as a contiguous array."""
    return np.ascontiguousarray(np.rot90(image, k=-(degrees // 90) % 4))


def halves(image: Any) -> list[Any]:
    """Two pages side by side, cut at the fold; else the image alone."""
    height, width = image.shape[:2]
    if width < _SPREAD_ASPECT * height:
        return [image]
    columns = _ink(image).sum(axis=0).astype(np.float64)
    mean = columns.mean()
    if mean <= 0:
        return [image]
    start, stop = (int(width * share) for share in _GUTTER_BAND)
    band = columns[start:stop]
    # A fold is paper (little ink) or a shadow (a column of ink from top to bottom, which no text line
    # makes): either way the columns beside the shadow are where the text stops.
    fold = start + _middle_of_lowest_run(band)
    if band.min() > _GUTTER_INK * mean:
        shadow = np.flatnonzero(band > 0.9 * height)
        if shadow.size == 0:
            return [image]
        fold = start + int(shadow.mean())
    left, right = image[:, :fold], image[:, fold:]
    if _ink(left).mean() < _MIN_INK_SHARE / 4 or _ink(right).mean() < _MIN_INK_SHARE / 4:
        return [image]  # one side is blank: a single landscape page
    return [np.ascontiguousarray(left), np.ascontiguousarray(right)]


def _middle_of_lowest_run(band: Any) -> int:
    """The middle of the run of columns around the emptiest one that are as empty (the white between
    two pages' margins), so the cut leaves each page its margin."""
    lowest = int(np.argmin(band))
    empty = band <= band[lowest]
    first = last = lowest
    while first > 0 and empty[first - 1]:
        first -= 1
    while last < len(band) - 1 and empty[last + 1]:
        last += 1
    return (first + last) // 2
