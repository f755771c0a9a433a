"""Which engine embeds a large update's documents on this machine: torch, or the model's fp32 ONNX export.

A first build used to import torch and sentence-transformers into the build process (about 500 MB of
code it kept through the graph stage, where the build's peak is). Now a short-lived child process
(``python -m agent_zot.index.engine_probe``) loads torch, resolves the device, makes and checks the export
when it is missing (index/query_onnx.py), and on the CPU times both engines on a small fixed sample;
then it exits, and the build process embeds with the export, without torch, when the export is about as
fast. Which is faster depends on the CPU: on one AMD EPYC the export ran 1.8x torch's speed, on an
earlier machine torch ran 1.5x the export's. The result is kept beside the export
(``engine.json``), so later builds on this machine do not pay for the child again.
"""

from __future__ import annotations

import json
import logging
import random
import subprocess
import sys
import time
from collections.abc import Callable
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import cast

log = logging.getLogger(__name__)

PROBE_FILE = "engine.json"
# The export embeds a build's documents at this share of torch's speed or more: without torch the build
# process starts embedding 5 s sooner and is about 500 MB lighter through the graph stage, which is worth
# up to a fifth of the embedding speed.
MIN_SPEED_SHARE = 0.8
CHILD_TIMEOUT_S = 900  # loading torch and exporting takes 10-30 s; a busy machine, several times that
_SAMPLE_TEXTS = 64
_ROUNDS = 2
NO_EXPORT = 3  # the child's exit status when the export could not be made
_WORDS = [
    "citation",
    "graph",
    "corpus",
    "retrieval",
    "transformer",
    "protein",
    "sequence",
    "cohort",
    "randomized",
    "trial",
    "enzyme",
    "catalysis",
    "embedding",
    "regression",
    "variance",
    "estimator",
    "lattice",
    "semiconductor",
    "tumour",
    "expression",
    "sampling",
    "inference",
    "bayesian",
    "prior",
    "posterior",
    "kernel",
    "convolution",
    "benchmark",
    "annotation",
    "dataset",
    "ablation",
    "baseline",
    "latency",
    "throughput",
    "mutation",
    "phenotype",
    "genome",
    "climate",
    "sediment",
    "isotope",
]


@dataclass(frozen=True, slots=True)
class EngineProbe:
    """What the child found: the device torch chose and, on the CPU, chunks a second per engine."""

    preference: str  # the device setting it was resolved for
    threads: int
    device: str
    torch_per_s: float = 0.0  # 0 where not timed (an accelerator: torch runs there)
    onnx_per_s: float = 0.0

    def export_wins(self) -> bool:
        return self.device == "cpu" and self.onnx_per_s >= MIN_SPEED_SHARE * self.torch_per_s > 0

    def describe(self) -> str:
        """Why this engine, in a few words, for the update's summary."""
        if self.device != "cpu":
            return f"torch on {self.device}"
        ratio = self.onnx_per_s / self.torch_per_s if self.torch_per_s else 0.0
        return f"{ratio:.1f}x torch's speed on this CPU ({self.onnx_per_s:.0f} vs {self.torch_per_s:.0f} chunks/s)"


def probe_path(export_file: Path) -> Path:
    return export_file.with_name(PROBE_FILE)


def read_probe(export_file: Path, preference: str, threads: int) -> EngineProbe | None:
    """The kept result for this device setting and thread count; None when there is none (or it is for
    other settings, or unreadable)."""
    try:
        found = EngineProbe(**json.loads(probe_path(export_file).read_text(encoding="utf-8")))
    except (OSError, ValueError, TypeError):
        return None
    return found if (found.preference, found.threads) == (preference, threads) else None


def run_probe(
    model_dir: Path, query_cache: Path, export_file: Path, preference: str, threads: int
) -> EngineProbe | None:
    """Make the export when missing and time both engines, in a child process; the result, or None when
    the child could not make the export."""
    request = {
        "model_dir": str(model_dir),
        "query_cache": str(query_cache),
        "preference": preference,
        "threads": str(threads),
    }
    command = [sys.executable, "-m", "agent_zot.index.engine_probe", json.dumps(request)]
    try:
        done = subprocess.run(command, capture_output=True, text=True, timeout=CHILD_TIMEOUT_S, check=False)
    except subprocess.TimeoutExpired:
        log.warning(
            "No ONNX export for documents (torch embeds them): its child process ran over %d s",
            CHILD_TIMEOUT_S,
        )
        return None
    if done.returncode == NO_EXPORT:
        return None  # no space, or a failed check: the build process's torch load tries and logs it again
    if done.returncode != 0:
        last = next((line for line in reversed(done.stderr.splitlines()) if line.strip()), "no output")
        log.warning("No ONNX export for documents (torch embeds them): %s", last)
        return None
    return read_probe(export_file, preference, threads)


def sample_texts() -> list[str]:
    """A fixed sample of chunk-sized texts (120-220 words) for timing the engines."""
    rng = random.Random(57)
    return [" ".join(rng.choices(_WORDS, k=rng.randint(120, 220))) for _ in range(_SAMPLE_TEXTS)]


def _main(request: dict[str, str]) -> int:
    """In the child: load torch (which exports the model when the export is missing), time both
    engines on the CPU, keep the result beside the export."""
    from agent_zot.hardware import DevicePreference
    from agent_zot.index.embed_local import OnnxEmbedder, SentenceTransformerEmbedder
    from agent_zot.index.heap import release_free_heap

    model_dir, threads, preference = (
        Path(request["model_dir"]),
        int(request["threads"]),
        request["preference"],
    )
    embedder = SentenceTransformerEmbedder(
        model_dir,
        threads=threads,
        device=cast(DevicePreference, preference),
        query_cache=Path(request["query_cache"]),
    )
    embedder.load()
    release_free_heap()  # what the export and its check freed, before the timing adds the export's session
    export = embedder.query_file
    if export is None or not export.is_file():
        return NO_EXPORT  # export_query_model logged why; the build process's torch load says it again
    probe = EngineProbe(preference=preference, threads=threads, device=embedder.device)
    if embedder.device == "cpu":
        texts = sample_texts()

        def by_torch() -> float:
            return _seconds(embedder.embed_documents, texts)

        def by_export() -> float:
            # A session a round, dropped after it: torch's activations never sit beside it (the child's
            # peak stays at torch's, about 1 GB)
            onnx = OnnxEmbedder(export, model_dir, threads=threads, max_tokens=embedder.max_tokens)
            onnx.embed_documents(texts[:8])  # the first call sets up the session's buffers
            seconds = _seconds(onnx.embed_documents, texts)
            del onnx
            release_free_heap()
            return seconds

        embedder.embed_documents(texts[:8])
        torch_s, onnx_s = _best_seconds([by_torch, by_export])
        probe = EngineProbe(preference, threads, "cpu", len(texts) / torch_s, len(texts) / onnx_s)
    partial = probe_path(export).with_suffix(".part")
    partial.write_text(json.dumps(asdict(probe)), encoding="utf-8")
    partial.replace(probe_path(export))
    return 0


def _seconds(embed: Callable[[list[str]], object], texts: list[str]) -> float:
    started = time.perf_counter()
    embed(texts)
    return time.perf_counter() - started


def _best_seconds(rounds: list[Callable[[], float]]) -> list[float]:
    """Each engine's fastest round, the engines taking turns (other work on the CPU slows whichever
    runs while it does)."""
    best = [float("inf")] * len(rounds)
    for _ in range(_ROUNDS):
        for i, timed in enumerate(rounds):
            best[i] = min(best[i], timed())
    return best


if __name__ == "__main__":
    logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(message)s", stream=sys.stderr)
    sys.exit(_main(json.loads(sys.argv[1])))
