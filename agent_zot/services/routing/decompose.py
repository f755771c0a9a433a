"""Compound-query detection for zot_search: "A AND B", "A or B", "A, B and C", "A vs B".

Works on the topic (parameters already cut out), so "by Smith and Jones" or "between 2015 and 2020"
never split. Lower-case "and"/"or" only splits when both sides read as concepts (noun phrases with no
verbs or pronouns); explicit upper-case AND/OR always splits. A part equal to the whole query is dropped,
so a sub-query can never recurse into itself.
"""

from __future__ import annotations

import re

from .extract import trim_frame_words
from .scan import QUESTION_WORDS, words

_MAX_PARTS = 5
_MAX_PART_WORDS = 6
# A topic longer than this is prose (a pasted abstract), not a list of concepts.
_MAX_COMPOUND_CHARS = 300

_EXPLICIT_RE = re.compile(r" (?:AND|OR|&&) | ?; ?")
_UPPER_EXPLICIT_RE = re.compile(r" (?:AND|OR|&&) ")
_LIST_SPLIT_RE = re.compile(r" ?, ?(?:(?:and|or) )?| (?:and|or|vs\.?|versus) ", re.IGNORECASE)
# A question: its "and"/"or" join what the one question is about, not two searches.
_QUESTION = re.compile(rf"^\s*{QUESTION_WORDS}|\?\s*$", re.IGNORECASE)
_SOFT_RE = re.compile(r" (?:and|or|vs\.?|versus) ", re.IGNORECASE)

# Words that make a side a clause or a fragment rather than a concept.
_NON_CONCEPT = words(
    """
    is are was were be been being do does did have has had can could will would should may might
    their its his her our your my them they it this that these those which who whom whose what how
    why when where especially including such e.g. i.e. etc like mentioned used using use uses based
    between both either also then than there here not no by sorted sort ordered
    """
)
_LEADING_FILLER = frozenset({"both", "either", "between"})
# Fixed pairs that name one thing.
_BINOMIALS = frozenset(
    {
        "pros and cons",
        "trial and error",
        "research and development",
        "supply and demand",
        "black and white",
        "signal and noise",
        "cause and effect",
        "checks and balances",
        "question and answer",
        "questions and answers",
        "science and technology",
        "mergers and acquisitions",
        "theory and practice",
    }
)


def decompose(topic: str, query: str) -> tuple[str, ...]:
    """Sub-queries of a compound topic, or () when it is a single concept."""
    text = " ".join(topic.split())
    if not text or len(text) > _MAX_COMPOUND_CHARS:
        return ()
    question = _QUESTION.search(query) is not None
    # A question asks one thing: "why were X built for systolic and diastolic BP?", and its semicolon joins
    # what it says of its paper to what it asks ("... uses ten features; how many candidates were there?").
    parts = (_UPPER_EXPLICIT_RE if question else _EXPLICIT_RE).split(text)
    if len(parts) < 2 and question:
        return ()
    if len(parts) < 2 and not _has_binomial(text):
        parts = _list_parts(text)
    return _finish(parts, query)


def _has_binomial(text: str) -> bool:
    padded = f" {text.lower()} "
    return any(f" {pair} " in padded for pair in _BINOMIALS)


def _list_parts(text: str) -> list[str]:
    if "," in text:
        parts = _LIST_SPLIT_RE.split(text)
        return parts if all(_is_concept(p) for p in parts) else []
    parts = _SOFT_RE.split(text)
    if 2 <= len(parts) <= _MAX_PARTS and all(_is_concept(p) for p in parts):
        return parts
    return []


def _is_concept(part: str) -> bool:
    tokens = part.lower().split()
    while tokens and tokens[0] in _LEADING_FILLER:
        tokens.pop(0)
    if not tokens or len(tokens) > _MAX_PART_WORDS or not any(c.isalpha() for c in part):
        return False
    return not any(t.strip(".,") in _NON_CONCEPT for t in tokens)


def _finish(parts: list[str], query: str) -> tuple[str, ...]:
    whole = " ".join(query.split()).lower()
    out: list[str] = []
    for part in parts:
        tokens = trim_frame_words(part).split()
        while tokens and tokens[0].lower() in _LEADING_FILLER:
            tokens.pop(0)
        cleaned = " ".join(tokens)
        if cleaned and cleaned.lower() != whole and cleaned.lower() not in (p.lower() for p in out):
            out.append(cleaned)
    if len(out) < 2:
        return ()
    return tuple(out[:_MAX_PARTS])
