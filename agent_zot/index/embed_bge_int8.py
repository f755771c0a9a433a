"""BGE-M3 on the CPU, INT8: the model exported once to ONNX (encoder plus its sparse head) and quantized
with onnxruntime's dynamic quantization, cached beside the model, then run by onnxruntime.

What it computes is what FlagEmbedding's BGEM3FlagModel computes: the dense vector is the normalised first
(CLS) token, the lexical weights are ReLU(sparse_linear(hidden state)) per token, special tokens dropped and
repeated tokens keeping their largest weight. The index records the model as "...@bge-m3-int8", so an index
built with the fp32 model is not silently queried with this one.
"""

from __future__ import annotations

import warnings
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from agent_zot.hardware import available_cpus
from agent_zot.index.embed import EmbedderError, l2_normalise
from agent_zot.index.embed_bge_m3 import BgeM3Embedder
from agent_zot.index.store import SparseVector

CACHE = "agent-zot-int8"
FP32_FILE, INT8_FILE = "model.fp32.onnx", "model.int8.onnx"
SPECIAL_TOKENS = ("<s>", "</s>", "<pad>", "<unk>")


def export_int8(model_dir: Path, target: Path) -> Path:
    """Export ``model_dir`` (an XLM-RoBERTa checkpoint with sparse_linear.pt) to ONNX and quantize its
    weights to INT8; returns the quantized file."""
    try:
        import torch
        from onnxruntime.quantization import QuantType, quantize_dynamic
        from transformers import AutoModel
    except ImportError as err:
        raise EmbedderError(
            "The INT8 export needs torch, transformers and onnx: pip install 'agent-zot[bge-m3]'.",
            hint="Or set bge_m3_int8 = false to run the fp32 model through FlagEmbedding.",
        ) from err

    class M3Outputs(torch.nn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.encoder = AutoModel.from_pretrained(str(model_dir))
            hidden = self.encoder.config.hidden_size
            self.sparse = torch.nn.Linear(hidden, 1)
            self.sparse.load_state_dict(torch.load(model_dir / "sparse_linear.pt", map_location="cpu"))

        def forward(self, input_ids: Any, attention_mask: Any) -> tuple[Any, Any]:
            hidden = self.encoder(input_ids=input_ids, attention_mask=attention_mask).last_hidden_state
            return hidden[:, 0], torch.relu(self.sparse(hidden)).squeeze(-1)

    target.parent.mkdir(parents=True, exist_ok=True)
    fp32 = target.with_name(FP32_FILE)
    model = M3Outputs().eval()
    sample = (torch.ones(1, 8, dtype=torch.long), torch.ones(1, 8, dtype=torch.long))
    # The tracer's notes on Python-level branches in the model code concern other input shapes than the
    # ones declared dynamic here; they would only clutter update-db's output.
    with torch.no_grad(), warnings.catch_warnings():
        warnings.simplefilter("ignore", torch.jit.TracerWarning)
        warnings.filterwarnings("ignore", message=".*aten::index.*")
        torch.onnx.export(
            model,
            sample,
            str(fp32),
            input_names=["input_ids", "attention_mask"],
            output_names=["dense", "token_weights"],
            dynamic_axes={
                "input_ids": {0: "batch", 1: "tokens"},
                "attention_mask": {0: "batch", 1: "tokens"},
                "dense": {0: "batch"},
                "token_weights": {0: "batch", 1: "tokens"},
            },
            opset_version=17,
            dynamo=False,
        )
    partial = target.with_name(target.name + ".part")
    quantize_dynamic(
        str(fp32),
        str(partial),
        weight_type=QuantType.QInt8,
        per_channel=True,
        nodes_to_exclude=_sparse_head_nodes(fp32),
    )
    partial.replace(target)  # a half-written model is never taken for a finished one
    fp32.unlink(missing_ok=True)
    return target


def _sparse_head_nodes(path: Path) -> list[str]:
    """The nodes of the sparse head (a 1-output linear layer before the ReLU). They stay fp32: dynamic
    quantization would also quantize their input, the last hidden state, and the lexical weights would
    move by a fifth on the test checkpoint, while the encoder's own layers lose next to nothing."""
    import onnx

    graph = onnx.load(str(path), load_external_data=False).graph
    producer = {output: node for node in graph.node for output in node.output}
    relu = next(node for node in graph.node if node.op_type == "Relu")
    found, pending = [], list(relu.input)
    while pending:
        node = producer.get(pending.pop())
        if node is not None and node.op_type in ("MatMul", "Gemm", "Add"):
            found.append(node.name)
            pending += [name for name in node.input if name in producer]
    return found


class BgeM3Int8Embedder(BgeM3Embedder):
    """The BGE-M3 embedder (dense + lexical weights, see embed_bge_m3.py) over the cached INT8 ONNX model:
    the model is an onnxruntime session instead of FlagEmbedding's torch model."""

    def __init__(
        self,
        model_dir: Path,
        *,
        max_tokens: int | None = None,
        batch_size: int = 8,
        threads: int | None = None,
    ) -> None:
        super().__init__(model_dir, max_tokens=max_tokens, batch_size=batch_size, device="cpu")
        self.name = f"{self.model_dir.name}@bge-m3-int8"
        self.engine = "onnx int8 (cpu)"
        self.threads = max(1, threads or available_cpus())

    def _load(self) -> Any:
        import onnxruntime as ort

        path = self.model_dir / CACHE / INT8_FILE
        if not path.is_file():
            export_int8(self.model_dir, path)
        options = ort.SessionOptions()
        options.intra_op_num_threads = self.threads
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])

    def _encode(self, texts: Sequence[str], batch_size: int) -> tuple[np.ndarray, list[SparseVector]]:
        tokenizer = self._tokens.tokenizer
        skip = {tokenizer.token_to_id(t) for t in SPECIAL_TOKENS} - {None}
        pad = tokenizer.token_to_id("<pad>") or 1
        dense_rows: list[np.ndarray] = []
        sparse: list[SparseVector] = []
        for start in range(0, len(texts), batch_size):
            ids = [tokenizer.encode(t).ids[: self.max_tokens] for t in texts[start : start + batch_size]]
            width = max(len(i) for i in ids)
            input_ids = np.full((len(ids), width), pad, dtype=np.int64)
            mask = np.zeros((len(ids), width), dtype=np.int64)
            for row, row_ids in enumerate(ids):
                input_ids[row, : len(row_ids)] = row_ids
                mask[row, : len(row_ids)] = 1
            dense, weights = self.model.run(None, {"input_ids": input_ids, "attention_mask": mask})
            dense_rows.append(np.asarray(dense, dtype=np.float32))
            sparse += [
                _lexical(row_ids, row_weights, skip)
                for row_ids, row_weights in zip(ids, weights, strict=True)
            ]
        self._last = (tuple(texts), sparse)
        return l2_normalise(np.concatenate(dense_rows)), sparse


def _lexical(ids: Sequence[int], weights: np.ndarray, skip: set[int]) -> SparseVector:
    merged: dict[int, float] = {}
    for token, weight in zip(ids, weights[: len(ids)], strict=True):
        if token in skip or weight <= 0:
            continue
        merged[token] = max(merged.get(token, 0.0), float(weight))
    pairs = sorted(merged.items())
    return SparseVector(indices=[i for i, _ in pairs], values=[v for _, v in pairs])
