"""An audit as the user reads it: a Markdown report (the problems first, each with the line, the sentence and
what to do), the same as data, and a unified diff proposing the fixes (right page, corrected key, the
missing citation) for the user to review and apply; the draft itself is never written."""

from __future__ import annotations

import difflib
from collections import Counter
from typing import Any

from rapidfuzz import fuzz

from agent_zot.services.audit.audit_draft import AuditResult, SentenceAudit
from agent_zot.services.audit.checks import FAULTS, NOTES, SUPPORT_MATCH, Finding, Fix, RefCheck
from agent_zot.services.audit.citations import CiteRef
from agent_zot.services.response import ToolResponse, clip, plural
from agent_zot.text import ascii_key
from agent_zot.zotero.models import Item

SENTENCE_CHARS = 160
MAX_LISTED = 25  # problems listed in the tool's answer; the CLI lists them all
CONFIDENT_KEY = 88  # an unknown key this close (rapidfuzz WRatio) to an item's key is taken for a typo


def problems(result: AuditResult) -> list[tuple[SentenceAudit, RefCheck | None, Finding]]:
    found: list[tuple[SentenceAudit, RefCheck | None, Finding]] = []
    for audit in result.sentences:
        for check in audit.refs:
            found += [(audit, check, f) for f in check.findings if f.fault]
        if audit.uncited is not None:
            found.append((audit, None, audit.uncited))
    return found


def fixes(result: AuditResult) -> list[Fix]:
    """One fix per problem that has a confident one, never two touching the same characters."""
    style = _style(result)
    chosen: list[Fix] = []
    for audit, check, finding in problems(result):
        fix = finding.fix or _proposed(result, audit, check, finding, style)
        if fix is not None and not any(f.start < fix.end and fix.start < f.end for f in chosen):
            chosen.append(fix)
    return sorted(chosen, key=lambda f: f.start)


def patch(result: AuditResult, name: str = "draft") -> str:
    """A unified diff from the draft to the draft with every proposed fix applied ("" when none)."""
    text = result.draft.text
    fixed = text
    for fix in sorted(fixes(result), key=lambda f: -f.start):
        fixed = fixed[: fix.start] + fix.text + fixed[fix.end :]
    if fixed == text:
        return ""
    lines = difflib.unified_diff(
        text.splitlines(keepends=True), fixed.splitlines(keepends=True), f"a/{name}", f"b/{name}"
    )
    return "".join(
        line if line.endswith("\n") else line + "\n\\ No newline at end of file\n" for line in lines
    )


def response(result: AuditResult, *, full: bool = False) -> ToolResponse:
    """The report as text (Markdown) and data. ``full`` lists every problem and every citation (the
    CLI); the tool's answer lists the first MAX_LISTED problems."""
    found = problems(result)
    checks = result.checks
    resolved = sum(1 for c in checks if c.resolution.status == "resolved")
    faulty = {id(c) for _, c, f in found if c is not None}
    by_kind = Counter(f.kind for _, _, f in found)
    uncited = by_kind.pop("uncited_claim", 0)
    draft = result.draft
    lines = [
        f"Citation audit ({draft.kind} draft, {plural(len(result.sentences), 'sentence')}): "
        f"{plural(len(checks), 'citation')} in {plural(len(result.citing), 'sentence')}, {resolved} resolved to "
        f"library items; {plural(sum(by_kind.values()), 'problem')}"
        + (f" ({', '.join(f'{FAULTS[k]} {n}' for k, n in by_kind.items())})" if by_kind else "")
        + f"; {plural(uncited, 'uncited claim')}."
    ]
    if not checks:
        lines.append(
            "No citations were recognised. Supported: Pandoc [@key, p. 5], LaTeX \\cite{key} / \\citep[p.~5]{key}, "
            "[doi:10.x/y] and author-year (Smith et al., 2020, p. 5)."
        )
    listed = found if full else found[:MAX_LISTED]
    style = _style(result)
    rows = []
    if listed:
        lines.append("")
        lines.append("Problems:")
    for number, (audit, check, finding) in enumerate(listed, 1):
        fix = finding.fix or _proposed(result, audit, check, finding, style)
        where = f"line {audit.line}"
        cited = f" `{check.ref.describe()}`" if check is not None else ""
        lines.append(f"{number}. {where} · {FAULTS[finding.kind]}{cited}: {finding.message}")
        lines.append(f"   > {clip(audit.sentence.prose, SENTENCE_CHARS)}")
        if fix is not None:
            lines.append(f"   Fix: {_describe_fix(result, fix)}")
        rows.append(_problem_row(result, audit, check, finding, fix))
    if len(found) > len(listed):
        lines.append(
            f"… and {len(found) - len(listed)} more (the CLI `agent-zot audit DRAFT` lists them all)."
        )
    fine = sum(1 for c in checks if id(c) not in faulty and c.resolution.status == "resolved")
    if checks:
        checked = "key, page, quotations and support" if result.indexed else "key only"
        lines.append("")
        lines.append(f"Checked and fine: {plural(fine, 'citation')} ({checked}).")
    notes = list(result.notes)
    no_text = sorted(
        {c.resolution.items[0].key for c in checks for f in c.findings if f.kind == "no_full_text"}
    )
    if no_text:
        notes.append(
            f"{plural(len(no_text), 'cited item')} without indexed full text ({', '.join(no_text[:8])}) "
            "were checked on metadata and abstract only."
        )
    unconfirmed = sum(1 for c in checks for f in c.findings if f.kind == "page_unconfirmed")
    if unconfirmed:
        notes.append(
            f"{plural(unconfirmed, 'page locator')} could not be confirmed (the claim was not found on any "
            "page with confidence); read those pages to be sure."
        )
    if notes:
        lines.append("")
        lines += [f"Note: {note}" for note in notes]
    data: dict[str, Any] = {
        "draft": {
            "kind": draft.kind,
            "sentences": len(result.sentences),
            "citing_sentences": len(result.citing),
            "unexpanded_macros": dict(draft.unexpanded),
        },
        "counts": {
            "citations": len(checks),
            "resolved": resolved,
            "fine": fine,
            "problems": dict(by_kind),
            "uncited_claims": uncited,
        },
        "problems": rows,
        "notes": notes,
        "indexed": result.indexed,
    }
    if full:
        data["citations"] = [
            _citation_row(audit, check) for audit in result.sentences for check in audit.refs
        ]
    return ToolResponse("\n".join(lines), data)


def markdown_report(result: AuditResult, name: str) -> str:
    """The CLI's full report: the answer with every problem, then every citation in a table."""
    body = response(result, full=True).text
    table = ["", "| line | citation | item | result |", "|---|---|---|---|"]
    for audit in result.sentences:
        for check in audit.refs:
            item = check.resolution.item
            kinds = [FAULTS.get(f.kind) or NOTES[f.kind] for f in check.findings]
            status = "; ".join(kinds) if kinds else "fine"
            shown = f"[{item.key}] {clip(item.title, 50)}" if item else check.resolution.status
            table.append(f"| {audit.line} | `{check.ref.describe()}` | {shown} | {status} |")
    return f"# Citation audit of {name}\n\n{body}\n" + ("\n".join(table) + "\n" if len(table) > 3 else "")


# -- fixes --------------------------------------------------------------------------------------


def _style(result: AuditResult) -> str:
    styles = Counter(c.style for s in result.sentences for c in s.sentence.citations)
    if styles:
        top = styles.most_common(1)[0][0]
        return "pandoc" if top == "doi" else top
    return {"latex": "latex", "markdown": "pandoc"}.get(result.draft.kind, "author_year")


def _proposed(
    result: AuditResult, audit: SentenceAudit, check: RefCheck | None, finding: Finding, style: str
) -> Fix | None:
    if finding.kind == "uncited_claim" and finding.candidates:
        item, page = finding.candidates[0]
        return _insertion(result, audit, item, page, style)
    if check is None or not finding.candidates:
        return None
    item, page = finding.candidates[0]
    if finding.kind == "unknown_key" and _close_key(result, check.ref, item):
        return Fix(*check.ref.key_span, key_for(result, item, check.ref.kind))
    if finding.kind == "unsupported" and check.match < SUPPORT_MATCH:
        return Fix(*check.ref.key_span, key_for(result, item, check.ref.kind))
    return None


def _close_key(result: AuditResult, ref: CiteRef, item: Item) -> bool:
    written = ascii_key(ref.key)
    return fuzz.WRatio(written, ascii_key(key_for(result, item, ref.kind))) >= CONFIDENT_KEY


def key_for(result: AuditResult, item: Item, kind: str) -> str:
    """How the draft would name the item: its author-year label, DOI, or citation key (Zotero's, else the
    key agent-zot's BibTeX export gives it)."""
    if kind == "author_year":
        return author_year(item)
    if kind == "doi" and item.doi:
        return item.doi
    return item.citation_key or result.keys.exported_of.get(item.key, item.key)


def author_year(item: Item) -> str:
    names = [c.last_name for c in item.authors if c.last_name.casefold().rstrip(".") != "et al"]
    if not names:
        who = clip(item.title, 30)
    elif len(names) == 1:
        who = names[0]
    elif len(names) == 2:
        who = f"{names[0]} & {names[1]}"
    else:
        who = f"{names[0]} et al."
    return f"{who}, {item.year or 'n.d.'}"


def _insertion(result: AuditResult, audit: SentenceAudit, item: Item, page: int | None, style: str) -> Fix:
    text = result.draft.text
    end = audit.sentence.end
    while end > audit.sentence.start and text[end - 1] in ".!?\"”’')]":
        end -= 1
    if style == "latex":
        note = f"[p.~{page}]" if page else ""
        cite = f"~\\cite{note}{{{key_for(result, item, 'key')}}}"
    elif style == "author_year":
        cite = f" ({author_year(item)}" + (f", p. {page})" if page else ")")
    else:
        cite = f" [@{key_for(result, item, 'key')}" + (f", p. {page}]" if page else "]")
    return Fix(end, end, cite)


def _describe_fix(result: AuditResult, fix: Fix) -> str:
    old = result.draft.text[fix.start : fix.end]
    return f"insert “{fix.text.strip()}”" if not old else f"“{old}” → “{fix.text}”"


def _problem_row(
    result: AuditResult, audit: SentenceAudit, check: RefCheck | None, finding: Finding, fix: Fix | None
) -> dict[str, Any]:
    row: dict[str, Any] = {
        "line": audit.line,
        "kind": finding.kind,
        "message": finding.message,
        "sentence": clip(audit.sentence.prose, SENTENCE_CHARS),
    }
    if check is not None:
        row["citation"] = check.ref.describe()
        if check.resolution.item is not None:
            row["item_key"] = check.resolution.item.key
    if finding.page is not None:
        row["page"] = finding.page
    if finding.candidates:
        row["candidates"] = [{"key": i.key, "title": i.title, "page": p} for i, p in finding.candidates]
    if fix is not None:
        row["fix"] = {
            "replace": result.draft.text[fix.start : fix.end],
            "with": fix.text,
            "offset": fix.start,
        }
    return row


def _citation_row(audit: SentenceAudit, check: RefCheck) -> dict[str, Any]:
    item = check.resolution.item
    return {
        "line": audit.line,
        "citation": check.ref.describe(),
        "status": check.resolution.status,
        "resolved_by": check.resolution.how or None,
        "item_key": item.key if item else None,
        "rank": check.rank,
        "match": round(check.match, 3),
        "findings": [f.kind for f in check.findings],
    }
