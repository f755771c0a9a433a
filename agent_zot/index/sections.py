"""The heading each sentence of a chunk is under, its role, and how much of a question that heading names.

A chunk carries the heading in force where it starts; headings inside its text ("Worker Failure" halfway
down) take over for the sentences after them, and a deeper heading keeps the one above it as its parent
("3.3 Fault Tolerance" > "Worker Failure"). A heading is the author's own summary of what its section is
about, so a question whose words it names ("how does it handle worker failures?") is asked of that
section, even where the section's sentences say "failed" and never "failures". The question's words that
only name the paper (its title's words, "paper", "study") match every heading of it and do not count.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from agent_zot.index.sparse import Bm25Encoder
from agent_zot.ingest.headings import heading_level
from agent_zot.ingest.section_kinds import EXCLUDED, section_kind
from agent_zot.ingest.sentence_roles import (
    CAPTION,
    UNCITED,
    is_caption_label,
    reading,
)

# An entry's later pieces (its title, "In OSDI, 2004."): short, and never the authors' own voice.
_ENTRY_GOES_ON = 30  # words
_OWN_VOICE = re.compile(r"\b(?:we|our|us|this\s+(?:paper|work|study|article))\b", re.IGNORECASE)


def sentence_role(sentence: str, kind: str, previous: str | None = None) -> str:
    """``kind`` (a sentence's section kind), or the role the sentence reads as whatever its heading:
    "references" for a reference entry (and the pieces after one, ``previous`` being the role of the
    sentence before under the same heading), "acknowledgements", "caption", "chrome" or "biography"."""
    if kind in EXCLUDED:
        return kind
    read = reading(sentence)
    if read is None and previous == "references":
        text = " ".join(sentence.split())
        if len(text.split()) <= _ENTRY_GOES_ON and not _OWN_VOICE.search(text):
            return "references"
    return read or kind


# A question of a known kind: a sentence in a section of a kind that answers it, and one that reads like
# its answer. Chosen on the dev library questions of scripts/bench_answers.py (the cue carried the gain;
# the section alone did not move the dev count).
KIND_ROLE_BONUS = 0.3
KIND_CUE_BONUS = 0.6
# A role that answers this kind and no other ("who funded it?": the thanks) is where the answer is, whatever
# else shares the words that name the paper.
ADMITTED_ROLE_BONUS = 1.5


@dataclass(frozen=True, slots=True)
class KindHint:
    """What kind of answer a question wants, as the passage picker weighs it (the services layer reads the
    kind from the question's words): the section kinds that answer it (``sections``) and how an answering
    sentence reads (``cues``). A limitation is admitted in the discussion, a count is stated in the
    methods; the question's own words seldom say so ("drawbacks" where the paper writes "limitations")."""

    name: str
    sections: frozenset[str]
    cues: re.Pattern[str] | None = None

    @property
    def admits(self) -> frozenset[str]:
        """The roles that are never a passage but answer this kind ("who funded it?": the thanks)."""
        return self.sections & UNCITED

    def reads_as(self, sentence: str) -> bool:
        return self.cues is not None and self.cues.search(sentence) is not None

    def bonus(self, sentence: str, kind: str) -> float:
        """What a sentence of section kind ``kind`` gains in the passage picker's score (bounded: the
        question's own words still count for more)."""
        return (
            KIND_ROLE_BONUS * (kind in self.sections)
            + ADMITTED_ROLE_BONUS * (kind in self.admits)
            + KIND_CUE_BONUS * self.reads_as(sentence)
        )


# Words that name the paper a question is asked of, not what it asks of it.
_NAMING_WORDS = "paper papers study studies article authors author"
# A biography's later sentences name the author by a pronoun ("He received ...", "Her research ...").
_BIO_GOES_ON = re.compile(r"(?:He|She|They|His|Her|Their|Dr\.|Prof\.)\s")


def sentence_sections(
    section: str | None, headings: Mapping[int, str], count: int
) -> list[tuple[str | None, str | None]]:
    """(heading, parent heading) of each of the ``count`` sentences of a chunk whose payload section is
    ``section``; ``headings``: the sentences that open a section, by index, with the heading each gives
    (each is under itself)."""
    stack: list[tuple[int, str]] = [(heading_level(section), section)] if section else []
    found: list[tuple[str | None, str | None]] = []
    for index in range(count):
        if index in headings and not (stack and _reopens_an_ancestor(headings[index], stack[-1][1])):
            heading = " ".join(headings[index].split())
            level = heading_level(heading)
            while stack and stack[-1][0] >= level:
                stack.pop()
            stack.append((level, heading))
        found.append((stack[-1][1], stack[-2][1] if len(stack) > 1 else None) if stack else (None, None))
    return found


# A section's number: "5.2.3 发射延迟的量测", "3.1 Data", and a chapter's, "第 5 章 …".
_SECTION_NUMBER = re.compile(r"(?:第\s*)?(\d{1,2}(?:[.．]\d{1,2}){0,3})")


def _reopens_an_ancestor(heading: str, current: str) -> bool:
    """Whether ``heading`` numbers a section that holds ``current`` ("第 5 章 …" or "5 Results" inside
    "5.2.3 …"): a page's running header, set again atop each page of its chapter, not a new section."""
    outer, inner = _SECTION_NUMBER.match(heading.strip()), _SECTION_NUMBER.match(current.strip())
    if outer is None or inner is None:
        return False
    return inner.group(1).replace("．", ".").startswith(outer.group(1).replace("．", ".") + ".")


def sentence_kinds(
    sections: Sequence[tuple[str | None, str | None]],
    sentences: Sequence[str],
    own: tuple[str | None, str | None],
) -> list[str]:
    """The section kind (section_kinds.KINDS) of each sentence of a chunk, from the heading it is under
    (``sections``, by ``sentence_sections``) or that heading's parent where its own names no kind. ``own``
    is the chunk payload's (section, section_kind); the stored kind stands for its section, an older index
    without one has it computed. A sentence that reads as an author biography, and the sentences that go
    on about that author, are "biography" whatever their heading; reference entries, captions and page
    chrome are read the same way (``sentence_role``)."""
    kinds: list[str] = []
    in_bio, previous, role, label = False, None, None, False
    for (heading, parent), sentence in zip(sections, sentences, strict=True):
        kind = (own[1] or section_kind(heading)) if heading == own[0] else section_kind(heading)
        if kind == "body" and parent:
            kind = section_kind(parent)
        in_bio = (in_bio and heading == previous and bool(_BIO_GOES_ON.match(sentence))) or (
            reading(sentence) == "biography"
        )
        role = sentence_role(sentence, kind, role if heading == previous else None)
        was_label, label = label, is_caption_label(sentence)
        if was_label or label:  # "Table 5." split off its caption: both are the caption
            role = CAPTION if role == kind else role
        previous = heading
        kinds.append("biography" if in_bio else role)
    return kinds


def kept_text(text: str, spans: Sequence[tuple[int, int]], kinds: Sequence[str]) -> str:
    """``text`` without its sentences of an uncited role (thanks, references, biographies, captions,
    chrome): the runs of the other sentences, each as written, one per line; "" when nothing is left."""
    runs: list[list[tuple[int, int]]] = [[]]
    for span, kind in zip(spans, kinds, strict=True):
        if kind in UNCITED:
            runs.append([])
        else:
            runs[-1].append(span)
    runs = [run for run in runs if run]
    return "\n".join(text[run[0][0] : run[-1][1]] for run in runs)


class SectionScorer:
    """How much of a question (its IDF-weighted terms, naming words left out) a heading names."""

    def __init__(self, encoder: Bm25Encoder, terms: set[int], title: str | None) -> None:
        self.encoder = encoder
        naming = set(encoder.encode_query(_NAMING_WORDS).indices)
        if title:
            naming |= set(encoder.encode_query(title).indices)
        self.asked = terms - naming
        self._terms: dict[str, set[int]] = {}

    def fits(
        self,
        sections: Sequence[tuple[str | None, str | None]],
        held: Sequence[set[int]],
        idf: dict[int, float],
    ) -> list[float]:
        """Each sentence's heading fit (its heading and parent, ``sections``), for a sentence that holds a
        term of the question itself (``held``): a heading over words that answer nothing lifts nothing."""
        return [
            self.fit(heading, parent, idf) if found & self.asked else 0.0
            for (heading, parent), found in zip(sections, held, strict=True)
        ]

    def fit(self, heading: str | None, parent: str | None, idf: dict[int, float]) -> float:
        """The share of the asked terms' IDF that ``heading`` and its ``parent`` hold (0..1)."""
        total = sum(idf.get(t, 0.0) for t in self.asked)
        if not total or not heading:
            return 0.0
        named = self._of(heading) | (self._of(parent) if parent else set())
        return sum(idf.get(t, 0.0) for t in self.asked & named) / total

    def _of(self, heading: str) -> set[int]:
        if heading not in self._terms:
            self._terms[heading] = set(self.encoder.encode_document(heading).indices)
        return self._terms[heading]
