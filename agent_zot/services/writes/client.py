"""The HTTP side of writes: a small ZoteroWriter protocol and its pyzotero implementation.

pyzotero builds the requests (paths, JSON bodies, Zotero-Write-Token, API version and auth headers).
Rate limits are handled here, in the HTTP transport under pyzotero's client, because pyzotero's own
handling waits without a bound (it sleeps however long Backoff says) and does not raise on 429.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeVar

import httpx
from pyzotero import zotero
from pyzotero import zotero_errors as ze

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
T = TypeVar("T")


class ZoteroWriter(Protocol):
    """What the write operations need from a Zotero API (objects are API JSON: key, version, data)."""

    route: WriteRoute
    wrote: bool  # a write request succeeded (so falling back to another route would repeat it)

    @property
    def waited_s(self) -> float: ...

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
            # Honoured before our next request; removed so pyzotero does not start its own unbounded wait.
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


class PyZoteroWriter:
    """ZoteroWriter over pyzotero, for the local API or the web API."""

    def __init__(self, route: WriteRoute, transport: RateLimitTransport | None = None) -> None:
        self.route = route
        self.wrote = False
        self._transport = transport or RateLimitTransport()
        self._zot = zotero.Zotero(route.library_id, route.library_type, route.api_key, local=route.local)
        # pyzotero hard-codes api.zotero.org / localhost; the settings choose the base URL.
        self._zot.endpoint = route.base_url
        self._zot.client.close()
        self._zot.client = httpx.Client(
            headers=self._zot.default_headers(), follow_redirects=True, transport=self._transport
        )

    @property
    def waited_s(self) -> float:
        return self._transport.waited_s

    def close(self) -> None:
        self._zot.client.close()

    def items(self, keys: Sequence[str]) -> dict[str, dict[str, Any]]:
        found: dict[str, dict[str, Any]] = {}
        for start in range(0, len(keys), BATCH_SIZE):
            chunk = ",".join(keys[start : start + BATCH_SIZE])
            for obj in self._call(lambda c=chunk: self._zot.items(itemKey=c, limit=BATCH_SIZE)):
                found[obj["key"]] = obj
        return found

    def collections(self) -> list[dict[str, Any]]:
        return self._call(lambda: self._zot.everything(self._zot.collections(limit=100)))

    def create_collections(self, payload: list[dict[str, Any]]) -> dict[str, Any]:
        return self._written(self._call(lambda: self._zot.create_collections(payload), writing=True))

    def write_items(self, payload: list[dict[str, Any]]) -> dict[str, Any]:
        if len(payload) > BATCH_SIZE:
            raise ValueError(f"at most {BATCH_SIZE} objects per write")
        return self._written(self._call(lambda: self._zot.create_items(payload), writing=True))

    def _written(self, response: dict[str, Any]) -> dict[str, Any]:
        if response.get("success") or response.get("successful"):
            self.wrote = True
        return response

    def _call(self, request: Callable[[], T], *, writing: bool = False) -> T:
        try:
            return request()
        except ze.PreConditionFailedError as exc:
            raise VersionConflictError(
                f"Version conflict (HTTP 412) at {self.route.label}.", status=412
            ) from exc
        except ze.PyZoteroError as exc:
            raise self._refused(writing) from exc
        except httpx.TransportError as exc:
            raise self._unreachable(exc) from exc
        except ValueError as exc:  # a body that is not the JSON the API documents
            raise ZoteroWriteError(f"{self.route.label} sent an unreadable response: {exc}") from exc

    def _refused(self, writing: bool) -> ZoteroWriteError:
        response = self._zot.request
        status = response.status_code if response is not None else None
        body = (response.text if response is not None else "").strip()[:200]
        what = f"HTTP {status}" + (f": {body}" if body else "")
        if self.route.local:
            action = "a write" if writing else "a request"
            return RouteUnavailableError(f"Zotero's local API refused {action} ({what}).", status=status)
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
                hint="Start Zotero and enable its local API (Settings > Advanced).",
            )
        return ZoteroWriteError(
            f"Could not reach the Zotero web API at {self.route.base_url} ({exc}).",
            hint="Check the network connection and zotero_api_url.",
        )
