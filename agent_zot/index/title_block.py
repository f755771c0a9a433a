"""A paper's own title block read into a passage: the first page's title, author and affiliation lines that
the page's text flow put in the middle of a sentence, left out of what the assistant reads."""

from __future__ import annotations

import re
from collections.abc import Sequence

_WORD = re.compile(r"\w+")
# An author's affiliation or address under a title block's names
_AFFILIATION = re.compile(
    r"@|\b(?:universit|institut|department|dept\b|laborator|school|college|faculty|hospital|cent(?:er|re)\b"
    r"|academy|e-?mail)",
    re.IGNORECASE,
)
_BLOCK_LINES = 8  # a title block's author and affiliation lines, at most


def without_title_block(text: str, title: str | None, creators: Sequence[str]) -> str:
    """``text`` less the lines that spell the paper's own title and the author and affiliation lines right
    after them: a first page's title block read into the middle of a sentence ("a novel BP estimation method … was" |
    title | "Yang Chen, Student Member, IEEE, Shuo Cheng …" | "proposed and its performance …"). The text
    as it is when the title is not there line for line, or when nothing else is."""
    wanted = [w.lower() for w in _WORD.findall(title or "")]
    if len(wanted) < 3 or "\n" not in text:
        return text
    lines = text.split("\n")
    words = [[w.lower() for w in _WORD.findall(line)] for line in lines]
    names = {name.lower() for name in creators if len(name) > 1}
    for start in range(len(lines)):
        spelled, end = 0, start
        while end < len(lines) and words[end] and wanted[spelled : spelled + len(words[end])] == words[end]:
            spelled, end = spelled + len(words[end]), end + 1
            if spelled == len(wanted):
                break
        if spelled < len(wanted):
            continue
        # the author lines under it: the first names two of its creators (one for a single author); after
        # it, lines naming one ("and Pengjie Zhang") and their affiliations and addresses
        least, authors = min(2, len(names)), end
        while end < len(lines) and names and end - authors < _BLOCK_LINES:
            named = sum(n in words[end] for n in names) >= least
            if not (named or (end > authors and _AFFILIATION.search(lines[end]) and len(lines[end]) < 160)):
                break
            end, least = end + 1, 1
        kept = lines[:start] + lines[end:]
        return "\n".join(kept) if any(words[:start] + words[end:]) else text
    return text
