"""The identifiers a request names, each in the one form it is compared and looked up by."""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

from agent_zot.errors import InvalidArgumentError
from agent_zot.identifiers import DOI, ISBN, PMID, find_arxiv, find_doi, isbn13

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
