"""The tool list is the assistant's first impression and a per-conversation token cost: keep it stable,
small and precise. Regenerate the snapshot deliberately with `pytest --update-snapshots` when a change is intended."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext

SNAPSHOT = Path(__file__).parents[1] / "snapshots" / "tool_list.json"
# Characters of all descriptions (tools and parameters) together; about 4 characters per token.
DESCRIPTION_BUDGET = 2900  # all seven tools (~400 each); keep it: trim before raising it
PER_TOOL_BUDGET = 200


async def _tool_list(app: AppContext) -> list[dict]:
    async with Client(build_server(app)) as client:
        tools = await client.list_tools()
    out = []
    for tool in sorted(tools, key=lambda t: t.name):
        props = tool.input_schema.get("properties", {})
        out.append(
            {
                "name": tool.name,
                "description": tool.description,
                "read_only": bool(tool.annotations and tool.annotations.read_only_hint),
                "params": {
                    name: {
                        "description": spec.get("description", ""),
                        "enum": next(
                            (a.get("enum") for a in spec.get("anyOf", []) if "enum" in a), spec.get("enum")
                        ),
                    }
                    for name, spec in sorted(props.items())
                },
            }
        )
    return out


async def test_tool_list_matches_snapshot(app: AppContext, request: pytest.FixtureRequest) -> None:
    current = await _tool_list(app)
    if request.config.getoption("--update-snapshots"):
        SNAPSHOT.write_text(json.dumps(current, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    assert SNAPSHOT.exists(), "no tool-list snapshot: run pytest --update-snapshots once and review it"
    assert current == json.loads(SNAPSHOT.read_text(encoding="utf-8"))


async def test_descriptions_stay_within_budget(app: AppContext) -> None:
    tools = await _tool_list(app)
    total = 0
    for tool in tools:
        assert tool["description"] and len(tool["description"]) <= PER_TOOL_BUDGET, tool["name"]
        total += len(tool["description"]) + sum(len(p["description"]) for p in tool["params"].values())
    assert total <= DESCRIPTION_BUDGET, f"tool descriptions use {total} characters"


async def test_every_parameter_is_described(app: AppContext) -> None:
    for tool in await _tool_list(app):
        undescribed = [n for n, p in tool["params"].items() if not p["description"]]
        assert not undescribed, (tool["name"], undescribed)
