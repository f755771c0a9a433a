"""The review package (`zot_export` format `review`): a Markdown bundle a fresh-context reviewer can work
from. For each claim of a draft (its citing sentences and the claims it leaves uncited) or of a list of
claims: the evidence the library holds for and against it with pages, what the citation audit found,
who judged each passage, and the open questions left to judge. agent-zot gathers; the assistant (its
verdicts come back checked, evidence/verdicts.py) and the reviewer (a second assistant) judge. The package
never asks the client's model (that round trip belongs to one tool call), and says plainly when nobody
judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from agent_zot.services.audit.audit_draft import AuditResult, SentenceAudit, audit_draft
from agent_zot.services.audit.checks import FAULTS
from agent_zot.services.audit.draft import checked_text
from agent_zot.services.catalog import PassageVerdict
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.claim_check import (
    Evidence,
    EvidencePaper,
    EvidencePassage,
    gather_evidence,
)
from agent_zot.services.evidence.client_judge import ClientJudge
from agent_zot.services.evidence.stance import NoJudge
from agent_zot.services.evidence.verdicts import (
    CheckedVerdict,
    check_verdicts,
    claims_named,
    covers,
    judges,
    summary,
    unverified_line,
    verdict_lines,
)
from agent_zot.services.evidence.worksheet import judge_label
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
    verdicts: list[CheckedVerdict] = field(default_factory=list)


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


def build_review(
    ctx: AppContext,
    text: str | None,
    *,
    verdicts: list[PassageVerdict] | None = None,
    title: str = "the draft",
) -> tuple[str, dict[str, Any]]:
    """The package as Markdown, and counts for the tool's answer. Without ``text`` the claims are the
    ones the verdicts name."""
    given = verdicts or []
    if text and text.strip():
        claims, audit = claims_of(ctx, text)
    else:
        claims, audit = [Claim(claim) for claim in claims_named(given)], None
    library = ctx.library()
    shown = claims[:MAX_CLAIMS]
    for claim in shown:
        claim.evidence = gather_evidence(
            ctx, _searchable(claim.text), limit=PAPERS_PER_CLAIM, ask_client=False
        )
    checked = check_verdicts(ctx, given, [c.text for c in shown], [c.evidence for c in shown])
    for one in checked:
        if one.claim is not None:
            shown[one.claim].verdicts.append(one)
    for claim in shown:
        claim.questions = _questions(claim)
    unplaced = [c for c in checked if c.claim is None]
    body = _render(library, shown, audit, title=title, left_out=len(claims) - len(shown), unplaced=unplaced)
    counts: dict[str, Any] = {
        "claims": len(claims),
        "packaged": len(shown),
        "with_open_questions": sum(1 for c in shown if c.questions),
        "failed_citations": sum(1 for c in shown if c.audit and any(f.fault for f in c.audit.findings)),
        "judged_by": _package_judged_by(shown, checked),
    }
    if checked:
        placed = [c for c in checked if c.claim is not None]
        counts["verdicts"] = {
            "given": len(checked),
            "verified": sum(c.check.verified for c in placed),
            "unverified": sum(not c.check.verified for c in placed),
            "unplaced": len(unplaced),
        }
        counts["verdict_checks"] = [c.to_dict() for c in checked]
    return body, counts


def _searchable(text: str) -> str:
    return " ".join(text.replace("“", " ").replace("”", " ").split())


def _judge_line(evidence: Evidence | None) -> tuple[bool, str]:
    """Whether the configured judge judged any of a claim's passages, and who (or why nobody did)."""
    if evidence is None or not evidence.papers:
        return False, ""
    judged = sum(
        1 for paper in evidence.papers for p in paper.passages if p.stance and p.stance.label != "unjudged"
    )
    if judged:
        return True, f"judged by {judge_label(evidence.judge)}"
    judge = evidence.judge
    if isinstance(judge, (NoJudge, ClientJudge)) and judge.note:
        return False, f"not judged ({judge.note})"
    return False, f"not judged ({judge_label(judge)} was unsure of every passage)"


def _package_judged_by(claims: list[Claim], checked: list[CheckedVerdict]) -> str:
    """One line for the tool's answer: the assistant's verdicts, and who judged the other passages."""
    lines = [_judge_line(c.evidence) for c in claims]
    by_judge = sorted({line for judged, line in lines if judged})
    others = by_judge or sorted({line for _, line in lines if line})
    rest = "; ".join(others)
    if checked:
        return summary(checked) + (f". Other passages {rest}." if rest else ".")
    if by_judge:
        return rest[0].upper() + rest[1:] + "."
    if rest:
        return f"{rest[0].upper()}{rest[1:]}; no verdicts were given (verdicts=[…] records yours, checked)."
    return "Nothing to judge: no passages bear on the claims."


def _questions(claim: Claim) -> list[str]:
    questions = []
    evidence = claim.evidence
    judge_judged, judge_line = _judge_line(evidence)
    verified = [c for c in claim.verdicts if c.check.verified]
    sides = _sides(evidence.papers) if evidence and judge_judged else {}
    stances = {c.given.stance for c in verified} | set(sides)
    who = " and ".join(
        ([judges(verified)] if verified else [])
        + ([judge_line.removeprefix("judged by ")] if judge_judged else [])
    )
    if evidence is not None and not evidence.papers and not claim.verdicts:
        questions.append(
            "The library holds nothing on this claim: is it the author's own result, or is a source missing?"
        )
    if "contradicts" in stances:
        questions.append("Part of the library contradicts this claim: does the draft acknowledge it?")
    if (verified or judge_judged) and "supports" not in stances:
        questions.append(f"No passage was judged to support the claim (judged by {who}).")
    if not verified and not judge_judged and evidence is not None and evidence.papers:
        questions.append(
            f"Nobody judged these passages {judge_line.removeprefix('not judged ')}: does each support or "
            "contradict the claim?"
        )
    failed = [c for c in claim.verdicts if not c.check.verified]
    if failed:
        questions.append(
            f"{len(failed)} of the verdicts by {judges(failed)} did not check out (see Unverified verdicts)."
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
    "unjudged": "Evidence (not judged)",
}


def _render(
    library: Library,
    claims: list[Claim],
    audit: AuditResult | None,
    *,
    title: str,
    left_out: int,
    unplaced: list[CheckedVerdict],
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
        out += _who_judged(claim)
        out += verdict_lines(library, claim.verdicts)
        out += _evidence(library, claim.evidence, claim.verdicts)
        if claim.questions:
            out += ["**Open questions:**", *[f"- {q}" for q in claim.questions], ""]
    if unplaced:
        out += ["## Verdicts on no packaged claim", "", *[unverified_line(c) for c in unplaced], ""]
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


def _who_judged(claim: Claim) -> list[str]:
    _, line = _judge_line(claim.evidence)
    if claim.verdicts:
        rest = f" Other passages {line}." if line and _unjudged_rest(claim) else ""
        return [f"*{summary(claim.verdicts)}.{rest}*", ""]
    if not line:
        return []
    return [f"*{line[0].upper()}{line[1:]}.*", ""]


def _unjudged_rest(claim: Claim) -> bool:
    verified = [c for c in claim.verdicts if c.check.verified]
    return claim.evidence is not None and any(
        not _covered(paper.item_key, passage, verified)
        for paper in claim.evidence.papers
        for passage in paper.passages
    )


def _covered(item_key: str, passage: EvidencePassage, verified: list[CheckedVerdict]) -> bool:
    return any(
        c.given.item_key.strip().upper() == item_key and covers(passage, c.given.page) for c in verified
    )


def _evidence(library: Library, evidence: Evidence | None, verdicts: list[CheckedVerdict]) -> list[str]:
    if evidence is None or not evidence.papers:
        return [] if verdicts else ["No passages in the library bear on this claim.", ""]
    verified = [c for c in verdicts if c.check.verified]
    out = []
    for label, papers in _sides(evidence.papers).items():
        rows = []
        for paper in papers:
            item = library.items.get(paper.item_key)
            passages = [p for p in paper.passages if not _covered(paper.item_key, p, verified)]
            if item is None or not passages:
                continue
            score = (
                f" ({paper.stance.label} {paper.stance.score:.2f})"
                if paper.stance and label != "unjudged"
                else ""
            )
            rows.append(f"- {item_line(item)}{score}")
            for passage in passages[:PASSAGES_PER_PAPER]:
                where = passage.passage.pages or (
                    "abstract" if passage.passage.kind == "metadata" else "no page"
                )
                found_by = "" if "claim" in passage.variants else f" *found by {', '.join(passage.variants)}*"
                rows.append(f"  - {where}{found_by}: “{clip(passage.passage.text, PASSAGE_CHARS)}”")
        if rows:
            title = _SIDE_TITLES.get(label, label)
            if verdicts and label == "unjudged":
                title = "Other passages (no verdict)"
            out += [f"**{title}:**", "", *rows, ""]
    return out


def _cell(text: str) -> str:
    return clip(text.replace("|", "\\|").replace("\n", " "), 200)
