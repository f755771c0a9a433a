"""Several servers and a watcher on one data folder: how long a Zotero edit takes to reach every server.

    .venv/bin/python scripts/bench_servers.py [--library DIR] [--servers 4] [--rounds 3] [--interval 1]
        [--timeout 120] [--work DIR] [--pythonpath DIR] [--json-out FILE]

The setup of a person with agent-zot in Claude Desktop and in Claude Code windows: N `agent-zot serve`
processes (stdio MCP, driven by fastmcp's client) and one `agent-zot watch` on one data folder. One server
owns the embedded index; the others, and the watcher's update-db, reach it through the owner's socket.

1. The library (default: ../shared/data/zotero/hsteinshiromoto-z6, a real Zotero 6 library with 17 PDFs) is
   copied to --work and indexed with `update-db`; the original is never touched.
2. `watch --interval` starts, then the servers; each server searches in a loop all along (a topic query
   every 0.2 s), so the edits land on servers under load; calls and errors are counted.
3. Each round edits the copy as Zotero does (agent_zot.zotero.edits): a new tag on one paper, then a new
   title on another. For each edit: the seconds from the commit to the watcher's report line, and to the
   moment each server answers with the change (a zot_search filtered by the new tag returns the paper; a
   search for the new title's own words finds the paper by them, its lexical channel matching), polled
   every 0.25 s per server up to --timeout.

--pythonpath runs every agent-zot process on another checkout (e.g. a git worktree of an older commit).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import queue
import re
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from agent_zot.config import Settings
from agent_zot.services.context import AppContext
from agent_zot.zotero.edits import LocalEdits

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data" / "zotero"
_REPORTED_FAILURE = re.compile(r"\d\d:\d\d:\d\d update failed")
LOAD_QUERIES = ("neural networks", "evaluation of the method", "data sets used", "related work", "results")


def main() -> None:
    args = _arguments()
    work = Path(args.work or tempfile.mkdtemp(prefix="bench-servers-"))
    library = work / "Zotero"
    shutil.rmtree(work / "state", ignore_errors=True)
    shutil.rmtree(library, ignore_errors=True)
    shutil.copytree(args.library, library)
    env = _environment(work, args)
    started = time.monotonic()
    # Every process starts in --work, so that this repository's agent_zot does not shadow --pythonpath.
    subprocess.run(
        _agent(library, "update-db", "--json"), env=env, cwd=work, check=True, stdout=subprocess.DEVNULL
    )
    print(f"indexed {library} in {time.monotonic() - started:.1f} s", file=sys.stderr)
    papers = _papers_with_titles(library, work)
    result = asyncio.run(_run(library, env, papers, args))
    result |= {"library": str(args.library), "servers": args.servers, "interval_s": args.interval}
    print(_table(result))
    if args.json_out:
        Path(args.json_out).write_text(json.dumps(result, indent=2), encoding="utf-8")


def _arguments() -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--library", type=Path, default=SHARED / "hsteinshiromoto-z6")
    parser.add_argument("--servers", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--interval", type=float, default=1.0, help="watch --interval")
    parser.add_argument("--timeout", type=float, default=120.0, help="seconds an edit may take to show")
    parser.add_argument("--work", type=Path)
    parser.add_argument("--pythonpath", type=Path, help="run agent-zot from this checkout")
    parser.add_argument("--json-out", type=Path)
    return parser.parse_args()


def _environment(work: Path, args: argparse.Namespace) -> dict[str, str]:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(work / "home"),
        "AGENT_ZOT_DATA_DIR": str(work / "state"),
        "AGENT_ZOT_WATCH_INTERVAL_S": str(args.interval),
    }
    if args.pythonpath:
        env["PYTHONPATH"] = str(args.pythonpath.resolve())
    return env


def _agent(library: Path, *command: str) -> list[str]:
    return [sys.executable, "-m", "agent_zot", "--library", str(library), *command]


def _papers_with_titles(library: Path, work: Path) -> list[tuple[str, str]]:
    """(key, title) of the library's papers that have an indexed PDF, read as agent-zot reads them."""
    ctx = AppContext(Settings(zotero_data_dir=library, data_dir=work / "state"), home=work / "home")
    try:
        items = ctx.library().items.values()
        return sorted(
            (i.key, i.title) for i in items if i.title and any(a.is_pdf and a.exists for a in i.attachments)
        )
    finally:
        ctx.close()


class _Watch:
    def __init__(self, library: Path, env: dict[str, str], interval: float) -> None:
        self.proc = subprocess.Popen(
            _agent(library, "watch", "--interval", str(interval)),
            env=env,
            cwd=library.parent,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
        )
        self.reports: queue.Queue[tuple[float, str]] = queue.Queue()
        self.failures: list[str] = []
        threading.Thread(target=self._read, args=(self.proc.stdout, False), daemon=True).start()
        threading.Thread(target=self._read, args=(self.proc.stderr, True), daemon=True).start()

    def _read(self, stream: Any, errors: bool) -> None:
        for line in stream:
            if not errors:
                self.reports.put((time.monotonic(), line.strip()))
            elif _REPORTED_FAILURE.match(line):  # watch's own report line, not the log line before it
                self.failures.append(line.strip())
                self.reports.put((time.monotonic(), line.strip()))

    async def next_report(self, timeout: float) -> tuple[float, str] | None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            with contextlib.suppress(queue.Empty):
                return self.reports.get_nowait()
            await asyncio.sleep(0.05)
        return None

    def stop(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            os.killpg(self.proc.pid, signal.SIGINT)
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(self.proc.pid, signal.SIGKILL)
            self.proc.wait()


class _Load:
    """Searches on every server all along, as assistants in several windows would."""

    def __init__(self) -> None:
        self.calls = 0
        self.errors: list[str] = []

    async def run(self, client: Client, stop: asyncio.Event) -> None:
        n = 0
        while not stop.is_set():
            try:
                result = await client.call_tool(
                    "zot_search", {"query": LOAD_QUERIES[n % len(LOAD_QUERIES)]}, raise_on_error=False
                )
                if result.is_error:
                    self.errors.append(result.content[0].text[:200])
            except Exception as exc:  # noqa: BLE001 - a benchmark counts every failure a client sees
                self.errors.append(f"{type(exc).__name__}: {exc}"[:200])
            self.calls += 1
            n += 1
            await asyncio.sleep(0.2)


async def _shows(client: Client, arguments: dict[str, Any], key: str, *, lexical: bool) -> bool:
    result = await client.call_tool("zot_search", {"limit": 5, **arguments}, raise_on_error=False)
    papers = (result.structured_content or {}).get("papers", [])
    if lexical:
        return any(p["key"] == key and "sparse" in p.get("found_by", []) for p in papers)
    return any(p["key"] == key for p in papers)


async def _until_every_server_shows(
    servers: list[Client], arguments: dict[str, Any], key: str, *, lexical: bool, since: float, timeout: float
) -> list[float | None]:
    async def one(client: Client) -> float | None:
        while time.monotonic() - since < timeout:
            if await _shows(client, arguments, key, lexical=lexical):
                return round(time.monotonic() - since, 2)
            await asyncio.sleep(0.25)
        return None

    return list(await asyncio.gather(*(one(client) for client in servers)))


async def _run(
    library: Path, env: dict[str, str], papers: list[tuple[str, str]], args: argparse.Namespace
) -> dict[str, Any]:
    watch = _Watch(library, env, args.interval)
    edits = LocalEdits(library / "zotero.sqlite")
    load, stop = _Load(), asyncio.Event()
    rounds: list[dict[str, Any]] = []
    try:
        first = await watch.next_report(args.timeout)
        print(f"watch: {first[1] if first else 'no report'}", file=sys.stderr)
        async with contextlib.AsyncExitStack() as stack:
            command = _agent(library, "serve")
            servers = [
                await stack.enter_async_context(
                    Client(
                        StdioTransport(command[0], command[1:], env=env, cwd=str(library.parent)),
                        timeout=args.timeout,
                    )
                )
                for _ in range(args.servers)
            ]
            loaders = [asyncio.create_task(load.run(server, stop)) for server in servers]
            for r in range(args.rounds):
                (tag_key, tag_title), (title_key, _) = (
                    papers[(2 * r) % len(papers)],
                    papers[(2 * r + 1) % len(papers)],
                )
                tag = f"bench-servers-{r}"
                since = time.monotonic()
                edits.add_tag([tag_key], tag)
                report = await watch.next_report(args.timeout)
                seen = await _until_every_server_shows(
                    servers,
                    {"query": tag_title, "tags": [tag]},
                    tag_key,
                    lexical=False,
                    since=since,
                    timeout=args.timeout,
                )
                rounds.append(_round("tag", report, since, seen))
                words = f"Quokka{r} wombat{r}"
                since = time.monotonic()
                edits.set_field(title_key, "title", f"{words}: a benchmark title")
                report = await watch.next_report(args.timeout)
                seen = await _until_every_server_shows(
                    servers, {"query": words}, title_key, lexical=True, since=since, timeout=args.timeout
                )
                rounds.append(_round("title", report, since, seen))
                print(rounds[-2], rounds[-1], sep="\n", file=sys.stderr)
            stop.set()
            await asyncio.gather(*loaders)
    finally:
        watch.stop()
    return {"rounds": rounds, "calls": load.calls, "errors": len(load.errors), "error_samples": load.errors[:3],
            "watch_failures": watch.failures[:3]}  # fmt: skip


def _round(
    edit: str, report: tuple[float, str] | None, since: float, seen: list[float | None]
) -> dict[str, Any]:
    return {
        "edit": edit,
        "watch_report_s": round(report[0] - since, 2) if report else None,
        "watch_report": report[1] if report else "none",
        "servers_s": seen,
    }


def _table(result: dict[str, Any]) -> str:
    lines = [
        f"{result['servers']} servers + watch --interval {result['interval_s']:g} on {result['library']}",
        "| edit | watch reports (s) | every server answers with it (s, slowest) | servers that never did |",
        "|---|---|---|---|",
    ]
    for r in result["rounds"]:
        done = [s for s in r["servers_s"] if s is not None]
        slowest = f"{max(done):.1f}" if len(done) == len(r["servers_s"]) else "—"
        report = f"{r['watch_report_s']:.1f}" if r["watch_report_s"] is not None else "none"
        if "failed" in r["watch_report"]:
            report += " (failed)"
        lines.append(f"| {r['edit']} | {report} | {slowest} | {len(r['servers_s']) - len(done)} |")
    by_edit: dict[str, list[float]] = {}
    for r in result["rounds"]:
        if all(s is not None for s in r["servers_s"]):
            by_edit.setdefault(r["edit"], []).append(max(r["servers_s"]))
    for edit, values in by_edit.items():
        lines.append(f"median slowest server, {edit}: {statistics.median(values):.1f} s")
    lines.append(f"search calls during the run: {result['calls']}, errors: {result['errors']}")
    return "\n".join(lines)


if __name__ == "__main__":
    main()
