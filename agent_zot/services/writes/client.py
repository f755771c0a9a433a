"""The HTTP side of writes: a small ZoteroWriter protocol and its implementation over httpx.

The web API v3 and Zotero's local API speak the same protocol for what the writes need (read items by
key, list collections, multi-object POSTs), so one writer serves both, sending the requests itself
rather than through pyzotero: pyzotero's local-key support came in 1.14, on httpx, but from 1.15 it runs
on httpx2 (a fork whose client and exceptions are not httpx's), so the transport below could not sit
under its client across versions; its authorization request gives up after 30 s while the dialog waits
for a person; and its errors lose what tells a server-ID 412 from a version 412, or the kinds of 403
apart. Rate limits are bounded in the transport (Retry-After/Backoff within MAX_WAIT_S).
"""

from __future__ import annotations

import logging
import time
import uuid
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import httpx

from agent_zot.config import Settings
from agent_zot.services.writes import local_api, local_keys
from agent_zot.services.writes.errors import (
    RateLimitedError,
    RouteUnavailableError,
    VersionConflictError,
    ZoteroWriteError,
)
from agent_zot.services.writes.route import WriteRoute

log = logging.getLogger(__name__)

BATCH_SIZE = 50  # the web API's limit for multi-object reads and writes
MAX_WAIT_S = 30.0  # longest single wait we accept from Retry-After/Backoff before reporting instead
MAX_RETRIES = 2  # 429/503 retries per request
REQUEST_TIMEOUT_S = 30.0


class ZoteroWriter(Protocol):
    """What the write operations need from a Zotero API (objects are API JSON: key, version, data)."""

    route: WriteRoute
    wrote: bool  # a write request succeeded (so falling back to another route would repeat it)

    @property
    def waited_s(self) -> float: ...

    @property
    def notes(self) -> list[str]: ...  # what the person should know beyond the result (a key asked for)

    def items(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]: ...

    def collections(self) -> list[dict[str, Any]]: ...

    def create_collections(self, payload: list[dict[str, Any]]) -> dict[str, Any]: ...

    def write_items(self, payload: list[dict[str, Any]]) -> dict[str, Any]: ...

    def close(self) -> None: ...


def _wait_of(response: httpx.Response) -> float | None:
    raw = response.headers.get("retry-after") or response.headers.get("backoff")
    if raw is None:
        return None
    try:
        return max(0.0, float(raw))
    except ValueError:
        return None  # an HTTP-date Retry-After: Zotero sends seconds, so treat it as unknown


class RateLimitTransport(httpx.BaseTransport):
    """Waits as Zotero tells it (429/503 Retry-After, Backoff on any response), within MAX_WAIT_S."""

    def __init__(
        self,
        inner: httpx.BaseTransport | None = None,
        *,
        max_wait_s: float = MAX_WAIT_S,
        max_retries: int = MAX_RETRIES,
        sleep: Callable[[float], None] = time.sleep,
    ) -> None:
        self._inner = inner or httpx.HTTPTransport()
        self._max_wait = max_wait_s
        self._max_retries = max_retries
        self._sleep = sleep
        self._not_before = 0.0
        self.waited_s = 0.0

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        self._pause(self._not_before - time.monotonic())
        self._not_before = 0.0
        for attempt in range(self._max_retries + 1):
            response = self._inner.handle_request(request)
            if response.status_code not in (429, 503):
                return self._note_backoff(response)
            wait = _wait_of(response)
            response.close()
            if wait is None:
                if response.status_code == 503:
                    raise ZoteroWriteError("Zotero's API is unavailable (HTTP 503).", status=503)
                raise RateLimitedError(
                    "Zotero is rate-limiting requests (HTTP 429) without saying how long to wait.",
                    status=429,
                    hint="Wait a minute and repeat the request.",
                )
            if wait > self._max_wait or attempt == self._max_retries:
                raise RateLimitedError(
                    f"Zotero is rate-limiting requests (HTTP {response.status_code}) and asked to wait "
                    f"{wait:g} s (after {self.waited_s:g} s of waiting already).",
                    status=response.status_code,
                    hint=f"Repeat the request in {wait:g} s or later.",
                )
            self._pause(wait)
        raise AssertionError("unreachable: the loop returns or raises")

    def _note_backoff(self, response: httpx.Response) -> httpx.Response:
        wait = _wait_of(response)
        if wait is not None:
            # Honoured before our next request; removed so no caller starts a wait of its own.
            self._not_before = time.monotonic() + min(wait, self._max_wait)
            for name in ("backoff", "retry-after"):
                if name in response.headers:
                    del response.headers[name]
        return response

    def _pause(self, seconds: float) -> None:
        if seconds > 0:
            self._sleep(seconds)
            self.waited_s += seconds

    def close(self) -> None:
        self._inner.close()


class ApiWriter:
    """ZoteroWriter for one route: the web API (its API key) or Zotero's local API (server ID, local key)."""

    def __init__(
        self, route: WriteRoute, settings: Settings, transport: RateLimitTransport | None = None
    ) -> None:
        self.route = route
        self.wrote = False
        self._notes: list[str] = []
        self._settings = settings
        self._transport = transport or RateLimitTransport()
        headers = {"User-Agent": local_api.USER_AGENT, "Zotero-API-Version": "3"}
        if route.local:
            headers.update(local_api.LOCAL_HEADERS)
        elif route.api_key:
            headers["Zotero-API-Key"] = route.api_key
        self._client = httpx.Client(
            base_url=route.base_url,
            headers=headers,
            timeout=REQUEST_TIMEOUT_S,
            transport=self._transport,
            follow_redirects=True,
            trust_env=not route.local,  # never send loopback requests through a proxy
        )

    @property
    def waited_s(self) -> float:
        return self._transport.waited_s

    @property
    def notes(self) -> list[str]:
        return self._notes

    def close(self) -> None:
        self._client.close()

    def items(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(keys), BATCH_SIZE):
            chunk = ",".join(keys[start : start + BATCH_SIZE])
            response = self._read(f"/{self.route.library}/items", {"itemKey": chunk, "limit": BATCH_SIZE})
            for obj in _json(response, self.route):
                found[obj["key"]] = obj
        return found

    def collections(self) -> list[dict[str, Any]]:
        found: list[dict[str, Any]] = []
        url: str | None = f"/{self.route.library}/collections"
        params: dict[str, Any] | None = {"limit": 100}
        while url:
            response = self._read(url, params)
            found.extend(_json(response, self.route))
            url, params = response.links.get("next", {}).get("url"), None  # the next link holds the query
        return found

    def create_collections(self, payload: list[dict[str, Any]]) -> dict[str, Any]:
        return self._post(f"/{self.route.library}/collections", payload)

    def write_items(self, payload: list[dict[str, Any]]) -> dict[str, Any]:
        if len(payload) > BATCH_SIZE:
            raise ValueError(f"at most {BATCH_SIZE} objects per write")
        return self._post(f"/{self.route.library}/items", payload)

    # -- requests --------------------------------------------------------------------------------

    def _read(self, url: str, params: dict[str, Any] | None) -> httpx.Response:
        headers = {}
        if self.route.local and (known := local_api.known_server_id(self.route.base_url)):
            headers[local_api.SERVER_ID] = known
        response = self._send(
            "GET", url, params=({"format": "json"} | params) if params else None, headers=headers
        )
        if response.is_success:
            return response
        raise self._refused(response, writing=False)

    def _post(self, url: str, payload: list[dict[str, Any]]) -> dict[str, Any]:
        send = self._local_post if self.route.local else self._web_post
        result = _json(send(url, payload), self.route)
        if result.get("success") or result.get("successful"):
            self.wrote = True
        return result

    def _web_post(self, url: str, payload: list[dict[str, Any]]) -> httpx.Response:
        response = self._send("POST", url, json=payload, headers={"Zotero-Write-Token": uuid.uuid4().hex})
        if response.is_success:
            return response
        raise self._refused(response, writing=True)

    def _local_post(self, url: str, payload: list[dict[str, Any]]) -> httpx.Response:
        """One write with the server ID and a key: a missing ID (428) is read again and the write sent
        once more; a refused key (401) is replaced once by asking the person. Never more than that."""
        base = self.route.base_url
        server_id = self._server_id()
        key, asked = local_keys.take_key(self._settings, server_id), False
        if key is None:
            key, asked = self._ask(), True
        refetched = False
        while True:
            headers = {
                local_api.SERVER_ID: server_id,
                "Zotero-API-Key": key,
                "Zotero-Write-Token": uuid.uuid4().hex,
            }
            response = self._send("POST", url, json=payload, headers=headers)
            if response.is_success:
                return response
            if local_api.is_server_id_missing(response) and not refetched:
                local_api.forget_server_id(base)
                server_id, refetched = self._server_id(), True
                continue
            if local_api.is_server_id_mismatch(response):
                raise local_api.server_changed(self._client, base)
            if response.status_code == 401:
                local_keys.drop_key(self._settings, server_id, key)
                if not asked:
                    key, asked = self._ask(), True
                    continue
            raise self._refused(response, writing=True)

    def _server_id(self) -> str:
        try:
            return local_api.server_id(self._client, self.route.base_url)
        except httpx.TransportError as exc:
            raise self._unreachable(exc) from exc

    def _ask(self) -> str:
        """Ask the person for a key through Zotero's dialog (blocks until answered or timed out)."""
        granted = local_keys.authorize(self._settings, keep_once=False)
        self._notes.append(granted.describe())
        return granted.key

    def _send(self, method: str, url: str, **kwargs: Any) -> httpx.Response:
        try:
            response = self._client.request(method, url, **kwargs)
        except httpx.TransportError as exc:
            raise self._unreachable(exc) from exc
        if self.route.local:
            local_api.note_server_id(self.route.base_url, response)
        return response

    def _refused(self, response: httpx.Response, *, writing: bool) -> ZoteroWriteError:
        if self.route.local:
            if local_api.is_server_id_mismatch(response):
                return local_api.server_changed(self._client, self.route.base_url)
            return local_api.local_refusal(self.route.base_url, response, writing=writing)
        status = response.status_code
        body = response.text.strip()[:200]
        what = f"HTTP {status}" + (f": {body}" if body else "")
        if status == 412:
            return VersionConflictError(f"Version conflict (HTTP 412) at {self.route.label}.", status=412)
        if status in (401, 403):
            return ZoteroWriteError(
                f"The Zotero web API refused the API key for {self.route.library} ({what}).",
                status=status,
                hint="Create a key with write access to this library at zotero.org/settings/keys, set "
                "zotero_api_key, and check zotero_library_id / zotero_library_type.",
            )
        if status == 404:
            return ZoteroWriteError(
                f"The Zotero web API does not know {self.route.library} ({what}).",
                status=status,
                hint="Check zotero_library_id (your numeric user ID or the group ID) and zotero_library_type.",
            )
        if status == 409:
            return ZoteroWriteError(
                f"The library {self.route.library} is locked by another write ({what}).",
                status=status,
                hint="Repeat the request in a moment.",
            )
        return ZoteroWriteError(f"{self.route.label} failed the request ({what}).", status=status)

    def _unreachable(self, exc: httpx.TransportError) -> ZoteroWriteError:
        if self.route.local:
            return RouteUnavailableError(
                f"Could not reach Zotero's local API at {self.route.base_url} ({exc}).",
                hint="Start Zotero. " + local_api.ENABLE_LOCAL_HINT,
            )
        return ZoteroWriteError(
            f"Could not reach the Zotero web API at {self.route.base_url} ({exc}).",
            hint="Check the network connection and zotero_api_url.",
        )


def _json(response: httpx.Response, route: WriteRoute) -> Any:
    try:
        return response.json()
    except ValueError as exc:  # a body that is not the JSON the API documents
        raise ZoteroWriteError(f"{route.label} sent an unreadable response: {exc}") from exc
