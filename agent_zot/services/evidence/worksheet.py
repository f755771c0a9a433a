"""How a claim check says who judged, and the worksheet the assistant fills when nobody did.

In the clients most people use (Claude Desktop, Claude Code, VS Code) the judge of a claim is the assistant
itself: it reads the numbered passages, labels each supports / contradicts / unrelated with a one-line
reason, and may hand its verdicts to `zot_export` format `review`, where each is checked against the
library (services/evidence/verdicts.py). The worksheet is one short instruction block: the
assistant pays for every token it reads.
"""

from __future__ import annotations

from collections.abc import Sequence

from agent_zot.services.evidence.client_judge import ClientJudge
from agent_zot.services.evidence.stance import NoJudge, StanceJudge

_NOT_ASKED = frozenset({"no_client", "no_sampling", "old_protocol", "not_here"})
WORKSHEET_LABELS = (
    "supports (backs the claim) | contradicts (finds or argues against it) | unrelated (another question, "
    "or no side)"
)
VERDICT_FORM = (
    'zot_export(force_mode="review", draft="<the claim>", verdicts=[{"item_key": "KEY", "page": <PDF page of the quote>, '
    '"quote": "<3+ words of the passage, as printed>", "stance": "supports", "reason": "<one line>"}, …])'
)


def judged_by(judge: StanceJudge, judged: int, shown: int) -> tuple[str, str]:
    """A short status code and the line saying who judged ``judged`` of the ``shown`` passages, or why
    nobody did."""
    if isinstance(judge, NoJudge):
        if judge.status == "worksheet":
            return "worksheet", "Not judged by agent-zot (stance = auto, no nli_model): you judge."
        verb = "Not asked" if judge.status in _NOT_ASKED else "Not judged"
        return judge.status, f"{verb}: {judge.note}."
    if isinstance(judge, ClientJudge) and judge.status != "judged":
        return judge.status, f"Not judged: {judge.note or 'the client did not answer'}."
    who = judge_label(judge)
    if judged == 0:
        return "unsure", f"Not judged: {who} was unsure of every passage."
    if judged < shown:
        return "partly_judged", f"Judged by {who}: {judged} of {shown} passages; the rest are yours."
    return "judged", f"Judged by {who}."


def judge_label(judge: StanceJudge) -> str:
    """Who a judge is, as an answer names it: "the client's model (its name)", "nli:folder"…"""
    if isinstance(judge, ClientJudge):
        model = judge.name.removeprefix("client").removeprefix(":")
        return f"the client's model ({model})" if model else "the client's model"
    return judge.name


def worksheet(to_judge: Sequence[int], total: int) -> list[str]:
    """The instruction block: which passages to judge, the labels, and the verdicts' form."""
    if not to_judge:
        return []
    which = "each passage" if len(to_judge) == total else "passages " + numbers(to_judge)
    return [
        f"Judge {which}: {WORKSHEET_LABELS}; a one-line reason each.",
        f"Verdicts back, each checked (paper, page, quoted words): {VERDICT_FORM}",
    ]


def numbers(values: Sequence[int]) -> str:
    """ "[1]–[3], [5]": passage numbers, runs joined."""
    runs: list[list[int]] = []
    for value in sorted(values):
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    return ", ".join(f"[{r[0]}]" if len(r) == 1 else f"[{r[0]}]–[{r[-1]}]" for r in runs)
