"""An Ollama embedding model over HTTP (``POST /api/embed``).

Ollama does not expose its tokenizer, so ``count_tokens``/``token_spans`` use the MiniLM (BERT WordPiece)
tokenizer as an approximation: for English prose it counts within ~10-20% of most models' own tokenizers,
which is why the default ``max_tokens`` leaves headroom below typical embedding contexts.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agent_zot.index.embed import EmbedderError, MiniLMTokenCounter, l2_normalise
from agent_zot.index.store import SparseVector
from agent_zot.ollama_client import OllamaClient

DEFAULT_OLLAMA_URL = "http://127.0.0.1:11434"


class OllamaEmbedder(MiniLMTokenCounter):
    """Embeddings from a local (or remote) Ollama server; ``dim`` is learned from the first response."""

    def __init__(
        self,
        model: str,
        url: str = DEFAULT_OLLAMA_URL,
        *,
        max_tokens: int = 512,
        timeout: float = 120.0,
        tokenizer_dir: Path | None = None,
    ) -> None:
        super().__init__(tokenizer_dir)
        if not model.strip():
            raise EmbedderError("No Ollama model given.", hint="Pass a model name, e.g. 'nomic-embed-text'.")
        self.model = model.strip()
        self.url = url.rstrip("/")
        self.name = f"{self.model}@ollama"
        self.max_tokens = max_tokens
        self.timeout = timeout
        self._dim: int | None = None
        self._ollama = OllamaClient(self.url, self.model, timeout, EmbedderError)

    @property
    def dim(self) -> int:
        """Vector size; asks the server once (with a one-word input) if nothing was embedded yet."""
        if self._dim is None:
            return int(self._request(["dimension probe"]).shape[1])
        return self._dim

    def load(self) -> None:
        self._ollama.client  # noqa: B018 - the property connects lazily; the server loads its model itself

    def _request(self, texts: list[str]) -> np.ndarray:
        return self._parse(self._ollama.embed(texts), len(texts))

    def _parse(self, embeddings: Any, expected: int) -> np.ndarray:
        vectors = np.asarray(embeddings or [], dtype=np.float32)
        if vectors.ndim != 2 or vectors.shape[0] != expected or vectors.shape[1] == 0:
            raise EmbedderError(
                f"Ollama returned {vectors.shape[0] if vectors.ndim else 0} embeddings for {expected} inputs.",
                hint=f"Check that {self.model!r} is an embedding model.",
            )
        self._check_dim(vectors.shape[1])
        return l2_normalise(vectors)

    def _check_dim(self, dim: int) -> None:
        if self._dim is None:
            self._dim = dim
        elif dim != self._dim:
            raise EmbedderError(f"Ollama model {self.model!r} changed dimension from {self._dim} to {dim}.")

    def embed_documents(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self._dim or 0), dtype=np.float32)
        batches = [list(texts[i : i + batch_size]) for i in range(0, len(texts), batch_size)]
        return np.concatenate([self._request(batch) for batch in batches])

    def embed_query(self, text: str) -> np.ndarray:
        return self._request([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)

    def sparse_documents(self, texts: Sequence[str]) -> list[SparseVector] | None:
        return None

    def sparse_query(self, text: str) -> SparseVector | None:
        return None

    def close(self) -> None:
        self._ollama.close()
