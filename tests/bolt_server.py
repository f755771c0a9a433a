"""A real Bolt server for tests: ArcadeDB (from the ``arcadedb-embedded`` dev dependency) with its Bolt
plugin, on free loopback ports, in a temporary folder.

It runs in a child process, not in pytest's: JPype starts one JVM per process and never a second, and a
JVM inside pytest would outlive every fixture. The child prints ``READY`` once the server listens and
stops the server when its stdin closes, so the parent ends it by closing the pipe (and kills it only if
that does not work; the JVM ignores SIGTERM while the server runs).

Run as a script (``python tests/bolt_server.py ROOT BOLT_PORT HTTP_PORT PASSWORD DATABASE``) it is that
child. Imported, it offers ``start_bolt_server`` and the session fixture ``bolt_server``.
"""

from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

USER = "root"
PASSWORD = "agent-zot-test"  # ArcadeDB wants at least 8 characters
DATABASE = "agentzot"
READY = "READY"
PLUGIN = "Bolt:com.arcadedb.bolt.BoltProtocolPlugin"


@dataclass
class BoltServer:
    url: str
    user: str
    password: str
    database: str
    startup_s: float
    process: subprocess.Popen[str] = field(repr=False)
    log_path: Path = field(repr=False)

    def stop(self, timeout: float = 20.0) -> None:
        if self.process.poll() is not None:
            return
        if self.process.stdin is not None:
            self.process.stdin.close()  # the child's cue to stop the server and exit
        try:
            self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=timeout)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_answers(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _log_tail(path: Path, lines: int = 30) -> str:
    try:
        return "\n".join(path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


def start_bolt_server(root: Path, *, timeout: float = 120.0) -> BoltServer:
    """Start the child and wait until it says READY and its Bolt port accepts connections."""
    root.mkdir(parents=True, exist_ok=True)
    bolt_port, http_port = free_port(), free_port()
    log_path = root / "server.log"
    started = time.perf_counter()
    with log_path.open("w") as log:
        # cwd=root: ArcadeDB writes ./log relative to the working directory.
        process = subprocess.Popen(
            [sys.executable, str(Path(__file__).resolve()), str(root / "databases"), str(bolt_port),
             str(http_port), PASSWORD, DATABASE],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=log, text=True, cwd=root,
        )  # fmt: skip
    server = BoltServer(f"bolt://127.0.0.1:{bolt_port}", USER, PASSWORD, DATABASE, 0.0, process, log_path)
    assert process.stdout is not None
    line = process.stdout.readline()  # blocks until READY or the child dies (EOF)
    if line.strip() != READY:
        server.stop()
        raise RuntimeError(f"ArcadeDB Bolt server did not start:\n{_log_tail(log_path)}")
    while not _port_answers(bolt_port):
        if time.perf_counter() - started > timeout or process.poll() is not None:
            server.stop()
            raise RuntimeError(f"ArcadeDB Bolt port {bolt_port} never answered:\n{_log_tail(log_path)}")
        time.sleep(0.05)
    server.startup_s = time.perf_counter() - started
    return server


@pytest.fixture(scope="session")
def bolt_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[BoltServer]:
    server = start_bolt_server(tmp_path_factory.mktemp("arcadedb"))
    print(f"\nArcadeDB Bolt server at {server.url} started in {server.startup_s:.2f}s")
    try:
        yield server
    finally:
        server.stop()


# -- the child -------------------------------------------------------------------------------------


def _serve(root: str, bolt_port: int, http_port: int, password: str, database: str) -> None:
    import arcadedb_embedded

    config = {"http_port": http_port, "server_plugins": PLUGIN, "bolt_port": bolt_port}
    server = arcadedb_embedded.create_server(root, root_password=password, config=config)
    server.start()
    try:
        server.create_database(database)
        print(READY, flush=True)
        sys.stdin.read()  # until the parent closes the pipe (or dies)
    finally:
        server.stop()


if __name__ == "__main__":
    _serve(sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], sys.argv[5])
