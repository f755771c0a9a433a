"""A FAKE of the Zotero web API v3 (the local API's own rules are in tests/services/organize/fake_zotero_local_api.py).

It is not Zotero: a small stdlib HTTP server on 127.0.0.1 (random port, in a thread) that follows the
documented behaviour (zotero.org/support/dev/web_api/v3/basics and .../write_requests) for the requests
agent-zot's writer sends: item and collection reads (format=json, itemKey, start/limit
with Link rel="next"), multi-object POSTs answering ``successful``/``success``/``unchanged``/``failed``
maps, PATCH/PUT/DELETE of single items, ``Zotero-API-Key`` or ``Authorization: Bearer`` auth (403 on a bad
key), ``Last-Modified-Version`` headers, ``If-Unmodified-Since-Version`` (412 when stale, 428 when missing
on DELETE), ``Zotero-Write-Token`` (412 when reused) and ``GET /keys/current``.

It is seeded from a library built by agent_zot.zotero.builder, so item and collection keys agree with
zotero.sqlite. Tests can inject whole responses (429 + Retry-After/Backoff), per-object failures, and
concurrent edits that make the next write of an item stale.
"""

from __future__ import annotations

import json
import random
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import parse_qs, urlparse

from agent_zot.identifiers import KEY_ALPHABET
from agent_zot.zotero.models import Library

MAX_OBJECTS = 50


@dataclass
class Injected:
    method: str
    path_part: str
    status: int
    headers: dict[str, str]
    body: str
    times: int


@dataclass
class Seen:
    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any


class FakeZoteroApi:
    """State of one fake library plus the HTTP server that serves it."""

    def __init__(
        self,
        library: Library,
        *,
        library_id: int = 1,
        prefix: str = "/users/1234567",
        api_key: str | None = "fake-write-key",
        user_id: int = 1234567,
        read_only: bool = False,
        base_path: str = "",
    ) -> None:
        self.prefix = prefix
        self.base_path = base_path  # "/api" for the local API
        self.api_key = api_key
        self.user_id = user_id
        self.read_only = read_only  # like Zotero 7's local API: writes answer 400
        self.version = 10
        self.items: dict[str, dict[str, Any]] = {}
        self.collections: dict[str, dict[str, Any]] = {}
        self.requests: list[Seen] = []
        self.injected: list[Injected] = []
        self.per_object_failures: dict[str, tuple[int, str]] = {}
        self.concurrent_edits: dict[str, int] = {}
        self._tokens: set[str] = set()
        self._rng = random.Random(11)
        self.lock = threading.Lock()
        self._seed(library, library_id)
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler_for(self))
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    # -- lifecycle -----------------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._server.server_address[1]}{self.base_path}"

    def __enter__(self) -> FakeZoteroApi:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._server.shutdown()
        self._server.server_close()

    # -- test controls -------------------------------------------------------------------------

    def inject(
        self,
        method: str,
        path_part: str,
        status: int,
        headers: dict[str, str],
        times: int = 1,
        body: str | None = None,
    ) -> None:
        """Answer the next ``times`` matching requests with this status instead of serving them."""
        text = json.dumps({"error": status}) if body is None else body
        self.injected.append(Injected(method, path_part, status, headers, text, times))

    def edit_concurrently(self, key: str, times: int = 1) -> None:
        """Before the next ``times`` writes that touch ``key``, another client edits it (new version)."""
        self.concurrent_edits[key] = times

    def writes(self) -> list[Seen]:
        return [r for r in self.requests if r.method != "GET"]

    def tags_of(self, key: str) -> list[str]:
        return [t["tag"] for t in self.items[key]["tags"]]

    # -- seeding -------------------------------------------------------------------------------

    def _seed(self, library: Library, library_id: int) -> None:
        for c in library.collections.values():
            if c.library_id == library_id:
                self.collections[c.key] = {
                    "key": c.key,
                    "version": 5,
                    "name": c.name,
                    "parentCollection": c.parent_key or False,
                    "relations": {},
                }
        for item in library.items.values():
            if item.library_id != library_id:
                continue
            self.items[item.key] = {
                "key": item.key,
                "version": 5,
                "itemType": item.item_type,
                **item.fields,
                "creators": [
                    {"creatorType": c.creator_type, "name": c.last_name}
                    if c.single_field
                    else {"creatorType": c.creator_type, "firstName": c.first_name, "lastName": c.last_name}
                    for c in item.creators
                ],
                "tags": [{"tag": t.name, **({"type": 1} if t.automatic else {})} for t in item.tags],
                "collections": list(item.collection_keys),
                "relations": {},
            }
            for note in item.notes:
                self.items[note.key] = self._note(note.key, note.html, item.key)

    def _note(self, key: str, html: str, parent: str | None) -> dict[str, Any]:
        data = {"key": key, "version": 5, "itemType": "note", "note": html, "tags": [], "collections": []}
        return {**data, "relations": {}, **({"parentItem": parent} if parent else {})}

    def new_key(self) -> str:
        while True:
            key = "".join(self._rng.choice(KEY_ALPHABET) for _ in range(8))
            if key not in self.items and key not in self.collections:
                return key

    # -- the API -------------------------------------------------------------------------------

    def handle(self, method: str, path: str, query: dict[str, str], headers: Any, body: Any) -> Answer | None:
        """One request's answer (None: close the connection without one)."""
        with self.lock:
            self.requests.append(Seen(method, path, query, dict(headers), body))
            return _route(self, method, path, query, headers, body)

    def obj(self, data: dict[str, Any]) -> dict[str, Any]:
        kind = "group" if self.prefix.startswith("/groups") else "user"
        library = {"type": kind, "id": int(self.prefix.rsplit("/", 1)[1]), "name": "fake"}
        return {
            "key": data["key"],
            "version": data["version"],
            "library": library,
            "links": {},
            "meta": {},
            "data": data,
        }

    def multi_write(self, store: dict[str, dict[str, Any]], objects: list[dict[str, Any]]) -> dict[str, Any]:
        """One multi-object POST: each object is created or updated (PATCH semantics) on its own."""
        result: dict[str, dict[str, Any]] = {"successful": {}, "success": {}, "unchanged": {}, "failed": {}}
        for sent in objects:  # other clients' edits land before this request is processed
            if sent.get("key") in self.concurrent_edits:
                self._edit_elsewhere(str(sent["key"]))
        new_version = self.version + 1
        for index, sent in enumerate(objects):
            key, problem = self._write_one(store, sent, new_version)
            slot = str(index)
            if problem is not None:
                result["failed"][slot] = {"key": key, "code": problem[0], "message": problem[1]}
            elif problem is None and key.startswith("="):
                result["unchanged"][slot] = key[1:]
            else:
                result["successful"][slot] = self.obj(store[key])
                result["success"][slot] = key
        if result["success"]:
            self.version = new_version
        return result

    def _write_one(
        self, store: dict[str, dict[str, Any]], sent: dict[str, Any], new_version: int
    ) -> tuple[str, tuple[int, str] | None]:
        key = str(sent.get("key") or "")
        if key in self.per_object_failures:
            return key, self.per_object_failures.pop(key)
        if key in store:
            current = store[key]
            if "version" not in sent:
                return key, (
                    428,
                    "Either If-Unmodified-Since-Version or object version property must be provided",
                )
            if int(sent["version"]) != current["version"]:
                return key, (
                    412,
                    f"Item has been modified since specified version (expected {sent['version']}, "
                    f"found {current['version']})",
                )
            changes = {k: v for k, v in sent.items() if k not in ("key", "version")}
            if all(current.get(k) == v for k, v in changes.items()):
                return "=" + key, None
            current.update(changes)
            current["version"] = new_version
            return key, None
        if key and int(sent.get("version") or 0) > 0:
            return key, (404, f"Object {key} not found")
        return self._create(store, sent, key or self.new_key(), new_version)

    def _create(
        self, store: dict[str, dict[str, Any]], sent: dict[str, Any], key: str, new_version: int
    ) -> tuple[str, tuple[int, str] | None]:
        if store is self.items:
            if not sent.get("itemType"):
                return key, (400, "'itemType' property not provided")
            parent = sent.get("parentItem")
            if parent and parent not in self.items:
                return key, (400, f"Parent item {parent} not found")
        else:
            if not sent.get("name"):
                return key, (400, "Collection name cannot be empty")
            parent = sent.get("parentCollection")
            if parent and parent not in self.collections:
                return key, (409, f"Parent collection {parent} doesn't exist")
        store[key] = {**sent, "key": key, "version": new_version}
        store[key].setdefault("relations", {})
        return key, None

    def _edit_elsewhere(self, key: str) -> None:
        self.concurrent_edits[key] -= 1
        if not self.concurrent_edits[key]:
            del self.concurrent_edits[key]
        self.version += 1
        item = self.items[key]
        item["tags"] = [*item.get("tags", []), {"tag": f"edited-elsewhere-{self.version}"}]
        item["version"] = self.version


def _handler_for(api: FakeZoteroApi) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        def log_message(self, format: str, *args: Any) -> None:
            return

        def do_GET(self) -> None:
            self._serve("GET")

        def do_POST(self) -> None:
            self._serve("POST")

        def do_PATCH(self) -> None:
            self._serve("PATCH")

        def do_PUT(self) -> None:
            self._serve("PUT")

        def do_DELETE(self) -> None:
            self._serve("DELETE")

        def _serve(self, method: str) -> None:
            url = urlparse(self.path)
            query = {k: v[0] for k, v in parse_qs(url.query).items()}
            length = int(self.headers.get("Content-Length") or 0)
            raw = self.rfile.read(length) if length else b""
            body = json.loads(raw) if raw else None
            answer = api.handle(method, url.path, query, self.headers, body)
            if answer is None:  # dropped without a response, as Zotero drops browser-like requests
                self.close_connection = True
                return
            status, headers, payload = answer
            data = payload if isinstance(payload, bytes) else json.dumps(payload).encode()
            self.send_response(status)
            content_type = "text/plain" if isinstance(payload, bytes) else "application/json"
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            for name, value in headers.items():
                self.send_header(name, value)
            self.end_headers()
            self.wfile.write(data)

    return Handler


Answer = tuple[int, dict[str, str], Any]


def _route(
    api: FakeZoteroApi, method: str, path: str, query: dict[str, str], headers: Any, body: Any
) -> Answer:
    for rule in api.injected:
        if rule.times and rule.method == method and rule.path_part in path:
            rule.times -= 1
            return rule.status, rule.headers, rule.body.encode()
    path = path.removeprefix(api.base_path)
    if api.api_key is not None and _key_of(headers, query) != api.api_key:
        return 403, {}, b"Forbidden"
    if path in ("/keys/current", f"/keys/{api.api_key}"):
        return _key_info(api)
    if not path.startswith(api.prefix):
        return 404, {}, b"Not found"
    if api.read_only and method != "GET":
        return 400, {}, b"Endpoint does not support method\n"
    parts = path.removeprefix(api.prefix).strip("/").split("/")
    store = {"items": api.items, "collections": api.collections}.get(parts[0])
    if store is None:
        return 404, {}, b"Not found"
    if len(parts) == 1:
        if method == "GET":
            return _list(api, store, query)
        if method == "POST":
            return _post(api, store, headers, body)
    if len(parts) == 2 and parts[1] in store:
        return _single(api, store, parts[1], method, headers, body)
    return 404, {}, b"Not found"


def _key_of(headers: Any, query: dict[str, str]) -> str | None:
    bearer = headers.get("Authorization", "")
    return (
        headers.get("Zotero-API-Key")
        or (bearer[7:] if bearer.startswith("Bearer ") else None)
        or query.get("key")
    )


def _key_info(api: FakeZoteroApi) -> Answer:
    access = {
        "user": {"library": True, "write": True, "notes": True},
        "groups": {"all": {"library": True, "write": True}},
    }
    return 200, {}, {"key": api.api_key, "userID": api.user_id, "username": "fake", "access": access}


def _list(api: FakeZoteroApi, store: dict[str, dict[str, Any]], query: dict[str, str]) -> Answer:
    keys = query.get("itemKey") or query.get("collectionKey")
    chosen = [store[k] for k in keys.split(",") if k in store] if keys else list(store.values())
    start, limit = int(query.get("start", 0)), min(int(query.get("limit", 25)), 100)
    page = chosen[start : start + limit]
    headers = {"Last-Modified-Version": str(api.version), "Total-Results": str(len(chosen))}
    if start + limit < len(chosen):
        nxt = f"{api.url}{api.prefix}/{'items' if store is api.items else 'collections'}"
        headers["Link"] = f'<{nxt}?start={start + limit}&limit={limit}&format=json>; rel="next"'
    return 200, headers, [api.obj(d) for d in page]


def _post(api: FakeZoteroApi, store: dict[str, dict[str, Any]], headers: Any, body: Any) -> Answer:
    token = headers.get("Zotero-Write-Token")
    if token and token in api._tokens:
        return 412, {}, b"Write token already used"
    since = headers.get("If-Unmodified-Since-Version")
    if since is not None and int(since) != api.version:
        return (
            412,
            {"Last-Modified-Version": str(api.version)},
            b"Library has been modified since specified version",
        )
    if not isinstance(body, list):
        return 400, {}, b"Uploaded data must be a JSON array"
    if len(body) > MAX_OBJECTS:
        return 413, {}, b"Only 50 objects can be saved in a single request"
    result = api.multi_write(store, body)
    if token:
        api._tokens.add(token)
    return 200, {"Last-Modified-Version": str(api.version)}, result


def _single(
    api: FakeZoteroApi, store: dict[str, dict[str, Any]], key: str, method: str, headers: Any, body: Any
) -> Answer:
    current = store[key]
    if method == "GET":
        return 200, {"Last-Modified-Version": str(current["version"])}, api.obj(current)
    since = headers.get("If-Unmodified-Since-Version") or (body or {}).get("version")
    if since is None:
        return 428, {}, b"If-Unmodified-Since-Version not provided"
    if int(since) != current["version"]:
        return (
            412,
            {"Last-Modified-Version": str(current["version"])},
            b"Item has been modified since specified version",
        )
    api.version += 1
    if method == "DELETE":
        del store[key]
    elif method in ("PATCH", "PUT"):
        fields = {k: v for k, v in (body or {}).items() if k not in ("key", "version")}
        store[key] = {**(current if method == "PATCH" else {}), **fields, "key": key, "version": api.version}
    else:
        return 405, {}, b"Method not allowed"
    return 204, {"Last-Modified-Version": str(api.version)}, b""
