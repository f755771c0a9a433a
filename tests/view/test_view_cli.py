"""`agent-zot view` on the command line, and its loopback server."""

from __future__ import annotations

import http.client
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.services.context import AppContext
from agent_zot.view import serve
from agent_zot.zotero.demo import ensure_demo_library
from tests.view.view_fixtures import demo_settings


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return demo_settings(tmp_path_factory)


@pytest.fixture
def closes(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts AppContext.close() calls: a command that opens the index must close it, error or not."""
    calls: list[int] = []
    original = AppContext.close

    def close(self: AppContext) -> None:
        calls.append(1)
        original(self)

    monkeypatch.setattr(AppContext, "close", close)
    return calls


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    urls: list[str] = []
    monkeypatch.setattr("webbrowser.open", lambda url, *a, **k: urls.append(url) or True)
    return urls


def run(settings: Settings, *args: str) -> tuple[int, str, str]:
    env = {"AGENT_ZOT_DATA_DIR": str(settings.data_dir)}
    result = CliRunner().invoke(cli, ["--library", str(settings.zotero_data_dir), "view", *args], env=env)
    return result.exit_code, result.stdout, result.stderr


def test_writes_the_page_and_opens_it(
    demo: Settings, tmp_path: Path, closes: list[int], opened: list[str]
) -> None:
    out = tmp_path / "graph.html"
    code, stdout, stderr = run(demo, "--out", str(out))
    assert code == 0, stderr
    assert (
        "The whole library: 7 papers, 4 citations, 1 shared-author link and 1 shared-concept link." in stdout
    )
    assert f"Wrote {out}" in stderr and out.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert opened == [out.resolve().as_uri()] and closes == [1]


def test_default_path_and_no_open(demo: Settings, opened: list[str]) -> None:
    code, stdout, stderr = run(demo, "--no-open", "--collection", "Methods")
    assert code == 0, stderr
    page = demo.data_dir / "view" / "collection-thesis-methods.html"
    assert page.is_file() and f"Wrote {page}" in stderr and "3 papers" in stdout
    assert opened == []


def test_cap_says_what_was_left_out(demo: Settings, tmp_path: Path) -> None:
    code, stdout, _ = run(demo, "--no-open", "--out", str(tmp_path / "g.html"), "--max-nodes", "3")
    assert code == 0 and "Showing the 3 most connected of 7 papers; 4 left out." in stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--collection", "Zoology"], "No collection matches 'Zoology'. Collections: Reading list, Thesis"),
        (["--author", "Devlim"], "Close names: Jacob Devlin."),
        (["--item", "VP87HHZ5"], "Did you mean: [VP87HHZ4]"),
    ],
)
def test_unknown_names(demo: Settings, closes: list[int], args: list[str], message: str) -> None:
    code, _, stderr = run(demo, "--no-open", *args)
    assert code == 2 and message in stderr and "Traceback" not in stderr
    assert closes == [1]


def test_unwritable_out(demo: Settings, tmp_path: Path) -> None:
    code, _, stderr = run(demo, "--no-open", "--out", str(tmp_path / "missing" / "g.html"))
    assert code == 2 and "the folder" in stderr and "does not exist" in stderr
    code, _, stderr = run(demo, "--no-open", "--out", str(tmp_path))
    assert code == 2 and "is a folder" in stderr


def test_no_index_yet(tmp_path: Path, closes: list[int]) -> None:
    db = ensure_demo_library(tmp_path / "demo")
    settings = Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state")
    code, _, stderr = run(settings, "--no-open")
    assert code == 2 and "Build it with `agent-zot update-db`" in stderr and closes == [1]


def test_serve_command_prints_a_loopback_url(
    demo: Settings, monkeypatch: pytest.MonkeyPatch, opened: list[str]
) -> None:
    def stop(self: object, *args: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C as soon as it serves

    monkeypatch.setattr("http.server.ThreadingHTTPServer.serve_forever", stop)
    code, _, stderr = run(demo, "--serve", "--port", "0")
    assert code == 0, stderr
    assert "Serving the graph at http://127.0.0.1:" in stderr
    assert len(opened) == 1 and opened[0].startswith("http://127.0.0.1:")


@pytest.fixture
def server() -> Iterator[serve.ThreadingHTTPServer]:
    httpd = serve.make_server("<!DOCTYPE html><p>graph</p>", 0)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()
    thread.join(5)


def get(server: serve.ThreadingHTTPServer, path: str, host: str | None = None) -> tuple[int, bytes]:
    port = server.server_address[1]
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path, headers={"Host": host or f"127.0.0.1:{port}"})
        response = conn.getresponse()
        return response.status, response.read()
    finally:
        conn.close()


def test_server_answers_on_loopback_only(server: serve.ThreadingHTTPServer) -> None:
    assert server.server_address[0] == "127.0.0.1"
    assert get(server, "/") == (200, b"<!DOCTYPE html><p>graph</p>")
    assert get(server, "/?x=1")[0] == 200
    assert get(server, "/etc/passwd")[0] == 404
    port = server.server_address[1]
    assert get(server, "/", host=f"localhost:{port}")[0] == 200
    assert get(server, "/", host=f"evil.example:{port}")[0] == 403  # DNS rebinding


def test_port_in_use(server: serve.ThreadingHTTPServer) -> None:
    from agent_zot.errors import AgentZotError

    with pytest.raises(AgentZotError, match="--port"):
        serve.make_server("x", server.server_address[1])
