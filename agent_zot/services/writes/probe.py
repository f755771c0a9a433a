"""For `agent-zot doctor`: which write route is active, why, and whether it answers (read-only probes);
for Zotero's local API also whether that Zotero takes writes (10 or newer) and whether a key is stored."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from agent_zot.config import Settings
from agent_zot.services.writes.local_api import (
    AUTHORIZE_HINT,
    ENABLE_LOCAL_HINT,
    LOCAL_HEADERS,
    SERVER_ID,
    USER_AGENT,
)
from agent_zot.services.writes.local_keys import stored_key
from agent_zot.services.writes.route import ENABLE_HINT, WriteRoute, WritesNotConfiguredError, write_routes

PROBE_TIMEOUT_S = 5.0
NO_KEY = "no key stored yet: the first write asks in Zotero"


@dataclass(frozen=True, slots=True)
class RouteReport:
    status: str  # "ok" | "warn" | "fail"
    detail: str
    fix: str = ""


def describe_writes(settings: Settings) -> RouteReport:
    if not settings.writes_enabled:
        return RouteReport(
            "ok",
            "off (default): agent-zot only reads, never writes zotero.sqlite; the write modes say how to "
            "enable them",
            ENABLE_HINT,
        )
    try:
        routes = write_routes(settings)
    except WritesNotConfiguredError as exc:
        return RouteReport("fail", exc.message, exc.hint or "")
    findings = [(route, *_probe(route, settings)) for route in routes]
    working = [(route, note) for route, problem, note in findings if problem is None]
    notes = "; ".join(f"{route.label} not usable: {problem}" for route, problem, _ in findings if problem)
    if not working:
        fix = ENABLE_LOCAL_HINT if any("turned off" in (p or "") for _, p, _ in findings) else ENABLE_HINT
        return RouteReport("fail", notes, fix)
    route, note = working[0]
    detail = f"writes go through {route.label}, because {route.reason}" + (f"; {note}" if note else "")
    detail += "; zotero.sqlite shows web changes after Zotero syncs" if not route.local else ""
    if route.local and len(routes) > 1:
        detail += "; if it refuses a write, the web API is used"
    if route.local and NO_KEY in note:
        return RouteReport("warn", detail + (f" ({notes})" if notes else ""), AUTHORIZE_HINT)
    if not notes:
        return RouteReport("ok", detail)
    fix = (
        "Start Zotero 10 or newer with its local API enabled (Settings › Advanced), or set "
        "zotero_local_api = false."
        if any(r.local for r, problem, _ in findings if problem)
        else "Check zotero_api_key, zotero_library_id and zotero_library_type."
    )
    return RouteReport("warn", f"{detail} ({notes})", fix)


def _probe(route: WriteRoute, settings: Settings) -> tuple[str | None, str]:
    """(what is wrong or None, what else to know) for one route."""
    try:
        if route.local:
            return _probe_local(route, settings)
        response = httpx.get(
            f"{route.base_url}/keys/current",
            headers={"Zotero-API-Key": route.api_key or "", "Zotero-API-Version": "3"},
            timeout=PROBE_TIMEOUT_S,
        )
    except httpx.HTTPError as exc:
        return f"not reachable ({exc})", ""
    if response.status_code != 200:
        return f"the API key was refused (HTTP {response.status_code})", ""
    try:
        return _key_problem(response.json(), route), ""
    except ValueError:
        return "unreadable answer to /keys/current", ""


def _probe_local(route: WriteRoute, settings: Settings) -> tuple[str | None, str]:
    """GET /api/ (read-only): reachable, on, and of a Zotero that takes writes (it names its server)."""
    response = httpx.get(
        f"{route.base_url}/",
        headers={"User-Agent": USER_AGENT, **LOCAL_HEADERS},
        timeout=PROBE_TIMEOUT_S,
        trust_env=False,
    )
    if response.status_code == 403:
        return f"the local API is turned off (HTTP 403 {response.text[:80]})", ""
    if response.status_code != 200:
        return f"HTTP {response.status_code} {response.text[:80]}", ""
    server_id = response.headers.get(SERVER_ID)
    if not server_id:
        return "this Zotero is older than Zotero 10 (it sends no Zotero-Server-ID) and takes no writes", ""
    key = "agent-zot's key stored" if stored_key(settings, server_id) else NO_KEY
    return None, f"Zotero 10 or newer (server ID {server_id}), {key}"


def _key_problem(info: dict[str, Any], route: WriteRoute) -> str | None:
    access = info.get("access") or {}
    if route.library_type == "user":
        if str(info.get("userID")) != route.library_id:
            return f"the API key belongs to user {info.get('userID')}, not {route.library_id}"
        ok = bool((access.get("user") or {}).get("write"))
    else:
        groups = access.get("groups") or {}
        ok = bool((groups.get(route.library_id) or groups.get("all") or {}).get("write"))
    return None if ok else f"the API key has no write access to {route.library}"
