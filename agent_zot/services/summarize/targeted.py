"""`targeted` mode: page-cited passages of one paper that answer a question, retrieved with the hybrid
index filtered to that item (slots.py fills the comprehensive summary)."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass

from agent_zot.index.rerank import make_reranker
from agent_zot.index.retrieval import Passage, search_papers
from agent_zot.index.sentences import focus_of
from agent_zot.index.store import SearchFilter
from agent_zot.services.context import AppContext
from agent_zot.services.full_text import FullText, page_name, pages_of
from agent_zot.services.paper_reading.roles import answer_kind
from agent_zot.services.response import estimate_tokens
from agent_zot.zotero.models import Item

TARGETED_PASSAGES = 8
KIND_PASSAGES = 4  # of them, for a review question: the review matrix's places first
# A review question is short and general ("what problem does it address", "how many participants took
# part"); a question with more telling words than this asks for a particular detail, and its own words find it.
REVIEW_WORDS = 5
# A passage under a heading that names this share of the question (passages.HEADING_WEIGHT) answers it
# before the review places: "how does it handle worker failures?" reads like a method question, but the
# paper's "Worker Failure" section is where it is answered.
HEADING_LEAD = 0.5


@dataclass(slots=True)
class Cited:
    """A passage with the page labels of the pages it spans."""

    passage: Passage
    labels: dict[int, str | None]

    @property
    def identity(self) -> str:
        p = self.passage
        digest = hashlib.blake2b(p.text.encode("utf-8"), digest_size=8).hexdigest()
        return f"{p.attachment_key}:{p.page_start}:{digest}"

    @property
    def where(self) -> str:
        """ "p. 3", "pp. 3–4" or "pp. 3 [103]–4 [104]"; "(OCR)" after it when the words were read from a
        scanned page (they may be misread), as search shows it."""
        p = self.passage
        paragraph = f", ¶ {p.paragraph}" if p.paragraph is not None else ""
        return self._pages() + paragraph + (" (OCR)" if p.ocr else "")

    def _pages(self) -> str:
        p = self.passage
        if p.page_start is None:
            return "abstract" if p.kind == "metadata" else "no page"  # the item's own abstract field
        start = page_name(p.page_start, self.labels.get(p.page_start))
        if p.page_end in (None, p.page_start):
            return start
        end = page_name(p.page_end, self.labels.get(p.page_end)).removeprefix("p. ")
        return f"p{start}–{end}"

    def block(self) -> str:
        section = f" ({self.passage.section})" if self.passage.section else ""
        return f"[{self.where}]{section} {' '.join(self.passage.text.split())}"

    def to_dict(self) -> dict[str, object]:
        """Where the passage is, without its words (the text form carries them once)."""
        p = self.passage
        row = p.to_dict()
        del row["text"]
        return row | {
            "chars": len(p.text),
            "pages": self.where,
            "page_labels": [self.labels.get(n) for n in _span(p)],
        }


def _span(passage: Passage) -> list[int]:
    if passage.page_start is None:
        return []
    return list(range(passage.page_start, (passage.page_end or passage.page_start) + 1))


def _retrieve(ctx: AppContext, item: Item, query: str, count: int, detail: str) -> list[Passage]:
    search_filter = SearchFilter(item_keys=(item.key,), kinds=("chunk",))
    # The kind of answer is weighed only where it lives in a role passages otherwise never show ("who funded
    # it?": the thanks); targeted ranking and the review matrix read the other kinds their own way.
    kind = answer_kind(query)
    papers = search_papers(
        ctx.index(),
        query,
        limit=1,
        search_filter=search_filter,
        passages_per_paper=count,
        detail=detail,
        hint=kind if kind is not None and kind.admits else None,
        reranker=make_reranker(ctx.settings) if detail == "sentences" else None,  # questions, not aspects
    )
    return papers[0].passages if papers else []


def _labels(ctx: AppContext, full_text: FullText) -> dict[str, dict[int, str | None]]:
    """Page labels per attachment, read once from the state database."""
    records = [r for r in [full_text.attachment, *full_text.others] if r is not None]
    return {r.attachment_key: {p.number: p.label for p in pages_of(ctx, r)} for r in records}


def _cite(passages: list[Passage], labels: dict[str, dict[int, str | None]]) -> list[Cited]:
    return [Cited(p, labels.get(p.attachment_key or "", {})) for p in passages]


def within_budget(blocks: list[Cited], budget: int) -> list[Cited]:
    """The first passages that fit ``budget`` tokens (always at least one)."""
    kept: list[Cited] = []
    used = 0
    for cited in blocks:
        cost = estimate_tokens(cited.block())
        if kept and used + cost > budget:
            break
        kept.append(cited)
        used += cost
    return kept


def page_labels(ctx: AppContext, full_text: FullText) -> dict[str, dict[int, str | None]]:
    """Page labels per attachment of an item, read once (a review matrix asks many questions of it)."""
    return _labels(ctx, full_text)


def answering(
    ctx: AppContext, item: Item, question: str, labels: dict[str, dict[int, str | None]], count: int
) -> list[Cited]:
    """The ``count`` passages of ``item`` that best answer ``question``, with pages: targeted mode's
    ranking (the review matrix fills its cells with it)."""
    return _cite(_retrieve(ctx, item, question, count, "sentences"), labels)


def targeted(
    ctx: AppContext, item: Item, full_text: FullText, question: str, budget: int
) -> tuple[list[str], dict[str, object]]:
    labels = _labels(ctx, full_text)
    answers = answering(ctx, item, question, labels, TARGETED_PASSAGES)
    lead = [c for c in answers if c.passage.heading_fit >= HEADING_LEAD]
    rest = [c for c in answers if c.passage.heading_fit < HEADING_LEAD]
    found = _merged(lead, _merged(_by_kind(ctx, item, full_text, question), rest))
    kept = within_budget(found, budget)
    if not kept:
        return [f"No passage of this paper matches {question!r}."], {"passages": []}
    lines = [f"Passages answering {question!r} (best first, PDF page numbers; labels in brackets):"]
    lines += [f"{n}. {c.block()}" for n, c in enumerate(kept, 1)]
    if len(kept) < len(found):
        lines.append(f"({len(found) - len(kept)} more passages left out to stay within max_tokens={budget}.)")
    return lines, {"question": question, "passages": [c.to_dict() for c in kept]}


def _by_kind(ctx: AppContext, item: Item, full_text: FullText, question: str) -> list[Cited]:
    """For a review question (the problem, the method, the data, a count, the results, the limitations):
    the places the review matrix would offer (services/matrix/cells.py), which read the whole paper for an
    answer of that kind. Nothing for any other question, or one that asks for a particular detail: the passage picker
    answers those."""
    from agent_zot.services.matrix.cells import PaperText, candidates, chunk_ranks
    from agent_zot.services.paper_reading.questions import classify, telling_words

    attachment = full_text.attachment
    asked = focus_of(question)  # "In the study of X, how many subjects ...?" asks a count
    kind = classify(asked).name
    if (
        kind == "other"
        or (kind != "count" and len(telling_words(asked)) > REVIEW_WORDS)
        or attachment is None
    ):
        return []
    pages = pages_of(ctx, attachment)
    paper = PaperText.of(attachment.attachment_key, [(p.number, p.text) for p in pages])
    ranked = chunk_ranks(ctx, item.key, asked, paper)
    found = candidates(paper, asked, ranked, limit=KIND_PASSAGES, alternative=0.0)
    labels = {p.number: p.label for p in pages}
    return [
        Cited(Passage(c.text, "chunk", attachment.attachment_key, c.page, c.page, None, c.score), labels)
        for c in found
    ]


def _merged(first: list[Cited], rest: list[Cited]) -> list[Cited]:
    """``first``, then the passages of ``rest`` that do not repeat one of them, up to TARGETED_PASSAGES."""
    merged = list(first)
    for cited in rest:
        if len(merged) == TARGETED_PASSAGES:
            break
        text = " ".join(cited.passage.text.split())
        if not any(" ".join(m.passage.text.split())[:80] in text for m in first):
            merged.append(cited)
    return merged
