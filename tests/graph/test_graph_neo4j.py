"""The graph on a real Bolt server (ArcadeDB's Bolt plugin, speaking to the official neo4j driver):
`agent-zot graph sync` pushes the embedded graph, and with graph_store = "neo4j" the explore modes give the
same answers as on the embedded graph."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastmcp import Client
from pydantic import SecretStr

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from tests.bolt_server import BoltServer, bolt_server  # noqa: F401  (the session fixture, used by name)
from tests.graph.test_graph_explore import graph_library  # noqa: F401  (the module fixture, used by name)

pytestmark = pytest.mark.slow


def neo4j_env(server: BoltServer, settings: Settings) -> dict[str, str]:
    return {
        "AGENT_ZOT_DATA_DIR": str(settings.data_dir),
        "AGENT_ZOT_NEO4J_URL": server.url,
        "AGENT_ZOT_NEO4J_USER": server.user,
        "AGENT_ZOT_NEO4J_PASSWORD": server.password,
        "AGENT_ZOT_NEO4J_DATABASE": server.database,
    }


async def answers(settings: Settings, home: Path, **arguments: Any) -> dict[str, Any]:
    ctx = AppContext(settings, home=home)
    async with Client(build_server(ctx)) as client:
        result = await client.call_tool("zot_explore_graph", arguments)
    ctx.close()
    data = dict(result.structured_content)
    data.pop("route")
    return data


async def test_sync_then_explore_on_neo4j(
    bolt_server: BoltServer,  # noqa: F811
    graph_library: tuple[Settings, dict[str, str]],  # noqa: F811
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    settings, k = graph_library
    for name, value in neo4j_env(bolt_server, settings).items():
        monkeypatch.setenv(name, value)
    result = CliRunner().invoke(
        cli, ["--library", str(settings.zotero_data_dir), "graph", "sync", "--json"], catch_exceptions=False
    )
    assert result.exit_code == 0, result.output
    pushed = json.loads(result.output)["counts"]
    local = AppContext(settings).graph().local.counts()
    assert pushed == local and pushed["Paper"] == 5 and pushed["CITES"] > 0

    on_neo4j = settings.model_copy(
        update={
            "graph_store": "neo4j",
            "neo4j_url": bolt_server.url,
            "neo4j_user": bolt_server.user,
            "neo4j_password": SecretStr(bolt_server.password),
            "neo4j_database": bolt_server.database,
        }
    )
    for arguments in (
        {"query": "who cites the survey of scholarly document processing", "hops": 2},
        {"query": "who are the co-authors of Bo Chen"},
        {"query": "papers related to this one", "item_key": k["gnn"]},
        {"query": "the most influential papers in my library"},
    ):
        assert await answers(on_neo4j, tmp_path, **arguments) == await answers(
            settings, tmp_path, **arguments
        )
    # this Bolt server has no Graph Data Science plugin: agent-zot ranks, and the answer says so
    influence = await answers(on_neo4j, tmp_path, query="the most influential papers in my library")
    assert influence["pagerank_by"] == "agent-zot" and influence["papers"]


def test_unreachable_neo4j_is_an_actionable_cli_error(
    graph_library: tuple[Settings, dict[str, str]],  # noqa: F811
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from tests.bolt_server import free_port

    settings, _ = graph_library
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("AGENT_ZOT_NEO4J_URL", f"bolt://127.0.0.1:{free_port()}")
    monkeypatch.setenv("AGENT_ZOT_NEO4J_PASSWORD", "x")
    result = CliRunner().invoke(cli, ["--library", str(settings.zotero_data_dir), "graph", "sync"])
    assert result.exit_code == 2
    assert "Is the server running?" in result.output and "Traceback" not in result.output


async def test_neo4j_down_the_embedded_graph_answers_and_says_so(
    graph_library: tuple[Settings, dict[str, str]],  # noqa: F811
    tmp_path: Path,
) -> None:
    from tests.bolt_server import free_port

    settings, _ = graph_library
    down = settings.model_copy(
        update={
            "graph_store": "neo4j",
            "neo4j_url": f"bolt://127.0.0.1:{free_port()}",
            "neo4j_password": SecretStr("x"),
        }
    )
    ctx = AppContext(down, home=tmp_path / "home")
    async with Client(build_server(ctx)) as client:
        result = await client.call_tool("zot_explore_graph", {"query": "who are the co-authors of Bo Chen"})
    ctx.close()
    assert {c["name"] for c in result.structured_content["co_authors"]} == {"Ada Lovelace", "Carla Diaz"}
    assert "Neo4j unavailable" in result.content[0].text
    assert "Is the server running?" in result.structured_content["graph_store_fallback"]
