"""Scholarly identifiers in free text and in Zotero fields: DOIs, arXiv ids and Zotero item keys, found and
normalised the same way everywhere (references, matching, routing, exports, summaries); which items carry
each: zotero/identifier_table.py. A request's identifiers (DOI, arXiv id, PMID, ISBN) in the one form they
are compared and looked up by: ``parse_identifiers``."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from agent_zot.errors import InvalidArgumentError

DOI = re.compile(r"\b10\.\d{4,9}/[^\s\"<>]+", re.IGNORECASE)
_DOI_PREFIX = re.compile(r"^(?:https?://(?:dx\.)?doi\.org/|doi:\s*)", re.IGNORECASE)
_ARXIV_NEW = re.compile(
    r"(?:arxiv(?:\.org/(?:abs|pdf))?[:/]?\s*|abs/|corr\s*,?\s*abs/)(\d{4}\.\d{4,5})(?:v\d+)?", re.IGNORECASE
)
_ARXIV_OLD = re.compile(
    r"\b((?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|physics"
    r"|quant-ph|math|cs|q-bio|q-fin|stat)(?:\.[A-Z]{2})?/\d{7})(?:v\d+)?",
    re.IGNORECASE,
)
# Zotero keys (items, collections, attachments): 8 characters from Zotero's alphabet, digits without 0 and
# 1 and capitals without O, spelled here once: every key pattern below is built from it, and the fixture
# builder draws new keys from it. In prose, requiring a digit and a letter keeps shouted words
# ("ABSTRACT") and plain numbers out; a word checked against the library's own keys needs only the alphabet.
KEY_DIGITS = "23456789"
KEY_LETTERS = "ABCDEFGHIJKLMNPQRSTUVWXYZ"
KEY_ALPHABET = KEY_DIGITS + KEY_LETTERS
ITEM_KEY_CHARS = KEY_ALPHABET  # as a regex character class: no character in it is special there
ITEM_KEY = re.compile(
    rf"(?<![\w-])(?=[{ITEM_KEY_CHARS}]{{0,7}}[{KEY_DIGITS}])(?=[{ITEM_KEY_CHARS}]{{0,7}}[{KEY_LETTERS}])"
    rf"[{ITEM_KEY_CHARS}]{{8}}(?![\w-])"
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


# PubMed ids: digits named as such ("PMID 31452104", "PMID: …") or in a PubMed URL; bare digits are not taken.
PMID = re.compile(
    r"\b(?:pmid\s*:?\s*|pubmed\.ncbi\.nlm\.nih\.gov/|ncbi\.nlm\.nih\.gov/pubmed/)(\d{1,9})\b", re.IGNORECASE
)
# ISBNs: after "ISBN", or an ISBN-13 (978/979) on its own; hyphens and spaces between digit groups.
ISBN = re.compile(
    r"\bisbn(?:-1[03])?\s*:?\s*((?:\d[\s-]?){9}[\dx]|(?:\d[\s-]?){12}\d)(?![\w-])"
    r"|(?<![\w-])(97[89](?:[\s-]?\d){10})(?![\w-])",
    re.IGNORECASE,
)


def isbn13(raw: str) -> str | None:
    """The ISBN-13 of an ISBN-10 or ISBN-13 (hyphens and spaces ignored), or None when its check digit
    is wrong or it has the wrong length."""
    digits = re.sub(r"[\s-]", "", raw).upper()
    if re.fullmatch(r"\d{9}[\dX]", digits):
        total = sum((10 - i) * (10 if c == "X" else int(c)) for i, c in enumerate(digits))
        if total % 11:
            return None
        digits = "978" + digits[:9]
        return digits + _isbn13_check(digits)
    if re.fullmatch(r"97[89]\d{10}", digits):
        return digits if _isbn13_check(digits[:12]) == digits[12] else None
    return None


def _isbn13_check(first12: str) -> str:
    return str(-sum((3 if i % 2 else 1) * int(c) for i, c in enumerate(first12)) % 10)


# --- the identifiers a request names ---------------------------------------------------------------------

Kind = Literal["doi", "arxiv", "pmid", "isbn"]
_ARXIV_ANY = re.compile(
    r"(?:arxiv(?:\.org/(?:abs|pdf))?[:/]?\s*|abs/)?(?<![\w.])(\d{4}\.\d{4,5}(?:v\d+)?)(?![\w.])"
    r"|\b(?:astro-ph|cond-mat|gr-qc|hep-ex|hep-lat|hep-ph|hep-th|math-ph|nlin|nucl-ex|nucl-th|physics|quant-ph"
    r"|math|cs|q-bio|q-fin|stat)(?:\.[a-z]{2})?/\d{7}(?:v\d+)?",
    re.IGNORECASE,
)
_ARXIV_CUE = re.compile(r"arxiv|abs/", re.IGNORECASE)
_ARXIV_DOI = re.compile(r"^10\.48550/arxiv\.(.+)$")
_BARE_PMID = re.compile(r"^\d{1,9}$")
HINT = (
    "Name papers by DOI (10.1145/…), arXiv id (arXiv:2101.00001, hep-th/9901001), PMID (PMID 31452104) "
    "or ISBN (10 or 13 digits)."
)


@dataclass(frozen=True, slots=True)
class Identifier:
    kind: Kind
    value: str  # DOI lower-cased, arXiv id without version, PMID digits, ISBN-13 digits

    @property
    def label(self) -> str:
        return {"doi": "DOI ", "arxiv": "arXiv:", "pmid": "PMID ", "isbn": "ISBN "}[self.kind] + self.value

    @property
    def arxiv_id(self) -> str | None:
        """The arXiv id this names (an arXiv DOI 10.48550/arXiv.… names one too)."""
        if self.kind == "arxiv":
            return self.value
        doi = _ARXIV_DOI.match(self.value) if self.kind == "doi" else None
        return find_arxiv("arXiv:" + doi.group(1)) if doi else None


def parse_identifiers(text: str) -> list[Identifier]:
    """Every identifier in ``text``, in order, each once (an ISBN-10 and its ISBN-13 are one). An ISBN
    named as such with a wrong check digit is an error, not a guess."""
    found: list[tuple[int, Identifier]] = []
    taken: list[tuple[int, int]] = []
    for m in DOI.finditer(text):
        doi = find_doi(m.group())
        if doi:
            found.append((m.start(), Identifier("doi", doi)))
            taken.append(m.span())

    def free(span: tuple[int, int]) -> bool:
        return not any(s < span[1] and span[0] < e for s, e in taken)

    for m in _ARXIV_ANY.finditer(text):
        ident = find_arxiv(m.group() if _ARXIV_CUE.search(m.group()) else "arXiv:" + m.group())
        if ident and free(m.span()) and (_ARXIV_CUE.search(m.group()) or "/" in m.group() or _alone(text)):
            found.append((m.start(), Identifier("arxiv", ident)))
            taken.append(m.span())
    for m in PMID.finditer(text):
        if free(m.span()):
            found.append((m.start(), Identifier("pmid", str(int(m.group(1))))))
            taken.append(m.span())
    for m in ISBN.finditer(text):
        raw = m.group(1) or m.group(2)
        if not free(m.span()):
            continue
        normal = isbn13(raw)
        if normal is None and m.group(1):
            raise InvalidArgumentError(
                f"ISBN {raw.strip()} is not a valid ISBN (its check digit is wrong). Nothing was added.",
                hint="Check the ISBN on the book or its catalogue page.",
            )
        if normal is not None:
            found.append((m.start(), Identifier("isbn", normal)))
            taken.append(m.span())
    return list(dict.fromkeys(ident for _, ident in sorted(found, key=lambda pair: pair[0])))


def _alone(text: str) -> bool:
    """A bare new-style arXiv id ("2101.00001") is taken only when it is all that was given."""
    return _ARXIV_ANY.fullmatch(text.strip()) is not None


def parse_given(values: Iterable[str]) -> list[Identifier]:
    """Identifiers passed one per list entry: each must name at least one (bare digits: an ISBN when
    its check digit fits, else a PMID)."""
    found: list[Identifier] = []
    for value in values:
        text = value.strip()
        idents = parse_identifiers(text)
        if not idents and isbn13(text):
            idents = [Identifier("isbn", isbn13(text) or "")]
        elif not idents and _BARE_PMID.fullmatch(text):
            idents = [Identifier("pmid", str(int(text)))]
        if not idents:
            raise InvalidArgumentError(
                f"Not a DOI, arXiv id, PMID or ISBN: {value!r}. Nothing was added.", hint=HINT
            )
        found.extend(idents)
    return list(dict.fromkeys(found))
