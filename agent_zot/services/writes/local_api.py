"""Zotero's local API (Zotero 10 and newer accept writes): its server ID, and what its refusals mean.

Every local-API answer carries ``Zotero-Server-ID``; a write must send it back (none: 428, another
instance's: 412), so it is read once per route (GET /api/) and sent with every request after that —
reads too, so that a different Zotero answering is noticed before any object version is read from it.
Zotero 9 and older answer GET /api/ without the header and refuse writes with 400.
"""

from __future__ import annotations

import threading

import httpx

from agent_zot import __version__
from agent_zot.services.writes.errors import RouteUnavailableError, VersionConflictError, ZoteroWriteError

APP_NAME = "agent-zot"  # what Zotero's authorization dialog names
# Zotero drops requests that look like a browser's (a Mozilla/ User-Agent or an Origin) unless marked.
USER_AGENT = f"agent-zot/{__version__}"
LOCAL_HEADERS = {"Zotero-Allowed-Request": "1"}
SERVER_ID = "Zotero-Server-ID"
ENABLE_LOCAL_HINT = (
    "In Zotero: Settings › Advanced › check “Allow other applications on this computer to communicate "
    "with Zotero”."
)
AUTHORIZE_HINT = (
    "Run `agent-zot authorize` and click Always Allow in Zotero's “Local API Authorization” dialog "
    "(or repeat the request and answer the dialog it opens)."
)
NEEDS_ZOTERO_10 = (
    "Writing through Zotero's local API needs Zotero 10 or newer; set AGENT_ZOT_ZOTERO_API_KEY and "
    "AGENT_ZOT_ZOTERO_LIBRARY_ID to write through the web API instead."
)

_lock = threading.Lock()
_server_ids: dict[str, str] = {}  # base URL -> the server ID seen there (for this process)


class ServerChangedError(ZoteroWriteError):
    """Another Zotero instance answers at the route's address than the one whose ID we hold (412)."""


def known_server_id(base_url: str) -> str | None:
    with _lock:
        return _server_ids.get(base_url)


def note_server_id(base_url: str, response: httpx.Response) -> None:
    """Keep the first server ID seen at ``base_url`` (every answer carries it, errors included)."""
    found = response.headers.get(SERVER_ID)
    if found:
        with _lock:
            _server_ids.setdefault(base_url, found)


def forget_server_id(base_url: str) -> str | None:
    with _lock:
        return _server_ids.pop(base_url, None)


def server_id(client: httpx.Client, base_url: str) -> str:
    """The cached server ID, else read from GET /api/ (the bare /api is a 404)."""
    cached = known_server_id(base_url)
    if cached:
        return cached
    response = client.get(f"{base_url}/")
    if response.status_code == 403:
        raise local_refusal(base_url, response, writing=False)
    found = response.headers.get(SERVER_ID)
    if not found:
        raise RouteUnavailableError(
            f"The Zotero at {base_url} is older than Zotero 10 (it answers without a Zotero-Server-ID), "
            "so it takes no writes from other programs. Nothing was written.",
            hint=NEEDS_ZOTERO_10,
        )
    note_server_id(base_url, response)
    return found


def is_server_id_mismatch(response: httpx.Response) -> bool:
    return response.status_code == 412 and "Zotero-Server-ID" in response.text


def is_server_id_missing(response: httpx.Response) -> bool:
    return response.status_code == 428 and "Zotero-Server-ID" in response.text


def server_changed(client: httpx.Client, base_url: str) -> ServerChangedError:
    """The held ID was refused: drop it, read the new one, and say what that means."""
    old = forget_server_id(base_url)
    try:
        new = server_id(client, base_url)
    except (ZoteroWriteError, httpx.TransportError):
        new = "unknown"
    return ServerChangedError(
        f"A different Zotero now answers at {base_url}: its Zotero-Server-ID is {new}, not {old} as "
        "before. Zotero was reinstalled, its data folder moved, or another profile is running. This "
        "change was not sent to it.",
        status=412,
        hint="agent-zot now follows the Zotero that answers: repeat the request (Zotero asks you to "
        "allow agent-zot if it does not know agent-zot's key).",
    )


def local_refusal(base_url: str, response: httpx.Response, *, writing: bool) -> ZoteroWriteError:
    """What one refusal of the local API means, and what to do about it."""
    status = response.status_code
    body = response.text.strip()[:200]
    what = f"HTTP {status}" + (f": {body}" if body else "")
    action = "a write" if writing else "a request"
    if status == 400 and "does not support method" in body:
        return RouteUnavailableError(
            f"The Zotero at {base_url} refused {action} ({what}): it is older than Zotero 10.",
            status=status,
            hint=NEEDS_ZOTERO_10,
        )
    if status == 401:
        return ZoteroWriteError(
            f"Zotero refused agent-zot's write ({what}): it holds no key for agent-zot, or the one it "
            "had was used up (Allow gives a key for one write) or cleared. This change was not sent.",
            status=status,
            hint=AUTHORIZE_HINT,
        )
    if status == 403 and "not enabled" in body:
        return RouteUnavailableError(
            f"Zotero's local API is turned off ({what}). Nothing was written.",
            status=status,
            hint=ENABLE_LOCAL_HINT,
        )
    if status == 403:
        return ZoteroWriteError(
            f"Zotero refused {action} ({what}): this library is read-only for you (for example a group "
            "in which you may not edit). Nothing was written.",
            status=status,
            hint="Change items of a library you may edit, or ask the group's owner for write access.",
        )
    if status == 412:
        return VersionConflictError(f"Version conflict at {base_url} ({what}).", status=status)
    if status == 428:
        return ZoteroWriteError(
            f"Zotero refused {action} ({what}) even after agent-zot read the server ID again: this is a "
            "bug in agent-zot. Nothing was written.",
            status=status,
            hint="Please report it with the output of `agent-zot doctor`.",
        )
    return ZoteroWriteError(f"Zotero's local API at {base_url} failed {action} ({what}).", status=status)
