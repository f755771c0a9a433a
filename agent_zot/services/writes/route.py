"""Which Zotero API a write goes through (local app or web), chosen from the settings alone."""

from __future__ import annotations

from dataclasses import dataclass

from agent_zot.config import Settings
from agent_zot.errors import AgentZotError

ENABLE_HINT = (
    "Set AGENT_ZOT_WRITES_ENABLED=true, AGENT_ZOT_ZOTERO_API_KEY (a key with write access, from "
    "zotero.org/settings/keys) and AGENT_ZOT_ZOTERO_LIBRARY_ID (your numeric user ID, or a group ID with "
    "AGENT_ZOT_ZOTERO_LIBRARY_TYPE=group); or writes_enabled, zotero_api_key and zotero_library_id in "
    "config.toml. With Zotero 10 or newer running, AGENT_ZOT_ZOTERO_LOCAL_API=true is enough: check "
    "“Allow other applications on this computer to communicate with Zotero” in Zotero's Settings › "
    "Advanced, then run `agent-zot authorize` and click Always Allow (or answer the dialog the first "
    "write opens)."
)


class WritesNotConfiguredError(AgentZotError):
    """Writes are enabled but no API route is complete (missing key or library id)."""


@dataclass(frozen=True, slots=True)
class WriteRoute:
    """One way to reach a writable Zotero library."""

    kind: str  # "local" | "web"
    base_url: str
    library_type: str  # "user" | "group"
    library_id: str
    api_key: str | None
    reason: str

    @property
    def local(self) -> bool:
        return self.kind == "local"

    @property
    def library(self) -> str:
        """The API's library prefix, e.g. users/123 or groups/4242."""
        return f"{self.library_type}s/{self.library_id}"

    @property
    def label(self) -> str:
        api = "Zotero's local API" if self.local else "the Zotero web API"
        return f"{api} ({self.base_url}, {self.library})"

    def to_dict(self) -> dict[str, str]:
        return {"kind": self.kind, "base_url": self.base_url, "library": self.library, "reason": self.reason}


def write_routes(settings: Settings) -> list[WriteRoute]:
    """Routes to try in order: the local API first when enabled, then the web API when configured.

    Raises WritesNotConfiguredError naming what is missing when neither is usable.
    """
    routes = []
    if settings.zotero_local_api:
        routes.append(_local_route(settings))
    web = _web_route(settings)
    if web is not None:
        routes.append(web)
    if routes:
        return routes
    missing = [
        name
        for name, value in (
            ("zotero_api_key (AGENT_ZOT_ZOTERO_API_KEY)", settings.zotero_api_key),
            ("zotero_library_id (AGENT_ZOT_ZOTERO_LIBRARY_ID)", settings.zotero_library_id),
        )
        if not value
    ]
    raise WritesNotConfiguredError(
        "Writes are enabled, but there is no way to reach Zotero: missing " + " and ".join(missing) + ".",
        hint=ENABLE_HINT,
    )


def _local_route(settings: Settings) -> WriteRoute:
    # The local API names the signed-in user's library users/0; groups keep their group ID.
    group = settings.zotero_library_id if settings.zotero_library_type == "group" else None
    return WriteRoute(
        kind="local",
        base_url=settings.zotero_local_api_url.rstrip("/"),
        library_type="group" if group else "user",
        library_id=group or "0",
        api_key=None,
        reason="zotero_local_api is on: the running Zotero app is asked first",
    )


def _web_route(settings: Settings) -> WriteRoute | None:
    if settings.zotero_api_key is None or not settings.zotero_library_id:
        return None
    return WriteRoute(
        kind="web",
        base_url=settings.zotero_api_url.rstrip("/"),
        library_type=settings.zotero_library_type,
        library_id=settings.zotero_library_id,
        api_key=settings.zotero_api_key.get_secret_value(),
        reason="zotero_api_key and zotero_library_id are set",
    )
