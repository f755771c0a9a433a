"""What an answer already shows: one sentence's copies (overlapping chunks, the page text, a chunk cut inside
it, a heading run into it) are one sentence, shown once."""

from __future__ import annotations

import re
from collections.abc import Sequence

# A window that begins inside a sentence (its chunk was cut there): lower case, a clause's punctuation, or a
# citation's year ("(2021) we defined ...": the cut fell after "Kokori et al.").
MID_SENTENCE = re.compile(r"[a-z,;:)\]]|\((?:19|20)\d\d[a-z]?[;,)]")

# Consecutive chunks overlap (chunking.py), so a sentence cut at one chunk's start is whole in the chunk
# before: a piece this long that a shown sentence holds is that sentence again.
PIECE_CHARS = 40
# A sentence that holds a shown one and this many characters more is that sentence with its section's heading
# run into it ("Limitations and suggestions In general, ..."), not a sentence that says more.
GLUED_CHARS = 60
_NON_WORD = re.compile(r"[\W_]+")


class Shown:
    """The sentences a paper's passages already show: the same sentence, a piece of one cut at a chunk's
    start, or one with a heading run into it counts as shown (a whole sentence whose piece was shown is not:
    it says more)."""

    def __init__(self) -> None:
        self._exact: set[str] = set()
        self._long: list[tuple[str, bool]] = []  # and whether it is a whole sentence (not a piece)

    def __contains__(self, sentence: object) -> bool:
        if not isinstance(sentence, str):
            return False
        key = compared(sentence)
        if key in self._exact:
            return True
        if len(key) < PIECE_CHARS:
            return False
        return any(
            key in shown or (whole and len(key) - len(shown) <= GLUED_CHARS and shown in key)
            for shown, whole in self._long
        )

    def update(self, sentences: Sequence[str]) -> None:
        for sentence in sentences:
            key = compared(sentence)
            self._exact.add(key)
            if len(key) >= PIECE_CHARS:
                self._long.append((key, not MID_SENTENCE.match(sentence)))


def compared(sentence: str) -> str:
    """A sentence as two passages' copies of it compare: a chunk's text and its page's differ in case,
    hyphens, quotes and spacing around punctuation."""
    return " ".join(_NON_WORD.sub(" ", sentence.lower()).split())
