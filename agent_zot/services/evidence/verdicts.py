"""The assistant's verdicts on a claim's passages, handed back to the review package (`zot_export` format
`review`, argument `verdicts`): each names a paper, a PDF page, words quoted from the passage, a stance
(supports / contradicts / unrelated) and a one-line reason. Before the package states one as fact it is
checked (verify.py: the paper is in the library, the page is one of its indexed pages, the quoted words
are on it); one that fails is kept apart as unverified, with the reason.

A verdict belongs to the claim it names (``claim``, matched loosely to the package's claims); without one,
to the package's only claim, or to the claim whose evidence holds that paper and page.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from rapidfuzz import fuzz

from agent_zot.services.catalog import PassageVerdict
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.claim_check import Evidence, EvidencePassage
from agent_zot.services.evidence.verify import CitationChecker, Verdict
from agent_zot.services.response import clip, item_line, plural
from agent_zot.zotero.models import Library

CLAIM_MATCH = 90  # fuzzy (0-100) agreement of a verdict's claim with a packaged claim
QUOTE_CHARS = 300
_TITLES = {"supports": "Supports", "contradicts": "Contradicts", "unrelated": "Unrelated to the claim"}
# Who gave a verdict (`PassageVerdict.judge`): the assistant, or the person who chose it in the claim view
JUDGES = {"assistant": "the assistant", "person": "the person in the view"}
_OWNERS = {"assistant": "the assistant's", "person": "the person's"}
_EDGES = re.compile(r"^[\s\"'“”‘’.,;:!?]+|[\s\"'“”‘’.,;:!?]+$")


@dataclass(slots=True)
class CheckedVerdict:
    """One verdict as given (``number`` counts from 1 in the order given), its check, and its claim."""

    number: int
    given: PassageVerdict
    check: Verdict
    claim: int | None = None  # index of the packaged claim it belongs to
    unplaced: str = ""  # why it belongs to none

    @property
    def where(self) -> str:
        return f"p. {self.given.page}" if self.given.page is not None else "no page"

    def to_dict(self) -> dict[str, object]:
        data: dict[str, object] = {
            "n": self.number,
            "item_key": self.given.item_key,
            "page": self.given.page,
            "stance": self.given.stance,
            "status": self.check.status if self.claim is not None else "unplaced",
        }
        if not self.check.verified or self.unplaced:
            data["reason"] = self.unplaced or self.check.reason
        return data


def normalised(claim: str) -> str:
    return _EDGES.sub("", " ".join(claim.lower().split()))


def claims_named(verdicts: Sequence[PassageVerdict]) -> list[str]:
    """The claims the verdicts name, each once, in the order given (a package made from verdicts alone)."""
    seen: dict[str, str] = {}
    for verdict in verdicts:
        if verdict.claim and verdict.claim.strip():
            seen.setdefault(normalised(verdict.claim), " ".join(verdict.claim.split()))
    return list(seen.values())


def check_verdicts(
    ctx: AppContext,
    verdicts: Sequence[PassageVerdict],
    claims: Sequence[str],
    evidence: Sequence[Evidence | None],
) -> list[CheckedVerdict]:
    """Each verdict checked against the library and given its claim (an index into ``claims``)."""
    checker = CitationChecker(ctx)
    keys = [normalised(c) for c in claims]
    checked = []
    for number, verdict in enumerate(verdicts, 1):
        found = checker.check(verdict.item_key, verdict.page, verdict.quote)
        one = CheckedVerdict(number, verdict, found)
        one.claim, one.unplaced = _place(verdict, keys, evidence)
        checked.append(one)
    return checked


def _place(
    verdict: PassageVerdict, keys: list[str], evidence: Sequence[Evidence | None]
) -> tuple[int | None, str]:
    if verdict.claim and verdict.claim.strip():
        wanted = normalised(verdict.claim)
        scores = [100.0 if key == wanted else fuzz.ratio(key, wanted) for key in keys]
        best = max(range(len(keys)), key=lambda i: scores[i], default=None)
        if best is not None and scores[best] >= CLAIM_MATCH:
            return best, ""
        return None, f"its claim {clip(verdict.claim, 60)!r} is not one of the package's claims"
    if len(keys) == 1:
        return 0, ""
    key = verdict.item_key.strip().upper()
    ranks = [_rank(found, key, verdict.page) for found in evidence]
    held = [i for i, rank in enumerate(ranks) if rank is not None]
    if held:
        return min(held, key=lambda i: (ranks[i], i)), ""
    return None, f"it names no claim and no packaged claim's evidence holds {key}: give its claim"


def _rank(evidence: Evidence | None, item_key: str, page: int | None) -> tuple[int, int, int] | None:
    """How high a claim's evidence ranks the verdict's passage (its paper's place, then whether the page
    is one of that paper's passages, then which), or None when it does not hold the paper."""
    for number, paper in enumerate(evidence.papers if evidence else ()):
        if paper.item_key == item_key:
            places = [i for i, p in enumerate(paper.passages) if covers(p, page)]
            return (number, 0, places[0]) if places else (number, 1, 0)
    return None


def covers(passage: EvidencePassage, page: int | None) -> bool:
    """Whether a verdict on ``page`` is about this passage's place (a page in its range, or no page for
    an abstract)."""
    start, end = passage.passage.page_start, passage.passage.page_end
    if start is None or page is None:
        return start is None and page is None
    return start <= page <= (end if end is not None else start)


def judges(checked: Sequence[CheckedVerdict]) -> str:
    """Who gave these verdicts: "the assistant", "the person in the view", or both joined by "and"."""
    return " and ".join(dict.fromkeys(JUDGES[c.given.judge] for c in checked)) or JUDGES["assistant"]


def _owners(checked: Sequence[CheckedVerdict]) -> str:
    return " and ".join(dict.fromkeys(_OWNERS[c.given.judge] for c in checked))


def summary(checked: Sequence[CheckedVerdict]) -> str:
    """ "Judged by the assistant: 5 verdicts, 4 verified, 1 unverified" (and how many fit no claim)."""
    placed = [c for c in checked if c.claim is not None]
    verified = sum(c.check.verified for c in placed)
    text = f"Judged by {judges(checked)}: {plural(len(placed), 'verdict')}, {verified} verified"
    text += f", {len(placed) - verified} unverified"
    if len(placed) < len(checked):
        text += f"; {len(checked) - len(placed)} on no packaged claim"
    return text


def verdict_lines(library: Library, checked: Sequence[CheckedVerdict]) -> list[str]:
    """One claim's verdicts as Markdown: the verified ones grouped by stance and by paper, then the
    unverified ones apart, each with what failed (never stated as fact)."""
    out: list[str] = []
    verified = [c for c in checked if c.check.verified]
    for stance, title in _TITLES.items():
        group = [c for c in verified if c.given.stance == stance]
        if not group:
            continue
        out += [f"**{title} ({_owners(group)} verdicts, checked):**", ""]
        for key in dict.fromkeys(c.given.item_key.strip().upper() for c in group):
            item = library.items.get(key)
            out.append(f"- {item_line(item) if item else key}")
            for c in group:
                if c.given.item_key.strip().upper() == key:
                    out.append(f"  - {c.where}: “{clip(c.given.quote, QUOTE_CHARS)}” ({_reason(c)})")
        out.append("")
    unverified = [c for c in checked if not c.check.verified]
    if unverified:
        out += ["**Unverified verdicts (not taken as fact):**", ""]
        out += [unverified_line(c) for c in unverified]
        out.append("")
    return out


def unverified_line(c: CheckedVerdict) -> str:
    why = c.unplaced or c.check.reason
    return (
        f"- Verdict {c.number}: [{c.given.item_key}] {c.where}, said *{c.given.stance}*: "
        f"“{clip(c.given.quote, QUOTE_CHARS)}” ({_reason(c)}). Not checked out: {why}."
    )


def _reason(c: CheckedVerdict) -> str:
    return clip(" ".join(c.given.reason.split()), 200) or "no reason given"
