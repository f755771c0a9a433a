"""A dense vector for each sentence of a chunk, read in the chunk's context ("late chunking"): the model's
token states of the whole chunk, averaged over each sentence's tokens.

Why: the chunk's own vector finds the paper and the chunk, but inside the chunk only BM25 says which
sentence answers, and a question in the reader's own words ("what kept it off wearables?") shares few
words with its answer ("the computational cost prohibits deployment on embedded devices"). Embedding each
sentence alone loses what it refers to ("This initialization ..."); pooling the chunk's token states per
sentence keeps it, and costs no extra model run: the indexer already computes those states.

Stored once per chunk in the index state (8 bits a dimension, ~0.4 KB a sentence), keyed by each
sentence's character span in the chunk's text, so a sentence split that changes later never gives a
sentence another one's vector: a sentence cut out of a stored one takes its vector, one that crosses
stored sentences gets none.
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from agent_zot.index.embed import EmbedsSentences
from agent_zot.index.sentences import sentence_spans
from agent_zot.ingest.headings import heading_lines

_SCALE = 127.0  # a unit vector's components lie in [-1, 1]: int8 steps of 1/127


def chunk_spans(text: str) -> list[tuple[int, int]]:
    """The sentences of a chunk's text as passages read them (index/chunk_sentences.py)."""
    return sentence_spans(text, heading_lines(text))


def embed_packed(
    embedder: EmbedsSentences, texts: Sequence[str], full_text: Sequence[bool]
) -> tuple[np.ndarray, list[bytes | None]]:
    """The dense vectors of ``texts`` and, in the same model run, the packed sentence vectors of those that
    are full text (``full_text``); None for the others and for a text with no sentence."""
    spans = [chunk_spans(text) if full else [] for text, full in zip(texts, full_text, strict=True)]
    dense, found = embedder.embed_with_sentences(texts, spans)
    packed = [
        SentenceVectors(tuple(span), vectors).pack() if span else None
        for span, vectors in zip(spans, found, strict=True)
    ]
    return dense, packed


def pool_sentences(
    hidden: np.ndarray, offsets: Sequence[tuple[int, int]], spans: Sequence[tuple[int, int]]
) -> np.ndarray:
    """Unit vectors (one row a span) of the token states ``hidden`` (tokens x dim) whose character
    ``offsets`` fall inside each span; a zero row for a span with no token (cut off by the model's
    truncation). Special tokens have empty offsets and belong to no span."""
    out = np.zeros((len(spans), hidden.shape[1]), dtype=np.float32)
    starts = np.array([a for a, _ in offsets], dtype=np.int64)
    ends = np.array([b for _, b in offsets], dtype=np.int64)
    real = ends > starts
    for row, (lo, hi) in enumerate(spans):
        inside = real & (starts >= lo) & (ends <= hi)
        if inside.any():
            mean = hidden[inside].mean(axis=0)
            norm = float(np.linalg.norm(mean))
            if norm > 0:
                out[row] = mean / norm
    return out


@dataclass(frozen=True, slots=True)
class SentenceVectors:
    """One chunk's sentence vectors: ``spans`` (start, end) in its text and a unit vector for each."""

    spans: tuple[tuple[int, int], ...]
    vectors: np.ndarray  # float32, len(spans) x dim

    def pack(self) -> bytes:
        """int32 span count, the spans as int32 pairs, then the vectors as int8."""
        count = np.array([len(self.spans)], dtype=np.int32).tobytes()
        spans = np.array(self.spans, dtype=np.int32).reshape(-1, 2).tobytes()
        values = np.clip(np.rint(self.vectors * _SCALE), -127, 127).astype(np.int8).tobytes()
        return count + spans + values

    @classmethod
    def unpack(cls, data: bytes) -> SentenceVectors:
        count = int(np.frombuffer(data[:4], dtype=np.int32)[0])
        spans_end = 4 + 8 * count
        spans = np.frombuffer(data[4:spans_end], dtype=np.int32).reshape(-1, 2)
        values = np.frombuffer(data[spans_end:], dtype=np.int8).astype(np.float32) / _SCALE
        vectors = values.reshape(count, -1) if count else np.zeros((0, 0), dtype=np.float32)
        return cls(tuple((int(a), int(b)) for a, b in spans), vectors)

    def cosines(self, query: np.ndarray) -> np.ndarray:
        """The cosine of ``query`` (a unit vector) with every stored sentence; empty when there are none or
        they were made by a model of another size."""
        if not self.spans or self.vectors.shape[1] != query.shape[0]:
            return np.zeros(0, dtype=np.float32)
        return self.vectors @ query.astype(np.float32)

    def similarities(self, query: np.ndarray, spans: Sequence[tuple[int, int]]) -> list[float] | None:
        """The cosine of ``query`` (a unit vector) with the sentence at each of ``spans``. A chunk split more
        finely than when it was indexed (Chinese sentences were one paragraph before they were cut at 。)
        gives each sentence the cosine of the stored sentence holding it; None when the stored sentences
        are cut otherwise (a sentence spans two of them)."""
        if not self.spans or self.vectors.shape[1] != query.shape[0]:
            return None
        cosines = [float(v) for v in self.vectors @ query.astype(np.float32)]
        if tuple(spans) == self.spans:
            return cosines
        starts = [start for start, _ in self.spans]
        rows = [bisect_right(starts, a) - 1 for a, _ in spans]
        if any(row < 0 or b > self.spans[row][1] for row, (_, b) in zip(rows, spans, strict=True)):
            return None
        return [cosines[row] for row in rows]
