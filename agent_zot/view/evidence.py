"""The evidence views of `agent-zot view`: claims checked against the library (``--claim``) and a draft's
citation audit (``--audit``), drawn as claim nodes linked to the papers that bear on them, amid the papers'
own citation, co-author and concept links.

A link's stance is what the check found: supports / contradicts / related / unjudged for a claim check
(services/evidence), cited (no problem found) / fault / suggested (an uncited claim's candidate) for an
audit (services/audit).
"""

from __future__ import annotations

from collections import Counter
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
    from agent_zot.services.search.evidence.claim_check import EvidencePaper
    from agent_zot.services.summarize.audit.audit_draft import SentenceAudit

# The page colours links by these; their order is the code sent in ``edges["evidence"]``.
STANCES = ("supports", "contradicts", "related", "unjudged", "cited", "fault", "suggested")
PAPERS_PER_CLAIM = 8
MAX_CLAIMS = 300  # a long draft: the sentences with citations or findings, in order, up to this many
CLAIM_CHARS = 400
PASSAGE_CHARS = 360
SUGGESTIONS = 3  # candidate papers drawn for an uncited claim


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
    from agent_zot.services.search.answer import NO_INDEX, content_words
    from agent_zot.services.search.evidence.claim_check import claim_of, counts_of, gather_evidence

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
        verdict = _verdict(counts_of(found.papers)) or "nothing in the library bears on it"
        drawn.append(
            Claim(text, f"Claim {number}", verdict, [_evidence_link(paper) for paper in found.papers])
        )
    what = plural(len(drawn), "claim")
    return _with_claims(ctx, store, f"evidence for {what}", drawn)


def _evidence_link(paper: EvidencePaper) -> ClaimLink:
    stance = paper.stance.label if paper.stance else "unjudged"
    best = paper.passages[0].passage if paper.passages else None
    where = (best.pages or ("abstract" if best.kind == "metadata" else "")) if best else ""
    return ClaimLink(
        paper.item_key, stance, passage=clip(best.text, PASSAGE_CHARS) if best else "", where=where
    )


def audit_view(ctx: AppContext, draft: str) -> ViewData:
    """A draft's citation audit: each sentence that cites (or should cite) the library, linked to its
    cited papers (cited, or fault with what is wrong) and an uncited claim's candidate papers."""
    from agent_zot.services.summarize.audit.audit_draft import audit_draft

    store = graph_store(ctx)
    result = audit_draft(ctx, draft)
    drawn = [claim for audit in result.sentences if (claim := _audited(audit)) is not None]
    total = len(drawn)
    what = f"the citation audit of a draft ({plural(len(result.citing), 'citing sentence')})"
    view = _with_claims(ctx, store, what, drawn[:MAX_CLAIMS])
    view.claims_left_out = max(0, total - MAX_CLAIMS)
    return view


def _audited(audit: SentenceAudit) -> Claim | None:
    links = []
    for check in audit.refs:
        item = check.resolution.item
        if item is None:
            continue  # an unknown or ambiguous key names no paper to draw; the report lists it
        faults = [finding.message for finding in check.findings if finding.fault]
        notes = [finding.message for finding in check.findings if not finding.fault]
        where = str(check.ref.pages) if check.ref.pages else ""  # "p. 4", "pp. 4–6"
        note = "; ".join(faults or notes) or "checked: no problem found"
        links.append(ClaimLink(item.key, "fault" if faults else "cited", note, where=where))
    if audit.uncited is not None:
        for item, page in audit.uncited.candidates[:SUGGESTIONS]:
            links.append(
                ClaimLink(item.key, "suggested", audit.uncited.message, where=f"p. {page}" if page else "")
            )
    if not links:
        return None
    verdict = _verdict(Counter(link.stance for link in links))
    return Claim(clip(audit.sentence.prose, CLAIM_CHARS), f"Line {audit.line}", verdict, links)


def _verdict(counts: dict[str, int]) -> str:
    """ "2 supports, 1 contradicts": the stances a claim's links have, in the order given."""
    return ", ".join(f"{n} {stance}" for stance, n in counts.items() if n)


def _with_claims(ctx: AppContext, store: GraphStore, description: str, claims: list[Claim]) -> ViewData:
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
