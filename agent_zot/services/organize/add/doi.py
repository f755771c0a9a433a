"""DOIs: doi.org content negotiation (CSL-JSON from whichever agency registered the DOI: Crossref,
DataCite, mEDRA…), and Crossref's REST API when doi.org cannot answer."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from urllib.parse import quote

from agent_zot.config import Settings
from agent_zot.identifiers import Identifier, Kind
from agent_zot.services.organize.add.registries import (
    Found,
    RegistryDownError,
    RegistryHttp,
    open_pdf,
    unreadable,
)

CSL_JSON = "application/vnd.citationstyles.csl+json"


class DoiRegistry:
    kind: Kind = "doi"

    def __init__(self, http: RegistryHttp, settings: Settings) -> None:
        self._http = http
        self._doi_url = settings.registry_doi_url.rstrip("/")
        self._crossref_url = settings.registry_crossref_url.rstrip("/")

    def look_up(self, wanted: Sequence[Identifier]) -> dict[Identifier, Found | None]:
        return {ident: self._one(ident) for ident in wanted}

    def _one(self, ident: Identifier) -> Found | None:
        try:
            response = self._http.get(
                "doi.org", f"{self._doi_url}/{quote(ident.value, safe='/')}", headers={"Accept": CSL_JSON}
            )
        except RegistryDownError as down:
            return self._crossref(ident, down)
        if response is None:
            return None  # doi.org: no such DOI
        try:
            csl = response.json()
        except ValueError:
            csl = None
        if not isinstance(csl, dict) or not csl.get("title"):
            # an agency that does not negotiate CSL-JSON: Crossref may still know the DOI
            return self._crossref(ident, unreadable("doi.org", "CSL-JSON"))
        source = csl.get("source")
        catalog = f"DOI.org ({source})" if isinstance(source, str) and source else "DOI.org"
        return Found(ident, csl, catalog, open_pdf(csl))

    def _crossref(self, ident: Identifier, down: RegistryDownError) -> Found | None:
        try:
            response = self._http.get("Crossref", f"{self._crossref_url}/works/{quote(ident.value, safe='')}")
        except RegistryDownError as also:
            raise RegistryDownError(
                f"{down.message.removesuffix(' Nothing was added.')}; the fallback, {also.message}",
                hint=also.hint,
            ) from also
        if response is None:
            return None
        try:
            body = response.json()
        except ValueError as exc:
            raise unreadable("Crossref", "work record") from exc
        message = body.get("message") if isinstance(body, dict) else None
        if not isinstance(message, dict):
            raise unreadable("Crossref", "work record")
        return Found(ident, crossref_csl(message), "Crossref", open_pdf(message))


def crossref_csl(message: dict[str, Any]) -> dict[str, Any]:
    """A Crossref REST work as CSL-JSON: one title, one container title (Crossref lists them); the type
    keeps Crossref's name (zotero_json.py maps both vocabularies)."""
    csl = {k: v for k, v in message.items() if k not in ("title", "subtitle", "container-title")}
    titles = [str(t) for t in message.get("title") or []]
    subtitles = [str(t) for t in message.get("subtitle") or []]
    if titles:
        csl["title"] = f"{titles[0]}: {subtitles[0]}" if subtitles else titles[0]
    containers = [str(t) for t in message.get("container-title") or []]
    if containers:
        csl["container-title"] = containers[0]
    short = message.get("short-container-title") or []
    if short:
        csl["container-title-short"] = str(short[0])
    return csl
