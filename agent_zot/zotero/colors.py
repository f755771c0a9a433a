"""Annotation colours: Zotero's named colours, and matching a colour someone names to the colours stored.

Zotero's colour picker offers eight colours (zotero/reader, src/common/defines.js: ``ANNOTATION_COLORS``)
and black for ink and text annotations (``EXTRA_INK_AND_TEXT_COLORS``); an annotation stores the hex.
Older versions, plugins, other PDF readers and users' own picks store other shades, so a stored colour
counts as the named colour it is nearest to. Nearness is CIEDE2000 ΔE, the CIE's measure of how different
two colours look (plain RGB or CIE76 distances put pure blue nearer to magenta than to any blue).
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from functools import lru_cache

from agent_zot.errors import InvalidArgumentError

ANNOTATION_COLORS: dict[str, str] = {
    "yellow": "#ffd400",
    "red": "#ff6666",
    "green": "#5fb236",
    "blue": "#2ea8e5",
    "purple": "#a28ae5",
    "magenta": "#e56eee",
    "orange": "#f19837",
    "gray": "#aaaaaa",
    "black": "#000000",
}
# Words people use for the same swatches ("pink" is what most people call Zotero's magenta).
COLOR_ALIASES: dict[str, str] = {"grey": "gray", "pink": "magenta", "violet": "purple", "lilac": "purple"}
COLOR_WORDS: tuple[str, ...] = (*ANNOTATION_COLORS, *COLOR_ALIASES)

# Three-digit hex only with "#": "bad" or "fed" without it are words.
_HEX = re.compile(r"#?[0-9a-f]{6}|#[0-9a-f]{3}")

Lab = tuple[float, float, float]


def normalize_hex(value: str) -> str | None:
    """``#rrggbb`` in lower case from "#FF6666", "ff6666" or "#f66"; None when it is no hex colour."""
    text = value.strip().lower()
    if not _HEX.fullmatch(text):
        return None
    digits = text.lstrip("#")
    if len(digits) == 3:
        digits = "".join(c * 2 for c in digits)
    return "#" + digits


@lru_cache(maxsize=4096)
def _lab(hex_color: str) -> Lab:
    """sRGB hex → CIELAB (D65 white)."""
    channels = [int(hex_color[i : i + 2], 16) / 255 for i in (1, 3, 5)]
    r, g, b = (c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in channels)
    x = (0.4124 * r + 0.3576 * g + 0.1805 * b) / 0.95047
    y = 0.2126 * r + 0.7152 * g + 0.0722 * b
    z = (0.0193 * r + 0.1192 * g + 0.9505 * b) / 1.08883
    fx, fy, fz = (t ** (1 / 3) if t > 0.008856 else 7.787 * t + 16 / 116 for t in (x, y, z))
    return 116 * fy - 16, 500 * (fx - fy), 200 * (fy - fz)


def _distance(a: str, b: str) -> float:
    return delta_e(_lab(a), _lab(b))


def delta_e(first: Lab, second: Lab) -> float:
    """CIEDE2000 colour difference of two CIELAB colours (Sharma, Wu and Dalal 2005), unit weights."""
    (l1, a1, b1), (l2, a2, b2) = first, second
    mean_c = (math.hypot(a1, b1) + math.hypot(a2, b2)) / 2
    g = 0.5 * (1 - math.sqrt(mean_c**7 / (mean_c**7 + 25**7)))
    a1, a2 = (1 + g) * a1, (1 + g) * a2
    c1, c2 = math.hypot(a1, b1), math.hypot(a2, b2)
    h1, h2 = math.degrees(math.atan2(b1, a1)) % 360, math.degrees(math.atan2(b2, a2)) % 360
    dh = 0.0 if c1 * c2 == 0 else (h2 - h1 + 180) % 360 - 180
    d_hue = 2 * math.sqrt(c1 * c2) * math.sin(math.radians(dh / 2))
    mean_l, mean_c = (l1 + l2) / 2, (c1 + c2) / 2
    if c1 * c2 == 0:
        mean_h = h1 + h2
    elif abs(h1 - h2) <= 180:
        mean_h = (h1 + h2) / 2
    else:
        mean_h = (h1 + h2 + 360) / 2 if h1 + h2 < 360 else (h1 + h2 - 360) / 2
    t = (
        1
        - 0.17 * math.cos(math.radians(mean_h - 30))
        + 0.24 * math.cos(math.radians(2 * mean_h))
        + 0.32 * math.cos(math.radians(3 * mean_h + 6))
        - 0.20 * math.cos(math.radians(4 * mean_h - 63))
    )
    s_l = 1 + 0.015 * (mean_l - 50) ** 2 / math.sqrt(20 + (mean_l - 50) ** 2)
    s_c, s_h = 1 + 0.045 * mean_c, 1 + 0.015 * mean_c * t
    rotation = (
        -math.sin(math.radians(60 * math.exp(-(((mean_h - 275) / 25) ** 2))))
        * 2
        * math.sqrt(mean_c**7 / (mean_c**7 + 25**7))
    )
    dl, dc, dhh = (l2 - l1) / s_l, (c2 - c1) / s_c, d_hue / s_h
    return math.sqrt(dl**2 + dc**2 + dhh**2 + rotation * dc * dhh)


@lru_cache(maxsize=4096)  # a library has few distinct colours and many annotations
def color_name(stored: str) -> str:
    """The named colour nearest to a stored colour ("" when the stored value is no colour)."""
    hex_color = normalize_hex(stored)
    if hex_color is None:
        return ""
    return min(ANNOTATION_COLORS, key=lambda name: _distance(hex_color, ANNOTATION_COLORS[name]))


@dataclass(frozen=True, slots=True)
class ColorChoice:
    """A colour the user asked for: one of the named colours, or a hex of their own."""

    label: str  # "red", or "#ee1111" for a custom colour
    hex: str
    named: bool

    def matches(self, stored: str) -> bool:
        """Whether an annotation of colour ``stored`` counts as this colour: its nearest named colour is
        this one, or, for a custom hex, it is nearer to that hex than to every named colour."""
        hex_color = normalize_hex(stored)
        if hex_color is None:
            return False
        if self.named:
            return color_name(hex_color) == self.label
        own = _distance(hex_color, self.hex)
        return all(own < _distance(hex_color, other) for other in ANNOTATION_COLORS.values())

    def describe(self) -> str:
        return f"{self.label} ({self.hex})" if self.named else f"near {self.hex}"


def parse_color(value: str) -> ColorChoice:
    """A colour name (any case), an alias ("grey", "pink") or a hex with or without "#"."""
    word = value.strip().lower()
    name = COLOR_ALIASES.get(word, word)
    if name in ANNOTATION_COLORS:
        return ColorChoice(name, ANNOTATION_COLORS[name], named=True)
    hex_color = normalize_hex(word)
    if hex_color is not None:
        named = next((n for n, h in ANNOTATION_COLORS.items() if h == hex_color), None)
        return ColorChoice(named or hex_color, hex_color, named=named is not None)
    raise InvalidArgumentError(
        f"Unknown annotation colour {value.strip()[:40]!r}.",
        hint=f"Use one of {', '.join(ANNOTATION_COLORS)} (Zotero's colours), or a hex such as #ff6666.",
    )
