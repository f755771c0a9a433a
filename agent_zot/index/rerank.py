"""An optional cross-encoder reranker for search results.

A cross-encoder reads the query and a passage together and returns one relevance score, which orders the
top fused candidates better than the embedding similarity that found them. No cross-encoder ships on PyPI,
so reranking is off unless ``reranker_model`` points at a local model folder (for example a download of
``cross-encoder/ms-marco-MiniLM-L6-v2`` or ``BAAI/bge-reranker-base``); nothing is ever downloaded.

Use from search::

    reranker = make_reranker(settings)          # None when reranking is off; cached per folder
    if reranker is not None:
        top = candidates[: settings.rerank_candidates]
        scores = reranker.score(query, [c.text for c in top])   # one float per passage, same order
        top = [c for _, c in sorted(zip(scores, top), key=lambda p: -p[0])]

Scores are raw logits (higher = more relevant): comparable between passages of one query, not across
models and not calibrated as probabilities. The model is loaded on the first ``load()``/``score()`` call
(torch and sentence-transformers are imported only then), so constructing a reranker is cheap and a bad
folder is reported right away with a message that says how to fix it.
"""

from __future__ import annotations

import functools
import json
import math
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol

from agent_zot.errors import AgentZotError
from agent_zot.index.embed import offline_hub

if TYPE_CHECKING:
    from agent_zot.config import Settings

_SETTING_HINT = "Set reranker_model (AGENT_ZOT_RERANKER_MODEL) to a local cross-encoder folder, or unset it."
# Any one of these means the folder has its tokenizer; without them transformers quietly builds an empty
# vocabulary that maps every word to [UNK], and scores become meaningless.
_TOKENIZER_FILES = ("tokenizer.json", "vocab.txt", "sentencepiece.bpe.model", "spiece.model", "vocab.json")
# Tokenizers without a real limit report a huge sentinel as model_max_length; such values are not limits.
_NO_LIMIT = 1_000_000


class RerankerError(AgentZotError):
    """The configured reranker cannot be loaded or used; the message says how to fix it."""


class Reranker(Protocol):
    """What search needs from a reranker."""

    name: str

    def load(self) -> None:
        """Load the model now (idempotent, thread-safe); otherwise the first ``score`` loads it."""
        ...

    def score(self, query: str, passages: Sequence[str], *, batch_size: int = 16) -> list[float]:
        """One relevance score per passage, in the passages' order; higher is more relevant."""
        ...


def read_model_config(
    model_dir: Path, *, kind: str, error: type[AgentZotError], hint: str = _SETTING_HINT
) -> dict[str, Any]:
    """A model folder's config.json as a dict; ``error`` (with ``hint``) says what is wrong, naming the
    folder as a ``kind`` model folder."""
    path = model_dir / "config.json"
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError as err:
        raise error(f"{model_dir} is not {kind} model folder: it has no config.json.", hint=hint) from err
    except (OSError, ValueError) as err:
        raise error(f"Cannot read {path}: {err}", hint=hint) from err
    if not isinstance(data, dict):
        raise error(f"{path} is not a model config (expected a JSON object).", hint=hint)
    return data


def _label_count(config: dict[str, Any]) -> int:
    labels = config.get("id2label")
    if isinstance(labels, dict) and labels:
        return len(labels)
    return int(config.get("num_labels") or 2)  # transformers' default when a config names none


def check_cross_encoder_dir(model_dir: Path) -> dict[str, Any]:
    """The folder's config.json if it holds a one-score sequence-classification model, else RerankerError.

    Embedding models (no classification head) would load anyway with a randomly initialised head and give
    meaningless scores, so they are refused here rather than silently used.
    """
    if not model_dir.is_dir():
        raise RerankerError(f"Reranker model folder not found: {model_dir}.", hint=_SETTING_HINT)
    config = read_model_config(model_dir, kind="a cross-encoder", error=RerankerError)
    architectures = [str(a) for a in config.get("architectures") or []]
    if not any(a.endswith("ForSequenceClassification") for a in architectures):
        found = ", ".join(architectures) or "none listed"
        raise RerankerError(
            f"{model_dir} is not a cross-encoder: its model has no sequence-classification head "
            f"(architectures: {found}). An embedding model cannot rerank.",
            hint="Point reranker_model at a cross-encoder such as ms-marco-MiniLM-L6-v2 or bge-reranker-base.",
        )
    labels = _label_count(config)
    if labels != 1:
        raise RerankerError(
            f"{model_dir} is a classifier with {labels} labels, not a relevance cross-encoder (one score).",
            hint="Use a reranking cross-encoder (one output label), not an NLI or sentiment classifier.",
        )
    if not any((model_dir / name).is_file() for name in _TOKENIZER_FILES):
        raise RerankerError(
            f"{model_dir} has no tokenizer files (looked for {', '.join(_TOKENIZER_FILES)}).",
            hint="Copy the model's complete folder, tokenizer included. " + _SETTING_HINT,
        )
    return config


def token_limit(model_dir: Path, config: dict[str, Any], wanted: int) -> int:
    """``wanted`` capped by what the model can take, so long passages are truncated instead of crashing."""
    limits = [wanted]
    positions = config.get("max_position_embeddings")
    if isinstance(positions, int) and positions > 0:
        # RoBERTa-style models reserve padding_idx + 1 positions.
        offset = (
            (config.get("pad_token_id") or 0) + 1
            if config.get("model_type") in {"roberta", "xlm-roberta"}
            else 0
        )
        limits.append(positions - offset)
    try:
        tokenizer_config = json.loads((model_dir / "tokenizer_config.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        tokenizer_config = {}
    length = tokenizer_config.get("model_max_length") if isinstance(tokenizer_config, dict) else None
    if isinstance(length, int | float) and 0 < length < _NO_LIMIT:
        limits.append(int(length))
    return max(8, min(limits))


class CrossEncoderReranker:
    """A local cross-encoder folder scored with sentence-transformers' ``CrossEncoder`` on CPU."""

    def __init__(self, model_dir: Path, *, max_tokens: int = 512, threads: int | None = None) -> None:
        """Checks the folder now (cheap); loads the model on first use.

        ``max_tokens`` caps query + passage tokens (capped again by the model's own limit); ``threads`` sets
        torch's CPU threads at load (None leaves torch's setting, shared with the embedder, alone).
        """
        self.model_dir = Path(model_dir).expanduser()
        config = check_cross_encoder_dir(self.model_dir)
        self.name = f"{self.model_dir.name}@cross-encoder"
        self.max_tokens = token_limit(self.model_dir, config, max_tokens)
        self.threads = threads
        self._model: Any = None
        self._load_lock = threading.Lock()
        # Fast tokenizers raise "Already borrowed" when two threads use one at once.
        self._score_lock = threading.Lock()

    def load(self) -> None:
        with self._load_lock:
            if self._model is None:
                self._model = self._load()

    def _load(self) -> Any:
        offline_hub()
        import torch
        from sentence_transformers import CrossEncoder
        from transformers.utils import logging as hf_logging

        hf_logging.disable_progress_bar()  # progress bars on an MCP server's stderr are noise
        if self.threads is not None:
            torch.set_num_threads(max(1, self.threads))
        try:
            model = CrossEncoder(
                str(self.model_dir),
                device="cpu",
                local_files_only=True,
                max_length=self.max_tokens,
                activation_fn=torch.nn.Identity(),  # raw logits: a sigmoid would tie saturated scores
            )
        except (OSError, ValueError, RuntimeError, KeyError) as err:
            raise RerankerError(
                f"Cannot load the cross-encoder in {self.model_dir}: {err}",
                hint="Check the folder holds the model weights and tokenizer files. " + _SETTING_HINT,
            ) from err
        model.eval()
        return model

    def score(self, query: str, passages: Sequence[str], *, batch_size: int = 16) -> list[float]:
        if batch_size < 1:
            raise RerankerError(f"batch_size must be at least 1, got {batch_size}.")
        if not passages:
            return []
        self.load()
        pairs = [(query, passage) for passage in passages]
        with self._score_lock:
            try:
                scores = self._model.predict(
                    pairs, batch_size=batch_size, show_progress_bar=False, convert_to_numpy=True
                )
            except (RuntimeError, ValueError, IndexError) as err:  # torch shape/index errors
                raise RerankerError(
                    f"The cross-encoder in {self.model_dir} failed to score: {err}",
                    hint="Its files may not match each other (tokenizer vs. model). " + _SETTING_HINT,
                ) from err
        values = [float(s) for s in scores.reshape(len(pairs))]
        if not all(math.isfinite(v) for v in values):
            raise RerankerError(f"The cross-encoder in {self.model_dir} returned non-finite scores.")
        return values


@functools.lru_cache(maxsize=4)
def _cached_reranker(model_dir: Path) -> CrossEncoderReranker:
    # One loaded model per folder for the whole process: search may call make_reranker per query.
    return CrossEncoderReranker(model_dir)


def make_reranker(settings: Settings) -> Reranker | None:
    """The configured reranker (shared per folder, loaded lazily), or None when reranking is off."""
    if settings.reranker_model is None:
        return None
    return _cached_reranker(Path(settings.reranker_model).expanduser().resolve())


def rerank_status(settings: Settings) -> tuple[bool, str]:
    """(on, why) for ``agent-zot doctor``: not configured, folder missing or not a cross-encoder, or loads."""
    if settings.reranker_model is None:
        return False, (
            "off: reranker_model is not set (no cross-encoder ships on PyPI; point it at a local one to rerank)"
        )
    try:
        reranker = _cached_reranker(Path(settings.reranker_model).expanduser().resolve())
        reranker.score("probe", ["probe passage"])  # loads, and proves scoring works end to end
    except RerankerError as err:
        return False, f"off: {err}"
    return True, f"on: {reranker.name} loads; reranks the top {settings.rerank_candidates} candidates"
