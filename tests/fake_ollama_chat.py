"""A FAKE Ollama server for tests: a few lines of stdlib ``http.server`` on 127.0.0.1 (random port) that
answer Ollama's documented non-streaming ``POST /api/chat`` with canned content. It runs no model.

Requests are recorded (``fake.requests``) so tests can check what was sent (model, messages, the JSON
schema in ``format``, ``options``). Unknown models get Ollama's 404 ``{"error": "model 'x' not found"}``.
"""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any


class FakeOllamaChat:
    """Use as a context manager; set ``reply`` (a JSON-able value, or a raw string sent as is) per test."""

    def __init__(self, models: set[str], reply: Any = None) -> None:
        self.models = models
        self.reply: Any = reply if reply is not None else {"concepts": []}
        self.delay_s = 0.0
        self.status_override: int | None = None  # answer every request with this HTTP status
        self.requests: list[dict[str, Any]] = []
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    def _handler(self) -> type[BaseHTTPRequestHandler]:
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self) -> None:
                """GET /api/tags: the models this server has (Ollama's documented listing)."""
                if self.path != "/api/tags":
                    self.send_response(404)
                    self.end_headers()
                    return
                data = json.dumps({"models": [{"name": f"{m}:latest"} for m in sorted(fake.models)]}).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])) or b"{}")
                fake.requests.append(body)
                if fake.delay_s:
                    time.sleep(fake.delay_s)
                status, payload = fake.answer(self.path, body)
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        return Handler

    def answer(self, path: str, body: dict[str, Any]) -> tuple[int, dict[str, Any]]:
        if self.status_override is not None:
            return self.status_override, {"error": "fake server error"}
        if path != "/api/chat":
            return 404, {"error": "404 page not found"}
        model = body.get("model")
        if model not in self.models:
            return 404, {"error": f"model '{model}' not found"}
        content = self.reply if isinstance(self.reply, str) else json.dumps(self.reply)
        return 200, {
            "model": model,
            "created_at": "2025-01-01T00:00:00.000000Z",
            "message": {"role": "assistant", "content": content},
            "done": True,
            "done_reason": "stop",
            "total_duration": 1_000_000,
            "load_duration": 100_000,
            "prompt_eval_count": 10,
            "prompt_eval_duration": 100_000,
            "eval_count": 20,
            "eval_duration": 500_000,
        }

    def __enter__(self) -> FakeOllamaChat:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
