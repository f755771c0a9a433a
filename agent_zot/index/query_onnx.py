"""A copy of a sentence-transformers model as an fp32 ONNX file, so a new server process embeds its first
query with onnxruntime (about 0.5 s from a cold start) instead of importing torch and sentence-transformers
(5-10 s), and update-db embeds documents without torch: small updates always, a first build where the
export is about as fast as torch on this CPU (index/engine_probe.py; on some CPUs it is faster, on others
torch is).

The file is exported once, by a process that has the torch model loaded (update-db's engine probe, or a
process that embeds with torch), and checked against it before it is used: same weights, same pooling,
vectors equal to the torch ones (cosine 1.0 on the default model), so queries and documents embedded
either way find the same passages.
"""

from __future__ import annotations

import hashlib
import logging
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

from agent_zot.index.space import MARGIN, free_bytes

log = logging.getLogger(__name__)

FILE = "model.onnx"
MIN_COSINE = 0.9999  # below this the export is discarded and queries use torch
PROBES = (
    "How are citation links resolved?",
    "a",
    "Long noun phrases, rare chemical names and citation conventions set scientific text apart. " * 12,
)


def export_folder(cache: Path, model_dir: Path) -> Path:
    """Where the export of ``model_dir`` lives: keyed by the model's files, so a changed model gets a new
    export and an old one is never used for it."""
    digest = hashlib.sha256(str(model_dir.resolve()).encode())
    for path in sorted(model_dir.glob("*.safetensors")) + sorted(model_dir.glob("*.bin")):
        stat = path.stat()
        digest.update(f"{path.name}:{stat.st_size}:{stat.st_mtime_ns}".encode())
    return cache / f"{model_dir.name}-{digest.hexdigest()[:12]}"


def export_query_model(
    model: Any, model_dir: Path, target: Path, read_back: Callable[[Path, int], Any]
) -> bool:
    """Export the transformer of a loaded ``SentenceTransformer`` (from ``model_dir``) to ``target`` and keep
    it only when its pooled vectors match the model's; False (and a log line) when it could not be made.
    ``read_back(path, max_tokens)`` embeds with the exported file (an ONNX embedder over it, with the
    model's tokenizer)."""

    try:
        import torch
    except ImportError:
        return False
    # About the size of the weights; a cache, so it is skipped rather than fill the disk (index/space.py)
    weights = sum(p.stat().st_size for p in (*model_dir.glob("*.safetensors"), *model_dir.glob("*.bin")))
    free = free_bytes(target.parent)
    if free < weights + MARGIN:
        log.warning(
            "No ONNX query model (queries will load torch): exporting it needs about %.0f MB free, the disk "
            "has %.0f MB",
            (weights + MARGIN) / 1e6,
            free / 1e6,
        )
        return False
    encoder = model[0].auto_model

    class LastHidden(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = encoder

        def forward(self, input_ids: Any, attention_mask: Any, token_type_ids: Any) -> Any:
            # Keyword arguments: the positional order of BertModel.forward changes between versions.
            out = self.encoder(
                input_ids=input_ids, attention_mask=attention_mask, token_type_ids=token_type_ids
            )
            return out.last_hidden_state

    partial = target.with_name(target.name + ".part")
    dynamic = {0: "batch", 1: "tokens"}
    # On the model's own device (a GPU when the index is built on one); the exported graph runs anywhere.
    sample = tuple(torch.ones(1, 8, dtype=torch.long, device=encoder.device) for _ in range(3))
    try:
        target.parent.mkdir(parents=True, exist_ok=True)  # a file in its way is a reason, as a full disk is
        with torch.no_grad(), warnings.catch_warnings():
            warnings.simplefilter("ignore")  # tracer notes about other shapes than the dynamic ones
            torch.onnx.export(
                LastHidden().eval(),
                sample,
                str(partial),
                input_names=["input_ids", "attention_mask", "token_type_ids"],
                output_names=["last_hidden_state"],
                dynamic_axes={n: dynamic for n in ("input_ids", "attention_mask", "token_type_ids")}
                | {"last_hidden_state": dynamic},
                opset_version=17,
                dynamo=False,
            )
        expected = np.asarray(model.encode(list(PROBES), normalize_embeddings=True), dtype=np.float32)
        got = read_back(partial, model.max_seq_length).embed_documents(list(PROBES))
    except (RuntimeError, OSError, ValueError, ImportError, torch.onnx.OnnxExporterError) as err:
        log.warning("No ONNX query model (queries will load torch): %s", err)
        if partial.parent.is_dir():
            partial.unlink(missing_ok=True)
        return False
    cosine = float((expected * got).sum(axis=1).min())
    if cosine < MIN_COSINE:
        log.warning("ONNX query model discarded: cosine %.6f to the torch model", cosine)
        partial.unlink(missing_ok=True)
        return False
    partial.replace(target)  # a half-written file is never taken for a finished one
    digest_path(target).write_text(file_digest(target), encoding="utf-8")
    return True


def digest_path(model_file: Path) -> Path:
    """Where the export's SHA-256 is kept, written once the export is checked (index/integrity.py
    compares it: a file damaged on disk could still load and embed queries wrongly)."""
    return model_file.with_name(model_file.name + ".sha256")


_DIGESTS: dict[tuple[str, int, int], str] = {}  # (path, size, mtime) -> SHA-256, for this process


def file_digest(path: Path) -> str:
    """The file's SHA-256, computed once per process while its size and modification time stay."""
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _DIGESTS:
        _DIGESTS[key] = _sha256(path)
    return _DIGESTS[key]


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export_damaged(model_file: Path) -> bool:
    """Whether the export no longer matches the digest written with it (False when there is no export,
    or no digest: one made before digests were kept)."""
    recorded = digest_path(model_file)
    if not model_file.is_file() or not recorded.is_file():
        return False
    return recorded.read_text(encoding="utf-8").strip() != file_digest(model_file)
