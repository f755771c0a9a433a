"""A query being taken apart: the original text plus a masked copy the extractors consume.

Extractors run in a fixed order. Each one searches `masked`, and blanks (with spaces, so offsets stay
valid) what it took, so later extractors cannot reuse it: the digits of a DOI never become a year,
and an item key never becomes a venue. Spans to drop from the topic are recorded as well.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

# A quoted phrase in any of the usual quote styles. Single quotes must hug their text, so that
# apostrophes ("Hinton's", "O'Brien") are never taken as quotes.
QUOTED = (
    r'(?:"[^"\n]{1,200}"|“[^”\n]{1,200}”|‘[^’\n]{1,200}’'
    r"|(?<![\w'])'(?=[^\s'])[^'\n]{1,200}?(?<=[^\s'])'(?!\w))"
)
QUOTED_RE = re.compile(QUOTED)

# The words a question opens with (its clause, after any preposition: "for what use", "in which months").
QUESTION_WORDS = r"(?:how|what|which|why|when|where|who|whom|whose)\b"

# Cheap gates: an extractor whose cue cannot be present skips its regexes (most queries are short
# and mention one or two kinds of parameter).
HAS_DIGIT = re.compile(r"\d")

_QUOTE_CHARS = "\"'“”‘’"


def words(text: str) -> frozenset[str]:
    """A vocabulary written as whitespace-separated words (easier to read and extend than a list)."""
    return frozenset(text.split())


def unquote(text: str) -> str:
    """Strip one layer of surrounding quotes and whitespace."""
    text = text.strip()
    if len(text) >= 2 and text[0] in _QUOTE_CHARS and text[-1] in _QUOTE_CHARS:
        text = text[1:-1]
    return " ".join(text.split())


def clean_value(text: str) -> str:
    """A captured name, without quotes, edge punctuation or doubled spaces."""
    return unquote(unquote(text).strip(" \t.,;:!?()[]{}"))


@dataclass
class Scan:
    text: str
    masked: str = ""
    removed: list[tuple[int, int]] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.masked = self.text

    def consume(self, spans: Iterable[tuple[int, int]], *, drop: bool = True) -> None:
        """Blank `spans` in the masked text (one rebuild per call); `drop` also cuts them from the topic."""
        ordered = sorted(span for span in spans if span[1] > span[0])
        if not ordered:
            return
        parts: list[str] = []
        pos = 0
        for start, end in ordered:
            start = max(start, pos)
            if end <= start:
                continue
            parts.append(self.masked[pos:start])
            parts.append(" " * (end - start))
            pos = end
        parts.append(self.masked[pos:])
        self.masked = "".join(parts)
        if drop:
            self.removed.extend(ordered)
