"""Local API keys: asked of the person through Zotero's dialog, kept as Zotero hands them out.

``POST /api/local/authorize`` makes Zotero show “Local API Authorization” and answers when the person
clicks: Always Allow → a persistent key, stored here in the data folder, owner-only (0600), per Zotero
server ID (a key belongs to one Zotero); Allow → a single-use key, held in memory for the next write
only (Zotero consumes it on that write); Deny → 403 {"denied": true}. Zotero never times the dialog out,
so the request waits as long as ``zotero_local_authorize_timeout_s`` says. It is never retried on its
own: each try shows the person another dialog (and Zotero allows 5 a minute).
"""

from __future__ import annotations

import json
import logging
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import httpx

from agent_zot.config import Settings
from agent_zot.services.writes import local_api
from agent_zot.services.writes.errors import RateLimitedError, RouteUnavailableError, ZoteroWriteError

log = logging.getLogger(__name__)

KEY_FILE = "zotero-local-api-keys.json"
CONNECT_TIMEOUT_S = 10.0

_lock = threading.Lock()
_once: dict[str, str] = {}  # server ID -> a single-use key not used yet (this process only)


class AuthorizationDeniedError(ZoteroWriteError):
    """The person clicked Deny in Zotero's authorization dialog."""


def key_file(settings: Settings) -> Path:
    return settings.data_dir / KEY_FILE


@dataclass(frozen=True)
class Authorization:
    """Zotero's answer to one authorization request."""

    key: str
    remember: bool
    server_id: str
    stored_in: Path | None

    def describe(self) -> str:
        if self.remember:
            return (
                f"Zotero's authorization dialog was answered Always Allow: agent-zot's key is kept in "
                f"{self.stored_in} (readable only by you); later writes need no answer."
            )
        return (
            "Zotero's authorization dialog was answered Allow: a single-use key, good for one write; the "
            "next write asks again. Click Always Allow (or run `agent-zot authorize`) to stop being asked."
        )


def instructions(settings: Settings) -> str:
    """What the person sees and should do while the request waits."""
    return (
        f"Zotero now shows “Local API Authorization”: “{local_api.APP_NAME}”, an application running on "
        "your computer, wants to modify your Zotero library. Click Always Allow (Allow: this one write "
        f"only; Deny: none). Waiting up to {settings.zotero_local_authorize_timeout_s:g} s for your answer…"
    )


def stored_key(settings: Settings, server_id: str) -> str | None:
    entry = _read(key_file(settings)).get(server_id)
    return str(entry["key"]) if isinstance(entry, dict) and entry.get("key") else None


def take_key(settings: Settings, server_id: str) -> str | None:
    """The key the next write sends: the stored one, else an unused single-use one (handed out once)."""
    with _lock:
        once = _once.pop(server_id, None)
    return stored_key(settings, server_id) or once


def drop_key(settings: Settings, server_id: str, key: str) -> None:
    """Zotero no longer knows ``key`` (cleared in its settings, or used up): never send it again."""
    path = key_file(settings)
    with _lock:
        keys = _read(path)
        if (keys.get(server_id) or {}).get("key") == key:
            del keys[server_id]
            _write(path, keys)


def authorize(
    settings: Settings, *, on_wait: Callable[[str], None] | None = None, keep_once: bool = True
) -> Authorization:
    """Ask Zotero for a key; raises with what to do when it cannot be had. ``keep_once``: hold a
    single-use key in memory for the next write (a write that asks for itself uses it at once)."""
    base_url = settings.zotero_local_api_url.rstrip("/")
    timeout = httpx.Timeout(CONNECT_TIMEOUT_S, read=settings.zotero_local_authorize_timeout_s)
    headers = {"User-Agent": local_api.USER_AGENT, "Zotero-API-Version": "3", **local_api.LOCAL_HEADERS}
    with httpx.Client(headers=headers, timeout=timeout, trust_env=False) as client:
        try:
            server_id = local_api.server_id(client, base_url)
            (on_wait or log.warning)(instructions(settings))
            response = client.post(
                f"{base_url}/local/authorize",
                json={"appName": local_api.APP_NAME},
                headers={local_api.SERVER_ID: server_id},
            )
        except httpx.ReadTimeout as exc:
            raise ZoteroWriteError(
                f"Zotero's authorization dialog got no answer within "
                f"{settings.zotero_local_authorize_timeout_s:g} s, so this change was not sent.",
                hint=local_api.AUTHORIZE_HINT,
            ) from exc
        except httpx.TransportError as exc:
            raise RouteUnavailableError(
                f"Could not reach Zotero's local API at {base_url} ({exc}). Nothing was written.",
                hint="Start Zotero. " + local_api.ENABLE_LOCAL_HINT,
            ) from exc
        if local_api.is_server_id_mismatch(response):
            raise local_api.server_changed(client, base_url)
    return _answered(settings, base_url, server_id, response, keep_once=keep_once)


def _answered(
    settings: Settings, base_url: str, server_id: str, response: httpx.Response, *, keep_once: bool
) -> Authorization:
    if response.status_code == 429:
        wait = response.headers.get("Retry-After", "60")
        raise RateLimitedError(
            "Zotero refused to show another authorization dialog (HTTP 429: it shows at most 5 a minute); "
            f"try again in {wait} s. This change was not sent.",
            status=429,
            hint="Then click Always Allow, so that agent-zot need not ask again.",
        )
    if response.status_code == 403 and _denied(response):
        raise AuthorizationDeniedError(
            "Zotero's authorization dialog was answered Deny, so agent-zot has no key to write with: this "
            "change was not sent, and nothing was lost.",
            status=403,
            hint="To let agent-zot write, run `agent-zot authorize` and click Always Allow.",
        )
    if response.status_code != 200:
        raise local_api.local_refusal(base_url, response, writing=True)
    try:
        answer = response.json()
        key, remember = str(answer["key"]), bool(answer.get("remember"))
    except (ValueError, KeyError, TypeError) as exc:
        raise ZoteroWriteError(f"Zotero answered the authorization unreadably ({exc}).") from exc
    stored = None
    if remember:
        stored = key_file(settings)
        with _lock:
            keys = _read(stored)
            keys[server_id] = {
                "key": key,
                "url": base_url,
                "app_name": local_api.APP_NAME,
                "created": datetime.now(UTC).isoformat(timespec="seconds"),
            }
            _write(stored, keys)
    elif keep_once:
        with _lock:
            _once[server_id] = key
    return Authorization(key, remember, server_id, stored)


def _denied(response: httpx.Response) -> bool:
    try:
        return bool(response.json().get("denied"))
    except (ValueError, AttributeError):
        return False


def _read(path: Path) -> dict[str, dict[str, str]]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as exc:
        log.warning("ignoring unreadable %s (%s): Zotero will be asked for a new key", path, exc)
        return {}
    return data if isinstance(data, dict) else {}


def _write(path: Path, keys: dict[str, dict[str, str]]) -> None:
    """Owner-only from the first byte (no window in which others could read it), replaced atomically."""
    path.parent.mkdir(parents=True, exist_ok=True)
    temporary = path.with_suffix(".tmp")
    descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(descriptor, "w", encoding="utf-8") as handle:
        json.dump(keys, handle, indent=2)
    temporary.chmod(0o600)  # os.open's mode is filtered by the umask; this is not
    temporary.replace(path)
