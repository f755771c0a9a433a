"""`comprehensive` mode: each slot of a paper's summary (research question, method, findings, conclusions,
limitations) filled with the paper's own sentences of the roles that slot is read from.

Every sentence of the indexed pages has a role (paper_reading/roles.py: the section kind of the heading it is
under, the first page's opening text before any heading as the paper's front), and some read as a role
whatever their heading (index/sections.py: reference entries, captions, page chrome, biographies, thanks). A
slot takes the sentences of its roles only, best first by the slot's cue words and by how early they come in
their role (the problem is stated at the start of the abstract and the introduction); a slot whose roles
hold none takes plain body sentences that hold its cue words, and otherwise says it has nothing, rather than
offering thanks, references or another slot's text.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from agent_zot.index.passages import Passage
from agent_zot.index.sections import sentence_role
from agent_zot.index.sentences import SentenceScorer, is_stub, prose_share
from agent_zot.ingest.sentence_roles import UNCITED
from agent_zot.services.context import AppContext
from agent_zot.services.full_text import FullText, pages_of
from agent_zot.services.paper_reading.roles import FRONT, Sentence, paper_sentences
from agent_zot.services.progress import report
from agent_zot.services.response import plural
from agent_zot.services.summarize.targeted import Cited, page_labels, within_budget
from agent_zot.zotero.models import Item

PER_SLOT = 2  # passages a slot shows
PASSAGE_SENTENCES = 2  # the chosen sentence and the next of the same role
PASSAGE_CHARS = 700
MIN_PROSE = 0.6  # a title block, an affiliation or a table row reads lower
MIN_WORDS = 6
EARLY_WEIGHT = 0.6  # the first sentence of a slot's roles gets this much, later ones less
EARLY_K = 4

# (slot, its roles in order of preference, cue words: how papers talk about it).
SLOTS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    (
        "research question",
        ("abstract", FRONT, "introduction"),
        "problem question challenge goal aim address need motivation we propose present introduce difficult",
    ),
    (
        "method",
        ("methods",),
        "method approach design implement implementation data dataset setup experiment model algorithm "
        "procedure we use measure train collect",
    ),
    (
        "findings",
        ("results", "abstract", FRONT, "conclusion"),
        "result results show shows find found achieve improve outperform percent faster accuracy "
        "evaluation demonstrate significant",
    ),
    (
        "conclusions",
        ("conclusion", "discussion"),
        "conclude conclusion implication implications contribution contributions shows suggests overall",
    ),
    (
        "limitations",
        ("limitations", "discussion", "conclusion"),
        "limitation limitations limited however drawback cannot future work remains open problem weakness",
    ),
)
_PLAIN = frozenset({"body", "background"})  # a slot with none of its roles may read these


@dataclass(slots=True)
class _Candidate:
    sentence: Sentence
    score: float


def comprehensive(
    ctx: AppContext, item: Item, full_text: FullText, budget: int
) -> tuple[list[str], dict[str, object]]:
    """Each slot's best passages from its own roles; a sentence fills one slot only. Progress (for a client
    that asks for it) counts the pages read into sentences, then the slots filled."""
    attachment = full_text.attachment
    pages = [(p.number, p.text) for p in pages_of(ctx, attachment)] if attachment is not None else []
    total = len(pages) + len(SLOTS)
    report(0, total, f"summary: reading {plural(len(pages), 'page')} into sentences")
    sentences = _sentences(
        item, pages, lambda read: report(read, total, f"summary: page {read} of {len(pages)} read")
    )
    attachment_key = attachment.attachment_key if attachment is not None else None
    labels = page_labels(ctx, full_text).get(attachment_key or "", {})
    share = max(1, budget // len(SLOTS))  # each slot gets an equal share of the budget
    used: set[int] = set()
    lines: list[str] = []
    aspects: list[dict[str, object]] = []
    for filled, (name, roles, cues) in enumerate(SLOTS):
        report(len(pages) + filled, total, f"summary: {name} ({filled + 1} of {len(SLOTS)} aspects)")
        chosen = _fill(sentences, roles, cues, used)
        cited = [Cited(_passage(run, attachment_key), labels) for run in chosen]
        kept = within_budget(cited, share)
        lines.append(f"## {name.capitalize()}")
        lines += [f"- {c.block()}" for c in kept] or ["- (no passage of its own; see the other aspects)"]
        aspects.append(
            {
                "aspect": name,
                "roles": list(roles),
                "passages": [c.to_dict() | {"role": c.passage.section_kind} for c in kept],
            }
        )
    report(total, total, f"summary: {len(SLOTS)} aspects filled from {plural(len(pages), 'page')}")
    return lines, {"aspects": aspects}


def _sentences(
    item: Item, pages: Sequence[tuple[int | None, str]], on_page: Callable[[int], None]
) -> list[Sentence]:
    """The paper's usable sentences (its own statements: no thanks, references, bios, captions, chrome,
    title blocks); the item's abstract where the pages show none."""
    found = paper_sentences(pages, on_page) if pages else []
    if item.abstract.strip() and not any(s.kind in ("abstract", FRONT) for s in found):
        found = [*paper_sentences([(None, item.abstract)]), *found]
    return [s for s in found if _usable(s)]


def _usable(sentence: Sentence) -> bool:
    text = sentence.text
    return (
        sentence.kind not in UNCITED
        and sentence_role(text, sentence.kind) not in UNCITED
        and len(text.split()) >= MIN_WORDS
        and not is_stub(text)
        and prose_share(text) >= MIN_PROSE
    )


def _fill(
    sentences: list[Sentence], roles: tuple[str, ...], cues: str, used: set[int]
) -> list[list[Sentence]]:
    """Up to PER_SLOT runs of sentences for one slot (each its best sentence and the next of its role),
    marking the sentences taken in ``used``."""
    pool = [s for s in sentences if s.kind in roles and s.index not in used]
    plain = not pool
    if plain:  # none of its roles: plain body text, only where it speaks of the slot at all
        pool = [s for s in sentences if s.kind in _PLAIN and s.index not in used]
    ranked = _ranked(pool, roles, cues, need_cue=plain)
    by_index = {s.index: s for s in sentences}
    runs: list[list[Sentence]] = []
    for candidate in ranked:
        first = candidate.sentence
        if first.index in used:
            continue
        run = [first]
        following = by_index.get(first.index + 1)
        if (
            following is not None
            and following.index not in used
            and following.kind == first.kind
            and following.page == first.page
            and len(first.text) + len(following.text) < PASSAGE_CHARS
            and len(run) < PASSAGE_SENTENCES
        ):
            run.append(following)
        used.update(s.index for s in run)
        runs.append(run)
        if len(runs) == PER_SLOT:
            break
    return sorted(runs, key=lambda run: run[0].index)  # in the paper's order


def _ranked(pool: list[Sentence], roles: tuple[str, ...], cues: str, *, need_cue: bool) -> list[_Candidate]:
    """``pool`` best first: the cue words' BM25 (normalised), how early the sentence comes among those of
    its role, and the slot's preference among its roles."""
    if not pool:
        return []
    scores = SentenceScorer(cues).score([s.text for s in pool])
    top = max(scores) or 1.0
    seen: dict[str, int] = {}
    found = []
    for sentence, score in zip(pool, scores, strict=True):
        order = seen[sentence.kind] = seen.get(sentence.kind, -1) + 1
        if need_cue and score <= 0:
            continue
        preference = roles.index(sentence.kind) if sentence.kind in roles else len(roles)
        value = score / top + EARLY_WEIGHT * EARLY_K / (EARLY_K + order) - 0.2 * preference
        found.append(_Candidate(sentence, value))
    return sorted(found, key=lambda c: (-round(c.score, 6), c.sentence.index))


def _passage(run: list[Sentence], attachment_key: str | None) -> Passage:
    first = run[0]
    section = first.section.capitalize() if first.section else None
    return Passage(
        text=" ".join(s.text for s in run),
        kind="chunk" if first.page is not None else "metadata",
        attachment_key=attachment_key if first.page is not None else None,
        page_start=first.page,
        page_end=run[-1].page,
        section=section,
        score=0.0,
        section_kind=first.kind,
    )
