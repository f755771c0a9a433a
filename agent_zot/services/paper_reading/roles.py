"""The role of each sentence of a paper (for the matrix, summaries and question answers): the section kind (ingest/section_kinds.py)
of the heading it is under, read from the indexed page texts with the ingest's own heading rules, and
what each question kind is answered by.

A review question has places where papers answer it: the problem in the abstract and introduction, the
method and the setup (data, participants, machines) in the methods, results in the results, abstract and
conclusion, limitations in the discussion. Many PDFs show few headings the rules recognise, so a sentence
under no recognised heading ("body") is placed by position instead, and the text of the first page before
its first heading is the paper's front: its abstract when no "Abstract" heading says so. Thanks,
reference entries and author biographies share a paper's words but answer none of its questions; they are
recognised by heading and, where the heading was missed, by how the sentence reads.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace

from agent_zot.index.sections import KindHint
from agent_zot.index.sentences import focus_of, sentence_spans
from agent_zot.ingest.headings import PARAGRAPH_LEVEL, heading_level, heading_lines
from agent_zot.ingest.section_kinds import EXCLUDED, reads_as_biography, section_kind
from agent_zot.ingest.sentence_roles import (
    CHROME,
    ENTRY_PIECE_CHARS,
    OUTLINE,
    has_entry_mark,
    opens_entry,
    reads_as_chrome,
    reads_as_outline,
    reads_as_reference,
    reads_as_thanks,
)
from agent_zot.services.paper_reading.questions import REASON_CUES, classify

__all__ = ["ANSWERED_BY", "FRONT", "Sentence", "answer_kind", "excluded", "paper_sentences"]

FRONT = "front"  # the first page's text before its first heading: title block and abstract
# The section kinds that answer each question kind; a sentence of another recognised kind is off its role.
ANSWERED_BY: dict[str, frozenset[str]] = {
    "problem": frozenset({"abstract", "introduction", FRONT}),
    "method": frozenset({"methods", "abstract", FRONT}),
    "data": frozenset({"methods", "results"}),
    "count": frozenset({"methods", "results"}),
    "result": frozenset({"results", "abstract", "conclusion", "discussion", FRONT}),
    "limitation": frozenset({"discussion", "limitations", "conclusion"}),
    "thanks": frozenset({"acknowledgements"}),
}
MAX_SENTENCE_CHARS = 1200
_MIN_CHARS = 15
_TOP_NUMBER = re.compile(r"^(\d+)(?:\.\d+)*\.?\s")
_OPENING = frozenset({FRONT, "abstract", "introduction"})
OPENING_SHARE = 0.3  # an introduction runs past this share of a paper only when a heading was missed
OPENING_SENTENCES = 40  # ... and past this many sentences (a short paper's introduction is most of it)
THANKS_SENTENCES = 12
CLOSING_SHARE = 0.5  # the pages from here on are where thanks, references and biographies are printed
_NUMBER = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s")
# A reference entry is split at its full stops: its title and venue follow its start as short pieces.
_ENTRY_PIECES = 4

# The names a heading glued to the first sentence under it may have ("I. INTRODUCTION The rapid ..."),
# and numbered headings alone in a sentence of their own: the line rules see neither.
_HEADING_PREFIX = re.compile(
    r"^(?:(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-H]\.)\s+)?(?P<name>Abstract|ABSTRACT|Introduction|INTRODUCTION|Background"
    r"|BACKGROUND|Related\s+[Ww]ork|RELATED\s+WORK|Methods?|METHODS?|Methodology|Materials\s+and\s+[Mm]ethods"
    r"|Experiments?|EXPERIMENTS?|Evaluation|EVALUATION|Results?|RESULTS?|Discussion|DISCUSSION|Conclusions?"
    r"|CONCLUSIONS?|Limitations?|LIMITATIONS?|Future\s+[Ww]ork|Objectives?|Main\s+results|Significance"
    r"|Approach|Summary|Acknowledge?ments?|ACKNOWLEDGE?MENTS?|References|REFERENCES)\b\s*[.:—–-]?\s+(?=[A-Z])"
)
_STRUCTURED = {"objective": "abstract", "objectives": "abstract", "main results": "results"}
_NUMBERED_HEADING = re.compile(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+(?P<name>[A-Z][^.!?]{2,58})$")
_GLUED_CAPITALS = re.compile(
    r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.)\s+(?P<name>[A-Z][A-Z&,\- ]{3,58}?)\s+(?=[A-Z][a-z])"
)
_HEADING_CHARS = 60


@dataclass(frozen=True, slots=True)
class Sentence:
    text: str
    page: int | None  # None: the abstract of a paper without indexed full text
    index: int  # position in the paper
    section: str  # the heading it falls under ("" before the first)
    kind: str = "body"  # its role: a section kind (section_kinds.KINDS) or FRONT


def paper_sentences(
    pages: Sequence[tuple[int | None, str]], on_page: Callable[[int], None] | None = None
) -> list[Sentence]:
    """The sentences of a paper's pages, each with the heading it is under and its role. A subsection
    whose heading names no kind ("3.3 Fault Tolerance") takes its section's ("3 Implementation").
    ``on_page`` hears how many pages are read after each (a long book takes seconds)."""
    sentences: list[Sentence] = []
    section, kind = "", FRONT
    parent: tuple[str, str | None] = (FRONT, None)
    entry, entry_pieces = False, 0  # in a reference entry, and how many of its pieces followed its start
    first_page = next((number for number, _ in pages), None)
    for page_index, (number, text) in enumerate(pages):
        closing = page_index >= CLOSING_SHARE * len(pages)
        breaks = heading_lines(text)
        heads = {start for start, _ in breaks}
        if number is None:  # an abstract alone
            kind = "abstract"
        for start, end in sentence_spans(text, breaks):
            piece = " ".join(text[start:end].split())
            heading = _heading_of(piece) if start in heads or len(piece) < _HEADING_CHARS else None
            glued = None if heading else _HEADING_PREFIX.match(piece) or _GLUED_CAPITALS.match(piece)
            if glued:
                heading = glued.group("name")
                piece = piece[glued.end() :]
            if heading:
                section = heading
                named, under = _kind_under(heading, parent, closing=closing)
                # a title or a journal's name in capitals on the first page is no section
                if not (kind == FRONT and named == "body" and not _NUMBER.match(heading)):
                    kind, parent = named, under
                if not glued:
                    continue
            elif kind == FRONT and number != first_page:
                kind, parent = "body", ("body", None)  # the front ends with the first page
            if len(piece) < _MIN_CHARS or len(piece) > MAX_SENTENCE_CHARS:
                continue
            role = _own_role(piece, kind)
            if (
                role == kind
                and entry
                and entry_pieces < _ENTRY_PIECES
                and _entry_goes_on(piece, number, sentences)
            ):
                role, entry_pieces = "references", entry_pieces + 1
            else:
                entry, entry_pieces = role == "references", 0
            sentences.append(Sentence(piece, number, len(sentences), _plain(section), role))
        if on_page is not None:
            on_page(page_index + 1)
    return _bounded(sentences)


def _bounded(sentences: list[Sentence]) -> list[Sentence]:
    """Sections whose end was missed made "body": an opening section (front, abstract, introduction)
    past the first OPENING_SHARE of the paper, thanks past THANKS_SENTENCES. A heading the rules did not
    see leaves the section above it running to the next one they do see."""
    bounded, thanks = [], 0
    last = len(sentences) - 1
    for sentence in sentences:
        thanks = thanks + 1 if sentence.kind == "acknowledgements" else 0
        past = sentence.index > max(OPENING_SHARE * last, OPENING_SENTENCES)
        overrun = (sentence.kind in _OPENING and past) or (
            thanks > THANKS_SENTENCES and not reads_as_thanks(sentence.text)
        )
        bounded.append(replace(sentence, kind="body") if overrun else sentence)
    return bounded


_WHY = re.compile(r"\s*why\b", re.IGNORECASE)


def answer_kind(question: str) -> KindHint | None:
    """The kind of answer ``question`` wants (the review matrix's reading of a question: a limitation, a
    count, a method ...) and the section kinds that answer it, read from what it asks within the paper it
    names; None for a question of no known kind. A question that asks why is a "reason": stated beside
    what it explains, in any section ("why can't the earlier result be used" asks for no result), it is
    known by how it is worded ("because", "is chosen to lower", "could be caused by"): dev library
    questions, answering sentence in the default answer 271 -> 272 of 315 alone, 277 with the first
    paper's deeper own query (query_vectors.DEEP_CANDIDATES); KIND_CUE_BONUS, 0.6, beat 0.3 and 1.0 here."""
    asked = focus_of(question)
    if _WHY.match(asked):
        return KindHint("reason", frozenset(), REASON_CUES)
    kind = classify(asked)
    sections = ANSWERED_BY.get(kind.name)
    if sections is None:
        return None
    return KindHint(kind.name, sections, kind.cues)


def excluded(kind: str, question_kind: str) -> bool:
    """Whether a sentence of role ``kind`` may not answer a question of ``question_kind``: thanks,
    reference entries and biographies answer no review question but "who funded it" (and a question the
    kinds do not know, which the thanks may answer)."""
    if question_kind in ("other", "thanks"):
        return kind in (EXCLUDED | {CHROME, OUTLINE}) - {"acknowledgements"}
    return kind in EXCLUDED or kind in (CHROME, OUTLINE)


def _heading_of(piece: str) -> str | None:
    """The heading a short sentence is, if it is one: a known section name, a numbered heading."""
    if len(piece) >= _HEADING_CHARS:
        return piece if section_kind(piece) != "body" else None
    if section_kind(piece) != "body" or _NUMBERED_HEADING.match(piece) or _STRUCTURED.get(piece.lower()):
        return piece
    return piece if heading_lines(piece) and not piece.rstrip().endswith((".", ":", ";", ",")) else None


def _kind_under(
    heading: str, parent: tuple[str, str | None], *, closing: bool
) -> tuple[str, tuple[str, str | None]]:
    """(the kind of the sentences under ``heading``, the (kind, section number) a later subheading falls
    back to) under the section ``parent``. A subsection numbered under another section ("2.1" after "1
    Introduction") follows a section heading the rules missed: its kind is unknown. A paragraph heading
    that names thanks, references or authors ("Citations", "Funding") opens such a section only in the
    ``closing`` part of a paper, where they are printed; earlier it is a topic of the body."""
    name = " ".join(heading.split())
    kind = _STRUCTURED.get(name.lower().rstrip(" .:")) or section_kind(name)
    top = _TOP_NUMBER.match(name)
    number = top.group(1) if top else None
    paragraph = heading_level(name) == PARAGRAPH_LEVEL
    # The indexed pages lost their reference list at indexing (ingest/references.py): a "References" or
    # "Citations" heading left in them heads prose, and entries left behind are known by how they read.
    if kind == "references" or (paragraph and kind in EXCLUDED and not closing):
        kind = "body"
    if heading_level(name) > 1 and kind == "body":
        if number is None or parent[1] is None or number == parent[1]:
            return parent[0], parent
        return "body", ("body", number)
    return kind, (kind, number)


def _own_role(sentence: str, kind: str) -> str:
    """A sentence's role where it reads as thanks, a reference entry or a biography whatever its heading."""
    if kind in EXCLUDED:
        return kind
    if reads_as_biography(sentence):
        return "biography"
    if reads_as_reference(sentence):
        return "references"
    if reads_as_thanks(sentence):
        return "acknowledgements"
    if reads_as_chrome(sentence):
        return CHROME
    if reads_as_outline(sentence):
        return OUTLINE
    return kind


def _entry_goes_on(piece: str, page: int | None, sentences: list[Sentence]) -> bool:
    """Whether ``piece`` continues the reference entry before it: on its page, short or with a year or venue."""
    return (
        bool(sentences)
        and sentences[-1].page == page
        and (len(piece) < ENTRY_PIECE_CHARS or has_entry_mark(piece))
        and not opens_entry(piece)
    )


def _plain(heading: str) -> str:
    """A heading without its number, lower case: "3.2 Experimental Setup" -> "experimental setup"."""
    words = re.sub(r"^(?:\d+(?:\.\d+)*\.?|[IVX]+\.|[A-H]\.)\s+", "", " ".join(heading.split()))
    return words.lower().rstrip(" .:")
