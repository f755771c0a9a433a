"""Installing an optional model (index/optional_models.py lists them): fetched once into the data folder
through the hub fetch BGE-M3 uses (progress, resume, SHA-256 check), after which its setting is written to
the config file."""

from __future__ import annotations

from pathlib import Path
from typing import IO, Any

from agent_zot.config import Settings, set_config_values
from agent_zot.index.model_fetch import ensure_model
from agent_zot.index.optional_models import find


def install(
    settings: Settings, name: str, config_path: Path, *, progress: IO[str] | None = None
) -> dict[str, Any]:
    """Fetch ``name`` (resuming an interrupted fetch) and write its settings to ``config_path``."""
    model = find(name)
    folder = ensure_model(
        model.hub_id,
        settings.data_dir,
        hub_url=settings.model_hub_url,
        progress=progress,
        setting=model.folder_setting,
    )
    values = model.settings(folder)
    set_config_values(config_path, values)
    return {"name": model.name, "folder": str(folder), "settings": {k: str(v) for k, v in values.items()}}
