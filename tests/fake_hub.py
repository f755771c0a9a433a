"""A FAKE Hugging Face hub for tests: stdlib ``http.server`` on 127.0.0.1 serving one folder as model
``repo_id`` the way the hub's documented HTTP API does: ``GET /api/models/{id}/revision/{rev}`` (the file
listing, as ``siblings``) and ``GET /{id}/resolve/{rev}/{file}`` (the file, with Content-Length and the
commit in X-Repo-Commit). Requests are recorded; ``fail_once`` makes the first download of a file break off
midway, as a dropped connection does."""

from __future__ import annotations

import hashlib
import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from urllib.parse import unquote

COMMIT = "0123456789abcdef0123456789abcdef01234567"


class FakeHub:
    def __init__(self, repo_id: str, folder: Path) -> None:
        self.repo_id, self.folder = repo_id, folder
        self.requests: list[str] = []
        self.fail_once: set[str] = set()
        self.damaged: set[str] = set()  # served once with one byte changed (the listed SHA-256 then differs)
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def files(self) -> list[str]:
        return sorted(str(p.relative_to(self.folder)) for p in self.folder.rglob("*") if p.is_file())

    def sibling(self, name: str) -> dict[str, object]:
        """A file as the listing shows it; weights, as the hub stores them in LFS, with their SHA-256."""
        entry: dict[str, object] = {"rfilename": name}
        if name.endswith((".safetensors", ".bin", ".pt")):
            data = (self.folder / name).read_bytes()
            entry["lfs"] = {"sha256": hashlib.sha256(data).hexdigest(), "size": len(data)}
        return entry

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                path = unquote(self.path).split("?", 1)[0]
                hub.requests.append(path)
                listing = f"/api/models/{hub.repo_id}/revision/"
                resolve = f"/{hub.repo_id}/resolve/"
                if path.startswith(listing):
                    body = {
                        "id": hub.repo_id,
                        "sha": COMMIT,
                        "siblings": [hub.sibling(f) for f in hub.files()],
                    }
                    self._send(200, json.dumps(body).encode(), "application/json")
                elif (
                    path.startswith(resolve)
                    and (hub.folder / path[len(resolve) :].split("/", 1)[1]).is_file()
                ):
                    name = path[len(resolve) :].split("/", 1)[1]
                    data = (hub.folder / name).read_bytes()
                    if name in hub.damaged:
                        hub.damaged.discard(name)
                        data = bytes([data[0] ^ 1]) + data[1:]
                    if name in hub.fail_once:
                        hub.fail_once.discard(name)
                        self.send_response(200)
                        self.send_header("Content-Length", str(len(data)))
                        self.end_headers()
                        self.wfile.write(data[: len(data) // 2])  # then the connection drops
                        self.wfile.flush()
                        self.connection.close()
                        return
                    self._send(200, data, "application/octet-stream")
                else:
                    self._send(404, b'{"error": "Repository Not Found"}', "application/json")

            def _send(self, status: int, data: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(data)))
                self.send_header("X-Repo-Commit", COMMIT)
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: object) -> None:
                pass

        return Handler

    def __enter__(self) -> FakeHub:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
