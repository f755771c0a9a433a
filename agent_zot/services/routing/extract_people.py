"""Author names and publication venues.

Names are recognised by shape, not from a list: capitalised words, with particles (van der, de la, von),
O'Brien, Smith-Jones, McDonald/LeCun, initials ("J. Smith") and the inverted "Smith, J." form. A name
is only taken after a cue ("by", "co-authors of", "X's papers"), so ordinary capitalised words stay put.
"""

from __future__ import annotations

import re
from typing import Any

from .scan import Scan, words

_UP = "A-ZÀ-ÖØ-ÞĀ-Ž"
_LO = "a-zß-öø-ÿā-ž"
_PART = rf"[{_UP}][{_LO}]+(?:[{_UP}][{_LO}]+)?"  # Smith, McDonald, LeCun
_WORD = rf"(?:O['’]|D['’])?{_PART}(?:-{_PART})?"  # O'Brien, Smith-Jones
_INITIALS = rf"(?:[{_UP}]\.\s?){{1,3}}"
_PARTICLE = (
    r"(?:van\s+der|van\s+den|van\s+de|von\s+der|von\s+dem|de\s+la|de\s+los|de\s+las|van|von|de|del|della"
    r"|der|di|da|du|dos|das|le|la|ten|ter|bin)"
)
_FULL = (
    rf"(?:{_INITIALS}\s?)?(?:{_PARTICLE}\s)?{_WORD}(?:\s(?:{_INITIALS}(?=\s)"
    rf"|(?:{_PARTICLE}\s)?{_WORD})){{0,3}}"
)
_INVERTED = rf"{_WORD}(?:\s+{_WORD})?,\s?{_INITIALS}"
_NAME = rf"(?:{_INVERTED}|{_FULL})"
_NAME_LIST = rf"{_NAME}(?:(?:\s*,?\s*(?:and|&)\s*|\s*,\s*){_NAME}){{0,6}}"
_ET_AL = r"(?:\s+et\.?\s+al\.?)?"

_NAME_RE = re.compile(_NAME)
_TRAILING_ET_AL_RE = re.compile(r"\s+et\.?\s+al\.?$")
_HAS_CAPITAL = re.compile(f"[{_UP}]")
_AUTHOR_CUES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        rf"(?i:\b(?:by|authored\s+by))\s+({_NAME_LIST}){_ET_AL}",
        rf"(?i:\b(?:co-?authors?|collaborators?|colleagues"
        rf"|students)\s+(?:of|with|for))\s+({_NAME_LIST}){_ET_AL}",
        rf"(?i:\b(?:collaborat\w*|worked|works|working|work|published|co-?authored|wrote))"
        rf"\s+(?i:with|alongside|together\s+with)\s+({_NAME_LIST}){_ET_AL}",
        rf"(?i:\b(?:network|graph|neighbou?rhood)\s+(?:of|around|as))\s+({_NAME_LIST}){_ET_AL}",
        rf"(?i:\b(?:cite|cites|citing|cited|referencing|references))\s+({_NAME_LIST}){_ET_AL}",
        rf"(?i:\b(?:papers?|works?|articles?|publications?|writings?)\s+of)\s+({_NAME_LIST}){_ET_AL}",
        rf"(?i:\b(?:authors?|authored|researcher|scientist)(?:\s*(?:named"
        rf"|called|is|=|:))?)\s*({_NAME_LIST}){_ET_AL}",
        rf"(?i:\b(?:did|has|have|does|who))\s+({_NAME})\s+(?i:publish|write"
        rf"|wrote|written|work|worked|collaborate|cite|co-?authored)",
        rf"({_NAME}){_ET_AL}['’]s?\s+(?:(?i:[a-z-]+)\s+){{0,2}}?(?i:work|works|papers?|research|articles?"
        r"|publications?|studies|books?|stuff|writings?|output|collaborators|co-?authors|network|students"
        r"|group|lab|team|contributions?|findings|theory|model)\b",
    )
)
# "sorted by Date", "grouped by Year": "by" that is not about authors.
_NOT_AUTHOR_BY = re.compile(
    r"(?i:(?:sort|sorted|order|ordered|group|grouped|rank|ranked|filter|filtered)\s*)$"
)

# Capitalised words that open sentences or name things but are not people.
_NOT_NAME_WORDS = words(
    """
    show find get list search papers paper what who which where how the a an all any my me i give
    tell export add remove create please can could would do does did is are related recent summarize
    summarise explore and also everything anything work works look fetch open about with from in on
    by for to of collaboration network graph co authors author articles publications research
    studies
    """
)

_VENUE_WORD = r"[A-Z][A-Za-z0-9&.+'-]*"
_VENUE_JOIN = r"\s(?:(?:of|and|the|in|&|de|der|für)\s){0,3}"
# "on"/"for" join a venue name only after the nouns that take them ("Transactions on ..."), so that
# "in Nature on CRISPR" stops at "Nature".
_VENUE_NOUN_JOIN = (
    r"(?:(?<=Transactions)|(?<=Conference)|(?<=Workshop)|(?<=Symposium)|(?<=Proceedings)|(?<=Advances)"
    r"|(?<=Meeting)|(?<=Society)|(?<=Association)|(?<=Journal))\s(?:on|for)\s(?:the\s)?"
)
_VENUE = rf"{_VENUE_WORD}(?:(?:{_VENUE_NOUN_JOIN}|{_VENUE_JOIN}){_VENUE_WORD}){{0,8}}"
_VENUE_RE = re.compile(
    rf"(?i:\b(?P<published>published|appeared|appearing|presented|accepted|printed)\s+(?:in|at)|\b(?:in|at))"
    rf"\s+(?:(?i:the)\s+)?({_VENUE})"
)
# After a bare "in" or "at", capitalised words are a venue only when they read like one ("in Nature",
# "in Journal of Finance", "at ACL 2020": an acronym with its year), not a place or a field ("in Latin
# American municipalities", "in Arabic philosophy", "in the ICU").
_VENUE_LIKE = re.compile(
    r"(?i:\b(?:journal|proceedings|conference|transactions|review|letters|annals|bulletin|quarterly|magazine"
    r"|symposium|workshop|advances|nature|science|cell|lancet|plos|arxiv|biorxiv|medrxiv|acm|ieee|springer"
    r"|elsevier|press)\b)|^[A-Z]{2,8}\s+(?:19|20)\d{2}$"
)
_VENUE_STOP = words(
    """
    my our your this that these those it i me bibtex markdown json csl csl-json graphml gephi
    cytoscape zotero obsidian section chapter figure fig table appendix page pages english apa mla
    chicago harvard python r latex overleaf detail depth full general total short brief particular
    order addition part time collection library mind terms
    """
)
# Venues people name bare ("PNAS articles", "NeurIPS 2021 papers"); only names that mean nothing else.
_KNOWN_VENUE_RE = re.compile(
    r"\b(?:PNAS|NEJM|JAMA|BMJ|NeurIPS|NIPS|ICML|ICLR|CVPR|ICCV|ECCV|EMNLP|NAACL|AAAI|IJCAI|KDD|SIGIR"
    r"|SIGGRAPH|PLOS ONE|PLoS ONE|eLife)\b"
)
_VENUE_NOT_BEFORE = re.compile(r"(?i:\s{0,3}(?:collection|folder|tag|sub-?collection)\b|['’]s\b)")


def _clean_name(raw: str) -> str | None:
    """Trim sentence words glued to a name ("Show Hinton" → "Hinton") and a trailing et al."""
    raw = _TRAILING_ET_AL_RE.sub("", raw.strip())
    tokens = raw.split()
    while tokens and tokens[0].lower().strip(",") in _NOT_NAME_WORDS:
        tokens.pop(0)
    while tokens and tokens[-1].lower() in _NOT_NAME_WORDS:
        tokens.pop()
    name = " ".join(tokens).strip(" ,")
    return name or None


def _split_names(raw: str) -> list[str]:
    names = []
    for m in _NAME_RE.finditer(raw):
        name = _clean_name(m.group(0))
        if name:
            names.append(name)
    return names


def extract_authors(scan: Scan, params: dict[str, Any]) -> None:
    if not _HAS_CAPITAL.search(scan.masked):
        return
    found: list[str] = []
    for pattern in _AUTHOR_CUES:
        spans: list[tuple[int, int]] = []
        for m in pattern.finditer(scan.masked):
            if pattern is _AUTHOR_CUES[0] and _NOT_AUTHOR_BY.search(
                scan.masked, max(0, m.start() - 12), m.start()
            ):
                continue
            names = _split_names(m.group(1))
            if names:
                found.extend(n for n in names if n not in found)
                spans.append(m.span())
        scan.consume(spans)
    if found:
        params["authors"] = found[:10]


def extract_venue(scan: Scan, params: dict[str, Any]) -> None:
    if not _HAS_CAPITAL.search(scan.masked):
        return
    for m in _VENUE_RE.finditer(scan.masked):
        venue = m.group(2).strip(" .,'")
        first = venue.split()[0].lower().strip(".,")
        if first in _VENUE_STOP or _VENUE_NOT_BEFORE.match(scan.masked, m.end()):
            continue
        if not m.group("published") and not _VENUE_LIKE.search(venue):
            continue
        params["venue"] = venue
        scan.consume([m.span()])
        return
    known = _KNOWN_VENUE_RE.search(scan.masked)
    if known:
        params["venue"] = known.group(0)
        scan.consume([known.span()])
