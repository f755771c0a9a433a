"""What the embedder name an index records ("all-MiniLM-L6-v2@st") says about its vectors.

The part after "@" names what computes the vectors, as far as that changes them: engines that make the same
vectors share one name (torch and the model's fp32 ONNX export are both "@st"), and a precision that makes
other vectors has its own ("@onnx-int8"). An index holds one name's vectors only (store.check_compatible).
"""

from __future__ import annotations

# name suffix -> (what makes the vectors, the settings that choose it)
BACKENDS: dict[str, tuple[str, str]] = {
    "st": (
        "fp32 weights (torch, or its fp32 ONNX export: the same vectors)",
        'embedder = "minilm" (or "minilm-st")',
    ),
    "onnx-int8": ("int8-quantized ONNX weights", 'embedder = "minilm-onnx"'),
    "bge-m3": (
        "fp32 weights through FlagEmbedding",
        'embedder = "bge-m3" with bge_m3_int8 = false (a GPU runs it so as well)',
    ),
    "bge-m3-int8": (
        "int8-quantized ONNX weights",
        'embedder = "bge-m3" on a machine without a GPU, with bge_m3_int8 = true',
    ),
}


def _split(name: str) -> tuple[str, str]:
    model, _, backend = name.rpartition("@")
    return (model, backend) if model else (name, "")


def backend_mismatch(stored: str, asked: str) -> tuple[str, str] | None:
    """(why, hint) when ``stored`` and ``asked`` are one model run at different precisions; None otherwise."""
    (model, built), (other, wanted) = _split(stored), _split(asked)
    if model != other or built == wanted or built not in BACKENDS or wanted not in BACKENDS:
        return None
    why = (
        f"The index holds {model} vectors from {BACKENDS[built][0]}; the configuration makes them from "
        f"{BACKENDS[wanted][0]}. Their vectors differ, so they are not mixed in one index."
    )
    hint = (
        f"To keep this index, set {BACKENDS[built][1]}. To switch, rebuild it: "
        "`agent-zot update-db --force-rebuild`."
    )
    return why, hint
