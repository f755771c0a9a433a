"""A paper described by what it is or does ("that TraceMonkey paper", "the affine-invariant ensemble MCMC
sampler paper"), not by its title or authors: when the library's tables find no paper, the full-text index
is asked, and its best paper is taken only when it stands clearly ahead of the next. A request that names
authors or a year names a particular paper: if the tables do not find it, it is not in the library, and
the index is not asked (it would find a paper that cites it)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_zot.errors import NotFoundError
from agent_zot.services.resolve.clues import read_clues
from agent_zot.services.resolve.paper_index import paper_index
from agent_zot.services.resolve.papers import PaperMatch, PaperRequest

if TYPE_CHECKING:
    from agent_zot.services.context import AppContext

# The best paper's score over the runner-up's: on the development requests, described papers stood at
# 1.33 or more, papers not in the library (found by words of a paper that cites them) lower.
LEAD = 1.3
CANDIDATES = 3


def described_paper(ctx: AppContext, request: PaperRequest, missing: NotFoundError) -> PaperMatch:
    """The paper the index finds for a description, or ``missing`` (the tables' own error) re-raised."""
    library = ctx.library()
    clues = read_clues(paper_index(library), request.text, request.quoted)
    names_a_citation = clues.years or any(t.author_shaped for t in clues.tokens)
    resources = ctx.index_resources()
    if names_a_citation or request.quoted or not resources.exists():
        raise missing
    from agent_zot.services.retrieval import search_papers  # the embedder loads on first use

    hits = search_papers(resources, request.text, limit=CANDIDATES, passages_per_paper=0)
    if not hits or hits[0].item_key not in library.items:
        raise missing
    if len(hits) > 1 and hits[0].score < LEAD * hits[1].score:
        raise missing
    item = library.items[hits[0].item_key]
    return PaperMatch(item, "what the request describes, found in its text")
