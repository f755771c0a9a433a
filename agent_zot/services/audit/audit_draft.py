"""Citation audit of a draft (`agent-zot audit DRAFT`, `zot_summarize` mode `audit`): every citation is
resolved to a library item and checked (its page exists and holds the claim, its quotations occur in the
item, the item supports the sentence), and sentences that restate the library without citing it are
named with candidate items. The draft is only read: fixes come back as a report and a unified diff.

draft.py reads the draft (kind, prose mask, sentences), citations.py finds citations, keys.py resolves
them, evidence/locate.py finds text in an item, checks.py decides, report.py writes the report and the patch.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from agent_zot.services.audit.checks import Checker, Finding, RefCheck, claim_like
from agent_zot.services.audit.draft import Draft, Sentence, read_draft, sentences_of
from agent_zot.services.audit.keys import KeyIndex
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.locate import ItemText
from agent_zot.services.full_text import full_text_of
from agent_zot.services.progress import report
from agent_zot.zotero.models import Item

__all__ = ["AuditResult", "SentenceAudit", "audit_draft"]


@dataclass(slots=True)
class SentenceAudit:
    sentence: Sentence
    line: int
    refs: list[RefCheck] = field(default_factory=list)
    uncited: Finding | None = None

    @property
    def findings(self) -> list[Finding]:
        found = [f for check in self.refs for f in check.findings]
        return found + ([self.uncited] if self.uncited else [])


@dataclass(slots=True)
class AuditResult:
    draft: Draft
    sentences: list[SentenceAudit]
    keys: KeyIndex
    indexed: bool
    notes: list[str] = field(default_factory=list)

    @property
    def citing(self) -> list[SentenceAudit]:
        return [s for s in self.sentences if s.refs]

    @property
    def checks(self) -> list[RefCheck]:
        return [check for s in self.sentences for check in s.refs]


def audit_draft(ctx: AppContext, text: str | None) -> AuditResult:
    """Audit a draft's citations against the library (read-only: nothing in the library or the draft
    changes)."""
    draft = read_draft(text)
    library = ctx.library()
    keys = KeyIndex(library)
    indexed = ctx.index_ready()
    resources = ctx.index() if indexed else None
    texts: dict[str, ItemText] = {}

    def text_of(item: Item) -> ItemText:
        if item.key not in texts:
            full = full_text_of(ctx, item)
            pages = (
                resources.state.pages_of(full.attachment.attachment_key)
                if full.attachment and resources
                else []
            )
            texts[item.key] = ItemText(
                item, full.attachment.attachment_key if full.attachment else None, pages
            )
        return texts[item.key]

    checker = Checker(keys, resources, ctx.settings.search_fusion, text_of)
    audits = []
    sentences = sentences_of(draft)
    for done, sentence in enumerate(sentences):
        report(done, len(sentences), f"audit: sentence {done + 1} of {len(sentences)}")
        audit = SentenceAudit(sentence, draft.line_of(sentence.start))
        wants_match = bool(sentence.citations) or claim_like(sentence.prose)
        match = checker.search(sentence.prose) if wants_match and indexed else None
        for citation in sentence.citations:
            for ref in citation.refs:
                audit.refs.append(checker.check_ref(sentence, sentence.prose, ref, match))
        if not sentence.citations:
            audit.uncited = checker.check_uncited(sentence, match)
        audits.append(audit)
    report(len(sentences), len(sentences), f"audit: {len(sentences)} sentences checked")
    _covered_by_neighbours(audits)
    result = AuditResult(draft, audits, keys, indexed)
    if not indexed:
        result.notes.append(
            "The full-text index has not been built, so only the citation keys were checked (not pages, "
            "quotations, support or uncited claims): run `agent-zot update-db`, then audit again."
        )
    if draft.unexpanded:
        listed = ", ".join(f"{name} ({n}×)" for name, n in draft.unexpanded.most_common(8))
        result.notes.append(
            f"LaTeX macros left unexpanded (their arguments were read as plain text): {listed}."
        )
    return result


def _covered_by_neighbours(audits: list[SentenceAudit]) -> None:
    """A citation covers the sentence before it too ("A. B [@x]."), and a sentence that carries on from a
    citing one ("... [@x]. They also ...") is covered by it: such uncited sentences whose best item is
    that cited item are not reported."""
    for index, audit in enumerate(audits):
        if audit.uncited is None or not audit.uncited.candidates:
            continue
        best = audit.uncited.candidates[0][0].key
        neighbours = audits[index + 1 : index + 2]
        if index and _CARRIES_ON.match(audit.sentence.prose):
            neighbours.append(audits[index - 1])
        if any(
            c.resolution.item is not None and c.resolution.item.key == best
            for n in neighbours
            for c in n.refs
        ):
            audit.uncited = None


_CARRIES_ON = re.compile(
    r"(?:they|their|them|it|its|this|these|those|the\s+authors|the\s+same|such|also|moreover|further|in\s+addition|"
    r"similarly|likewise|however|yet|still|here|there)\b",
    re.IGNORECASE,
)
