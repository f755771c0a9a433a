"""Scholarly identifiers in free text and in Zotero fields: DOIs, arXiv ids, citation keys and Zotero item
keys, found and normalised the same way everywhere (references, matching, routing, exports, summaries), and
the one table of which items carry each (`IdentifierTable`)."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from agent_zot.zotero.models import Item

DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_NEW = re.compile(
    r"(?:arxiv(?:\.org/(?:abs|pdf))?[:/]?\s*|abs/|corr\s*,?\s*abs/)(\d{4}\.\d{4,5})(?:v\d+)?", re.IGNORECASE
)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$", re.IGNORECASE)
_ARXIV_FIELD = re.compile(r"^\s*arxiv\s*:\s*(\S+)", re.IGNORECASE | re.MULTILINE)
_ARXIV_OLD = re.compile(
    r"\b((?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|physics"
    r"|quant-ph|math|cs|q-bio|q-fin|stat)(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?",
    re.IGNORECASE,
)
# Zotero keys: 8 characters from 23456789ABCDEFGHIJKLMNPQRSTUVWXYZ, the one alphabet every key pattern
# below is built from. In prose, requiring a digit and a letter keeps shouted words ("ABSTRACT") and plain
# numbers out; a word checked against the library's own keys needs only the alphabet.
ITEM_KEY_CHARS = "2-9A-NP-Z"
ITEM_KEY = re.compile(
    rf"(?<![\w-])(?=[{ITEM_KEY_CHARS}]{{0,7}}[2-9])(?=[{ITEM_KEY_CHARS}]{{0,7}}[A-NP-Z])[{ITEM_KEY_CHARS}]{{8}}(?![\w-])"
)
KEY_SHAPED = re.compile(rf"\b[{ITEM_KEY_CHARS}]{{8}}\b")  # any word that could be a key
KEY_MENTION = re.compile(rf"\[([{ITEM_KEY_CHARS}]{{8}})\]")  # how every answer names an item: [KEY]
# An item key typed in lower case: the alphabet with a digit, or with few vowels (a key without digits,
# "dfszkrys"), so "notes on dfszkrys" names an item and "notes on bayesian models" does not.
_LOWER = ITEM_KEY_CHARS.lower()
_CONSONANTS = "b-df-hj-np-tv-xz2-9"
KEY_LIKE_LOWER = (
    rf"(?=[{_LOWER}]{{8}}\b)(?:[a-z]*[2-9]|[{_CONSONANTS}]*(?:[aeiuy][{_CONSONANTS}]*){{0,2}}(?![a-z0-9]))"
)


def is_item_key(text: str) -> bool:
    """Whether ``text`` is shaped like a Zotero item key (upper case, 8 characters of the alphabet)."""
    return KEY_SHAPED.fullmatch(text) is not None


def clean_doi(doi: str) -> str:
    """A DOI as stored, without a resolver URL or "doi:" prefix; case kept (for display and export)."""
    return _DOI_PREFIX.sub("", doi.strip())


def _trimmed(raw: str) -> str:
    doi = raw.rstrip(".,;:]}>'\"")
    while doi.endswith(")") and doi.count(")") > doi.count("("):
        doi = doi[:-1].rstrip(".,;:")
    return doi


def find_doi(text: str) -> str | None:
    """The first DOI in ``text``, lower-cased (DOIs are case-insensitive), trailing punctuation and
    unbalanced closing brackets trimmed: the form to compare DOIs by."""
    match = DOI.search(text)
    return _trimmed(match.group()).lower() if match else None


def same_doi(a: str, b: str) -> bool:
    return bool(a and b) and find_doi(clean_doi(a)) == find_doi(clean_doi(b))


def _valid_new_arxiv(ident: str) -> bool:
    return 1 <= int(ident[2:4]) <= 12  # YYMM: "2022.99999" is no arXiv id


def find_arxiv(text: str) -> str | None:
    """An arXiv id in a reference or URL: "arXiv:2101.00001v2", "abs/2101.00001", "hep-th/9901001"."""
    for match in _ARXIV_NEW.finditer(text):
        if _valid_new_arxiv(match.group(1)):
            return match.group(1)
    old = _ARXIV_OLD.search(text)
    return old.group(1).lower() if old else None


def find_item_keys(text: str) -> list[str]:
    """The Zotero item keys in ``text``, in order, without repeats."""
    return list(dict.fromkeys(m.group() for m in ITEM_KEY.finditer(text)))


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

    @classmethod
    def of(cls, items: Iterable[Item]) -> IdentifierTable:
        table = cls()
        for item in items:
            for index, value in (
                (table.dois, item_doi(item)),
                (table.arxiv, item_arxiv(item)),
                (table.citation_keys, item.citation_key.casefold() if item.citation_key else None),
            ):
                if value:
                    index.setdefault(value, []).append(item.key)
        return table

    def with_doi(self, doi: str) -> list[str]:
        """The items with this DOI, however it is written (a resolver URL, "doi:", trailing punctuation)."""
        wanted = find_doi(clean_doi(doi))
        return self.dois.get(wanted, []) if wanted else []
