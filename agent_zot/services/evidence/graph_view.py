"""Claims drawn on the library graph (`agent-zot view --claim`): each claim checked as `zot_search` mode
evidence checks it, as a claim node linked to the papers that bear on it, amid the papers' own citation,
co-author and concept links. The citation audit draws its sentences the same way (audit/graph_view.py).

A link's stance is what the check found: supports / contradicts / related / unjudged for a claim check,
cited (no problem found) / fault / suggested (an uncited claim's candidate) for an audit.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.graph.model import paper_id
from agent_zot.services.explore.view_data import DEFAULT_MAX_NODES, ViewData, graph_store, view_of
from agent_zot.services.explore.view_scope import Scope
from agent_zot.services.response import clip, plural
from agent_zot.zotero.copies import paper_key

if TYPE_CHECKING:
    from agent_zot.graph.store import GraphStore
    from agent_zot.services.context import AppContext
    from agent_zot.services.evidence.claim_check import EvidencePaper

# The page colours links by these; their order is the code sent in ``edges["evidence"]``.
STANCES = ("supports", "contradicts", "related", "unjudged", "cited", "fault", "suggested")
PAPERS_PER_CLAIM = 8
PASSAGE_CHARS = 360


@dataclass(slots=True)
class ClaimLink:
    key: str  # the item
    stance: str  # one of STANCES
    note: str = ""  # what the check found, in words
    passage: str = ""  # the words that bear on the claim
    where: str = ""  # "p. 4", "abstract"


@dataclass(slots=True)
class Claim:
    text: str
    label: str  # the node's label: "Claim 1", "Line 12"
    verdict: str  # one line: what was found
    links: list[ClaimLink] = field(default_factory=list)


def claims_view(
    ctx: AppContext, claims: Sequence[str], *, papers_per_claim: int = PAPERS_PER_CLAIM
) -> ViewData:
    """Each claim checked as `zot_search` mode evidence checks it, drawn with the papers found."""
    from agent_zot.services.evidence.claim_check import claim_of, counts_of, gather_evidence
    from agent_zot.services.query_text import NO_INDEX, content_words

    texts = [claim_of(claim) for claim in claims]
    empty = [claim for claim, text in zip(claims, texts, strict=True) if not content_words(text)]
    if empty:
        raise InvalidArgumentError(
            f"--claim {empty[0]!r} states no claim to check.",
            hint='Give each claim as a sentence, e.g. --claim "statins reduce LDL cholesterol".',
        )
    store = graph_store(ctx)
    if not ctx.index_ready():
        raise NotFoundError(NO_INDEX, hint="The claim check reads the indexed passages.")
    drawn = []
    for number, text in enumerate(texts, 1):
        found = gather_evidence(ctx, text, limit=papers_per_claim)
        verdict = verdict_of(counts_of(found.papers)) or "nothing in the library bears on it"
        drawn.append(
            Claim(text, f"Claim {number}", verdict, [_evidence_link(paper) for paper in found.papers])
        )
    what = plural(len(drawn), "claim")
    return with_claims(ctx, store, f"evidence for {what}", drawn)


def _evidence_link(paper: EvidencePaper) -> ClaimLink:
    stance = paper.stance.label if paper.stance else "unjudged"
    best = paper.passages[0].passage if paper.passages else None
    where = (best.pages or ("abstract" if best.kind == "metadata" else "")) if best else ""
    return ClaimLink(
        paper.item_key, stance, passage=clip(best.text, PASSAGE_CHARS) if best else "", where=where
    )


def verdict_of(counts: dict[str, int]) -> str:
    """ "2 supports, 1 contradicts": the stances a claim's links have, in the order given."""
    return ", ".join(f"{n} {stance}" for stance, n in counts.items() if n)


def with_claims(ctx: AppContext, store: GraphStore, description: str, claims: list[Claim]) -> ViewData:
    """The papers the claims link to (and the links among them), with the claims and their links added."""
    library = ctx.library()
    wanted = {paper_id(paper_key(library, link.key)) for claim in claims for link in claim.links}
    if not wanted:
        raise NotFoundError(
            f"Nothing in the library bears on {description}.",
            hint="Check the claims' wording, or run `agent-zot update-db` if papers were added since.",
        )
    present = {node.id for node in store.get_nodes(sorted(wanted))}
    if not present:
        raise NotFoundError(
            f"The papers found for {description} are not in the graph yet.", hint="Run `agent-zot update-db`."
        )
    view = view_of(store, library, Scope(description, present, pinned=sorted(present)), DEFAULT_MAX_NODES)
    index = {node["key"]: i for i, node in enumerate(view.nodes)}
    view.claims = [asdict(claim) for claim in claims]
    for key in sorted({link.key for claim in claims for link in claim.links} - index.keys()):
        item = library.items.get(key)  # found, but not in the graph yet (added since the last update-db)
        view.others.setdefault(
            key, f"{item.title} ({item.year})" if item and item.year else item.title if item else key
        )
    view.edges["evidence"] = [
        [number, index[link.key], STANCES.index(link.stance)]
        for number, claim in enumerate(claims)
        for link in claim.links
        if link.key in index
    ]
    return view
