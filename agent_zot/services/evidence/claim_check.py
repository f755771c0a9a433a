"""Claim check (`zot_search` mode `evidence`): the passages of the library that bear on one claim, each
numbered and cited [KEY p. N], with how many papers stand on each side once they are judged.

Counter-evidence is sought on purpose: besides the claim, its refutation variants (variants.py) run as
sub-queries through the same hybrid retrieval; the rankings are fused by weighted reciprocal rank (the
claim counts most) and each passage records which variants found it. By default nobody but the assistant
judges: the answer is a worksheet (worksheet.py) whose verdicts come back checked through `zot_export`
format `review`. A configured judge (stance.py: an NLI model, Ollama, or, opt-in, the client's model by an
MCP multi round-trip request) labels each passage first, and the answer says who judged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, TypeGuard

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.index.chunk_sentences import SentenceMemo
from agent_zot.index.chunking import has_own_words
from agent_zot.index.passages import JUDGING, Passage
from agent_zot.index.retrieval import Ranking, rank_many
from agent_zot.index.sparse import Bm25Encoder
from agent_zot.index.store import SearchFilter
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.client_judge import ClientJudge
from agent_zot.services.evidence.judges import make_judge
from agent_zot.services.evidence.stance import NoJudge, Stance, StanceJudge
from agent_zot.services.evidence.variants import Variant, refutation_variants
from agent_zot.services.evidence.worksheet import judged_by, worksheet
from agent_zot.services.query_text import (
    NO_INDEX,
    PASSAGE_CHARS,
    checked_detail,
    checked_text,
    content_words,
    locator,
    passage_label,
)
from agent_zot.services.resolve.scope import resolve_filters, without_note
from agent_zot.services.response import ToolResponse, clamp_limit, clip, item_line, plural, quoted
from agent_zot.services.routing import Route

# Weighted reciprocal-rank fusion of the variants' paper rankings (k as in retrieval.py). The claim's own
# ranking counts most; a variant adds the papers that argue the other way.
FUSION_K = 10
CLAIM_WEIGHT = 1.0
VARIANT_WEIGHT = 0.5
# Ten papers of two passages: on the dev claims the gold abstract is in the answer as often as with eight
# papers of three, and the answer is a sixth shorter (scripts/bench_evidence.py).
PASSAGES_PER_PAPER = 2
DEFAULT_LIMIT = 10
# With a judge that says how much a passage bears on the claim, the fused list is judged a few papers
# deeper and reordered by reciprocal rank over both orders (fused retrieval, bearing): a paper retrieval
# ranked sixth that speaks to the claim directly moves up.
RERANK_EXTRA = 5
# A passage no judge found taking a side bears on a claim when it holds this many of the claim's terms
# (stemmed, stopwords out): "Other CMIP6 model runs 2070" shares only "runs" with "MapReduce runs on
# commodity machines".
MIN_SHARED = 2

# "is there evidence that ...", "does my library support the claim that ...": the request, not the claim.
_LEAD_IN = re.compile(
    r"^(?:please\s+)?(?:(?:is|are)\s+there\s+(?:any\s+)?(?:evidence|support|studies|papers)\s+(?:in\s+my\s+library\s+)?"
    r"(?:that|for|of|against|on\s+whether)"
    r"|(?:does|do|can)\s+(?:my\s+)?(?:library|papers?|literature|sources)\s+(?:support|contradict|refute|back\s+up"
    r"|confirm|dispute)\s*(?:the\s+(?:claim|idea|statement|hypothesis)\s*)?(?:that)?"
    r"|what\s+(?:in\s+my\s+library\s+)?(?:argues|speaks|counts|says|is)\s+(?:against|for)\s*(?:the\s+(?:claim|idea)\s*)?(?:that)?"
    r"|(?:find|show|give)\s+(?:me\s+)?(?:the\s+)?(?:counter-?)?(?:evidence|support)\s+(?:for|against|that|on)"
    r"|(?:check|verify|test)\s+(?:the\s+claim\s+|whether\s+|if\s+|that\s+)+"
    r"|(?:is\s+it\s+true|is\s+it\s+the\s+case)\s+that"
    r"|(?:evidence|counter-?evidence)\s+(?:for|against|that|on)(?:\s+the\s+claim)?(?:\s+that)?)\s*[:,]?\s*",
    re.IGNORECASE,
)


def claim_of(query: str) -> str:
    """The claim inside a request: lead-in words and a trailing question mark removed ("" when the
    request is all lead-in)."""
    return _LEAD_IN.sub("", " ".join(query.split()), count=1).strip().rstrip(" ?")


@dataclass(slots=True)
class EvidencePassage:
    passage: Passage
    variants: list[str]
    stance: Stance | None = None


@dataclass(slots=True)
class EvidencePaper:
    item_key: str
    score: float
    passages: list[EvidencePassage] = field(default_factory=list)
    variants: set[str] = field(default_factory=set)
    stance: Stance | None = None
    ranks: dict[str, int] = field(default_factory=dict)  # its rank in each variant's ranking that found it


def run_evidence(
    ctx: AppContext,
    decision: Route,
    query: str,
    *,
    limit: int | None,
    detail: str | None = None,
    **explicit: Any,
) -> ToolResponse:
    """Check one claim against the library (within the caller's filters). ``detail``: "sentences" (the
    best sentences of each passage) or "full" (whole chunks)."""
    text = checked_text(query, explicit)
    detail = checked_detail(detail)
    claim = claim_of(text)
    if not content_words(claim):
        raise InvalidArgumentError(
            f"{quoted(text)} states no claim to check.",
            hint="Give the claim as a sentence, e.g. query='statins reduce LDL cholesterol in older adults'.",
        )
    library = ctx.library()
    filters = resolve_filters(library, decision.params, explicit, strict_authors=False)
    if not ctx.index_ready():
        raise NotFoundError(NO_INDEX, hint="The claim check reads the indexed passages.")
    size = clamp_limit(limit, default=DEFAULT_LIMIT)
    store_filter = filters.store_filter()
    if decision.params.get("item_keys"):
        store_filter = replace(store_filter, item_keys=tuple(decision.params["item_keys"]))
    found = gather_evidence(ctx, claim, limit=size, search_filter=store_filter, detail=detail)
    response = _response(library, claim, found, scope=filters.describe(), detail=detail)
    if filters.left_out:
        response.text += "\n" + without_note("Checked", filters.left_out)
        response.data["unknown_filters"] = list(filters.left_out)
    if isinstance(found.judge, ClientJudge) and found.judge.request is not None:
        response.ask_client = found.judge.request  # the front end asks, then calls again with the reply
    return response


@dataclass(slots=True)
class Evidence:
    """One claim checked: the variants searched, the papers best first (judged), and the judge."""

    claim: str
    variants: list[Variant]
    papers: list[EvidencePaper]
    judge: StanceJudge


def gather_evidence(
    ctx: AppContext,
    claim: str,
    *,
    limit: int = DEFAULT_LIMIT,
    search_filter: SearchFilter | None = None,
    detail: str = "sentences",
    ask_client: bool = True,
) -> Evidence:
    """The claim and its refutation variants searched, fused, judged and reordered by bearing
    (``ask_client`` False: never by the client's model, whatever the stance setting)."""
    variants = refutation_variants(claim)
    resources = ctx.index()
    # the variants find the same papers: each chunk is read once (and kept for later requests)
    memo = SentenceMemo(kept=resources.read_chunks)
    fusion = ctx.settings.search_fusion
    # One run of the model for the claim and its variants (the same vectors as one by one, in less time).
    dense = resources.query_vectors([v.text for v in variants]) if fusion != "sparse" else None
    # Every variant's dense and sparse store queries go to the store as one batch.
    ranked = rank_many(
        resources,
        [(v.text, limit * 2 if v.name == "claim" else limit) for v in variants],
        search_filter=search_filter,
        fusion=fusion,
        detail=detail,
        shape=JUDGING,  # each passage is judged on its own: short, and never two joined
        memo=memo,
        dense=dense,
        lean=True,  # about half the papers found are given no passages: their texts are not read
    )
    rankings = {v.name: ranking for v, ranking in zip(variants, ranked, strict=True)}
    judge = make_judge(ctx.settings, ask_client=ask_client)
    pool = fuse(rankings, limit=limit + RERANK_EXTRA)
    items = ctx.library().items
    titles = {p.item_key: getattr(items.get(p.item_key), "title", "") or "" for p in pool}
    encoder = ctx.index_resources().bm25
    # The whole payloads of every pooled paper's hits in one store call (a round trip for a process that
    # shares another's index), not one call a paper as its passages are picked.
    memo.whole(
        resources.store, [h for p in pool for n, r in p.ranks.items() for h in rankings[n].lean_hits(r)]
    )
    # A judge reorders the whole pool by bearing, so it reads every paper's passages; with none the fused
    # order stands, and passages are picked paper by paper only until the answer is full.
    batches = [[paper] for paper in pool] if isinstance(judge, NoJudge) else [pool]
    kept: list[EvidencePaper] = []
    for batch in batches:
        for paper in batch:
            pick_passages(paper, rankings)
        judge_papers(judge, claim, batch)
        kept += [
            paper
            for paper in relating(claim, by_bearing(batch, decisive=judge.decisive), encoder, titles)
            if _own_words(items.get(paper.item_key), paper)
        ]
        if len(kept) >= limit:
            break
    return Evidence(claim, variants, kept[:limit], judge)


def _own_words(item: Any, paper: EvidencePaper) -> bool:
    """Whether the paper says something of its own: an index written before an empty record ("Untitled",
    no abstract) lost its metadata point may still offer that point as a passage."""
    return item is not None and (
        has_own_words(item) or any(p.passage.kind != "metadata" for p in paper.passages)
    )


def relating(
    claim: str, papers: list[EvidencePaper], encoder: Bm25Encoder, titles: dict[str, str] | None = None
) -> list[EvidencePaper]:
    """The papers with a passage that bears on the claim, each with those passages only: one a judge
    found taking a side, or one that holds ``MIN_SHARED`` of the claim's own terms (all of a shorter
    claim's), its paper's title counted in (a passage of the MapReduce paper speaks of MapReduce). A list
    is never padded with a passage that shares one common word ("runs") with the claim. ``encoder`` is the
    index's (its model is built once a process)."""
    asked = set(encoder.encode_query(claim).indices)
    need = min(MIN_SHARED, len(asked))
    kept = []
    for paper in papers:
        named = set(encoder.encode_query((titles or {}).get(paper.item_key, "")).indices) & asked
        paper.passages = [
            p
            for p in paper.passages
            if (p.stance is not None and p.stance.label in ("supports", "contradicts"))
            or len(asked & (named | set(encoder.encode_document(p.passage.text).indices))) >= need
        ]
        if paper.passages:
            kept.append(paper)
    return kept


def fuse(rankings: dict[str, Ranking], *, limit: int) -> list[EvidencePaper]:
    """Papers by weighted reciprocal rank over the variants' rankings, with the variants that found each
    and its rank in each; no passages yet (``pick_passages``): about half the papers the variants find
    fall below ``limit``, and picking passages is most of a ranking's cost."""
    found: dict[str, EvidencePaper] = {}
    for name, ranking in rankings.items():  # the claim's ranking comes first
        weight = CLAIM_WEIGHT if name == "claim" else VARIANT_WEIGHT
        for rank, hit in enumerate(ranking.papers):
            paper = found.setdefault(hit.item_key, EvidencePaper(hit.item_key, 0.0))
            paper.score += weight / (FUSION_K + rank + 1)
            paper.variants.add(name)
            paper.ranks[name] = rank
    return sorted(found.values(), key=lambda p: -p.score)[:limit]


def pick_passages(paper: EvidencePaper, rankings: dict[str, Ranking]) -> None:
    """The paper's passages from every variant that found it (the claim's first), duplicates merged and
    the variants recorded."""
    for name, rank in paper.ranks.items():  # in the rankings' order
        for passage in rankings[name].passages(rank, PASSAGES_PER_PAPER):
            _add_passage(paper, passage, name)
    paper.passages = paper.passages[:PASSAGES_PER_PAPER]


def _add_passage(paper: EvidencePaper, passage: Passage, variant: str) -> None:
    for known in paper.passages:
        same_place = (known.passage.attachment_key, known.passage.page_start) == (
            passage.attachment_key,
            passage.page_start,
        )
        if same_place and (known.passage.text in passage.text or passage.text in known.passage.text):
            if variant not in known.variants:
                known.variants.append(variant)
            return
    paper.passages.append(EvidencePassage(passage, [variant]))


def judge_papers(judge: StanceJudge, claim: str, papers: list[EvidencePaper]) -> None:
    """Each passage's stance, then each paper's: the side its strongest judged passage takes (a
    contradiction outweighs support of equal strength: counter-evidence is what a writer must not miss)."""
    passages = breadth_first([paper.passages for paper in papers])
    for passage, stance in zip(passages, judge.judge(claim, [p.passage.text for p in passages]), strict=True):
        passage.stance = stance
    for paper in papers:
        judged = [p.stance for p in paper.passages if p.stance is not None and p.stance.label != "unjudged"]
        sides = [s for s in judged if s.label in ("supports", "contradicts")]
        if sides:
            paper.stance = max(sides, key=lambda s: (s.score, s.label == "contradicts"))
        elif judged:
            paper.stance = max(judged, key=lambda s: s.score)
        else:
            paper.stance = Stance("unjudged", 0.0)


def breadth_first(per_paper: list[list[EvidencePassage]]) -> list[EvidencePassage]:
    """Every paper's best passage, then every paper's second, and so on: a judge that reads only the first
    passages it is given (the client's model, bounded in tokens) still sees every paper of the pool, so
    its bearing can lift a paper that retrieval ranked low."""
    depth = max((len(passages) for passages in per_paper), default=0)
    return [passages[i] for i in range(depth) for passages in per_paper if i < len(passages)]


def by_bearing(papers: list[EvidencePaper], *, decisive: bool = False) -> list[EvidencePaper]:
    """The papers reordered by how much they bear on the claim (their most bearing passage); unchanged
    when the judge gives no bearing. A decisive judge (a language model) puts every paper it found taking
    a side before those it did not, in fused order within each; any other judge's order is fused with
    retrieval's by reciprocal rank, so it lifts a paper without overruling retrieval."""
    known = [
        [p.stance.bearing for p in paper.passages if p.stance is not None and p.stance.bearing is not None]
        for paper in papers
    ]
    if not any(known):
        return papers
    bearing = [max(values, default=0.0) for values in known]
    if decisive:
        return [papers[i] for i in sorted(range(len(papers)), key=lambda i: (bearing[i] < 0.5, i))]
    judged_rank = {i: rank for rank, i in enumerate(sorted(range(len(papers)), key=lambda i: -bearing[i]))}
    score = [1 / (FUSION_K + i + 1) + 1 / (FUSION_K + judged_rank[i] + 1) for i in range(len(papers))]
    return [papers[i] for i in sorted(range(len(papers)), key=lambda i: -score[i])]


def counts_of(papers: list[EvidencePaper]) -> dict[str, int]:
    counts = dict.fromkeys(("supports", "contradicts", "related", "unjudged"), 0)
    for paper in papers:
        counts[paper.stance.label if paper.stance else "unjudged"] += 1
    return counts


def _response(library: Any, claim: str, found: Evidence, *, scope: str, detail: str) -> ToolResponse:
    variants, papers, judge = found.variants, found.papers, found.judge
    counts = counts_of(papers)
    sides = counts["supports"] + counts["contradicts"]
    agreement = round(counts["supports"] / sides, 3) if sides else None
    where = f" within {scope}" if scope else ""
    searched = "Searched the claim and " + plural(len(variants) - 1, "refutation variant")
    searched += ": " + ", ".join(v.name for v in variants[1:]) + "." if len(variants) > 1 else "."
    if not papers:
        return ToolResponse(
            f"No passages bear on {quoted(claim)}{where}. {searched}",
            {
                "claim": claim,
                "papers": [],
                "counts": counts,
                "agreement": None,
                "variants": _variants(variants),
            },
        )
    body: list[str] = []
    rows: list[dict[str, object]] = []
    to_judge: list[int] = []
    number = 0
    texts: list[list[str]] = []  # each passage's whole words, for the claim view to quote from
    for paper in papers:
        item = library.items.get(paper.item_key)
        if item is None:
            continue
        side = f"[{paper.stance.label} {paper.stance.score:.2f}] " if _judged(paper.stance) else ""
        body.append(f"{len(rows) + 1}. {side}{item_line(item)}")
        passages: list[dict[str, object]] = []
        texts.append([p.passage.text for p in paper.passages])
        for p in paper.passages:
            number += 1
            stance = f" · {p.stance.label} {p.stance.score:.2f}" if _judged(p.stance) else ""
            if not _judged(p.stance):
                to_judge.append(number)
            cited = f"{item.key} {passage_label(p.passage)}"
            text = clip(p.passage.text, PASSAGE_CHARS[detail])
            body.append(f"   [{number}] [{cited}{stance}{_found_by(p)}] {text}")
            passages.append(
                {"n": number}
                | locator(p.passage)
                | {"variants": p.variants}
                | (p.stance.to_dict() if p.stance else {})
            )
        rows.append(
            {
                "key": item.key,
                "title": item.title,
                "year": item.year,
                "score": round(paper.score, 4),
                **(paper.stance.to_dict() if paper.stance else {}),
                "variants": sorted(paper.variants),
                "passages": passages,
            }
        )
    status, who = judged_by(judge, number - len(to_judge), number)
    tally = ", ".join(f"{label} {n}" for label, n in counts.items() if n and label != "unjudged")
    head = (
        f"Evidence on {quoted(claim, 160)}{where}: {plural(len(rows), 'paper')}, {plural(number, 'passage')}"
    )
    head += f" ({tally}). " if tally else ". "
    lines = [head + searched, *body, who, *worksheet(to_judge, number)]
    lines.append("More: zot_summarize item_key=KEY with the claim reads one paper's best passages.")
    data: dict[str, object] = {
        "claim": claim,
        "variants": _variants(variants),
        "papers": rows,
        "counts": counts,
        "agreement": agreement,
        "stance_judge": judge.name,
        "judge_status": status,
        "judged_by": who,
    }
    if to_judge:
        data["to_judge"] = to_judge
    return ToolResponse("\n".join(lines), data, view={"passages": texts})


def _judged(stance: Stance | None) -> TypeGuard[Stance]:
    return stance is not None and stance.label != "unjudged"


def _found_by(passage: EvidencePassage) -> str:
    """Named only when the claim itself did not find the passage: that is counter-evidence a plain search
    misses (the structured content lists every variant)."""
    return "" if "claim" in passage.variants else " · found by " + ", ".join(passage.variants)


def _variants(variants: list[Variant]) -> list[dict[str, str]]:
    return [{"name": v.name, "text": v.text} for v in variants]
