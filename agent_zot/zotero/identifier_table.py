"""Which items carry each identifier: an item's DOI and arXiv id read one way everywhere, and the one table
of them (with citation keys and PubMed ids) that the resolver, the audit and the citation matcher read."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field

from agent_zot.identifiers import clean_doi, find_arxiv, find_doi
from agent_zot.zotero.models import Item

_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_FIELD = re.compile(r"^\s*arxiv\s*:\s*(\S+)", re.IGNORECASE | re.MULTILINE)


def item_doi(item: Item) -> str | None:
    """The item's DOI in the form to compare DOIs by (`find_doi`), or None."""
    return find_doi(item.doi) if item.doi else None


def item_arxiv(item: Item) -> str | None:
    """The item's arXiv id: from an arXiv DOI (10.48550/arXiv.…), an "arXiv: …" line in Extra, or an
    arXiv URL, archive ID or report number."""
    doi = _ARXIV_DOI.match(item.doi.strip())
    if doi:
        return find_arxiv("arXiv:" + doi.group(1))
    extra = _ARXIV_FIELD.search(item.extra)
    if extra:
        found = find_arxiv("arXiv:" + extra.group(1))
        if found:
            return found
    for value in (item.url, item.fields.get("archiveID", ""), item.fields.get("number", "")):
        if value and ("arxiv" in value.lower() or value.lower().startswith("abs/")):
            found = find_arxiv(value)
            if found:
                return found
    return None


@dataclass(slots=True)
class IdentifierTable:
    """Which items carry each identifier, the one table the resolver, the audit and the citation matcher
    read: DOI and arXiv id (compare forms) and citation key (Zotero's field or Better BibTeX's line in
    Extra, case-folded). Each lists item keys in the order the items came."""

    dois: dict[str, list[str]] = field(default_factory=dict)
    arxiv: dict[str, list[str]] = field(default_factory=dict)
    citation_keys: dict[str, list[str]] = field(default_factory=dict)
    pmids: dict[str, list[str]] = field(default_factory=dict)  # PubMed ids, digits only
    pmcids: dict[str, list[str]] = field(default_factory=dict)  # PubMed Central ids, upper case ("PMC123")

    @classmethod
    def of(cls, items: Iterable[Item]) -> IdentifierTable:
        table = cls()
        for item in items:
            for index, value in (
                (table.dois, item_doi(item)),
                (table.arxiv, item_arxiv(item)),
                (table.citation_keys, item.citation_key.casefold() if item.citation_key else None),
                (table.pmids, item.pmid.strip() or None),
                (table.pmcids, item.pmcid.strip().upper() or None),
            ):
                if value:
                    index.setdefault(value, []).append(item.key)
        return table

    def with_doi(self, doi: str) -> list[str]:
        """The items with this DOI, however it is written (a resolver URL, "doi:", trailing punctuation)."""
        wanted = find_doi(clean_doi(doi).rstrip(".,;)?!"))  # "who cites 10.1/x?": the mark is no part of it
        return self.dois.get(wanted, []) if wanted else []
