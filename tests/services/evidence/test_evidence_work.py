"""What a claim check costs: the claim and its refutation variants rank more papers than the answer shows,
and passages (sentences split and scored, page texts read) are picked only for the papers it shows. Real
library, real index; the picker's work is counted by wrapping the real `PassagePicker.pick_tiers`."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from agent_zot.config import Settings
from agent_zot.index.passages import ChunkHit, Passage, PassagePicker
from agent_zot.index.shared import SharedIndex
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.claim_check import gather_evidence
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database, index_library, library_settings

CLAIM = "Exercise reduces blood pressure in older adults"
SUBJECTS = ["Exercise", "Aerobic training", "Walking", "Resistance training"]
FINDINGS = [
    "reduces blood pressure",
    "increases blood pressure",
    "lowers systolic blood pressure",
    "in contrast raised diastolic blood pressure",
]
# Trials of other things in older adults, worded as the refutation variants are ("no effect", "in
# contrast", "fails to", "does not"): more papers for the variants to rank than the answer shows.
OTHERS = ["Caffeine", "Vitamin D", "Statins", "Hearing aids", "Meditation", "Fish oil"]
TURNS = [
    "had no effect on memory; no association and no difference were found",
    "however, in contrast to earlier trials, did not slow cognitive decline",
    "fails to prevent falls",
    "does not reduce frailty",
]


def _abstract(n: int, subject: str, finding: str) -> str:
    return (
        f"We randomised {40 + 7 * n} older adults to {subject.lower()} or usual care for {6 + n % 5} "
        f"months. {subject} {finding} in older adults. Adherence was {60 + n % 30} percent."
    )


@pytest.fixture(scope="module")
def trials(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """16 trials on blood pressure in older adults, finding one way or the other, and 24 of other things
    in older adults that found no effect, or the contrary."""
    root = tmp_path_factory.mktemp("claim-work")
    builder = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=5)
    pairs = [(s, f, "blood pressure") for s in SUBJECTS for f in FINDINGS]
    pairs += [(s, t, "ageing") for s in OTHERS for t in TURNS]
    for n, (subject, finding, topic) in enumerate(pairs):
        builder.add_item(
            "journalArticle",
            title=f"{subject} and {topic} in older adults: trial {n + 1}",
            abstractNote=_abstract(n, subject, finding),
            date="2015-00-00 2015",
        )
    db = guard_database(builder.build())
    return index_library(library_settings(db.parent, root), root / "home")


@pytest.mark.slow
def test_passages_are_picked_only_for_the_papers_the_claim_check_shows(
    trials: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    picked: Counter[str] = Counter()
    real_pick = PassagePicker.pick_tiers  # every choice of passages goes through it

    def counted(self: PassagePicker, pool: Sequence[ChunkHit], counts: Sequence[int]) -> list[list[Passage]]:
        picked.update({chunk.hit.payload["item_key"] for chunk in pool})
        return real_pick(self, pool, counts)

    monkeypatch.setattr(PassagePicker, "pick_tiers", counted)
    ctx = AppContext(trials, home=tmp_path / "home")
    try:
        limit = 3
        found = gather_evidence(ctx, CLAIM, limit=limit)
    finally:
        ctx.close()
    shown = {paper.item_key for paper in found.papers}
    assert len(shown) == limit and all(paper.passages for paper in found.papers)
    # every paper bears on the claim (its title names "older adults"), so the answer is full after the
    # first ``limit`` fused papers: no other paper's passages are picked, whatever the variants ranked
    assert set(picked) == shown, sorted(picked)
    assert max(picked.values()) <= len(found.variants)  # once per variant that found the paper at most


@pytest.mark.slow
def test_a_claim_check_sends_its_variants_store_queries_as_one_batch_and_reads_payloads_once(
    trials: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Every call a claim check makes on its store, counted where a call leaves for the store (for a second
    # process, one round trip over the shared index's socket each).
    calls: list[tuple[str, int]] = []
    real_call = SharedIndex._call

    def counted(self: SharedIndex, method: str, *args: Any, **kwargs: Any) -> Any:
        calls.append((method, len(args[0]) if method == "search_batch" else 1))
        return real_call(self, method, *args, **kwargs)

    ctx = AppContext(trials, home=tmp_path / "home")
    try:
        ctx.index().open()  # opened before counting
        monkeypatch.setattr(SharedIndex, "_call", counted)
        found = gather_evidence(ctx, CLAIM, limit=3)
    finally:
        ctx.close()
    assert len(found.variants) >= 4 and found.papers
    # abstracts only (no paper has a query of its own): one batch holding each variant's dense and
    # sparse query, then one read of the whole payloads of the papers whose passages are picked
    assert calls == [("search_batch", 2 * len(found.variants)), ("payloads", 1)], calls
