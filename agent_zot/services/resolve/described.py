"""A paper described by what it is or does ("that TraceMonkey paper", "the affine-invariant ensemble MCMC
sampler paper"), not by its title: when the library's tables find no paper, the full-text index is asked,
and its best paper is taken when it stands clearly ahead of the next. (Taking it when the tables rank it
first too is no second opinion: an index of metadata alone reads the same titles.) A request that names a
year names a particular paper: if the tables do not find it, it is not in the library, and the index is
not asked (it would find a paper that cites it). A request that names an author the library holds ("Max
Wolf's old German catalogue") is that author's paper when the library has just one of theirs and the
tables rank it among their first three."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_zot.errors import NotFoundError
from agent_zot.services.resolve.clues import read_clues
from agent_zot.services.resolve.paper_index import PaperIndex, paper_index
from agent_zot.services.resolve.papers import PaperMatch, PaperRequest, Scored, rank
from agent_zot.zotero.models import Item

if TYPE_CHECKING:
    from agent_zot.services.context import AppContext

# The best paper's score over the runner-up's: on the development requests, described papers stood at
# 1.33 or more, papers not in the library (found by words of a paper that cites them) lower.
LEAD = 1.3
CANDIDATES = 3
AUTHOR_CANDIDATES = 3  # how far down the tables' list an author's only paper may stand


def described_paper(ctx: AppContext, request: PaperRequest, missing: NotFoundError) -> PaperMatch:
    """The paper the index finds for a description, or ``missing`` (the tables' own error) re-raised."""
    library = ctx.library()
    index = paper_index(library)
    clues = read_clues(index, request.text, request.quoted)
    if clues.years or request.quoted:
        raise missing
    ranked = rank(index, clues)
    authors = [t.word for t in clues.tokens if t.author_shaped and t.word in index.surnames]
    if authors:
        found = _only_paper_of(index, authors, ranked)
        if found is None:
            raise missing
        return PaperMatch(found, "its author, who has no other paper in your library")
    if any(t.author_shaped for t in clues.tokens):
        raise missing  # an author the library lacks: a paper that is not in it
    resources = ctx.index_resources()
    if not resources.exists():
        raise missing
    from agent_zot.services.retrieval import search_papers  # the embedder loads on first use

    hits = search_papers(resources, request.text, limit=CANDIDATES, passages_per_paper=0)
    if not hits or hits[0].item_key not in library.items:
        raise missing
    if len(hits) > 1 and hits[0].score < LEAD * hits[1].score:
        raise missing
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
