"""`agent-zot setup --skill`: the skill for coding agents, printed, installed in a fixture home or project,
and checked against the CLI it teaches (every command and option it names exists) and against the MCP
tool list it saves an agent from loading up front."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest
import yaml
from click.testing import CliRunner, Result

from agent_zot.cli.main import cli
from agent_zot.services.catalog import BY_NAME, SPECS
from agent_zot.services.context import AppContext
from agent_zot.services.setup.skill import DESCRIPTION, EXAMPLES, up_front_tokens
from agent_zot.services.tools import spec_for
from tests.conftest import connect

COMMAND = re.compile(r"`agent-zot ([a-z][a-z-]*)([^`]*)`")


def _setup(*args: str) -> Result:
    return CliRunner().invoke(cli, ["setup", "--skill", *args], catch_exceptions=False)


def _front_matter(text: str) -> dict:
    head, sep, _ = text.removeprefix("---\n").partition("\n---\n")
    assert text.startswith("---\n") and sep, "SKILL.md starts with a front matter block"
    return yaml.safe_load(head)


def test_dry_run_prints_a_valid_skill_and_writes_nothing(tmp_path: Path) -> None:
    printed = _setup("--dry-run")
    assert printed.exit_code == 0
    meta = _front_matter(printed.stdout)
    assert meta["name"] == "agent-zot" and set(meta) == {"name", "description"}
    description = meta["description"]
    assert description == DESCRIPTION and "\n" not in description and len(description) < 1000
    assert "Use it when" in description  # says when, not only what
    assert not (tmp_path / "home" / ".claude").exists()
    assert "would add" in printed.stderr


def test_every_command_and_option_the_skill_names_exists() -> None:
    text = _setup("--dry-run").stdout
    named = COMMAND.findall(text)
    assert {name for name, _ in named} >= {"search", "summarize", "explore", "call", "route"}
    for name, rest in named:
        command = cli.commands.get(name)
        assert command is not None, f"the skill names `agent-zot {name}`, which does not exist"
        opts = {opt for param in command.params for opt in (*param.opts, *param.secondary_opts)}
        for option in re.findall(r"(?<![\w-])--[a-z][a-z-]*", rest):
            assert option in opts, f"`agent-zot {name}` has no {option}"
        if name == "call" and (tool := rest.split()[0]) != "TOOL":
            fields = set(spec_for(tool).request.model_fields) | {"mode", "NAME"}
            assert set(re.findall(r"--arg (\w+)=", rest)) <= fields, rest
    # one example at least for each tool, and each tool's section
    assert set(EXAMPLES) == set(BY_NAME)
    assert all(spec.name in text for spec in SPECS)


def test_install_writes_the_user_skill_once_and_backs_up_an_edited_one(tmp_path: Path) -> None:
    path = tmp_path / "home" / ".claude" / "skills" / "agent-zot" / "SKILL.md"
    first = _setup()
    assert first.exit_code == 0 and path.is_file() and str(path) in first.output
    assert _front_matter(path.read_text(encoding="utf-8"))["name"] == "agent-zot"
    again = json.loads(_setup("--json").stdout)
    assert again["action"] == "unchanged" and again["path"] == str(path)
    path.write_text("my own notes\n", encoding="utf-8")
    updated = json.loads(_setup("--json").stdout)
    assert updated["action"] == "update" and Path(updated["backup"]).read_text() == "my own notes\n"


def test_project_scope_and_claude_config_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = tmp_path / "project"
    project.mkdir()
    monkeypatch.chdir(project)
    assert _setup("--project").exit_code == 0
    assert (project / ".claude" / "skills" / "agent-zot" / "SKILL.md").is_file()
    assert not (tmp_path / "home" / ".claude").exists()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude-config"))
    assert _setup().exit_code == 0
    assert (tmp_path / "claude-config" / "skills" / "agent-zot" / "SKILL.md").is_file()
    assert CliRunner().invoke(cli, ["setup", "--project"]).exit_code == 2  # --project goes with --skill


async def test_the_skill_costs_an_agent_a_small_part_of_the_tool_list_up_front(app: AppContext) -> None:
    async with connect(app.settings) as client:
        tools = await client.list_tools()
    listed = [tool.model_dump(mode="json", by_alias=True, exclude_none=True) for tool in tools]
    cost = up_front_tokens(listed)
    assert cost["skill_description"] * 10 < cost["mcp_tool_list"], cost
