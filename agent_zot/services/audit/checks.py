"""The checks on one sentence of a draft: does each citation name a library item, does its page exist and
hold the claim, is each quotation in the cited item, does the cited item support the sentence (else which
items do), and, for a sentence that cites nothing, does it restate something the library says.

Measures (thresholds chosen on the dev drafts of scripts/bench_audit.py, the test third set aside):
- the cited item's rank when the whole library is searched for the sentence (hybrid retrieval);
- *match*: how closely the sentence restates the item: the better of fuzzy containment of the sentence in
  one of the item's passages or pages (rapidfuzz partial_ratio / 100) and the share of the sentence's
  meaningful words that one passage holds;
- for a short uncited sentence (under MIN_CLAIM_WORDS words), only the share of its meaningful words one
  passage holds close together, every name in it included (fuzzy containment of a few words is too easy).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Collection
from dataclasses import dataclass, field

from rapidfuzz import fuzz

from agent_zot.index.passages import Passage, passage_of
from agent_zot.index.resources import IndexResources
from agent_zot.index.retrieval import ChunkHit, PaperHit, QueryVectors, group_by_paper
from agent_zot.services.audit.citations import CiteRef
from agent_zot.services.audit.draft import Sentence
from agent_zot.services.audit.keys import KeyIndex, Resolution
from agent_zot.services.evidence.locate import (
    QUOTE_FOUND,
    ItemText,
    content_terms,
    coverage,
    near_coverage,
    normalised,
    quotations,
    specific_terms,
)
from agent_zot.zotero.models import Item

SUPPORT_RANK = 3  # the cited item is among the library's best matches for the sentence
SUPPORT_MATCH = 0.6  # or the sentence restates one of its passages this closely
SUPPORT_MARGIN = 0.25  # and no other item restates it better by more than this
OTHER_PAPERS = 5
LOCATED_FUZZY = 85  # the sentence is on this page (fuzzy containment, 0-100)
UNCITED_MATCH = 0.75  # an uncited sentence restates a library passage this closely
MIN_CLAIM_WORDS = 8
# A shorter sentence is a claim when it names something (an acronym, a name, a number) and has this many
# meaningful words: "GFS uses a single master." is; "Results were mixed." is not.
MIN_SHORT_TERMS = 3
NEAR_WORDS = 24  # a short claim's words must lie this close together in the passage (about a sentence)
LOCATED_MARGIN = 0.1  # chunks within this of the best match also locate the claim
NEAR_PAGES = 1  # "on or near the cited pages": this many pages either side
CANDIDATES = 3
FETCH = 60
OWN_CHUNKS = 5

# Sentences about the draft itself or the author's own work need no citation.
_OWN_WORK = (
    "we ",
    "our ",
    "in this ",
    "this paper",
    "this section",
    "this chapter",
    "this thesis",
    "this study",
    "this article",
    "here we",
    "i ",
    "in the next",
    "in the following",
    "the rest of",
    "the remainder",
    "section ",
    "chapter ",
    "table ",
    "figure ",
    "fig. ",
)


_CROSS_REFERENCE = re.compile(
    r"\b(?:sections?|chapters?|parts?|tables?|figures?|figs?\.?|appendix|appendices|equations?|eqs?\.?|"
    r"pages?|pp?\.|lines?|steps?)\s*[A-Z]?\d+(?:\.\d+)*[a-z]?\b",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Fix:
    start: int
    end: int
    text: str  # the replacement (an insertion when start == end)


@dataclass(slots=True)
class Finding:
    kind: str  # see FAULTS and NOTES
    message: str
    candidates: list[tuple[Item, int | None]] = field(default_factory=list)  # (item, page) proposals
    fix: Fix | None = None
    page: int | None = None  # where the claim or quotation was found

    @property
    def fault(self) -> bool:
        return self.kind in FAULTS


FAULTS = {
    "unknown_key": "unknown key",
    "ambiguous_key": "key matches several items",
    "page_out_of_range": "page not in the item",
    "wrong_page": "claim not on the cited page",
    "quote_not_found": "quotation not in the cited item",
    "unsupported": "cited item does not support the sentence",
    "uncited_claim": "claim without a citation",
    "retracted": "cites a retracted paper",
}
NOTES = {
    "no_full_text": "checked on metadata and abstract only",
    "page_unconfirmed": "page could not be confirmed",
    "no_index": "content not checked",
}


@dataclass(slots=True)
class RefCheck:
    ref: CiteRef
    resolution: Resolution
    findings: list[Finding] = field(default_factory=list)
    rank: int | None = None  # the cited item's rank for the sentence in the whole library (1-based)
    match: float = 0.0


@dataclass(slots=True)
class LibraryMatch:
    """The whole library searched for one sentence: papers best first, with their best chunks."""

    vectors: QueryVectors
    papers: list[PaperHit]
    _best: dict[frozenset[str], float] | None = None

    def best_match(self, prose: str, *, exclude: Collection[str]) -> float:
        """How closely the best other item (among the top few) restates the sentence."""
        if self._best is None:
            self._best = {}
        key = frozenset(exclude)
        if key not in self._best:
            others = [p for p in self.papers if p.item_key not in key][:OTHER_PAPERS]
            self._best[key] = max((_match(prose, x.text) for p in others for x in p.passages), default=0.0)
        return self._best[key]

    def rank_of(self, item_key: str) -> int | None:
        for rank, paper in enumerate(self.papers, 1):
            if paper.item_key == item_key:
                return rank
        return None


class Checker:
    """Runs the checks for one audit; item texts and the key index are gathered once."""

    def __init__(
        self,
        keys: KeyIndex,
        resources: IndexResources | None,
        fusion: str,
        text_of: Callable[[Item], ItemText],
    ) -> None:
        self.keys, self.resources, self.fusion, self.text_of = keys, resources, fusion, text_of

    def search(self, prose: str) -> LibraryMatch | None:
        if self.resources is None:
            return None
        vectors = QueryVectors(self.resources, prose, self.fusion)
        chunks = vectors.search(FETCH, None)
        return LibraryMatch(vectors, group_by_paper(chunks, limit=10, passages_per_paper=2))

    def check_ref(
        self, sentence: Sentence, quoted: str, ref: CiteRef, match: LibraryMatch | None
    ) -> RefCheck:
        resolution = self.keys.resolve(ref)
        check = RefCheck(ref, resolution)
        if resolution.status == "unknown":
            check.findings.append(_unknown(ref, resolution))
            return check
        if resolution.status == "ambiguous":
            names = "; ".join(f"[{i.key}] {i.title[:70]}" for i in resolution.items)
            check.findings.append(
                Finding(
                    "ambiguous_key",
                    f"{ref.key} ({resolution.how}) matches {len(resolution.items)} items: {names}.",
                )
            )
            return check
        item = resolution.items[0]
        if item.retraction is not None and item.retraction.citation_warning:
            check.findings.append(
                Finding(
                    "retracted",
                    f"[{item.key}] {_clip(item.title, 70)} ({item.retraction.details() or 'no details'}).",
                )
            )
        if match is None:
            return check
        text = self.text_of(item)
        if not text.has_full_text:
            check.findings.append(
                Finding(
                    "no_full_text",
                    "The cited item has no indexed full text: checked on its metadata and abstract.",
                )
            )
        own = self._own_passages(match, item, text)
        check.rank = match.rank_of(item.key)
        page, fuzzy = text.best_page(sentence.prose)
        check.match = max([fuzzy / 100, *(_match(sentence.prose, p.text) for p in own)])
        cited = self._cited_items(sentence)
        best_other = match.best_match(sentence.prose, exclude=cited)
        supported = _supported(check, max(1, len(cited)), best_other)
        # A claim the item does not make has no right page in it: only that the page exists is checked.
        pages = self._check_pages(check, text, sentence.prose, own, page, fuzzy, locate=supported)
        self._check_quotes(check, text, quoted, pages)
        if not supported:
            check.findings.append(self._unsupported(ref, item, match, sentence.prose))
        return check

    def _cited_items(self, sentence: Sentence) -> set[str]:
        cited = set()
        for citation in sentence.citations:
            for ref in citation.refs:
                item = self.keys.resolve(ref).item
                if item is not None:
                    cited.add(item.key)
        return cited

    def _own_passages(self, match: LibraryMatch, item: Item, text: ItemText) -> list[Passage]:
        """The item's best passages for the sentence: its full-text chunks ranked within it, and its
        metadata record (title and abstract)."""
        found: list[Passage] = []
        if text.has_full_text:
            own: list[ChunkHit] = match.vectors.within_paper(item.key, [])
            found = [passage_of(c.hit, c.score) for c in own[:OWN_CHUNKS]]
        abstract = f"{item.title}. {item.abstract}".strip()
        found.append(Passage(abstract, "metadata", None, None, None, None, 0.0))
        return found

    def _check_pages(
        self,
        check: RefCheck,
        text: ItemText,
        prose: str,
        own: list[Passage],
        page: int | None,
        fuzzy: float,
        *,
        locate: bool,
    ) -> tuple[range, str] | None:
        """The cited pages exist, and (``locate``) hold the claim or sit next to the pages that do.
        Returns the cited PDF pages and the numbering the draft uses."""
        ref = check.ref
        if ref.pages is None or not text.has_full_text:
            return None
        pdf, numbering = text.to_pdf(ref.pages)
        if pdf is None:
            found = page if fuzzy >= LOCATED_FUZZY and locate else None
            check.findings.append(
                Finding(
                    "page_out_of_range",
                    f"{ref.pages} is not a page of the cited item ({_extent(text)}).",
                    fix=_page_fix(ref, text, found, text.numbering()),
                    page=found,
                )
            )
            return None
        if not locate:
            return pdf, numbering
        near = range(max(1, pdf.start - NEAR_PAGES), pdf.stop + NEAR_PAGES)
        if fuzzy >= LOCATED_FUZZY and page is not None:
            if page in near or text.page_score(prose, near) >= fuzzy - 3:
                return pdf, numbering
            located: int | None = page
        else:
            chunk = _located(own, prose, near)
            if chunk is True:
                return pdf, numbering
            located = _page_within(text, prose, chunk) if chunk else None
        if located is None:
            check.findings.append(
                Finding(
                    "page_unconfirmed", f"The claim was not found on or near {ref.pages} of the cited item."
                )
            )
            return pdf, numbering
        shown = text.to_cited(located, numbering)
        check.findings.append(
            Finding(
                "wrong_page",
                f"The claim is not on {ref.pages}; it is on p. {shown} of the cited item.",
                fix=_page_fix(ref, text, located, numbering),
                page=located,
            )
        )
        return pdf, numbering

    def _check_quotes(
        self, check: RefCheck, text: ItemText, quoted: str, cited: tuple[range, str] | None
    ) -> None:
        """Each quotation occurs in the item, and on or near the cited pages."""
        for quote in quotations(quoted):
            page, score = text.best_page(quote)
            if score < QUOTE_FOUND:
                where = f" (closest: {score:.0f}% similar, p. {page})" if page and score >= 60 else ""
                source = "" if text.has_full_text else " abstract"
                check.findings.append(
                    Finding(
                        "quote_not_found",
                        f"The quotation “{_clip(quote)}” is not in the cited item{source}{where}.",
                    )
                )
                continue
            if cited is None or page is None or any(f.kind == "wrong_page" for f in check.findings):
                continue
            pdf, numbering = cited
            if page not in range(max(1, pdf.start - NEAR_PAGES), pdf.stop + NEAR_PAGES):
                check.findings.append(
                    Finding(
                        "wrong_page",
                        f"The quotation is on p. {text.to_cited(page, numbering)} of the cited item, not "
                        f"{check.ref.pages}.",
                        fix=_page_fix(check.ref, text, page, numbering),
                        page=page,
                    )
                )

    def _unsupported(self, ref: CiteRef, item: Item, match: LibraryMatch, prose: str) -> Finding:
        others = self.candidates(match, prose, exclude={item.key})
        names = "; ".join(f"[{i.key}] {i.title[:60]}" + (f" (p. {p})" if p else "") for i, p in others)
        message = f"The sentence does not match what {ref.key} says"
        message += f"; it matches best: {names}." if names else "."
        return Finding("unsupported", message, candidates=others)

    def candidates(
        self,
        match: LibraryMatch,
        prose: str,
        *,
        exclude: Collection[str] = (),
        measure: Callable[[str, str], float] | None = None,
    ) -> list[tuple[Item, int | None]]:
        """The library items that restate the sentence best (about as well as the best one does, by
        ``measure``: _match unless given), with the page of their best passage."""
        score_of = measure or _match
        scored = []
        for paper in match.papers:
            if paper.item_key in exclude or paper.item_key not in self.keys.by_item_key:
                continue
            best = max(paper.passages, key=lambda p: score_of(prose, p.text), default=None)
            if best is not None:
                scored.append((score_of(prose, best.text), paper.item_key, best))
        if not scored:
            return []
        floor = max(SUPPORT_MATCH / 2, max(s for s, _, _ in scored) - SUPPORT_MARGIN)
        found: list[tuple[Item, int | None]] = []
        for score, key, passage in scored:
            if score >= floor and len(found) < CANDIDATES:
                item = self.keys.by_item_key[key]
                text = self.text_of(item)
                page = _page_within(text, prose, passage, measure) if passage.kind == "chunk" else None
                found.append((item, page))
        return found

    def check_uncited(self, sentence: Sentence, match: LibraryMatch | None) -> Finding | None:
        """A sentence that cites nothing but restates a passage of the library closely."""
        if match is None or not claim_like(sentence.prose) or not match.papers:
            return None
        top = match.papers[0]
        short = _short_match if len(sentence.prose.split()) < MIN_CLAIM_WORDS else None
        strength = max(((short or _match)(sentence.prose, p.text) for p in top.passages), default=0.0)
        if strength < UNCITED_MATCH or top.item_key not in self.keys.by_item_key:
            return None
        found = self.candidates(match, sentence.prose, measure=short)
        names = "; ".join(f"[{i.key}] {i.title[:60]}" + (f" (p. {p})" if p else "") for i, p in found)
        return Finding(
            "uncited_claim", f"This claim cites nothing; the library says it in: {names}.", candidates=found
        )


def claim_like(prose: str) -> bool:
    """A sentence that could need a citation: a statement, not about the draft itself, and either long
    enough or short but specific (it names something and says something about it)."""
    if prose.rstrip().endswith("?") or prose.lstrip("\"“'(").casefold().startswith(_OWN_WORK):
        return False
    if len(prose.split()) >= MIN_CLAIM_WORDS:
        return True
    # "see Section 2" names a part of the draft, not something a paper says
    named = specific_terms(_CROSS_REFERENCE.sub(" ", prose))
    return len(content_terms(prose)) >= MIN_SHORT_TERMS and bool(named)


def _short_match(sentence: str, passage: str) -> float:
    return near_coverage(sentence, passage, NEAR_WORDS)


def _match(sentence: str, passage: str) -> float:
    contained = fuzz.partial_ratio(normalised(sentence), normalised(passage)) / 100 if passage else 0.0
    return max(contained, coverage(sentence, passage))


def _supported(check: RefCheck, cited_together: int, best_other: float) -> bool:
    """The cited item restates the sentence about as well as any other item does, and either closely or
    among the library's best matches for it (a paraphrase)."""
    if check.match < best_other - SUPPORT_MARGIN:
        return False
    within = check.rank is not None and check.rank <= SUPPORT_RANK + cited_together - 1
    return within or check.match >= SUPPORT_MATCH


def _page_within(
    text: ItemText, prose: str, chunk: Passage, measure: Callable[[str, str], float] | None = None
) -> int | None:
    """The page of a chunk (one spanning a page break: the page that holds more of the claim, by fuzzy
    containment or by ``measure`` when given)."""
    start = chunk.page_start
    if start is None:
        return None
    end = chunk.page_end or start
    if end == start or not text.has_full_text:
        return start
    if measure is not None:
        pages = {r.number: r.text for r in text.pages}
        return max(range(start, end + 1), key=lambda page: measure(prose, pages.get(page, "")))
    return max(range(start, end + 1), key=lambda page: text.page_score(prose, range(page, page + 1)))


def _located(own: list[Passage], prose: str, near: range) -> Passage | bool | None:
    """Where the item's chunks say the claim is: True when on or near the cited pages; else the chunk
    that restates it best, when one does closely (None when none does)."""
    chunks = [(p, _match(prose, p.text)) for p in own if p.kind == "chunk" and p.page_start is not None]
    if not chunks:
        return None
    best = max(m for _, m in chunks)
    if best >= SUPPORT_MATCH:
        # The chunks that restate the claim about as well as the best one (a claim can be made twice).
        chosen = [p for p, m in chunks if m >= best - LOCATED_MARGIN]
        if any(_overlaps(p, near) for p in chosen):
            return True
        return max(chunks, key=lambda pair: pair[1])[0]
    # No chunk restates it closely (a paraphrase): the retrieval order decides, and only near is said.
    return True if any(_overlaps(p, near) for p, _ in chunks[:3]) else None


def _overlaps(passage: Passage, near: range) -> bool:
    start = passage.page_start or 0
    end = passage.page_end or start
    return start < near.stop and end >= near.start


def _extent(text: ItemText) -> str:
    printed = text.printed_range()
    count = f"{len(text.pages)} PDF pages"
    return f"{count}, printed pp. {printed[0]}–{printed[1]}" if printed else count


def _page_fix(ref: CiteRef, text: ItemText, page: int | None, numbering: str) -> Fix | None:
    if ref.pages_span is None or page is None:
        return None
    return Fix(ref.pages_span[0], ref.pages_span[1], text.to_cited(page, numbering))


def _unknown(ref: CiteRef, resolution: Resolution) -> Finding:
    closest = "; ".join(f"[{i.key}] {i.title[:60]} ({i.year or 'n.d.'})" for i in resolution.items)
    message = f"{ref.key} is not in the library" + (f"; closest: {closest}." if closest else ".")
    return Finding("unknown_key", message, candidates=[(i, None) for i in resolution.items])


def _clip(text: str, limit: int = 80) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"
