"""The review package (`zot_export` format `review`): a Markdown bundle a fresh-context reviewer can work
from. For each claim of a draft (its citing sentences and the claims it leaves uncited) or of a list of
claims: the evidence the library holds for and against it with pages, what the citation audit found,
and the open questions left to judge. agent-zot gathers; the reviewer (a second assistant) judges.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date

from agent_zot.services.audit import AuditResult, SentenceAudit, audit_draft
from agent_zot.services.audit.checks import FAULTS
from agent_zot.services.audit.draft import checked_text
from agent_zot.services.context import AppContext
from agent_zot.services.evidence import Evidence, EvidencePaper, gather_evidence
from agent_zot.services.evidence.stance import NoJudge
from agent_zot.services.response import clip, item_line
from agent_zot.zotero.models import Library

MAX_CLAIMS = 60  # a longer draft: the first claims are packaged, and the package says so
PAPERS_PER_CLAIM = 4
PASSAGE_CHARS = 300
PASSAGES_PER_PAPER = 2
_CITATION_IN_LINE = re.compile(r"\[@|\\[a-zA-Z]*cite|\(\s*[A-Z][^()]*\b(?:19|20)\d{2}")


@dataclass(slots=True)
class Claim:
    text: str
    line: int | None = None
    audit: SentenceAudit | None = None
    evidence: Evidence | None = None
    questions: list[str] = field(default_factory=list)


def claims_of(ctx: AppContext, text: str) -> tuple[list[Claim], AuditResult | None]:
    """A draft's claims (each citing sentence and each uncited claim the audit found), or the lines of a
    list of claims (text without citations, one short statement per line)."""
    cleaned = checked_text(text)
    lines = [line.strip(" -*•\t") for line in cleaned.splitlines() if line.strip()]
    if (
        lines
        and not any(_CITATION_IN_LINE.search(line) for line in lines)
        and all(len(line) < 400 for line in lines)
    ):
        return [Claim(line) for line in lines], None
    result = audit_draft(ctx, cleaned)
    claims = [
        Claim(audit.sentence.prose, audit.line, audit)
        for audit in result.sentences
        if audit.refs or audit.uncited is not None
    ]
    return claims, result


def build_review(ctx: AppContext, text: str, *, title: str = "the draft") -> tuple[str, dict[str, object]]:
    """The package as Markdown, and counts for the tool's answer."""
    claims, audit = claims_of(ctx, text)
    library = ctx.library()
    shown = claims[:MAX_CLAIMS]
    for claim in shown:
        claim.evidence = gather_evidence(ctx, _searchable(claim.text), limit=PAPERS_PER_CLAIM)
        claim.questions = _questions(claim)
    body = _render(library, shown, audit, title=title, left_out=len(claims) - len(shown))
    counts = {
        "claims": len(claims),
        "packaged": len(shown),
        "with_open_questions": sum(1 for c in shown if c.questions),
        "failed_citations": sum(1 for c in shown if c.audit and any(f.fault for f in c.audit.findings)),
    }
    return body, counts


def _searchable(text: str) -> str:
    return " ".join(text.replace("“", " ").replace("”", " ").split())


def _questions(claim: Claim) -> list[str]:
    questions = []
    evidence = claim.evidence
    judged = evidence is not None and not isinstance(evidence.judge, NoJudge)
    sides = _sides(evidence.papers) if evidence else {}
    if evidence is not None and not evidence.papers:
        questions.append(
            "The library holds nothing on this claim: is it the author's own result, or is a source missing?"
        )
    if judged and sides.get("contradicts"):
        questions.append("Part of the library contradicts this claim: does the draft acknowledge it?")
    if judged and evidence and evidence.papers and not sides.get("supports"):
        questions.append("No passage was judged to support the claim.")
    if not judged and evidence and evidence.papers:
        questions.append(
            "Stance not judged (no stance model configured): does each passage support or contradict it?"
        )
    if claim.audit is not None:
        for finding in claim.audit.findings:
            if finding.fault:
                questions.append(f"Citation: {FAULTS[finding.kind]}: {finding.message}")
            elif finding.kind == "page_unconfirmed":
                questions.append("The cited page could not be confirmed: check it.")
    return questions


def _sides(papers: list[EvidencePaper]) -> dict[str, list[EvidencePaper]]:
    sides: dict[str, list[EvidencePaper]] = {}
    for paper in papers:
        label = paper.stance.label if paper.stance else "unjudged"
        sides.setdefault(label, []).append(paper)
    return sides


_SIDE_TITLES = {
    "supports": "Supporting evidence",
    "contradicts": "Contradicting evidence",
    "related": "Related (neither side)",
    "unjudged": "Evidence (stance not judged)",
}


def _render(
    library: Library, claims: list[Claim], audit: AuditResult | None, *, title: str, left_out: int
) -> str:
    out = [
        f"# Review package: {title}",
        "",
        f"Made by agent-zot on {date.today():%Y-%m-%d} from a Zotero library of {len(library.items):,} items.",
        "",
        "You are reviewing this draft sceptically. For each claim below, read the passages (page-cited, from "
        "the author's own library) and decide whether the claim holds, whether its citation is right, and "
        "what evidence it ignores. Passages marked *found by* a variant turned up when the claim was "
        "searched in its negated or opposite form: look there for counter-evidence.",
        "",
    ]
    if left_out:
        out += [f"Only the first {len(claims)} claims are packaged; {left_out} more were left out.", ""]
    if not claims:
        out += ["No claims were found: the draft cites nothing and restates nothing from the library.", ""]
    for number, claim in enumerate(claims, 1):
        where = f" (line {claim.line})" if claim.line else ""
        out += [f"## Claim {number}{where}", "", f"> {claim.text}", ""]
        if claim.audit is not None:
            out += _citations(claim.audit)
        out += _evidence(library, claim.evidence)
        if claim.questions:
            out += ["**Open questions:**", *[f"- {q}" for q in claim.questions], ""]
    if audit is not None:
        failed = [(s, f) for s in audit.sentences for f in s.findings if f.fault]
        out += ["## Citations that failed the audit", ""]
        if failed:
            out += ["| line | problem | detail |", "|---|---|---|"]
            out += [f"| {s.line} | {FAULTS[f.kind]} | {_cell(f.message)} |" for s, f in failed]
        else:
            out.append("None.")
        out.append("")
    return "\n".join(out).rstrip() + "\n"


def _citations(audit: SentenceAudit) -> list[str]:
    lines = []
    for check in audit.refs:
        item = check.resolution.item
        target = (
            f"[{item.key}] {clip(item.title, 80)} ({item.year or 'n.d.'})"
            if item
            else check.resolution.status
        )
        faults = [FAULTS[f.kind] for f in check.findings if f.fault]
        verdict = "; ".join(faults) if faults else "passed the audit"
        lines.append(f"- Cites `{check.ref.describe()}` → {target}: {verdict}.")
    if audit.uncited is not None:
        lines.append("- Cites nothing, but the library says this (see below).")
    return [*lines, ""] if lines else []


def _evidence(library: Library, evidence: Evidence | None) -> list[str]:
    if evidence is None or not evidence.papers:
        return ["No passages in the library bear on this claim.", ""]
    out = []
    for label, papers in _sides(evidence.papers).items():
        out += [f"**{_SIDE_TITLES.get(label, label)}:**", ""]
        for paper in papers:
            item = library.items.get(paper.item_key)
            if item is None:
                continue
            score = (
                f" ({paper.stance.label} {paper.stance.score:.2f})"
                if paper.stance and label != "unjudged"
                else ""
            )
            out.append(f"- {item_line(item)}{score}")
            for passage in paper.passages[:PASSAGES_PER_PAPER]:
                where = passage.passage.pages or (
                    "abstract" if passage.passage.kind == "metadata" else "no page"
                )
                found_by = "" if "claim" in passage.variants else f" *found by {', '.join(passage.variants)}*"
                out.append(f"  - {where}{found_by}: “{clip(passage.passage.text, PASSAGE_CHARS)}”")
        out.append("")
    return out


def _cell(text: str) -> str:
    return clip(text.replace("|", "\\|").replace("\n", " "), 200)
