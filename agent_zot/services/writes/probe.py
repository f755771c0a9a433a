"""For `agent-zot doctor`: which write route is active, why, and whether it answers (read-only probes)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import httpx

from agent_zot.config import Settings
from agent_zot.services.writes.route import ENABLE_HINT, WriteRoute, WritesNotConfiguredError, write_routes

PROBE_TIMEOUT_S = 5.0


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
    findings = [(route, _probe(route)) for route in routes]
    working = [(route, problem) for route, problem in findings if problem is None]
    notes = "; ".join(f"{route.label} not usable: {problem}" for route, problem in findings if problem)
    if not working:
        return RouteReport("fail", notes, ENABLE_HINT)
    route = working[0][0]
    detail = f"writes go through {route.label}, because {route.reason}"
    detail += "; zotero.sqlite shows web changes after Zotero syncs" if not route.local else ""
    if route.local and len(routes) > 1:
        detail += "; if it refuses a write, the web API is used"
    if not notes:
        return RouteReport("ok", detail)
    fix = (
        "Start Zotero with its local API enabled (Settings > Advanced), or set zotero_local_api = false."
        if any(r.local for r, problem in findings if problem)
        else "Check zotero_api_key, zotero_library_id and zotero_library_type."
    )
    return RouteReport("warn", f"{detail} ({notes})", fix)


def _probe(route: WriteRoute) -> str | None:
    """None when the route answers as expected, else what is wrong."""
    try:
        if route.local:
            response = httpx.get(
                f"{route.base_url}/{route.library}/collections", params={"limit": 1}, timeout=PROBE_TIMEOUT_S
            )
            return (
                None if response.status_code == 200 else f"HTTP {response.status_code} {response.text[:80]}"
            )
        response = httpx.get(
            f"{route.base_url}/keys/current",
            headers={"Zotero-API-Key": route.api_key or "", "Zotero-API-Version": "3"},
            timeout=PROBE_TIMEOUT_S,
        )
    except httpx.HTTPError as exc:
        return f"not reachable ({exc})"
    if response.status_code != 200:
        return f"the API key was refused (HTTP {response.status_code})"
    try:
        return _key_problem(response.json(), route)
    except ValueError:
        return "unreadable answer to /keys/current"


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
