"""BGE-M3 in process via FlagEmbedding: dense vectors and the model's own lexical weights in one pass.

FlagEmbedding (and torch) are imported in ``_load`` only.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agent_zot.hardware import DevicePreference, torch_device
from agent_zot.index.embed import EmbedderError, TokenizerFile, l2_normalise, offline_hub, read_json
from agent_zot.index.embed_local import ACCELERATOR_BATCH
from agent_zot.index.store import SparseVector


class BgeM3Embedder:
    """BAAI/bge-m3 from a local dir via FlagEmbedding: 1024-d dense vectors plus lexical (sparse) weights.

    Sparse indices are the model's token ids. Dense and sparse come from one forward pass: the sparse
    output of the last ``embed_documents`` call is kept so ``sparse_documents`` on the same texts is free.
    """

    def __init__(
        self,
        model_dir: Path,
        *,
        max_tokens: int | None = None,
        batch_size: int = 8,
        device: DevicePreference = "auto",
    ) -> None:
        self.model_dir = Path(model_dir)
        self.device_preference = device
        self.engine = "torch"  # and its device, once loaded
        if not self.model_dir.is_dir():
            raise EmbedderError(f"BGE-M3 model directory not found: {self.model_dir}")
        config = read_json(self.model_dir / "config.json")
        self.name = f"{self.model_dir.name}@bge-m3"
        self.dim = int(config.get("hidden_size") or 1024)
        # XLM-R reserves two positions (padding offset); bge-m3 itself allows 8192 tokens.
        limit = int(config.get("max_position_embeddings") or 8194) - 2
        self.max_tokens = min(max_tokens or limit, limit)
        self.batch_size = batch_size
        self._tokens = TokenizerFile(self.model_dir / "tokenizer.json")
        self._model: Any = None
        self._lock = threading.Lock()
        self._last: tuple[tuple[str, ...], list[SparseVector]] | None = None

    @property
    def model(self) -> Any:
        with self._lock:
            if self._model is None:
                self._model = self._load()
        return self._model

    def load(self) -> None:
        self.model  # noqa: B018 - the property loads

    def _load(self) -> Any:
        offline_hub()
        try:
            from FlagEmbedding import BGEM3FlagModel
        except ImportError as err:
            raise EmbedderError(
                "FlagEmbedding is not installed: pip install 'agent-zot[bge-m3]'",
                hint="Or choose another embedder (for example 'minilm').",
            ) from err
        device = torch_device(self.device_preference)
        self.engine = f"torch ({device})"
        if device != "cpu":
            self.batch_size = max(self.batch_size, ACCELERATOR_BATCH // 4)  # 8k-token inputs: a quarter
        # fp16 halves a GPU's work; on the CPU it is slower than fp32.
        return BGEM3FlagModel(str(self.model_dir), use_fp16=device == "cuda", devices=device)

    def count_tokens(self, text: str) -> int:
        return self._tokens.count(text)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return self._tokens.spans(text)

    def _encode(self, texts: Sequence[str], batch_size: int) -> tuple[np.ndarray, list[SparseVector]]:
        output = self.model.encode(
            list(texts),
            batch_size=batch_size,
            max_length=self.max_tokens,
            return_dense=True,
            return_sparse=True,
            return_colbert_vecs=False,
        )
        dense = l2_normalise(np.asarray(output["dense_vecs"]).reshape(len(texts), -1))
        sparse = [_lexical_to_sparse(weights) for weights in output["lexical_weights"]]
        self._last = (tuple(texts), sparse)
        return dense, sparse

    def embed_documents(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        return self._encode(texts, min(batch_size, self.batch_size))[0]

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)

    def sparse_documents(self, texts: Sequence[str]) -> list[SparseVector] | None:
        if not texts:
            return []
        if self._last is not None and self._last[0] == tuple(texts):
            return self._last[1]
        return self._encode(texts, self.batch_size)[1]

    def sparse_query(self, text: str) -> SparseVector | None:
        sparse = self.sparse_documents([text])
        return sparse[0] if sparse else None


def _lexical_to_sparse(weights: dict[Any, float]) -> SparseVector:
    # FlagEmbedding keys lexical weights by token id (as str); merge duplicates and keep positive weights.
    merged: dict[int, float] = {}
    for key, value in weights.items():
        index = int(key)
        merged[index] = max(merged.get(index, 0.0), float(value))
    pairs = sorted((i, v) for i, v in merged.items() if v > 0)
    return SparseVector(indices=[i for i, _ in pairs], values=[v for _, v in pairs])
