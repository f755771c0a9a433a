"""PMIDs: PubMed's E-utilities esummary (JSON; all ids in one request; `tool` and `email` as NCBI asks)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from agent_zot.config import Settings
from agent_zot.identifiers import Identifier, Kind
from agent_zot.services.organize.add.registries import Found, RegistryHttp, unreadable

_MONTHS = {
    m: i
    for i, m in enumerate(
        ["jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec"], start=1
    )
}


class PubmedRegistry:
    kind: Kind = "pmid"

    def __init__(self, http: RegistryHttp, settings: Settings) -> None:
        self._http = http
        self._url = settings.registry_pubmed_url.rstrip("/") + "/esummary.fcgi"
        self._email = settings.registry_mailto

    def look_up(self, wanted: Sequence[Identifier]) -> dict[Identifier, Found | None]:
        params = {
            "db": "pubmed",
            "id": ",".join(i.value for i in wanted),
            "retmode": "json",
            "tool": "agent-zot",
        }
        if self._email:
            params["email"] = self._email
        response = self._http.get("PubMed", self._url, params=params)
        try:
            result = response.json()["result"] if response is not None else {}
        except (ValueError, KeyError, TypeError) as exc:
            raise unreadable("PubMed", "esummary JSON") from exc
        found: dict[Identifier, Found | None] = {}
        for ident in wanted:
            summary = result.get(ident.value)
            found[ident] = (
                Found(ident, _csl(summary), "PubMed")
                if isinstance(summary, dict) and "error" not in summary and summary.get("title")
                else None
            )
        return found


def _csl(s: dict[str, Any]) -> dict[str, Any]:
    ids = {
        str(a.get("idtype")): str(a.get("value")) for a in s.get("articleids") or [] if isinstance(a, dict)
    }
    csl: dict[str, Any] = {
        "type": "article-journal",
        "title": str(s["title"]).removesuffix("."),  # PubMed ends every title with a full stop
        "container-title": s.get("fulljournalname"),
        "journalAbbreviation": s.get("source"),
        "volume": s.get("volume"),
        "issue": s.get("issue"),
        "page": s.get("pages"),
        "PMID": str(s.get("uid") or ""),
        "DOI": ids.get("doi"),
        "PMCID": ids.get("pmc") or ids.get("pmcid"),
        "ISSN": s.get("issn") or s.get("essn"),
        "language": (s.get("lang") or [None])[0],
        "author": [_author(a) for a in s.get("authors") or [] if isinstance(a, dict) and a.get("name")],
    }
    parts = _date_parts(str(s.get("pubdate") or ""))
    if parts:
        csl["issued"] = {"date-parts": [parts]}
    return {k: v for k, v in csl.items() if v}


def _author(author: dict[str, Any]) -> dict[str, str]:
    """ "Curie M" → family Curie, given M; a collective name stays whole."""
    name = str(author["name"])
    family, _, initials = name.rpartition(" ")
    if author.get("authtype") != "Author" or not family:
        return {"literal": name}
    return {"family": family, "given": initials}


def _date_parts(pubdate: str) -> list[int]:
    """ "2019 Aug 26" → [2019, 8, 26]; "2020 Jul" → [2020, 7]; "2019 Spring" → [2019]."""
    words = pubdate.split()
    if not words or not re.fullmatch(r"\d{4}", words[0]):
        return []
    parts = [int(words[0])]
    month = _MONTHS.get(words[1][:3].lower()) if len(words) > 1 else None
    if month:
        parts.append(month)
        if len(words) > 2 and words[2].isdigit():
            parts.append(int(words[2]))
    return parts
