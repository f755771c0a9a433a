"""ISBNs: Open Library's books API (jscmd=data; all ISBNs in one request)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from agent_zot.config import Settings
from agent_zot.identifiers import Identifier, Kind
from agent_zot.services.organize.add.registries import Found, RegistryHttp, split_name, unreadable


class OpenLibraryRegistry:
    kind: Kind = "isbn"

    def __init__(self, http: RegistryHttp, settings: Settings) -> None:
        self._http = http
        self._url = settings.registry_openlibrary_url.rstrip("/") + "/api/books"

    def look_up(self, wanted: Sequence[Identifier]) -> dict[Identifier, Found | None]:
        params = {"bibkeys": ",".join(f"ISBN:{i.value}" for i in wanted), "format": "json", "jscmd": "data"}
        response = self._http.get("Open Library", self._url, params=params)
        try:
            books = response.json() if response is not None else {}
        except ValueError as exc:
            raise unreadable("Open Library", "books JSON") from exc
        if not isinstance(books, dict):
            raise unreadable("Open Library", "books JSON")
        found: dict[Identifier, Found | None] = {}
        for ident in wanted:
            book = books.get(f"ISBN:{ident.value}")
            found[ident] = (
                Found(ident, _csl(book, ident.value), "Open Library")
                if isinstance(book, dict) and book.get("title")
                else None
            )
        return found


def _first_name(entries: Any) -> str | None:
    for entry in entries or []:
        if isinstance(entry, dict) and entry.get("name"):
            return str(entry["name"])
    return None


def _csl(book: dict[str, Any], isbn: str) -> dict[str, Any]:
    title = str(book["title"])
    if book.get("subtitle"):
        title = f"{title}: {book['subtitle']}"
    csl: dict[str, Any] = {
        "type": "book",
        "title": title,
        "author": [
            split_name(str(a["name"]))
            for a in book.get("authors") or []
            if isinstance(a, dict) and a.get("name")
        ],
        "publisher": _first_name(book.get("publishers")),
        "publisher-place": _first_name(book.get("publish_places")),
        "number-of-pages": str(book["number_of_pages"]) if book.get("number_of_pages") else None,
        "ISBN": isbn,
        "URL": book.get("url"),
    }
    if book.get("publish_date"):
        csl["issued"] = {"literal": str(book["publish_date"])}
    return {k: v for k, v in csl.items() if v}
