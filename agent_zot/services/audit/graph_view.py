"""A draft's citation audit drawn on the library graph (`agent-zot view --audit`): each sentence that cites
(or should cite) the library as a claim node, linked to its cited papers (cited, or fault with what is
wrong) and an uncited claim's candidate papers (evidence/graph_view.py draws the claims)."""

from __future__ import annotations

from collections import Counter
from typing import TYPE_CHECKING

from agent_zot.services.evidence.graph_view import Claim, ClaimLink, verdict_of, with_claims
from agent_zot.services.explore.view_data import ViewData, graph_store
from agent_zot.services.response import clip, plural

if TYPE_CHECKING:
    from agent_zot.services.audit.audit_draft import SentenceAudit
    from agent_zot.services.context import AppContext

MAX_CLAIMS = 300  # a long draft: the sentences with citations or findings, in order, up to this many
CLAIM_CHARS = 400
SUGGESTIONS = 3  # candidate papers drawn for an uncited claim


def audit_view(ctx: AppContext, draft: str) -> ViewData:
    """A draft's citation audit: each sentence that cites (or should cite) the library, linked to its
    cited papers (cited, or fault with what is wrong) and an uncited claim's candidate papers."""
    from agent_zot.services.audit.audit_draft import audit_draft

    store = graph_store(ctx)
    result = audit_draft(ctx, draft)
    drawn = [claim for audit in result.sentences if (claim := _audited(audit)) is not None]
    total = len(drawn)
    what = f"the citation audit of a draft ({plural(len(result.citing), 'citing sentence')})"
    view = with_claims(ctx, store, what, drawn[:MAX_CLAIMS])
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
    verdict = verdict_of(Counter(link.stance for link in links))
    return Claim(clip(audit.sentence.prose, CLAIM_CHARS), f"Line {audit.line}", verdict, links)
