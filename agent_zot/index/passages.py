"""The passage that answers: sentence windows scored inside a paper's candidate chunks.

Chunks (~256 tokens) are what the index embeds and what finds the paper; the answer to a specific question
is usually one or two sentences of one of them. For each returned paper, its candidate chunks (the paper's
own best chunks for the query, ranked by both channels) are split into sentences and every sentence is
scored: BM25 against the question (its words also matching the paper's abbreviation of what they spell
out: "pulse transit time", "PTT") with IDF taken from those candidate sentences, squared (a word that is
everywhere in this paper, like its system's name, says little about where in the paper the answer is), plus
the rank of its chunk (which carries the dense, paraphrase-tolerant signal), plus a bonus for sentences holding a
number when the question asks for a quantity, plus a bonus for a defining sentence ("is termed", "we
define") when the question asks what something is, plus how much of the question its section's heading
names when the sentence holds a term of the question itself (sections.py), plus how much of it is prose
(running titles, table cells and affiliations read low), plus, where the index keeps sentence vectors, the
question's cosine with the sentence read in its chunk's context (sentence_vectors.py: a question in other words
than its answer's). The best sentences become windows (``WindowShape``): the sentence and its neighbours, and
two chosen windows of a chunk that touch are shown as one passage, so an answer told over several sentences is
read whole, however many chosen windows it takes (windows.py).

The weights were chosen on the dev questions of scripts/bench_passages.py (the test third set aside).
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

import numpy as np

from agent_zot.index.chunk_sentences import ChunkSentences, SentenceMemo
from agent_zot.index.page_texts import PageTexts
from agent_zot.index.rerank import Reranker
from agent_zot.index.resources import IndexResources
from agent_zot.index.sections import (
    KindHint,
    SectionScorer,
    kept_text,
)
from agent_zot.index.sentence_vectors import SentenceVectors
from agent_zot.index.sentences import (
    SentenceScorer,
)
from agent_zot.index.shown import MID_SENTENCE, Shown
from agent_zot.index.store import Hit
from agent_zot.index.title_block import without_title_block
from agent_zot.index.windows import ANNOUNCING, Chosen, Window, in_reading_order, join, joinable
from agent_zot.index.windows import JOINED_CHARS as JOINED_CHARS
from agent_zot.index.windows import JUDGING as JUDGING
from agent_zot.index.windows import READING as READING
from agent_zot.index.windows import WINDOW_CHARS as WINDOW_CHARS
from agent_zot.index.windows import WindowShape as WindowShape
from agent_zot.index.windows import windows as windows
from agent_zot.ingest.headings import section_name
from agent_zot.ingest.section_kinds import payload_kind
from agent_zot.ingest.sentence_roles import UNCITED
from agent_zot.text import spelled_out_acronyms, with_numerals

SENTENCE_WEIGHT = 1.0  # the sentence's BM25, normalised by the best sentence of the paper's candidates
CHUNK_WEIGHT = 0.6  # its chunk's rank within the paper: (k + 1) / (k + rank)
NUMBER_BONUS = 0.6  # a sentence with a digit, when the question asks how many / how much / what share
DEFINITION_BONUS = 0.6  # a defining sentence ("is termed", "we define"), for what-is questions
PROSE_WEIGHT = 0.3  # the share of the sentence that reads as words (1.0 for prose)
# The share of the question its heading names, for a sentence that holds a term of it. On the passage
# benchmark's dev questions 1.0 and 1.5 both beat 0 (first passage 0.557 -> 0.570, targeted@1 0.519 -> 0.532).
HEADING_WEIGHT = 1.5
# The cosine of the question with the sentence read in its chunk's context (sentence_vectors.py), for an
# index that stores them. On dev library questions written in the reader's own words (45) the answering
# sentence reached the default answer 0.600 -> 0.711 at 2.0 (1.0: 0.667, 3.0 worse on the older 273);
# 18-PDF passage questions 0.886 -> 0.899.
DENSE_WEIGHT = 2.0
# Each question word's IDF among the paper's candidate sentences is squared for a passage to read: a sentence
# holding the question's one or two words rare in this paper ("linear kernel") outranks one holding three
# that are everywhere in it ("heartbeats", "arm", "ECG"). Library questions, answering sentence in the
# default answer: dev 192 -> 195 of 219 (1.5: 192; 2.5 and 3: 194), the held-out third 108 -> 112 of 144
# (none lost); 18-PDF passage questions dev 79: the same 0.911 (first passage 0.544 -> 0.519, targeted
# top 3 0.785 -> 0.823).
RARITY = 2.0
RERANK_WINDOWS = 12  # candidate windows per paper a configured cross-encoder re-scores
_PRIOR_K = 10

_QUANTITY_QUESTION = re.compile(
    r"\b(?:how\s+(?:many|much|large|long|big|fast|often|high|low|small|far|old)"
    r"|what\s+(?:share|percentage|percent|fraction|proportion|number|accuracy|score|rate|size|value|range)"
    r"|\d)",
    re.IGNORECASE,
)
_DIGIT = re.compile(r"\d")
_DEFINITION_QUESTION = re.compile(
    r"\b(?:what\s+(?:is|are)\s+(?:a|an|the)?\s*[\w-]+\s*\??$|what\s+(?:is|are)\s+meant|mean(?:s|t)?\s+by|defin\w*"
    r"|what\s+(?:term|counts\s+as|kind\s+of)|distinguish\w*|what\s+(?:is|are)\s+(?:a|an)\b)",
    re.IGNORECASE,
)
_DEFINING = re.compile(
    r"\b(?:(?:is|are)\s+(?:termed|called|defined|known\s+as|referred\s+to)|refer(?:red)?\s+to\s+as"
    r"|we\s+(?:define|call|term|denote)|means?\s+that|meaning\s+that|i\.e\.|that\s+is,)",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Passage:
    text: str
    kind: str  # "chunk" (full text) or "metadata" (title, authors, abstract)
    attachment_key: str | None
    page_start: int | None
    page_end: int | None
    section: str | None
    score: float
    ocr: bool = False  # its text was read by OCR from a scanned page (may hold misread words)
    paragraph: int | None = None  # a web page's passage: its paragraph in its section (its heading)
    heading_fit: float = 0.0  # how much of the question its section's heading names (0..1; not shown)
    section_kind: str = "body"  # its section's role (section_kinds.KINDS; not shown)

    @property
    def pages(self) -> str:
        if self.paragraph is not None:
            return f"¶ {self.paragraph}"  # the section's heading follows it where it is shown
        if self.page_start is None:
            return ""
        if self.page_end in (None, self.page_start):
            return f"p. {self.page_start}"
        return f"pp. {self.page_start}-{self.page_end}"

    def to_dict(self) -> dict[str, Any]:
        return (
            {
                "text": self.text,
                "kind": self.kind,
                "attachment_key": self.attachment_key,
                "page_start": self.page_start,
                "page_end": self.page_end,
                "section": self.section,
                "score": round(self.score, 4),
            }
            | ({"ocr": True} if self.ocr else {})
            | ({"paragraph": self.paragraph} if self.paragraph else {})
        )


def _announcing(text: str, spans: Sequence[tuple[int, int]]) -> frozenset[int]:
    """The sentences of a chunk that announce what follows them (``windows.ANNOUNCING``), and a label
    standing between such a sentence and what it announces ("… may be formalized as follows. | Theorem 3. |
    …"): a window to read that ends on one goes on."""
    found: set[int] = set()
    for i, (start, end) in enumerate(spans):
        # its last words only: a search over every sentence of every candidate chunk is on the hot path
        if ANNOUNCING.search(text[max(start, end - 16) : end]) or (
            i - 1 in found and end - start <= _LABEL_CHARS
        ):
            found.add(i)
    return frozenset(found)


_LABEL_CHARS = 25  # "Theorem 3.", "2.4.1.", "Algorithm 1:" between an announcement and what it announces


@dataclass(slots=True)
class ChunkHit:
    hit: Hit
    score: float
    channels: set[str]


def passage_of(hit: Hit, score: float) -> Passage:
    payload = hit.payload
    return Passage(
        text=payload.get("text", ""),
        kind=payload.get("kind", "chunk"),
        attachment_key=payload.get("attachment_key"),
        page_start=payload.get("page_start"),
        page_end=payload.get("page_end"),
        section=section_name(payload.get("section")),
        score=score,
        ocr=bool(payload.get("ocr", False)),
        paragraph=payload.get("paragraph"),
        section_kind="abstract" if payload.get("kind") == "metadata" else payload_kind(payload),
    )


DETAILS = ("sentences", "full")


class PassagePicker:
    """Chooses one paper's passages for one query from its candidate chunks (best first)."""

    def __init__(
        self,
        resources: IndexResources,
        query: str,
        *,
        detail: str,
        reranker: Reranker | None = None,
        shape: WindowShape = READING,
        hint: KindHint | None = None,
        memo: SentenceMemo | None = None,
        query_vector: np.ndarray | None = None,
    ) -> None:
        self.resources, self.query, self.detail, self.reranker = resources, query, detail, reranker
        self.query_vector = query_vector  # the question's dense vector: sentences are scored by it too
        self.shape, self.hint = shape, hint
        # shared when a request's searches read the same chunks (a claim check's variants)
        kept = resources.read_chunks if resources is not None else None
        self.memo = memo if memo is not None else SentenceMemo(shared=False, kept=kept)
        # A passage to read weighs the question's words by the square of their rarity among the candidates
        # (RARITY); a claim check's passages to judge keep plain BM25, as they keep their tuned scores.
        # "two seconds" in the question, "2 s" in the paper: for a passage to read, a spelled-out number
        # matches its digits too (dev library questions 194 -> 196 of 219, held-out 228 -> 229 of 288, none
        # lost; the same in the query that finds the papers: dev 195). Not for a claim to judge: its
        # sentence's share of the claim's words would count digits its own spelled-out words stand for.
        self.to_read = shape == READING
        self.scorer = self._scorer(query)
        self.quantity = bool(_QUANTITY_QUESTION.search(query))
        self.definition = bool(_DEFINITION_QUESTION.search(query))
        self.pages = PageTexts(resources)

    def pick(self, pool: Sequence[ChunkHit], count: int) -> list[Passage]:
        """Up to ``count`` passages from ``pool``, the paper's candidate chunks in rank order; no sentence
        appears in two passages."""
        return self.pick_tiers(pool, (count,))[0]

    def pick_tiers(self, pool: Sequence[ChunkHit], counts: Sequence[int]) -> list[list[Passage]]:
        """What `pick` gives for each of ``counts`` (ascending), from one choice: a deeper tier's later
        windows join or follow the earlier ones' passages, so it is not the shallower tier plus more."""
        if not counts or counts[-1] <= 0:
            return [[] for _ in counts]
        unique: dict[str, ChunkHit] = {}
        for chunk in pool:
            unique.setdefault(chunk.hit.id, chunk)
        # The item's metadata record (title, abstract) only stands in for a paper without full text.
        chunks = [c for c in unique.values() if c.hit.payload.get("kind") != "metadata"] or list(
            unique.values()
        )
        if not chunks:
            return [[] for _ in counts]
        if self.detail == "full":  # whole chunks (less thanks, references, bios), in retrieval's order
            return [self._whole(chunks, count) for count in counts]
        read = [self.memo.of(c.hit) for c in chunks]
        texts = [r.text for r in read]
        scorer = self.scorer
        if self.to_read:
            # The paper's own abbreviations of what the question spells out ("pulse-transit-time models", the
            # paper's "PTT models") are words of the question too. On the dev questions' own papers: the
            # answering sentence rose for 11 and fell for 6 (mean reciprocal rank 186.9 -> 187.8 of 315).
            named = spelled_out_acronyms(self.query, [c.hit.payload.get("text", "") for c in unique.values()])
            if named:
                scorer = self._scorer(" ".join([self.query, *named]))
        spans = [r.spans for r in read]
        headings = [r.headings for r in read]
        sections = [r.sections for r in read]
        kinds = [r.kinds for r in read]
        # A sentence of thanks, a reference, a biography, a caption or page chrome is passed over as a heading
        # is: never a passage (but the thanks, when the question asks who funded or is thanked).
        uncited = UNCITED - self.hint.admits if self.hint else UNCITED
        headings = [
            heads | {i for i, kind in enumerate(found) if kind in uncited}
            for heads, found in zip(headings, kinds, strict=True)
        ]
        scores, fits = self._sentence_scores(read, chunks[0].hit.payload.get("title"), scorer)
        if self.query_vector is not None and self.resources is not None:
            scores = self._with_dense(scores, read, [c.hit.id for c in chunks])
        candidates: list[tuple[int, Window]] = []
        for n, (found, values) in enumerate(zip(spans, scores, strict=True)):
            candidates += [
                (n, w) for w in windows(found, values, self.shape, headings[n], _announcing(texts[n], found))
            ]
        # Scores within 1e-6 are a tie, broken by position: embeddings differ in their last digits with the
        # batch they were computed in, and an answer should not change with that.
        candidates.sort(key=lambda c: (-round(c[1].score, 6), c[0], c[1].peak))
        if self.reranker is not None:
            candidates = self._reranked(self.reranker, candidates, texts, spans)
        sentences = [
            [" ".join(text[a:b].split()) for a, b in found] for text, found in zip(texts, spans, strict=True)
        ]
        chosen: list[Chosen] = []
        tiers: dict[int, list[Chosen]] = {}
        used = Shown()
        opened: set[int] = set()
        for n, window in candidates:
            keys = sentences[n]
            if window.first == 0 and n not in opened:
                # A chunk cut inside a sentence is shown with that sentence's start (``_passage``): the whole
                # sentence is what it shows, and what another chunk that holds it whole must not show again.
                opened.add(n)
                if keys and MID_SENTENCE.match(keys[0]):
                    keys[0] = " ".join(f"{self.pages.cut_start(chunks[n].hit, keys[0])} {keys[0]}".split())
            if keys[window.peak] in used or window.peak in headings[n]:  # a heading alone answers nothing
                continue
            lo, hi = window.first, window.last
            while lo < window.peak and keys[lo] in used:  # a neighbour another passage shows is left out
                lo += 1
            while hi > window.peak and keys[hi] in used:
                hi -= 1
            near = joinable(chosen, n, lo, hi, spans[n], headings[n]) if self.shape.join else None
            if near is not None:
                grown = join(near, lo, hi)
                used.update(keys[grown.first : grown.last + 1])
                continue
            used.update(keys[lo : hi + 1])
            chosen.append(Chosen(n, lo, hi, window.score, window.peak))
            if len(chosen) in counts:  # a tier's choice as it stands: later joins grow copies of it
                tiers[len(chosen)] = [replace(c) for c in chosen]
            if len(chosen) == counts[-1]:
                break
        return [
            self._passages(tiers.get(count, chosen), chunks, texts, spans, sentences, sections, kinds, fits)
            if count > 0
            else []
            for count in counts
        ]

    def _passages(
        self,
        chosen: list[Chosen],
        chunks: list[ChunkHit],
        texts: list[str],
        spans: list[list[tuple[int, int]]],
        sentences: list[list[str]],
        sections: list[list[tuple[str | None, str | None]]],
        kinds: list[list[str]],
        fits: list[list[float]],
    ) -> list[Passage]:
        """The chosen windows as passages, in reading order."""
        passages = []
        before = Shown()  # what the passages before this one show (an answer cut short keeps a prefix)
        for c in in_reading_order(chosen):
            keys, first, last = sentences[c.chunk], c.first, c.last
            # A neighbour a passage before this one shows (the sentence it took from before its chunk's cut)
            # is left out here.
            while first < c.peak and keys[first] in before:
                first += 1
            while last > c.peak and keys[last] in before:
                last -= 1
            # A window to read (not one to judge alone) opening its chunk with room for a neighbour takes the
            # sentence before the chunk's cut (the index's cut, not the author's: "We use X." | "X gave 3.").
            passage = self._passage(
                chunks[c.chunk].hit,
                texts[c.chunk][spans[c.chunk][first][0] : spans[c.chunk][last][1]],
                c.score,
                before_cut=self.shape.join and first == 0 and last - first + 1 < self.shape.sentences,
                shown=before,
            )
            before.update(keys[first : last + 1])
            # Cited by the heading its words are under, which may be one halfway down the chunk.
            passage.section = sections[c.chunk][first][0] or passage.section
            passage.heading_fit = fits[c.chunk][c.peak]
            passage.section_kind = kinds[c.chunk][first]
            passages.append(passage)
        return passages

    def _whole(self, chunks: list[ChunkHit], count: int) -> list[Passage]:
        passages: list[Passage] = []
        for c in chunks:
            read = self.memo.of(c.hit)
            text, found, kind = read.text, read.spans, read.kinds
            kept = kept_text(text, found, kind) if found else text
            if kept and len(passages) < count:
                passage = self._passage(c.hit, kept, c.score)
                passage.section_kind = next((k for k in kind if k not in UNCITED), passage.section_kind)
                passages.append(passage)
        return passages

    def _reranked(
        self,
        reranker: Reranker,
        candidates: list[tuple[int, Window]],
        texts: list[str],
        spans: list[list[tuple[int, int]]],
    ) -> list[tuple[int, Window]]:
        """The best ``RERANK_WINDOWS`` candidates re-scored by the cross-encoder, ahead of the rest."""
        head, tail = candidates[:RERANK_WINDOWS], candidates[RERANK_WINDOWS:]
        shown = [texts[n][spans[n][w.first][0] : spans[n][w.last][1]] for n, w in head]
        scores = reranker.score(self.query, shown)
        head = [(n, replace(w, score=s)) for (n, w), s in zip(head, scores, strict=True)]
        head.sort(key=lambda c: -c[1].score)
        return head + tail

    def _scorer(self, query: str) -> SentenceScorer:
        return SentenceScorer(
            with_numerals(query) if self.to_read else query, rarity=RARITY if self.to_read else 1.0
        )

    def _sentence_scores(
        self, read: list[ChunkSentences], title: str | None, scorer: SentenceScorer
    ) -> tuple[list[list[float]], list[list[float]]]:
        """Each sentence's score and its heading's fit to the question, per chunk (see the module's
        docstring for the parts)."""
        flat = [sentence for r in read for sentence in r.sentences()]
        terms = [vector for r in read for vector in r.terms(scorer.encoder)]
        lexical, held, idf = scorer.matches(flat, terms)
        top = max(lexical, default=0.0) or 1.0
        fits = SectionScorer(scorer.encoder, scorer.terms, title).fits(
            [s for r in read for s in r.sections], held, idf
        )
        spans = [r.spans for r in read]
        values = iter(
            SENTENCE_WEIGHT * score / top
            + HEADING_WEIGHT * fit
            + (NUMBER_BONUS if self.quantity and _DIGIT.search(sentence) else 0.0)
            + (DEFINITION_BONUS if self.definition and _DEFINING.search(sentence) else 0.0)
            + PROSE_WEIGHT * prose
            + (self.hint.bonus(sentence, kind) if self.hint else 0.0)
            for sentence, score, fit, kind, prose in zip(
                flat,
                lexical,
                fits,
                itertools.chain.from_iterable(r.kinds for r in read),
                itertools.chain.from_iterable(r.prose() for r in read),
                strict=True,
            )
        )
        scores = [
            [next(values) + CHUNK_WEIGHT * (_PRIOR_K + 1) / (_PRIOR_K + rank) for _ in found]
            for rank, found in enumerate(spans, 1)
        ]
        counts = itertools.accumulate((len(found) for found in spans), initial=0)
        return scores, [fits[lo:hi] for lo, hi in itertools.pairwise(counts)]

    def _with_dense(
        self, scores: list[list[float]], read: list[ChunkSentences], ids: list[str]
    ) -> list[list[float]]:
        """``scores`` plus each sentence's dense similarity to the question where the index stores sentence
        vectors; a chunk without them (indexed before they were kept, or by a remote embedder) gets its
        paper's mean, so it is neither favoured nor passed over for it."""
        assert self.query_vector is not None
        stored = self.resources.state.sentence_vectors(ids)
        sims: list[list[float] | None] = []
        for point, chunk in zip(ids, read, strict=True):
            data = stored.get(point)
            sims.append(
                SentenceVectors.unpack(data).similarities(self.query_vector, chunk.spans) if data else None
            )
        known = [value for found in sims if found is not None for value in found]
        if not known:
            return scores
        mean = sum(known) / len(known)
        return [
            [score + DENSE_WEIGHT * (found[i] if found is not None else mean) for i, score in enumerate(row)]
            for row, found in zip(scores, sims, strict=True)
        ]

    def _passage(
        self, hit: Hit, text: str, score: float, before_cut: bool = False, shown: Shown | None = None
    ) -> Passage:
        """The passage of ``text``, a window of ``hit``'s chunk; ``before_cut``: it also takes the whole
        sentence before the chunk's start (the window opens its chunk and has room for a neighbour), unless
        a passage shown before it shows it (``shown``, which then records it)."""
        payload = hit.payload
        first, last, key = payload.get("page_start"), payload.get("page_end"), payload.get("attachment_key")
        taken = ""
        if MID_SENTENCE.match(text):
            start = self.pages.cut_start(hit, text)
            if len(start) + len(text) <= self.shape.chars * 5 // 4:  # never at the cost of the window's end
                taken = start
        elif first is not None and key and before_cut:
            start = self.pages.sentence_start(key, first, text, payload.get("paragraph") is None)
            whole = start.rstrip().endswith((".", "!", "?"))  # a sentence, not a heading run into it
            again = shown is not None and start in shown  # a passage before it shows it
            if whole and not again and len(start) + len(text) <= self.shape.chars:
                taken = start
                if shown is not None:
                    shown.update([start])
        if taken and first is not None and key:
            text = taken + text
            if " ".join(taken.split()[:6]) not in self.pages.texts(key).get(first, ""):
                first -= 1  # the words taken in begin on the page before: cited from there
        if first is not None and last not in (None, first) and key:
            first, last = self.pages.pages_of(key, text, first, last)
        passage = passage_of(hit, score)
        passage.text, passage.page_start, passage.page_end = text, first, last
        if passage.paragraph is not None and first is not None and key:
            passage.paragraph = self.pages.paragraph_of(key, first, text) or passage.paragraph
        passage.text = without_title_block(text, payload.get("title"), payload.get("creators") or ())
        return passage
