"""docs/cli.md and docs/settings.md are generated from the code (scripts/gen_docs.py): they must match it,
so a new option or setting cannot go undocumented."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[1] / "scripts" / "gen_docs.py"


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["cli.md", "settings.md"])
def test_the_reference_pages_match_the_code(gen: ModuleType, page: str) -> None:
    assert (gen.DOCS / page).read_text(encoding="utf-8") == gen.PAGES[page](), "run scripts/gen_docs.py"


def test_every_command_and_setting_is_on_its_page(gen: ModuleType) -> None:
    from agent_zot.config import Settings

    cli_page, settings_page = gen.cli_page(), gen.settings_page()
    for command in ("audit", "index move", "export", "update-db", "serve", "graph sync", "config show"):
        assert f"## `agent-zot {command}`" in cli_page
    assert "--patch FILE" in cli_page and "/root/" not in cli_page and "/home/" not in cli_page
    for name in Settings.model_fields:
        assert f"| `{name}` |" in settings_page and f"AGENT_ZOT_{name.upper()}" in settings_page
