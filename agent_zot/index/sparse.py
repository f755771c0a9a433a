"""BM25 sparse vectors for the lexical half of hybrid search.

Documents are encoded as BM25 term-frequency weights, ``tf·(k1+1) / (tf + k1·(1 − b + b·len/avg_len))``;
queries as one weight per distinct term. The store multiplies in the IDF (Qdrant's ``Modifier.Idf``), so a
dot product of the two is the BM25 score, with IDF kept current as the collection grows.

The encoder is ``qdrant_edge.Bm25``: Qdrant's own tokenizer, lowercasing, English stopwords and Snowball
stemmer, and term ids that are a fixed hash of the stemmed term, so the same text gets the same indices in
every process and on every machine (the scheme of Qdrant's server-side bm25, so vectors stay portable).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from operator import lt
from typing import TYPE_CHECKING, Any

from agent_zot.index.store import SparseVector
from agent_zot.text import spaced_cjk

if TYPE_CHECKING:
    from qdrant_edge import Bm25

__all__ = ["BM25_B", "BM25_K1", "Bm25Encoder", "SparseVector"]

BM25_K1 = 1.2
BM25_B = 0.75
# Average BM25 length (terms after stopword removal, repeats counted) of 256-token chunks: measured ~105 on
# SciFact abstracts. Only the ratio len/avg_len matters, so a rough figure is fine.
DEFAULT_AVG_LEN = 100.0


class Bm25Encoder:
    """English BM25 term-frequency encoder; the underlying model is built on first use."""

    name = "bm25-qdrant-english"

    def __init__(self, *, k1: float = BM25_K1, b: float = BM25_B, avg_len: float = DEFAULT_AVG_LEN) -> None:
        if k1 < 0 or not 0.0 <= b <= 1.0 or avg_len <= 0:
            raise ValueError(f"Invalid BM25 parameters: k1={k1}, b={b}, avg_len={avg_len}")
        self.k1 = k1
        self.b = b
        self.avg_len = avg_len
        self._model: Bm25 | None = None

    @property
    def model(self) -> Bm25:
        if self._model is None:
            from qdrant_edge import Bm25, Bm25Config

            self._model = Bm25(Bm25Config(k=self.k1, b=self.b, avg_len=self.avg_len, language="english"))
        return self._model

    def encode_document(self, text: str) -> SparseVector:
        """BM25 tf weights of one chunk (stopwords dropped, terms stemmed); empty for text with no terms.
        Chinese and Japanese runs are indexed as character pairs (see `spaced_cjk`)."""
        return _convert(self.model.embed_document(spaced_cjk(text)))

    def encode_documents(self, texts: Sequence[str]) -> list[SparseVector]:
        return [self.encode_document(text) for text in texts]

    def encode_query(self, text: str) -> SparseVector:
        """Weight 1.0 for each distinct query term, so the score is the sum of matched terms' tf·idf."""
        return _convert(self.model.embed_query(spaced_cjk(text)))


def _convert(vector: Any) -> SparseVector:
    # Sorted indices: stores and tests can compare vectors without caring about the encoder's order. The
    # encoder gives them sorted already (checked, not assumed: a sentence's terms are encoded on every
    # search, and sorting them again was a fifth of the encoding's cost).
    indices: list[int] = vector.indices
    values: list[float] = vector.values
    if not all(map(lt, indices, islice(indices, 1, None))):
        pairs = sorted(zip(indices, values, strict=True))
        indices, values = [i for i, _ in pairs], [v for _, v in pairs]
    return SparseVector(indices=indices, values=values)
