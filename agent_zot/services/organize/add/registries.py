"""What every registry adapter is (a small Protocol), what it finds, and the HTTP client they share.

An adapter answers each identifier with a `Found` (the record as CSL-JSON, whatever the registry speaks),
None when the registry says it does not know it, or raises `RegistryDownError` when the registry cannot
answer: then nothing is written, so asking again later adds everything at once.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

import httpx

from agent_zot import __version__
from agent_zot.config import Settings
from agent_zot.errors import AgentZotError
from agent_zot.identifiers import Identifier, Kind

_OPEN_LICENCE = re.compile(r"creativecommons\.org/(?:licenses|publicdomain)/", re.IGNORECASE)


class RegistryDownError(AgentZotError):
    """A registry could not be reached or answered with an error; nothing was added."""


@dataclass(frozen=True, slots=True)
class Found:
    identifier: Identifier
    csl: dict[str, Any]  # the record as CSL-JSON
    catalog: str  # where it came from (Zotero's libraryCatalog field)
    pdf_url: str | None = None  # an open-access PDF the registry links


class Registry(Protocol):
    kind: Kind

    def look_up(self, wanted: Sequence[Identifier]) -> dict[Identifier, Found | None]: ...


def user_agent(settings: Settings) -> str:
    """Crossref and NCBI ask clients to say who they are and how to reach them."""
    contact = f" (mailto:{settings.registry_mailto})" if settings.registry_mailto else ""
    return f"agent-zot/{__version__}{contact}"


class RegistryHttp:
    """GETs with the settings' timeout and User-Agent, redirects followed; errors named by registry."""

    def __init__(self, settings: Settings, transport: httpx.BaseTransport | None = None) -> None:
        self.settings = settings
        self._client = httpx.Client(
            headers={"User-Agent": user_agent(settings)},
            timeout=settings.registry_timeout_s,
            follow_redirects=True,
            transport=transport,
        )

    def get(
        self,
        registry: str,
        url: str,
        *,
        params: Mapping[str, str] | None = None,
        headers: Mapping[str, str] | None = None,
    ) -> httpx.Response | None:
        """The answer, or None when the registry says it does not know the thing (404)."""
        try:
            response = self._client.get(url, params=params, headers=headers)
        except httpx.HTTPError as exc:
            raise RegistryDownError(
                f"{registry} could not be reached ({type(exc).__name__}: {exc}). Nothing was added.",
                hint="Check the network connection and try again; the registry's address is a setting "
                "(registry_*_url).",
            ) from exc
        if response.status_code == 404:
            return None
        if response.status_code != 200:
            raise RegistryDownError(
                f"{registry} answered HTTP {response.status_code} for {response.request.url}. "
                "Nothing was added.",
                hint="The registry may be down or limiting requests; try again in a few minutes.",
            )
        return response

    def close(self) -> None:
        self._client.close()


def unreadable(registry: str, what: str) -> RegistryDownError:
    return RegistryDownError(
        f"{registry} sent an answer that is not the documented {what}. Nothing was added.",
        hint="Try again later; if it persists, the registry changed its format.",
    )


def open_pdf(record: Mapping[str, Any]) -> str | None:
    """A PDF link of a Crossref-shaped record (`link`, `license`), when an open licence covers it."""
    licences = [str(x.get("URL", "")) for x in record.get("license") or [] if isinstance(x, dict)]
    if not any(_OPEN_LICENCE.search(url) for url in licences):
        return None
    for link in record.get("link") or []:
        if isinstance(link, dict) and link.get("content-type") == "application/pdf" and link.get("URL"):
            return str(link["URL"])
    return None


def split_name(name: str) -> dict[str, str]:
    """ "Alan M. Turing" → given "Alan M.", family "Turing" (the last word is the surname)."""
    words = name.split()
    if len(words) < 2:
        return {"literal": name.strip()}
    return {"given": " ".join(words[:-1]), "family": words[-1]}
