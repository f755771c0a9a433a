"""Where a passage may grow: the window of sentences around a best sentence, and chosen windows of one chunk
that touch joined into one passage (within ``JOINED_CHARS``), as many as touch: an answer told over four or
five sentences is often chosen as two or three windows, and read whole only as one passage.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

WINDOW_SENTENCES = 3  # the best sentence and its neighbours, the better one first
WINDOW_CHARS = 800  # a neighbour joins only while the window stays within this many characters
JOIN_GAP = 1  # chosen windows of one chunk this many sentences apart (or fewer) are shown as one passage
JOINED_CHARS = 1000  # ... while the joined passage stays within this many characters
# A sentence that announces what follows it ("… three algorithms were applied in this study as follows.",
# "the procedure is explained:"): a window to read that ends on it goes on to the sentence it announces.
ANNOUNCING = re.compile(r"(?::|\bas follows[.:]?|\bthe following[.:]?)\s*$", re.IGNORECASE)


@dataclass(frozen=True, slots=True)
class WindowShape:
    """How large a passage grows around its best sentence: up to ``sentences`` sentences within ``chars``
    characters, and whether two chosen windows of a chunk that touch are joined into one passage."""

    sentences: int = WINDOW_SENTENCES
    chars: int = WINDOW_CHARS
    join: bool = True


# An answer to read (search, summarize): the statement and its neighbours, told over several sentences.
READING = WindowShape()
# Passages to judge one by one (a claim check): the sentence and its better neighbour, never joined.
JUDGING = WindowShape(sentences=2, chars=600, join=False)


@dataclass(frozen=True, slots=True)
class Window:
    """Sentences ``first``..``last`` of one chunk, chosen for its best sentence ``peak``."""

    first: int
    last: int
    peak: int
    score: float


@dataclass(slots=True)
class Chosen:
    """A window chosen for a passage: sentences ``first``..``last`` of candidate chunk ``chunk``."""

    chunk: int
    first: int
    last: int
    score: float
    peak: int


def windows(
    spans: Sequence[tuple[int, int]],
    scores: Sequence[float],
    shape: WindowShape = READING,
    headings: frozenset[int] = frozenset(),
    announcing: frozenset[int] = frozenset(),
) -> list[Window]:
    """The window around every sentence, best first: the sentence and its neighbours (the better one
    first) while the window fits the shape's sentences and characters. A heading (its index in
    ``headings``) is never taken as a neighbour: the passage's label already names its section. A window
    to read that ends on a sentence announcing what follows (its index in ``announcing``, ``ANNOUNCING``)
    takes the next sentence too, within ``JOINED_CHARS``."""
    found = []
    for peak, score in enumerate(scores):
        lo = hi = peak
        neighbours = [n for n in (peak - 1, peak + 1) if 0 <= n < len(spans) and n not in headings]
        for neighbour in sorted(neighbours, key=lambda n: -scores[n]):
            first, last = min(lo, neighbour), max(hi, neighbour)
            if last - first < shape.sentences and width(spans, first, last) <= shape.chars:
                lo, hi = first, last
        # past a label ("2.4.1.", a stub) standing before what is announced: it is announcing too
        while (
            shape.join
            and hi in announcing
            and hi + 1 < len(spans)
            and (hi + 1 not in headings or hi + 1 in announcing)
            and width(spans, lo, hi + 1) <= JOINED_CHARS
        ):
            hi += 1
        found.append(Window(lo, hi, peak, score))
    found.sort(key=lambda w: (-round(w.score, 6), w.peak))
    return found


def width(spans: Sequence[tuple[int, int]], lo: int, hi: int) -> int:
    return spans[hi][1] - spans[lo][0]


def joinable(
    chosen: Sequence[Chosen],
    chunk: int,
    lo: int,
    hi: int,
    spans: Sequence[tuple[int, int]],
    headings: frozenset[int],
) -> Chosen | None:
    """The chosen window a new one (sentences ``lo``..``hi`` of ``chunk``) joins, if any: one of the same
    chunk, at most ``JOIN_GAP`` sentences away, joined within ``JOINED_CHARS`` and not
    across a heading. An answer told over four or five sentences then reads as one passage, not two halves
    in two places."""
    for c in chosen:
        if c.chunk == chunk and _touch(c.first, c.last, lo, hi, spans, headings):
            return c
    return None


def join(near: Chosen, lo: int, hi: int) -> Chosen:
    """Grows the chosen window ``near`` by sentences ``lo``..``hi``; a passage grown once may grow again
    (an answer told over three windows), within ``JOINED_CHARS`` (``joinable``)."""
    near.first, near.last = min(lo, near.first), max(hi, near.last)
    return near


def in_reading_order(chosen: Sequence[Chosen]) -> list[Chosen]:
    """``chosen`` (best first) with each window that goes on where an earlier one of its chunk stops (the
    next sentence; the two too long to join) moved right after it: an answer told over both reads on
    ("First, …" | "Second, …") instead of being split by another passage."""
    left = list(chosen)
    ordered: list[Chosen] = []
    while left:
        current: Chosen | None = left.pop(0)
        while current is not None:  # the window, then the one that goes on from it, and so on
            ordered.append(current)
            last = current
            current = next((c for c in left if c.chunk == last.chunk and c.first == last.last + 1), None)
            if current is not None:
                left.remove(current)
    return ordered


def _touch(
    first: int, last: int, lo: int, hi: int, spans: Sequence[tuple[int, int]], headings: frozenset[int]
) -> bool:
    """Whether sentences ``lo``..``hi`` join ``first``..``last``: at most ``JOIN_GAP`` sentences apart,
    within ``JOINED_CHARS`` together and with no heading between."""
    start, end = min(lo, first), max(hi, last)
    return (
        lo <= last + JOIN_GAP + 1
        and hi >= first - JOIN_GAP - 1
        and width(spans, start, end) <= JOINED_CHARS
        and not any(start <= h <= end for h in headings)
    )
