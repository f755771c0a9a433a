"""Stance of a passage toward a claim: supports, contradicts, related (on topic, takes no side), or
unjudged (no judge, or the judge is unsure) so the assistant judges.

Backends behind one small Protocol:
- ``nli``: a local natural-language-inference cross-encoder folder (``nli_model``): sentence-transformers'
  ``CrossEncoder`` whose labels name entailment, contradiction and neutral; the passage is the premise and
  the claim the hypothesis.
- ``ollama``: a chat model on an Ollama server answering in a JSON schema (``stance_model``).
- ``client``: the client's own model, asked through an MCP multi round-trip request (client_judge.py);
  opt-in only: sampling is deprecated (SEP-2577) and the clients most people use never offer it.
- ``none``: every passage unjudged.

``auto`` (the default) is ``nli`` when ``nli_model`` is set, else no judge: the answer is a worksheet the
assistant fills (worksheet.py). It never asks the client's model. No NLI model's weights are on PyPI and
nothing is downloaded at run time.
"""

from __future__ import annotations

import json
import math
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent_zot.errors import AgentZotError
from agent_zot.index.embed import offline_hub
from agent_zot.index.rerank import read_model_config, token_limit
from agent_zot.ollama_client import OllamaClient

LABELS = ("supports", "contradicts", "related", "unjudged")
# A judgement below this probability is reported as unjudged: the assistant reads the passage itself.
MIN_CONFIDENCE = 0.5
_NLI_NAMES = {"entailment": "supports", "contradiction": "contradicts", "neutral": "related"}
SETTING_HINT = "Set nli_model (AGENT_ZOT_NLI_MODEL) to a local NLI cross-encoder folder, or stance = none."


class StanceError(AgentZotError):
    """The configured stance judge cannot be loaded or did not answer."""


@dataclass(frozen=True, slots=True)
class Stance:
    label: str  # one of LABELS
    score: float  # the judge's probability for the label (0 when unjudged)
    bearing: float | None = None  # probability that the passage takes a side (1 - neutral), when known
    reason: str | None = None  # the judge's one-line reason, when it gives one

    def to_dict(self) -> dict[str, Any]:
        data: dict[str, Any] = {"stance": self.label, "stance_score": round(self.score, 3)}
        if self.reason:
            data["stance_reason"] = self.reason
        return data


UNJUDGED = Stance("unjudged", 0.0)


class StanceJudge(Protocol):
    name: str
    # True when the judge's bearing should outrank retrieval's order (a language model reading each
    # passage); False when it only nudges that order (a small NLI model, or no judge).
    decisive: bool

    def judge(self, claim: str, passages: Sequence[str]) -> list[Stance]:
        """One stance per passage, in order."""
        ...


class NoJudge:
    """Nobody judges here; ``status`` (a short code) and ``note`` say why, for the answer."""

    name = "none"
    decisive = False

    def __init__(self, status: str, note: str) -> None:
        self.status, self.note = status, note

    def judge(self, claim: str, passages: Sequence[str]) -> list[Stance]:
        return [UNJUDGED for _ in passages]


def stated(label: str, confidence: float, reason: str | None = None) -> Stance:
    """A language model's verdict with its stated confidence: unjudged below MIN_CONFIDENCE; its bearing
    is the confidence when it takes a side and one minus it when it calls the passage related."""
    bearing = confidence if label in ("supports", "contradicts") else 1.0 - confidence
    return Stance(label if confidence >= MIN_CONFIDENCE else "unjudged", confidence, bearing, reason)


def decided(probabilities: dict[str, float]) -> Stance:
    """The most probable label, or unjudged when it is below MIN_CONFIDENCE; with how much the passage
    bears on the claim at all (the two sides' probabilities together)."""
    label, score = max(probabilities.items(), key=lambda kv: kv[1])
    bearing = probabilities.get("supports", 0.0) + probabilities.get("contradicts", 0.0)
    return Stance(label if score >= MIN_CONFIDENCE else "unjudged", score, bearing)


class NliJudge:
    """A local NLI cross-encoder (sentence-transformers ``CrossEncoder``), loaded on first use, on CPU."""

    decisive = False

    def __init__(self, model_dir: Path, *, max_tokens: int = 512) -> None:
        self.model_dir = Path(model_dir)
        self.name = f"nli:{self.model_dir.name}"
        config = read_model_config(self.model_dir, kind="an NLI", error=StanceError, hint=SETTING_HINT)
        self.labels = _nli_labels(self.model_dir, config)
        self.max_tokens = token_limit(self.model_dir, config, max_tokens)  # long passages are truncated
        self._model: Any = None
        self._lock = threading.Lock()

    def _load(self) -> Any:
        with self._lock:
            if self._model is None:
                import torch
                from sentence_transformers import CrossEncoder

                offline_hub()
                try:
                    self._model = CrossEncoder(
                        str(self.model_dir),
                        device="cpu",
                        local_files_only=True,
                        max_length=self.max_tokens,
                        activation_fn=torch.nn.Identity(),  # logits: the softmax over the labels is ours
                    )
                except (OSError, ValueError, RuntimeError, KeyError) as err:
                    raise StanceError(
                        f"Cannot load the NLI model in {self.model_dir}: {err}", hint=SETTING_HINT
                    ) from err
        return self._model

    def judge(self, claim: str, passages: Sequence[str]) -> list[Stance]:
        if not passages:
            return []
        model = self._load()
        pairs = [(p, claim) for p in passages]
        try:
            logits = model.predict(pairs, convert_to_numpy=True, show_progress_bar=False)
        except (RuntimeError, ValueError, IndexError) as err:  # torch shape and index errors
            raise StanceError(f"The NLI model in {self.model_dir} failed: {err}", hint=SETTING_HINT) from err
        return [decided(dict(zip(self.labels, _softmax(list(row)), strict=True))) for row in logits]


def _nli_labels(model_dir: Path, config: dict[str, Any]) -> list[str]:
    """Our label for each output of the model, from its config's id2label."""
    path = model_dir / "config.json"
    id2label = config.get("id2label")
    if not isinstance(id2label, dict) or not id2label:
        raise StanceError(f"{path} names no labels (id2label).", hint=SETTING_HINT)
    names = [str(id2label[k]).lower() for k in sorted(id2label, key=int)]
    ours = [next((v for k, v in _NLI_NAMES.items() if name.startswith(k[:7])), "") for name in names]
    if "supports" not in ours or "contradicts" not in ours:
        raise StanceError(
            f"{model_dir} is not an NLI model: its labels are {', '.join(names)}; "
            "it needs entailment and contradiction.",
            hint=SETTING_HINT,
        )
    return [label or "related" for label in ours]


def _softmax(values: list[float]) -> list[float]:
    top = max(values)
    exps = [math.exp(v - top) for v in values]
    total = sum(exps)
    return [e / total for e in exps]


STANCE_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "stance": {"type": "string", "enum": ["supports", "contradicts", "related"]},
        "confidence": {"type": "number"},
    },
    "required": ["stance", "confidence"],
}
_SYSTEM = (
    "You judge whether a passage from a scientific paper supports a claim, contradicts it, or is related "
    "without taking a side. Judge only from the passage. Return JSON matching the schema; confidence is "
    "your probability (0 to 1) that the stance is right."
)


class OllamaJudge:
    """A chat model on an Ollama server, one schema-constrained call per passage, temperature 0."""

    decisive = True

    def __init__(self, url: str, model: str, timeout: float = 120.0) -> None:
        self.url, self.model, self.timeout = url.rstrip("/"), model, timeout
        self.name = f"ollama:{model}"
        self._ollama = OllamaClient(self.url, model, timeout, StanceError)

    def judge(self, claim: str, passages: Sequence[str]) -> list[Stance]:
        return [self._one(claim, passage) for passage in passages]

    def _one(self, claim: str, passage: str) -> Stance:
        reply = self._ollama.chat_json(_SYSTEM, f"Claim: {claim}\n\nPassage: {passage[:4000]}", STANCE_SCHEMA)
        try:
            data = json.loads(reply)
            label, confidence = str(data["stance"]), float(data["confidence"])
        except (ValueError, KeyError, TypeError):
            return UNJUDGED  # an unreadable answer: the assistant judges this passage itself
        if label not in LABELS[:3] or not 0.0 <= confidence <= 1.0:
            return UNJUDGED
        return stated(label, confidence)
