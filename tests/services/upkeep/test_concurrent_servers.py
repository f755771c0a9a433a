"""Two MCP servers (as Claude Desktop and Claude Code would start them) answer searches while `update-db`
runs in a third process on the same embedded index, and see the new index without a restart."""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database

pytestmark = pytest.mark.slow

QUERY = "how are citation links resolved when building a corpus of papers?"


def environment(tmp_path: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "AGENT_ZOT_DATA_DIR": str(tmp_path / "state"),
        "AGENT_ZOT_INDEX_WORKERS": "1",
        # The servers' own watchers would index the full text themselves (tests/services/upkeep/test_update_worker.py): here
        # the update-db run beside them is the one under test.
        "AGENT_ZOT_AUTO_UPDATE": "0",
    }


async def update_db(library: Path, env: dict[str, str], *extra: str) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "agent_zot", "--library", str(library), "update-db", *extra,
        env=env, stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.PIPE,
    )  # fmt: skip


async def top_paper(client: Client) -> dict[str, Any]:
    result = await client.call_tool("zot_search", {"query": QUERY, "limit": 3})
    return result.structured_content["papers"][0]


async def test_two_servers_search_while_update_db_runs(tmp_path: Path) -> None:
    library = guard_database(ensure_demo_library(tmp_path / "library")).parent
    env = environment(tmp_path)
    first = await update_db(library, env, "--no-fulltext")  # metadata points only, for now
    assert await first.wait() == 0, (await first.stderr.read()).decode()  # type: ignore[union-attr]

    def server() -> Client:
        return Client(
            StdioTransport(sys.executable, ["-m", "agent_zot", "--library", str(library), "serve"], env=env)
        )

    async with server() as desktop, server() as code:
        for client in (desktop, code):
            before = await top_paper(client)
            assert before["title"].startswith("S2ORC")
            assert {p["kind"] for p in before["passages"]} == {"metadata"}  # no full text indexed yet

        indexer = await update_db(library, env)  # the full text, while both servers are up
        answered = 0
        while indexer.returncode is None:
            for client in (desktop, code):
                # Mid-run the ranking may shift as full texts arrive; what matters is a real answer.
                assert (await top_paper(client))["title"]
                answered += 1
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(indexer.wait(), timeout=0.2)
        assert indexer.returncode == 0, (await indexer.stderr.read()).decode()  # type: ignore[union-attr]
        assert answered >= 2

        for client in (desktop, code):  # the same server processes now find page-cited full text
            after = await top_paper(client)
            assert after["title"].startswith("S2ORC")
            chunk = next(p for p in after["passages"] if p["kind"] == "chunk")
            assert chunk["page_start"] >= 1 and chunk["attachment_key"]
