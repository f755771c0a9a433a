"""docs/cli.md, docs/settings.md, docs/tools.md and the file map in docs/architecture.md are generated from
the code (scripts/gen_docs.py): they must match it, so a new option, setting, tool, mode, parameter or
module cannot go undocumented, and the example answers on the tools page are what the server answers."""

from __future__ import annotations

import importlib.util
import re
from pathlib import Path
from types import ModuleType

import pytest

SCRIPT = Path(__file__).resolve().parents[2] / "scripts" / "gen_docs.py"


@pytest.fixture(scope="module")
def gen() -> ModuleType:
    spec = importlib.util.spec_from_file_location("gen_docs", SCRIPT)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize("page", ["cli.md", "settings.md", "architecture.md"])
def test_the_reference_pages_match_the_code(gen: ModuleType, page: str) -> None:
    assert (gen.DOCS / page).read_text(encoding="utf-8") == gen.PAGES[page](), "run scripts/gen_docs.py"


def test_every_module_says_what_it_is(gen: ModuleType) -> None:
    """The file map reads each module's docstring: a module without one would stand there unexplained."""
    modules = [p for p in gen.PACKAGE.rglob("*.py") if "__pycache__" not in p.parts]
    assert len(modules) > 200
    unexplained = [str(p.relative_to(gen.PACKAGE)) for p in modules if not gen.summary(p)]
    assert not unexplained
    page = (gen.DOCS / "architecture.md").read_text(encoding="utf-8")
    assert "    tool.py" in page and "services/" in page  # each tool package's entry point is on the map


ANSWER = re.compile(r"Answer:\n\n```text\n(.*?)\n```", re.S)
KEY = re.compile(r"\[([A-Z0-9]{8})\]")


def _skeleton(page: str) -> str:
    """The page with each example answer reduced to its first line's words and the item keys it names:
    float noise across CPUs may reorder equally good sentences, but not change which papers answer."""

    def reduce(match: re.Match[str]) -> str:
        answer = match.group(1)
        head = re.sub(r"≈[\d,]+ tokens", "≈N tokens", answer.splitlines()[0])
        return f"{head} {sorted(set(KEY.findall(answer)))}"

    return ANSWER.sub(reduce, page)


@pytest.fixture(scope="module")
def tools_page(gen: ModuleType) -> str:
    return gen.tools_page()


@pytest.mark.slow
def test_the_tools_page_matches_the_server(gen: ModuleType, tools_page: str) -> None:
    on_disk = (gen.DOCS / "tools.md").read_text(encoding="utf-8")
    assert _skeleton(on_disk) == _skeleton(tools_page), "run scripts/gen_docs.py"


@pytest.mark.slow
def test_every_tool_mode_and_parameter_is_on_the_tools_page(tools_page: str) -> None:
    from agent_zot.services.catalog import SPECS

    for spec in SPECS:
        section = tools_page.split(f"## `{spec.name}`", 1)[1].split("\n## ", 1)[0]
        assert all(f"`{mode}`" in section for mode in spec.mode_names)
        assert all(f"| `{name}` |" in section for name in spec.request.model_fields)
        answer = ANSWER.search(section)
        assert answer and "Error" not in answer.group(1).splitlines()[0]
    # The examples answer with the demo library's own content, not with a fallback.
    assert "Cited by (in your library): 2" in tools_page and "[p. 1" in tools_page
    assert "2 items tagged to-read" in tools_page and "<demo>/exports/library.bib" in tools_page
    assert "/tmp/" not in tools_page


def test_every_command_and_setting_is_on_its_page(gen: ModuleType) -> None:
    from agent_zot.config import Settings

    cli_page, settings_page = gen.cli_page(), gen.settings_page()
    for command in ("audit", "index move", "export", "update-db", "serve", "graph sync", "config show"):
        assert f"## `agent-zot {command}`" in cli_page
    assert "--patch FILE" in cli_page and "/root/" not in cli_page and "/home/" not in cli_page
    for name in Settings.model_fields:
        assert f"| `{name}` |" in settings_page and f"AGENT_ZOT_{name.upper()}" in settings_page
