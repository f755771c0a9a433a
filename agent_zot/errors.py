"""One exception root. Messages of these exceptions are written for users and reach them as they are."""

from __future__ import annotations


class AgentZotError(Exception):
    """Base of every error agent-zot raises on purpose; ``str(err)`` is a user-facing message."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def __str__(self) -> str:
        return f"{self.message} {self.hint}" if self.hint else self.message


class ConfigError(AgentZotError):
    """The configuration file or an environment variable is invalid."""


class LibraryNotFoundError(AgentZotError):
    """No Zotero data directory or database could be found."""


class NotAZoteroDatabaseError(AgentZotError):
    """The file exists but is not a Zotero database (or cannot be read as SQLite)."""


class LibraryReadError(AgentZotError):
    """The database could not be read consistently (for example it kept changing)."""


class NotFoundError(AgentZotError):
    """An item key, collection, tag or other named thing does not exist."""


class AmbiguousNameError(AgentZotError):
    """A name matched several things; ``candidates`` lists them so the caller can pick one."""

    def __init__(self, message: str, candidates: list[str], *, hint: str | None = None) -> None:
        super().__init__(message, hint=hint)
        self.candidates = candidates

    def __str__(self) -> str:
        """The message, then the candidates (unless the message already names them), then the hint."""
        listed = (
            ""
            if any(c in self.message for c in self.candidates)
            else "".join(f"\n- {c}" for c in self.candidates[:8])
        )
        return f"{self.message}{listed}" + (f"\n{self.hint}" if self.hint else "")


class InvalidArgumentError(AgentZotError):
    """A tool or command argument is malformed or contradictory."""


class EmbedderError(AgentZotError):
    """An embedding model cannot be loaded or reached, or its files are not the pinned ones; the message
    says how to fix it."""


class ExportError(AgentZotError):
    """An export could not be written (path outside the export directory, file exists, ...)."""
