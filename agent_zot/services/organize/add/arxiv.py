"""arXiv ids: the arXiv API (an Atom feed; all ids in one request, as arXiv asks for few requests)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections.abc import Sequence
from typing import Any

from agent_zot.config import Settings
from agent_zot.identifiers import Identifier, Kind, find_arxiv
from agent_zot.services.organize.add.registries import Found, RegistryHttp, split_name, unreadable

_NS = {"atom": "http://www.w3.org/2005/Atom", "arxiv": "http://arxiv.org/schemas/atom"}


class ArxivRegistry:
    kind: Kind = "arxiv"

    def __init__(self, http: RegistryHttp, settings: Settings) -> None:
        self._http = http
        self._url = settings.registry_arxiv_url.rstrip("/") + "/query"

    def look_up(self, wanted: Sequence[Identifier]) -> dict[Identifier, Found | None]:
        params = {"id_list": ",".join(i.value for i in wanted), "max_results": str(len(wanted))}
        response = self._http.get("arXiv", self._url, params=params)
        entries = _entries(response.content) if response is not None else {}
        found: dict[Identifier, Found | None] = {}
        for ident in wanted:
            entry = entries.get(ident.value)
            found[ident] = Found(ident, *entry) if entry else None  # unknown ids have no entry
        return found


def _entries(feed: bytes) -> dict[str, tuple[dict[str, Any], str, str | None]]:
    """arXiv id → (CSL-JSON, catalog, PDF link). Error entries (malformed ids) name no paper."""
    try:
        root = ET.fromstring(feed)
    except ET.ParseError as exc:
        raise unreadable("arXiv", "Atom feed") from exc
    found = {}
    for entry in root.findall("atom:entry", _NS):
        ident = find_arxiv(_text(entry, "atom:id"))
        if ident is None:
            continue
        published = _text(entry, "atom:published")[:10]
        csl: dict[str, Any] = {
            "type": "article",
            "title": " ".join(_text(entry, "atom:title").split()),
            "abstract": " ".join(_text(entry, "atom:summary").split()),
            "author": [split_name(_text(a, "atom:name")) for a in entry.findall("atom:author", _NS)],
            "publisher": "arXiv",
            "number": f"arXiv:{ident}",
            "DOI": f"10.48550/arXiv.{ident}",  # the DOI arXiv registers for every paper (DataCite)
            "URL": f"https://arxiv.org/abs/{ident}",
        }
        if published:
            csl["issued"] = {"date-parts": [[int(p) for p in published.split("-")]]}
        pdf = next((a.get("href") for a in entry.findall("atom:link", _NS) if a.get("title") == "pdf"), None)
        found[ident] = (csl, "arXiv.org", pdf)
    return found


def _text(element: ET.Element, path: str) -> str:
    child = element.find(path, _NS)
    return (child.text or "").strip() if child is not None else ""
