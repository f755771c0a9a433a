"""The HTTP transport as users run it: `agent-zot serve --transport http` in a subprocess on loopback, driven
by a real MCP client and by plain HTTP requests: the bearer token, the Host/Origin guard (DNS rebinding),
writes without a token, the refusal to serve a network address without one, and a bounded load test.

AGENT_ZOT_HTTP_LOAD="clients,searches" sets the load test's size (default 8 clients × 10 searches; the
figures in docs/performance.md come from 20 × 200)."""

from __future__ import annotations

import asyncio
import os
import socket
import statistics
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import httpx
import pytest
from click.testing import CliRunner
from fastmcp import Client
from fastmcp.client.transports import StreamableHttpTransport
from mcp.shared.exceptions import MCPError

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

TOKEN = "s3cret-token-for-tests"
INIT = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "t", "version": "1"},
    },
}
ACCEPT = {"Accept": "application/json, text/event-stream", "Content-Type": "application/json"}


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("http")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home")


def _serve(settings: Settings, tmp: Path, *, token: str | None, **env: str) -> Iterator[str]:
    port = _free_port()
    environment = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp / "home"),
        "AGENT_ZOT_ZOTERO_DATA_DIR": str(settings.zotero_data_dir),
        "AGENT_ZOT_DATA_DIR": str(settings.data_dir),
        "AGENT_ZOT_EXPORT_DIR": str(tmp / "exports"),
        "AGENT_ZOT_HTTP_PORT": str(port),
        **({"AGENT_ZOT_HTTP_TOKEN": token} if token else {}),
        **env,
    }
    # Its log goes to a file: a pipe nobody reads would stall the server once the pipe is full.
    log_path = tmp / f"serve-{port}.log"
    with log_path.open("wb") as log_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "agent_zot", "serve", "--transport", "http"],
            env=environment,
            stdout=subprocess.DEVNULL,
            stderr=log_file,
        )
    url = f"http://127.0.0.1:{port}/mcp"
    try:
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if proc.poll() is not None:
                raise AssertionError(log_path.read_text(errors="replace") or "server exited")
            try:
                with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                    break
            except OSError:
                time.sleep(0.1)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture(scope="module")
def server(demo: Settings, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    yield from _serve(demo, tmp_path_factory.mktemp("served"), token=TOKEN)


@pytest.mark.slow
async def test_the_right_token_gets_answers(server: str) -> None:
    async with Client(StreamableHttpTransport(server, auth=TOKEN)) as client:
        result = await client.call_tool(
            "zot_search", {"query": "citation graph of scientific papers", "limit": 3}
        )
    assert not result.is_error and result.structured_content["papers"]


@pytest.mark.parametrize("header", [None, "Bearer wrong-token", f"Basic {TOKEN}"])
@pytest.mark.slow
def test_no_token_or_a_wrong_one_is_refused(server: str, header: str | None) -> None:
    headers = ACCEPT | ({"Authorization": header} if header else {})
    response = httpx.post(server, json=INIT, headers=headers)
    assert response.status_code == 401


@pytest.mark.slow
async def test_a_wrong_token_fails_the_mcp_client(server: str) -> None:
    with pytest.raises(MCPError):  # the client reports the 401 as a failed request
        async with Client(StreamableHttpTransport(server, auth="not-the-token")) as client:
            await client.list_tools()


@pytest.mark.slow
def test_a_foreign_origin_and_a_rebinding_host_are_refused(server: str) -> None:
    authorised = ACCEPT | {"Authorization": f"Bearer {TOKEN}"}
    assert httpx.post(server, json=INIT, headers=authorised).status_code == 200
    foreign = httpx.post(server, json=INIT, headers=authorised | {"Origin": "http://evil.example"})
    assert foreign.status_code == 403
    rebinding = httpx.post(server, json=INIT, headers=authorised | {"Host": "evil.example:8765"})
    assert rebinding.status_code == 421


@pytest.mark.slow
async def test_writes_over_http_need_the_token_even_on_loopback(demo: Settings, tmp_path: Path) -> None:
    env = {
        "AGENT_ZOT_WRITES_ENABLED": "true",
        "AGENT_ZOT_ZOTERO_API_KEY": "k",
        "AGENT_ZOT_ZOTERO_LIBRARY_ID": "1",
    }
    for url in _serve(demo, tmp_path, token=None, **env):
        async with Client(StreamableHttpTransport(url)) as client:
            read = await client.call_tool("zot_manage_tags", {"query": "list tags"})
            write = await client.call_tool(
                "zot_manage_tags",
                {"force_mode": "add", "tags": ["x"], "item_keys": ["ABCD2345"]},
                raise_on_error=False,
            )
    assert not read.is_error
    assert write.is_error and "needs a bearer token" in write.content[0].text


def test_a_network_address_without_a_token_is_refused(tmp_path: Path) -> None:
    result = CliRunner().invoke(
        cli, ["serve", "--transport", "http", "--host", "0.0.0.0"], env={"AGENT_ZOT_DATA_DIR": str(tmp_path)}
    )
    assert result.exit_code == 2
    assert "Refusing to serve HTTP on 0.0.0.0 without a bearer token" in result.output


# Read at import: the tests' isolated environment drops AGENT_ZOT_* variables.
LOAD_SIZE = tuple(int(n) for n in os.environ.get("AGENT_ZOT_HTTP_LOAD", "8,10").split(","))


@pytest.mark.slow
async def test_concurrent_clients_under_load(server: str) -> None:
    clients, searches = LOAD_SIZE
    async with Client(
        StreamableHttpTransport(server, auth=TOKEN)
    ) as warm:  # the model loads before the clock
        await warm.call_tool("zot_search", {"query": "warm up", "limit": 1})
    queries = ["citation graph", "scientific text pretraining", "document layout parsing", "summaries"]
    latencies: list[float] = []
    errors: list[str] = []

    async def one(number: int) -> None:
        async with Client(StreamableHttpTransport(server, auth=TOKEN), timeout=120) as client:
            for i in range(searches):
                started = time.perf_counter()
                result = await client.call_tool(
                    "zot_search",
                    {"query": queries[(number + i) % len(queries)], "limit": 3},
                    raise_on_error=False,
                )
                latencies.append(time.perf_counter() - started)
                if result.is_error or not result.structured_content.get("papers"):
                    errors.append(result.content[0].text[:200])

    started = time.perf_counter()
    await asyncio.gather(*(one(n) for n in range(clients)))
    wall = time.perf_counter() - started
    assert not errors, errors[:3]
    assert len(latencies) == clients * searches
    cuts = statistics.quantiles(latencies, n=20)
    print(
        f"\nHTTP load: {clients} clients x {searches} searches in {wall:.1f} s; "
        f"p50 {statistics.median(latencies) * 1000:.0f} ms, p95 {cuts[18] * 1000:.0f} ms"
    )
