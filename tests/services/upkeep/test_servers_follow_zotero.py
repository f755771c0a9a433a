"""Several servers and a watcher on one data folder, as a person with agent-zot in Claude Desktop and in two
Claude Code windows has them: one server owns the embedded index, the others and the watcher's update-db
reach it through the owner's socket. A retag and a title edit made as Zotero makes them reach every server,
and the watcher reports each update as done (it once failed every time: an answer the owner could not send)."""

from __future__ import annotations

import contextlib
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from agent_zot.config import Settings
from agent_zot.zotero.edits import LocalEdits
from tests.conftest import index_library
from tests.services.upkeep.follow_zotero import WatchProcess, ZoteroStandIn

pytestmark = pytest.mark.slow

SERVERS = 3
NEW_TITLE = "Stake networks on Andean glaciers"
NEW_WORDS = "Andean networks"  # in the new title only
REPORT_TIMEOUT_S = 240.0  # an update-db run that loads the embedding model, on a busy 2-core machine


@pytest.fixture
def zotero(tmp_path: Path) -> ZoteroStandIn:
    library = ZoteroStandIn(tmp_path / "Zotero")
    library.add_paper("Bread", "Sourdough fermentation depends on lactic acid bacteria.")
    library.commit()
    return library


def _env(settings: Settings, home: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(home),
        "AGENT_ZOT_DATA_DIR": str(settings.data_dir),
        "AGENT_ZOT_WATCH_INTERVAL_S": "0.3",  # the servers' own watchers wait for the lock `watch` holds
    }


async def _papers(client: Client, **arguments: Any) -> list[dict[str, Any]]:
    result = await client.call_tool("zot_search", {"limit": 5, **arguments})
    assert not result.is_error, result.content[0].text
    return (result.structured_content or {}).get("papers", [])


def _found_by_its_words(papers: list[dict[str, Any]]) -> list[str]:
    """The papers the index matched by the query's own words (its lexical channel), not by meaning alone."""
    return [p["key"] for p in papers if "sparse" in p["found_by"]]


async def test_every_server_answers_with_a_retag_and_a_title_edit_and_watch_reports_success(
    zotero: ZoteroStandIn, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    settings = index_library(Settings(zotero_data_dir=zotero.folder, data_dir=tmp_path / "state"), home)
    env = _env(settings, home)
    watcher = WatchProcess(zotero.folder, env)
    try:
        assert "indexed 0" in watcher.next_report(REPORT_TIMEOUT_S)  # the catch-up run at start: nothing new
        async with contextlib.AsyncExitStack() as stack:
            servers = [
                await stack.enter_async_context(
                    Client(
                        StdioTransport(
                            sys.executable,
                            ["-m", "agent_zot", "--library", str(zotero.folder), "serve"],
                            env=env,
                        )
                    )
                )
                for _ in range(SERVERS)
            ]
            for server in servers:  # the first to search owns the index; the others are its clients
                (top, *_) = await _papers(server, query="glacier stakes drilled into the ice")
                assert top["key"] == zotero.first
                assert _found_by_its_words(await _papers(server, query=NEW_WORDS)) == []
                assert await _papers(server, query="glacier stakes", tags=["fieldwork"]) == []

            edits = LocalEdits(zotero.db)
            edits.add_tag([zotero.first], "fieldwork")
            retag = watcher.next_report(REPORT_TIMEOUT_S)
            assert "updated in place 1" in retag and "failed" not in retag, retag
            for server in servers:
                tagged = await _papers(server, query="glacier stakes", tags=["fieldwork"])
                assert [p["key"] for p in tagged] == [zotero.first]

            edits.set_field(zotero.first, "title", NEW_TITLE)
            edited = watcher.next_report(REPORT_TIMEOUT_S)
            assert "updated in place 1" in edited and "failed" not in edited, edited
            written = zotero.db.read_bytes()
            for server in servers:
                (top, *_) = await _papers(server, query="stake networks on Andean glaciers")
                assert top["key"] == zotero.first and top["title"] == NEW_TITLE
                assert _found_by_its_words(await _papers(server, query=NEW_WORDS)) == [zotero.first]
                assert any(
                    p["kind"] == "chunk" and p["page_start"] == 1 for p in top["passages"]
                )  # text kept
    finally:
        watcher.stop()
    assert not any("failed" in line for line in watcher.errors), "".join(watcher.errors)
    assert zotero.db.read_bytes() == written  # agent-zot only read it
