"""End to end: the installed server as a subprocess over stdio, driven by a real MCP client."""

from __future__ import annotations

import os
import sys
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from tests.factories import FullLibrary

pytestmark = pytest.mark.slow

TOOLS = {
    "zot_search",
    "zot_summarize",
    "zot_explore_graph",
    "zot_manage_collections",
    "zot_manage_tags",
    "zot_manage_notes",
    "zot_export",
}


def _transport(tmp_path: Path, *args: str, env: dict[str, str] | None = None) -> StdioTransport:
    base = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "AGENT_ZOT_DATA_DIR": str(tmp_path / "state"),
        "AGENT_ZOT_EXPORT_DIR": str(tmp_path / "exports"),
    }
    return StdioTransport(sys.executable, ["-m", "agent_zot", *args, "serve"], env=base | (env or {}))


async def test_every_tool_over_stdio(full_lib: FullLibrary, tmp_path: Path) -> None:
    transport = _transport(
        tmp_path,
        "--library",
        str(full_lib.data_dir),
        env={"AGENT_ZOT_LINKED_ATTACHMENT_BASE_DIR": str(full_lib.linked_base)},
    )
    async with Client(transport) as client:
        assert {t.name for t in await client.list_tools()} == TOOLS
        collections = await client.call_tool("zot_manage_collections", {"query": "list collections"})
        assert "Thesis" in collections.content[0].text
        tags = await client.call_tool("zot_manage_tags", {"query": "items tagged corpus || optimization"})
        assert {i["key"] for i in tags.structured_content["items"]} == {
            full_lib.keys["s2orc"],
            full_lib.keys["book"],
        }
        notes = await client.call_tool(
            "zot_manage_notes", {"query": "annotations", "item_key": full_lib.keys["s2orc"]}
        )
        assert notes.structured_content["total"] == 3
        exported = await client.call_tool("zot_export", {"path": "lib.bib"})
        assert Path(exported.structured_content["path"]).read_text(encoding="utf-8").count("\n@") + 1 == 9
        bad = await client.call_tool(
            "zot_manage_collections", {"collection": "nope", "force_mode": "show_items"}, raise_on_error=False
        )
        assert bad.is_error
        # the server is still alive after an error
        assert (await client.call_tool("zot_manage_tags", {})).structured_content["route"]["mode"] == "list"


async def test_demo_library_over_stdio_when_no_zotero(tmp_path: Path) -> None:
    async with Client(_transport(tmp_path)) as client:
        result = await client.call_tool("zot_manage_collections", {"query": "list my collections"})
        assert "Thesis" in result.content[0].text and "Methods" in result.content[0].text


async def test_http_transport_binds_loopback(full_lib: FullLibrary, tmp_path: Path) -> None:
    import asyncio
    import socket
    import subprocess

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "AGENT_ZOT_DATA_DIR": str(tmp_path / "s"),
    }
    server = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "agent_zot",
            "--library",
            str(full_lib.data_dir),
            "serve",
            "--transport",
            "http",
            "--port",
            str(port),
        ],
        env=env,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    try:
        for _ in range(100):  # wait (up to ~20 s) for the port to open
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                await asyncio.sleep(0.2)
        async with Client(f"http://127.0.0.1:{port}/mcp") as client:
            assert {t.name for t in await client.list_tools()} == TOOLS
            result = await client.call_tool("zot_manage_tags", {"query": "list tags"})
            assert result.structured_content["tags"][0]["name"] == "nlp"
        listening = subprocess.run(["ss", "-ltn"], capture_output=True, text=True, check=False).stdout
        if listening:  # where `ss` exists, check nothing listens on all interfaces
            assert f"127.0.0.1:{port}" in listening and f"0.0.0.0:{port}" not in listening
    finally:
        server.terminate()
        server.wait(timeout=10)
