"""A paper described by what it is or does ("that TraceMonkey paper", "the affine-invariant ensemble MCMC
sampler paper"), not by its title: when the library's tables find no paper, the full-text index is asked,
and its best paper is taken when it stands clearly ahead of the next. (Taking it when the tables rank it
first too is no second opinion: an index of metadata alone reads the same titles.)

A request that names a year or a citation label ("the CHW21 paper") names a particular paper: if the tables
do not find it, it is not in the library, and the index is not asked (it would find a paper that cites it).
A request that names an author the library holds ("Max Wolf's old German catalogue") is that author's paper
when the library has just one of theirs and the tables rank it among their first three.

A long description (a sentence of what the paper does) whose best papers stand close together is settled by
the abstract that holds most of its words, else asks back with those papers, best first. A short name whose
best papers stand close is rather a paper the library lacks, found by the words of one that cites it."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_zot.errors import AmbiguousNameError, NotFoundError
from agent_zot.services.resolve.clues import LABEL, read_clues
from agent_zot.services.resolve.paper_index import PaperIndex, paper_index, words
from agent_zot.services.resolve.papers import PaperMatch, PaperRequest, Scored, candidate_line, rank
from agent_zot.zotero.models import Item

if TYPE_CHECKING:
    from agent_zot.services.context import AppContext
    from agent_zot.state.index import IndexState

# The best paper's score over the runner-up's: on the development requests, described papers stood at
# 1.33 or more, papers not in the library (found by words of a paper that cites them) lower.
LEAD = 1.3
CANDIDATES = 3
OPENING_CHARS = 8000  # of a first page: the title block, the authors (long lists) and the abstract
ABSTRACT_WORDS = 5  # the description's words an abstract must hold to settle close papers: twice any other's
AUTHOR_CANDIDATES = 3  # how far down the tables' list an author's only paper may stand
# Content words that make a request a description rather than a name: on the development requests, the
# descriptions whose best papers stood close held 9 or more; names of papers the library lacks, 6 at most
# ("bibtex for the LQR inverted pendulum paper (倒立摆)").
DESCRIPTION_WORDS = 7


def described_paper(ctx: AppContext, request: PaperRequest, missing: NotFoundError) -> PaperMatch:
    """The paper the index finds for a description, or ``missing`` (the tables' own error) re-raised."""
    library = ctx.library()
    index = paper_index(library)
    clues = read_clues(index, request.text, request.quoted)
    if clues.years or request.quoted or any(LABEL.fullmatch(t.raw) for t in clues.tokens):
        raise missing
    ranked = rank(index, clues)
    authors = [t.word for t in clues.tokens if t.author_shaped and t.word in index.surnames]
    if authors:
        found = _only_paper_of(index, authors, ranked)
        if found is None:
            raise missing
        return PaperMatch(found, "its author, who has no other paper in your library")
    if any(t.author_shaped and not t.raw.isupper() for t in clues.tokens):
        raise missing  # an author the library lacks: a paper that is not in it ("with ECG" names no one)
    resources = ctx.index_resources()
    if not resources.exists():
        raise missing
    from agent_zot.index.retrieval import rank_papers  # the embedder loads on first use

    hits = rank_papers(resources, request.text, limit=CANDIDATES, lean=True).papers  # no passages needed
    if not hits or hits[0].item_key not in library.items:
        raise missing
    if len(hits) > 1 and hits[0].score < LEAD * hits[1].score:
        close = [
            library.items[h.item_key]
            for h in hits
            if h.item_key in library.items and h.score * LEAD >= hits[0].score
        ]
        content = [t.word for t in clues.tokens if not t.bonus]
        openings = {item.key: _opening(resources.state, item) for item in close}
        told = _told_by_abstract(close, content, openings)
        if told is not None:
            return PaperMatch(told, "what the request describes, found in its abstract")
        if len(content) < DESCRIPTION_WORDS:
            raise missing
        raise AmbiguousNameError(
            f"{len(close)} papers fit the description about equally well (best first); say which one.",
            candidates=[_with_words(item, content, openings) for item in close],
            hint="Repeat the request with item_key set to one of them, or add words that tell them apart.",
        ) from missing
    return PaperMatch(library.items[hits[0].item_key], "what the request describes, found in its text")


def _only_paper_of(index: PaperIndex, authors: list[str], ranked: list[Scored]) -> Item | None:
    """The paper every named author wrote when it is the only paper of theirs and among the tables' first
    few (a title in another language shares no word with the description, so others may rank above it)."""
    papers = {key for word in authors for key in index.surnames[word]}
    if len(papers) != 1:
        return None
    [key] = papers
    near = {k for s in ranked[:AUTHOR_CANDIDATES] for k in s.keys}
    return index.items[key] if key in near else None


def _opening(state: IndexState, item: Item) -> str:
    """The paper's own account of itself: its abstract, else the start of its first page (where a PDF
    prints the abstract) when the record has none."""
    if item.abstract:
        return item.abstract
    for attachment in state.attachments_of(item.key):
        first = state.first_page(attachment.attachment_key)
        if first:
            return first[:OPENING_CHARS]
    return ""


def _with_words(item: Item, content: list[str], openings: dict[str, str]) -> str:
    """A close paper with the description's words its title and abstract (or first page) hold."""
    text = set(words(f"{item.title} {openings.get(item.key, '')}"))
    held = [w for w in dict.fromkeys(content) if w in text]
    shown = f" — its text holds: {', '.join(held[:8])}" if held else " — found in its full text"
    return candidate_line(item) + shown


def _told_by_abstract(close: list[Item], content: list[str], openings: dict[str, str]) -> Item | None:
    """Of papers the index ranks close together, the one whose title and abstract (``openings``) hold at
    least ABSTRACT_WORDS of the description's words and twice as many as any other's: the description
    retells that abstract."""
    held = sorted(
        (
            (len(set(content) & set(words(f"{item.title} {openings.get(item.key, '')}"))), item)
            for item in close
        ),
        key=lambda pair: -pair[0],
    )
    best, item = held[0]
    if best >= ABSTRACT_WORDS and all(2 * other <= best for other, _ in held[1:]):
        return item
    return None
