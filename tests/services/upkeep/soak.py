"""A concurrency soak on loopback: several MCP servers (real `agent-zot serve` processes over stdio) search
one index without pause while `update-db` and `update-db --force-rebuild` run beside them.

Invariants checked by the caller: every search answers (no error, at least one paper), both updates
succeed, and the final index is identical to a clean build of the same library (state, points, graph):
the first build, whose contents the report keeps.
Used by tests/services/upkeep/test_soak.py (CI size) and by a nightly-size run (`AGENT_ZOT_SOAK_FULLTEXT=1`, a larger
library); the figures go to docs/performance.md.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from agent_zot.config import Settings
from agent_zot.graph.resources import GraphResources
from agent_zot.index.resources import IndexResources
from agent_zot.zotero.reader import load_library

RUNNING = "rebuild of the index is running"


@dataclass
class SearchCall:
    started: float
    seconds: float
    papers: int
    error: str | None
    during_rebuild_note: bool
    server: int


@dataclass
class SoakReport:
    calls: list[SearchCall] = field(default_factory=list)
    updates: dict[str, tuple[int, str]] = field(default_factory=dict)  # command -> (exit code, output tail)
    rebuild_window: tuple[float, float] = (0.0, 0.0)
    seconds: float = 0.0
    built: dict[str, Any] = field(default_factory=dict)  # index_contents of the first (clean) build

    @property
    def failures(self) -> list[SearchCall]:
        return [c for c in self.calls if c.error is not None or c.papers == 0]

    @property
    def during_rebuild(self) -> list[SearchCall]:
        start, end = self.rebuild_window
        return [c for c in self.calls if start <= c.started and c.started + c.seconds <= end]

    def percentile(self, q: float) -> float:
        ordered = sorted(c.seconds for c in self.calls)
        return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else 0.0

    def summary(self) -> dict[str, Any]:
        return {
            "calls": len(self.calls),
            "failures": len(self.failures),
            "calls_during_rebuild": len(self.during_rebuild),
            "answers_noting_the_rebuild": sum(c.during_rebuild_note for c in self.calls),
            "p50_ms": round(statistics.median([c.seconds for c in self.calls]) * 1000, 1)
            if self.calls
            else 0,
            "p95_ms": round(self.percentile(0.95) * 1000, 1),
            "rebuild_s": round(self.rebuild_window[1] - self.rebuild_window[0], 1),
            "seconds": round(self.seconds, 1),
            "updates": {name: code for name, (code, _) in self.updates.items()},
        }


def _env(data_dir: Path) -> dict[str, str]:
    return {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(data_dir.parent / "home"),
        "AGENT_ZOT_DATA_DIR": str(data_dir),
        # The updates under test are the two update-db runs. A server's own watcher would add a third at
        # low priority (a full-text one over a metadata-only index), which the plain update-db waits for
        # while the searches starve it: minutes of a soak that means to last seconds.
        "AGENT_ZOT_AUTO_UPDATE": "false",
    }


def _cli(library: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "agent_zot", "--library", str(library), *args]


async def update_db(library: Path, data_dir: Path, *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *_cli(library, "update-db", *args),
        env=_env(data_dir),
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.STDOUT,
    )
    output, _ = await process.communicate()
    return process.returncode or 0, output.decode("utf-8", "replace")[-2000:]


async def _searcher(
    server: int,
    client: Client,
    queries: list[str],
    stop: asyncio.Event,
    report: SoakReport,
    origin: float,
    pause_s: float,
) -> None:
    turn = server
    while not stop.is_set():
        await asyncio.sleep(pause_s)
        query = queries[turn % len(queries)]
        turn += 1
        started = time.perf_counter()
        try:
            result = await asyncio.wait_for(
                client.call_tool("zot_search", {"query": query, "limit": 3}, raise_on_error=False), 120
            )
        except TimeoutError:
            report.calls.append(SearchCall(started - origin, 120.0, 0, "no answer in 120 s", False, server))
            continue
        seconds = time.perf_counter() - started
        text = result.content[0].text if result.content else ""
        data = result.structured_content or {}
        report.calls.append(
            SearchCall(
                started - origin,
                seconds,
                len(data.get("papers", [])),
                text[:300] if result.is_error else None,
                RUNNING in text,
                server,
            )
        )


async def soak(
    library: Path, data_dir: Path, *, servers: int = 4, fulltext: bool = False, pause_s: float = 0.2
) -> SoakReport:
    """Build the index, then search from ``servers`` servers (each waiting ``pause_s`` between its calls,
    as an assistant between questions) while `update-db --force-rebuild` and a plain `update-db` run at
    once; searching goes on a little after both end."""
    fulltext_args = () if fulltext else ("--no-fulltext",)
    code, output = await update_db(library, data_dir, *fulltext_args)
    if code != 0:
        raise RuntimeError(f"the first build failed: {output}")
    items = load_library(library / "zotero.sqlite").items.values()
    queries = sorted({item.title for item in items if len(item.title) > 12})[:40]

    # The first build is a clean build of the library in a new folder: what the soaked index must equal
    report = SoakReport(built=index_contents(data_dir))
    origin = time.perf_counter()
    stop = asyncio.Event()
    clients = [
        Client(StdioTransport(sys.executable, _cli(library, "serve")[1:], env=_env(data_dir)))
        for _ in range(servers)
    ]
    for client in clients:
        await client.__aenter__()
    try:
        for number, client in enumerate(clients):  # each server is warm (model loaded) before the updates
            await client.call_tool("zot_search", {"query": queries[number % len(queries)], "limit": 1})
        tasks = [
            asyncio.create_task(_searcher(n, c, queries, stop, report, origin, pause_s))
            for n, c in enumerate(clients)
        ]
        await asyncio.sleep(1.0)
        rebuild_started = time.perf_counter() - origin
        rebuild = asyncio.create_task(update_db(library, data_dir, "--force-rebuild", *fulltext_args))
        await asyncio.sleep(0.5)
        plain = asyncio.create_task(update_db(library, data_dir, *fulltext_args))
        report.updates["update-db --force-rebuild"] = await rebuild
        report.rebuild_window = (rebuild_started, time.perf_counter() - origin)
        report.updates["update-db"] = await plain
        await asyncio.sleep(2.0)  # the servers move to the new generation on their next calls
        stop.set()
        await asyncio.gather(*tasks)
    finally:
        for client in clients:
            await client.__aexit__(None, None, None)
    report.seconds = time.perf_counter() - origin
    return report


def index_contents(data_dir: Path) -> dict[str, Any]:
    """What the live index holds, independent of when and how it was built: the state rows (without
    timestamps), every item's point ids, and the graph's node and edge counts."""
    settings = Settings(data_dir=data_dir)
    resources = IndexResources(settings)
    graph = GraphResources(settings, resources.folder / "state.sqlite")
    try:
        resources.open()
        conn = resources.state._conn
        items = conn.execute(
            "SELECT item_key, fingerprint, status, chunks FROM items ORDER BY item_key"
        ).fetchall()
        attachments = conn.execute(
            "SELECT attachment_key, item_key, fingerprint, source, pages, chunks, status, reason, references_text "
            "FROM attachments ORDER BY attachment_key"
        ).fetchall()
        pages = hashlib.sha256()
        for row in conn.execute(
            "SELECT attachment_key, number, text FROM pages ORDER BY attachment_key, number"
        ):
            pages.update(repr(row).encode())
        points = {key: sorted(hit.id for hit in resources.store.get_by_item(key)) for key, *_ in items}
        return {
            "items": items,
            "attachments": attachments,
            "pages": pages.hexdigest(),
            "points": points,
            "point_count": resources.store.count(),
            "graph": graph.local.stored_counts(),
        }
    finally:
        graph.close()
        resources.close()


def generations_on_disk(data_dir: Path) -> list[str]:
    """The generations left in the index folder after retired ones were swept."""
    resources = IndexResources(Settings(data_dir=data_dir))
    try:
        resources.sweep()
    finally:
        resources.close()
    folder = data_dir / "index" / "generations"
    return sorted(p.name for p in folder.iterdir()) if folder.is_dir() else []
