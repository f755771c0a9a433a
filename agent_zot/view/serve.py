"""`agent-zot view --serve`: the page on a loopback address, for browsers that restrict file:// pages."""

from __future__ import annotations

from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from agent_zot.errors import AgentZotError

HOST = "127.0.0.1"  # loopback only: the page holds the library's titles and abstracts
DEFAULT_PORT = 8766


def make_server(page: str, port: int = DEFAULT_PORT) -> ThreadingHTTPServer:
    """A server answering GET / with the page (port 0 picks a free one); start it with serve_forever()."""
    body = page.encode("utf-8")

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            # the bound port, read from the server below (port 0 was a free one chosen at bind)
            if not _local_host(self.headers.get("Host", ""), server.server_port):
                # A page elsewhere that rebinds its DNS name to 127.0.0.1 must not read the library.
                self.send_error(HTTPStatus.FORBIDDEN, "Open the page at http://127.0.0.1")
                return
            if self.path.split("?", 1)[0] not in ("/", "/index.html"):
                self.send_error(HTTPStatus.NOT_FOUND)
                return
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", "text/html; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass  # one line per request would bury the URL the command printed

    try:
        server = ThreadingHTTPServer((HOST, port), Handler)
    except OSError as exc:
        raise AgentZotError(
            f"Cannot serve on {HOST}:{port}: {exc.strerror or exc}.",
            hint="Pick another port with --port (0 picks a free one).",
        ) from exc
    return server


def _local_host(host: str, port: int) -> bool:
    name = host.rsplit(":", 1)[0] if not host.endswith("]") else host
    return name in ("127.0.0.1", "localhost", "[::1]", "") and (
        host in ("", name) or host.endswith(f":{port}")
    )


def url(server: ThreadingHTTPServer) -> str:
    return f"http://{HOST}:{server.server_port}/"
