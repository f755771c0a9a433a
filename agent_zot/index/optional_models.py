"""The optional models, one command away for users with internet: what each improves, its size, whether it
is installed and in use (installing one: services/setup/model_install.py).

None of them is needed: agent-zot works offline on what its packages ship. They are fetched only when the
user runs `agent-zot models install NAME`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent_zot.config import Settings
from agent_zot.errors import InvalidArgumentError
from agent_zot.index.model_fetch import MANIFEST, cached_model_dir


@dataclass(frozen=True, slots=True)
class OptionalModel:
    name: str  # what the user types
    hub_id: str
    size_mb: int  # the weights and tokenizer fetched, roughly
    improves: str
    settings: Callable[[Path], dict[str, Any]]  # what to set once it is in this folder
    folder_setting: str  # the setting that takes the model's local folder

    def in_use(self, settings: Settings, folder: Path) -> bool:
        wanted = self.settings(folder)
        return all(_same(getattr(settings, key), value) for key, value in wanted.items())


def _same(current: Any, wanted: Any) -> bool:
    return str(current) == str(wanted) if isinstance(wanted, Path) else current == wanted


MODELS: tuple[OptionalModel, ...] = (
    OptionalModel(
        "bge-m3",
        "BAAI/bge-m3",
        2300,
        "search: multilingual dense vectors and learned sparse weights instead of MiniLM + BM25 (re-index "
        "with update-db --force-rebuild)",
        lambda folder: {"embedder": "bge-m3", "embedder_model": str(folder)},
        "embedder_model",
    ),
    OptionalModel(
        "reranker",
        "cross-encoder/ms-marco-MiniLM-L6-v2",
        90,
        "search: a cross-encoder rescores the top candidates (better first results, ~0.1 s a search)",
        lambda folder: {"reranker_model": folder},
        "reranker_model",
    ),
    OptionalModel(
        "nli",
        "cross-encoder/nli-deberta-v3-xsmall",
        290,
        "claim checks: a local NLI model judges each passage's stance before the assistant reads it",
        lambda folder: {"nli_model": folder},
        "nli_model",
    ),
)


def find(name: str) -> OptionalModel:
    for model in MODELS:
        if name.strip().lower() in (model.name, model.hub_id.lower()):
            return model
    raise InvalidArgumentError(
        f"No optional model called {name!r}.",
        hint="Choose one of: " + ", ".join(m.name for m in MODELS) + ".",
    )


def status(settings: Settings) -> list[dict[str, Any]]:
    """Each optional model: what it improves, its size, installed (fetched complete) and in use."""
    rows = []
    for model in MODELS:
        folder = cached_model_dir(settings.data_dir, model.hub_id)
        installed = (folder / MANIFEST).is_file()
        rows.append(
            {
                "name": model.name,
                "hub_id": model.hub_id,
                "size_mb": model.size_mb,
                "improves": model.improves,
                "installed": installed,
                "in_use": installed and model.in_use(settings, folder),
                "folder": str(folder),
            }
        )
    return rows


def summary(settings: Settings) -> str:
    """One line for doctor and setup: which optional models are in use, and how to see the others."""
    rows = status(settings)
    used = [r["name"] for r in rows if r["in_use"]]
    if used:
        return "in use: " + ", ".join(used) + " (`agent-zot models` lists the others)"
    return "none installed; `agent-zot models` lists them (BGE-M3 search, a reranker, an NLI stance judge)"
