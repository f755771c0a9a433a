"""Which of several close papers a question describes: how much of its wording their found passages hold.

A question often names its paper by what the paper did ("in the study that compared linear regression, SVR
and a GA-optimised network on 39 PPG and ECG features with a Finometer reference, how much of each
recording was used for training?"). Chunk by chunk, the best match can belong to a neighbour on the same
method that shares the asked words ("training", "testing"); the describing words are spread over the
described paper's abstract and methods, one or two in each chunk. Taken together, a paper's found chunks
hold the question's words the paper is about; weighted by how rare each word is among all the chunks the
query found (close papers share their field's words: "PPG", "blood pressure"), that share picks it out.

For a question with a clause that names its paper (`sentences.split_question`), and for any other question
whose first papers are a close call (the second's score at least ``CLOSE_CALL`` of the first's: a question
that describes its paper in passing, "what limitation of its reference measurements does the RBM-based proof
of concept for BP from pulse transit time admit?"). A question one paper clearly leads ("how well does GROBID
parse bibliographies?") is answered by the passage that best answers it, wherever it is.
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import numpy as np

from agent_zot.index.passages import ChunkHit
from agent_zot.index.sentence_vectors import SentenceVectors
from agent_zot.index.sentences import asks_a_question, split_question
from agent_zot.index.sparse import Bm25Encoder
from agent_zot.index.store import SearchFilter, VectorStore

# Dev library questions that name their paper (59 of 87): the same three move to the right paper at any
# weight from 1 to 5, a fourth from 3, none moves away; at 10 two right ones are lost. About the middle.
COVERAGE_WEIGHT = 2.0
COVERAGE_PAPERS = 5  # the first papers compared (3 to 10 gave the same answers)
# The question's cosine with each compared paper's own description (its metadata point: title and abstract),
# above the lowest of them: a question naming its paper in other words than its chunks use ("the applied,
# less mathematical learning textbook"). Dev, 318 library questions: right paper first 0.943 -> 0.950 at 0.5
# and 1.0 (0.940 at 2.0); on the 45 written in the reader's own words 0.800 -> 0.867 at 1.0. The question's
# vector here is that of the words naming the paper where it has them (``sentences.naming_phrase``: "the
# neurocritical-care arterial pressure study"): right paper first, dev 219 208 -> 209, the held-out 192
# 176 -> 176, a fresh 48 41 -> 43; the answering sentence shown 195 -> 196, 151 -> 152, 38 -> 38 (at 2.0:
# dev 193).
DESCRIBED_WEIGHT = 1.0
# The question's mean cosine with each compared paper's nearest ``SENTENCES_TAKEN`` sentences (their vectors
# read in their chunks' context, sentence_vectors.py) among its found chunks, above the least resembled one's:
# a question in other words often matches one sentence of its paper better than any whole chunk of a
# neighbour. Dev, 318 library questions: right paper first 0.950 -> 0.959, the answering sentence shown
# 0.852 -> 0.862 (1.0: 0.953 / 0.855; 4.0 loses more than it gains); the 18-PDF questions unchanged.
SENTENCE_LIKENESS_WEIGHT = 2.0
SENTENCES_TAKEN = 2
# A question without a naming clause is weighed only when the first papers are this close. Dev: the four
# library questions it moves to the right paper were at 0.72-0.84; the questions the first paper clearly
# leads (0.55-0.67 on the ones it would have moved away, on both question sets) are left alone.
CLOSE_CALL = 0.7


@dataclass(frozen=True, slots=True)
class Covered:
    """A paper's place after weighing coverage: its key and its new score (in its old score's range)."""

    item_key: str
    score: float


_ENCODER = Bm25Encoder()  # presence of terms only: the BM25 parameters do not matter here


def asks_about_a_paper(query: str, scores: Sequence[float]) -> bool:
    """Whether ``query`` is a question about one paper that coverage should pick among the first papers
    (``scores``, best first): it names its paper in a clause, or it asks a question and the first two
    papers are a close call."""
    if split_question(query)[1]:
        return True
    return (
        len(scores) >= 2 and scores[0] > 0 and scores[1] >= CLOSE_CALL * scores[0] and asks_a_question(query)
    )


def by_coverage(
    ranked: Sequence[tuple[str, float]],
    pools: Mapping[str, Sequence[ChunkHit]],
    question: str,
    encoder: Bm25Encoder = _ENCODER,
    *,
    weight: float = COVERAGE_WEIGHT,
    papers: int = COVERAGE_PAPERS,
    described: Mapping[str, float] | None = None,
    sentences: Mapping[str, float] | None = None,
) -> list[Covered]:
    """The first ``papers`` of ``ranked`` ((item key, score), best first) ordered by their score relative to
    the first plus ``weight`` times the IDF-weighted share of the question's terms that the paper's found
    chunks (``pools``) hold, IDF taken over every found chunk, plus ``DESCRIBED_WEIGHT`` times how much more
    the question resembles the paper's own description than the least resembled one's (``described``: the
    cosines ``described_by`` gives) and ``SENTENCE_LIKENESS_WEIGHT`` times the same for its nearest sentences
    (``sentences``: what ``nearest_sentences`` gives); scores kept in the first paper's range. The rest follow
    unchanged."""
    head, tail = list(ranked[:papers]), list(ranked[papers:])
    asked = set(encoder.encode_query(question).indices)
    if len(head) < 2 or not asked or head[0][1] <= 0:
        return [Covered(key, score) for key, score in ranked]
    held: dict[str, set[int]] = {}
    frequency: Counter[int] = Counter()
    found = 0
    for key, chunks in pools.items():
        for chunk in chunks:
            terms = asked.intersection(encoder.encode_document(chunk.hit.payload.get("text", "")).indices)
            frequency.update(terms)
            found += 1
            held.setdefault(key, set()).update(terms)
    idf = {term: math.log(1 + (found - frequency[term] + 0.5) / (frequency[term] + 0.5)) for term in asked}
    total = sum(idf.values())
    top = head[0][1]
    likeness = _above_lowest(described or {}, [key for key, _ in head], DESCRIBED_WEIGHT)
    for key, value in _above_lowest(
        sentences or {}, [key for key, _ in head], SENTENCE_LIKENESS_WEIGHT
    ).items():
        likeness[key] = likeness.get(key, 0.0) + value

    def combined(key: str, score: float) -> float:
        share = sum(idf[term] for term in held.get(key, ())) / total
        return score / top + weight * share + likeness.get(key, 0.0)

    reordered = sorted(head, key=lambda paper: -combined(*paper))
    # Back in the scores' range (the first paper's score at full coverage and likeness), so what compares
    # papers by score (a close call between the first two) reads them as before.
    full = 1 + weight + max(likeness.values(), default=0.0)
    out = [Covered(key, top * combined(key, score) / full) for key, score in reordered]
    floor = min(c.score for c in out)
    return out + [Covered(key, min(score, floor)) for key, score in tail]


def _above_lowest(values: Mapping[str, float], keys: Sequence[str], weight: float) -> dict[str, float]:
    """``weight`` times how far each of ``keys``' value lies above the lowest of them (a key without one
    counts as the lowest)."""
    known = {key: values[key] for key in keys if key in values}
    lowest = min(known.values(), default=0.0)
    return {key: weight * (value - lowest) for key, value in known.items()}


def nearest_sentences(
    question: np.ndarray | None,
    pools: Mapping[str, Sequence[ChunkHit]],
    stored: Mapping[str, bytes],
    keys: Sequence[str],
    *,
    taken: int = SENTENCES_TAKEN,
) -> dict[str, float]:
    """The mean cosine of the question's vector with the ``taken`` nearest sentences of each paper's found
    chunks (``pools``; ``stored``: the packed sentence vectors by chunk id, IndexState.sentence_vectors), for
    the papers ``keys`` that have any; empty without a vector or with fewer than two papers to tell apart."""
    if question is None or len(keys) < 2:
        return {}
    found: dict[str, float] = {}
    for key in keys:
        cosines = [
            SentenceVectors.unpack(stored[chunk.hit.id]).cosines(question)
            for chunk in pools.get(key, ())
            if chunk.hit.id in stored
        ]
        every = np.concatenate(cosines) if cosines else np.zeros(0, dtype=np.float32)
        if every.size:
            found[key] = float(np.sort(every)[::-1][:taken].mean())
    return found


def described_by(store: VectorStore, question: np.ndarray | None, keys: Sequence[str]) -> dict[str, float]:
    """The cosine of the question's vector (or that of the words naming its paper) with each paper's
    metadata point (its title and abstract), for the papers ``keys`` that have one; empty without a vector
    or with fewer than two papers to tell apart."""
    if question is None or len(keys) < 2:
        return {}
    wanted = SearchFilter(item_keys=tuple(keys), kinds=("metadata",))
    hits = store.search(question, None, limit=2 * len(keys), filter=wanted, payload=("item_key",))
    found: dict[str, float] = {}
    for hit in hits:
        found.setdefault(hit.payload["item_key"], hit.score)
    return found
