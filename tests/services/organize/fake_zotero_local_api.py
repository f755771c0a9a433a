"""A FAKE of the Zotero app's local API as Zotero 10 serves it (and as Zotero 9 refuses writes), for tests.

It is not Zotero. It follows docs/research/zotero-10-local-api.md section 1 (server_localAPI.js and server.js
at tag 10.0.0), on top of the web-API fake's data endpoints:

- every answer carries ``Zotero-API-Version``, ``Zotero-Schema-Version`` and ``Zotero-Server-ID``
  (Zotero 9: no server ID, and a write answers 400 "Endpoint does not support method");
- checks in Zotero's order: local API off → 403 "Local API is not enabled"; ``Zotero-Server-ID`` sent but
  another → 412, missing on a write → 428; API version ≠ 3 → 501; a write without a known key → 401
  (a single-use key is consumed by the first write that validates it); a library not editable → 403;
- ``POST /api/local/authorize`` {"appName"}: a dialog whose answers the test scripts (allow once, always
  allow, deny, or no answer for a while); 5 prompts per 60 s, then 429 with Retry-After;
- more than 50 objects → 413; per-object versions (412 when stale), and edits "made in Zotero";
- a request that looks like a browser's (``User-Agent: Mozilla/…`` or an ``Origin``) and is not marked
  (``Zotero-Allowed-Request``) is dropped with no answer.
"""

from __future__ import annotations

import random
import string
import threading
import time
from dataclasses import dataclass
from typing import Any

from agent_zot.zotero.models import Library
from tests.services.organize.fake_zotero_api import Answer, FakeZoteroApi, Seen, _route

PROMPTS_PER_MINUTE = 5
SCHEMA_VERSION = "42"


@dataclass
class DialogAnswer:
    """What the person clicks in Zotero's "Local API Authorization" dialog, after ``after_s`` seconds;
    ``button`` None: nobody answers (the request stays open until the test ends)."""

    button: str | None  # "allow" | "always" | "deny" | None
    after_s: float = 0.0


class FakeZoteroLocalApi(FakeZoteroApi):
    """The local API of one fake Zotero instance (user library ``users/0``)."""

    def __init__(
        self,
        library: Library,
        *,
        generation: int = 10,
        enabled: bool = True,
        editable: bool = True,
        server_id: str = "SRVaaaa11111",
    ) -> None:
        super().__init__(library, prefix="/users/0", api_key=None, base_path="/api")
        self.generation = generation
        self.enabled = enabled
        self.editable = editable
        self.server_id = server_id
        self.keys: dict[str, bool] = {}  # key -> remember (Always Allow)
        self.consumed: list[str] = []
        self.dialog: list[DialogAnswer] = []
        self.prompts: list[float] = []  # when each dialog was shown (monotonic)
        self.dropped: list[Seen] = []
        self._closing = threading.Event()
        self._key_rng = random.Random(5)

    def __exit__(self, *exc: object) -> None:
        self._closing.set()  # an unanswered dialog gives up, so the server can stop
        super().__exit__(*exc)

    # -- test controls -------------------------------------------------------------------------

    def answer_dialog(self, *answers: str | None, after_s: float = 0.0) -> None:
        """Queue the person's answers to the next dialogs, in order."""
        self.dialog.extend(DialogAnswer(a, after_s) for a in answers)

    def clear_authorizations(self) -> None:
        """Settings › Advanced › "Clear Write Authorizations"."""
        self.keys.clear()

    # -- serving -------------------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, str], headers: Any, body: Any) -> Answer | None:
        seen = Seen(method, path, query, dict(headers), body)
        if _looks_like_a_browser(headers):
            with self.lock:
                self.dropped.append(seen)
            return None
        if self.generation >= 10 and path == "/api/local/authorize":
            with self.lock:
                self.requests.append(seen)
                refused = self._precheck(method, headers, query, body)
                if refused is None and (
                    not isinstance(body, dict) or not str(body.get("appName", "")).strip()
                ):
                    refused = 400, {}, b"appName is required"
                if refused is None:
                    refused = self._rate_limited()
                if refused is not None:
                    return self._stamped(refused)
                self.prompts.append(time.monotonic())
                answer = self.dialog.pop(0) if self.dialog else DialogAnswer(None)
            return self._stamped(self._dialog(answer))  # waits outside the lock, as a modal dialog does
        with self.lock:
            self.requests.append(seen)
            return self._stamped(self._answer(method, path, query, headers, body))

    def _answer(self, method: str, path: str, query: dict[str, str], headers: Any, body: Any) -> Answer:
        writing = method in ("POST", "PUT", "PATCH", "DELETE")
        if self.generation < 10:
            if path == "/api/":
                return 200, {}, b"Nothing to see here."
            if writing or path.startswith("/api/local/"):
                return 400, {}, b"Endpoint does not support method\n"
            return _route(self, method, path, query, headers, body)
        refused = self._precheck(method, headers, query, body)
        if refused is not None:
            return refused
        if path == "/api/":
            return 200, {}, b"Nothing to see here."
        if writing:
            refused = self._authenticate(headers, query)
            if refused is not None:
                return refused
        return _route(self, method, path, query, headers, body)

    def _precheck(self, method: str, headers: Any, query: dict[str, str], body: Any) -> Answer | None:
        """Zotero's checks before any endpoint runs, in its order."""
        if not self.enabled:
            return 403, {}, b"Local API is not enabled"
        sent = headers.get("Zotero-Server-ID")
        if sent is not None and sent != self.server_id:
            return 412, {}, b"Zotero-Server-ID does not match this server"
        if sent is None and method in ("POST", "PUT", "PATCH", "DELETE"):
            return 428, {}, b"Zotero-Server-ID not provided"
        version = headers.get("Zotero-API-Version") or query.get("v")
        if version is not None and version != "3":
            return 501, {}, b"API version not implemented"
        return None

    def _authenticate(self, headers: Any, query: dict[str, str]) -> Answer | None:
        bearer = headers.get("Authorization", "")
        key = (
            headers.get("Zotero-API-Key")
            or query.get("key")
            or (bearer[7:] if bearer.startswith("Bearer ") else None)
        )
        if not key:
            return (
                401,
                {"WWW-Authenticate": 'Zotero-API-Key realm="Zotero Local API"'},
                b"API key required -- POST /api/local/authorize to obtain one",
            )
        if key not in self.keys:
            return (
                401,
                {"WWW-Authenticate": 'Zotero-API-Key realm="Zotero Local API"'},
                b"Invalid or expired API key",
            )
        if not self.keys[key]:
            del self.keys[key]  # "the first write that successfully validates it consumes it"
            self.consumed.append(key)
        if not self.editable:
            return 403, {}, b"Write access denied"
        return None

    def _rate_limited(self) -> Answer | None:
        now = time.monotonic()
        recent = [t for t in self.prompts if now - t < 60]
        if len(recent) < PROMPTS_PER_MINUTE:
            return None
        wait = max(1, int(60 - (now - recent[0])) + 1)
        return 429, {"Retry-After": str(wait)}, b"Too many authorization requests"

    def _dialog(self, answer: DialogAnswer) -> Answer:
        if self._closing.wait(3600.0 if answer.button is None else answer.after_s):
            return 403, {}, {"denied": True}  # the test ended; nobody reads this
        if answer.button == "deny":
            return 403, {}, {"denied": True}
        key = "".join(self._key_rng.choice(string.ascii_letters + string.digits) for _ in range(32))
        remember = answer.button == "always"
        with self.lock:
            self.keys[key] = remember
        return 200, {}, {"key": key, "remember": remember}

    def _stamped(self, answer: Answer) -> Answer:
        status, headers, payload = answer
        if self.generation < 10:
            return answer
        stamp = {
            "Zotero-API-Version": "3",
            "Zotero-Schema-Version": SCHEMA_VERSION,
            "Zotero-Server-ID": self.server_id,
        }
        return status, {**headers, **stamp}, payload


def _looks_like_a_browser(headers: Any) -> bool:
    browser = str(headers.get("User-Agent", "")).startswith("Mozilla/") or headers.get("Origin") is not None
    marked = headers.get("Zotero-Allowed-Request") is not None or headers.get(
        "X-Zotero-Connector-API-Version"
    )
    return browser and not marked
