"""Errors of the write path; each message says what happened and that (or whether) anything changed."""

from __future__ import annotations

from agent_zot.errors import AgentZotError


class ZoteroWriteError(AgentZotError):
    """Zotero's API refused or failed a request."""

    def __init__(self, message: str, *, status: int | None = None, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.status = status


class RateLimitedError(ZoteroWriteError):
    """Zotero asked us to wait longer than we are willing to, or kept refusing after waiting."""


class VersionConflictError(ZoteroWriteError):
    """HTTP 412: the object changed on the server since we read it."""


class RouteUnavailableError(ZoteroWriteError):
    """The local API is not running, not enabled, or does not accept writes; nothing was written."""
