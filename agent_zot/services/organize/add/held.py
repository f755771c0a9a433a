"""Which requested papers the library already holds: by DOI, arXiv id or PMID (the resolver's identifier
table) or ISBN, with every copy of that paper (zotero/copies.py groups)."""

from __future__ import annotations

import re
from collections.abc import Iterable

from agent_zot.errors import InvalidArgumentError
from agent_zot.identifiers import Identifier, isbn13, parse_given
from agent_zot.services.resolve.paper_index import paper_index
from agent_zot.zotero.models import Library

_ISBN_TOKEN = re.compile(r"[\dXx][\dXx\s-]{8,16}[\dXx]")


class Holdings:
    """Lookups over one library snapshot (ISBNs are gathered on first use)."""

    def __init__(self, library: Library) -> None:
        self._library = library
        self._index = paper_index(library)
        self._isbns: dict[str, list[str]] | None = None

    def holding(self, idents: Iterable[Identifier]) -> list[str]:
        """Keys of the items that are any of these identifiers' paper, copies included; [] when none."""
        keys: list[str] = []
        for ident in idents:
            keys += self._direct(ident)
        with_copies: list[str] = []
        for key in keys:
            with_copies += self._index.group_of.get(key, (key,))
        return list(dict.fromkeys(with_copies))

    def _direct(self, ident: Identifier) -> list[str]:
        ids = self._index.ids
        keys: list[str] = []
        if ident.kind == "doi":
            keys += ids.with_doi(ident.value)
        if ident.arxiv_id:
            keys += ids.arxiv.get(ident.arxiv_id, [])
        if ident.kind == "pmid":
            keys += ids.pmids.get(ident.value, [])
        if ident.kind == "isbn":
            keys += self._isbn_table().get(ident.value, [])
        return keys

    def _isbn_table(self) -> dict[str, list[str]]:
        if self._isbns is None:
            self._isbns = {}
            for item in self._library.items.values():
                for token in _ISBN_TOKEN.findall(item.fields.get("ISBN", "")):
                    normal = isbn13(token)
                    if normal:
                        self._isbns.setdefault(normal, []).append(item.key)
        return self._isbns


def identifiers_of(found_csl: dict[str, object], requested: Identifier) -> list[Identifier]:
    """The identifiers a registry's record carries besides the one asked for (a PubMed record's DOI)."""
    idents = [requested]
    for variable in ("DOI", "PMID", "ISBN", "number"):
        value = found_csl.get(variable)
        values = value if isinstance(value, list) else [value]
        for one in values:
            text = str(one or "").strip()
            if not text:
                continue
            if variable == "PMID":
                text = f"PMID {text}"
            elif variable == "ISBN":
                text = f"ISBN {text}"
            elif variable == "number" and "arxiv" not in text.lower():
                continue
            try:
                idents += parse_given([text])
            except InvalidArgumentError:
                continue  # a malformed value in the record names nothing
    return list(dict.fromkeys(idents))
