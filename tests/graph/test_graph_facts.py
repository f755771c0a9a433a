"""Graph facts (references, keyphrases) of many papers: computed once, cached, and, for a first graph of a
large library, spread over worker processes with the same result as in-process."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.graph import facts as facts_module
from agent_zot.graph.facts import FactsCache, current_facts
from agent_zot.state.index import IndexState
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.reader import load_library
from tests.conftest import SHARED_DATA

SCIFACT = SHARED_DATA / "scifact" / "corpus.jsonl"
ABSTRACTS = [
    (
        "Glacier mass balance",
        "Stake networks measure the surface mass balance of mountain glaciers each year.",
    ),
    ("Sourdough microbiology", "Lactic acid bacteria and wild yeasts ferment the dough of sourdough bread."),
    (
        "Coral bleaching",
        "Marine heatwaves expel symbiotic algae from reef-building corals, causing bleaching.",
    ),
    ("Soil carbon", "Cover crops increase soil organic carbon in long-term agricultural field trials."),
]


def _library(tmp_path: Path, count: int):
    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=5)
    for n in range(count):
        title, abstract = ABSTRACTS[n % len(ABSTRACTS)]
        b.add_item("journalArticle", title=f"{title} {n}", abstractNote=f"{abstract} Site {n}.")
    return load_library(b.build())


def _facts(tmp_path: Path, name: str, items: list, settings: Settings) -> dict[str, list]:
    path = tmp_path / f"{name}.sqlite"
    state, cache = IndexState(path), FactsCache(path)
    try:
        found = current_facts(items, state, cache, settings=settings)
        return {key: f.keyphrases for key, f in found.items()}
    finally:
        cache.close()
        state.close()


def test_worker_processes_give_the_same_facts_as_one_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    items = list(_library(tmp_path, 24).items.values())
    alone = _facts(tmp_path, "alone", items, Settings(index_workers=1))
    monkeypatch.setattr(facts_module, "PARALLEL_MIN", 4)
    spread = _facts(tmp_path, "spread", items, Settings(index_workers=2))
    assert spread == alone and len(alone) == 24
    assert any("glacier" in phrase for phrase, _ in alone[items[0].key])


def test_cached_facts_are_not_computed_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    items = list(_library(tmp_path, 6).items.values())
    settings = Settings(index_workers=1)
    path = tmp_path / "state.sqlite"
    state, cache = IndexState(path), FactsCache(path)
    try:
        first = current_facts(items, state, cache, settings=settings)
        calls: list[str] = []
        real = facts_module.yake_keyphrases

        def counting(title: str, *rest: object) -> list[tuple[str, float]]:
            calls.append(title)
            return real(title, *rest)  # type: ignore[arg-type]

        monkeypatch.setattr(facts_module, "yake_keyphrases", counting)
        again = current_facts(items, state, cache, settings=settings)
    finally:
        cache.close()
        state.close()
    assert calls == [] and {k: f.keyphrases for k, f in again.items()} == {
        k: f.keyphrases for k, f in first.items()
    }


@pytest.mark.shared_data(SCIFACT)
@pytest.mark.slow
def test_real_abstracts_in_workers_match(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=6)
    with SCIFACT.open(encoding="utf-8") as fh:
        for line, _ in zip(fh, range(40), strict=False):
            doc = json.loads(line)
            b.add_item("journalArticle", title=doc["title"], abstractNote=doc["text"])
    items = list(load_library(b.build()).items.values())
    alone = _facts(tmp_path, "alone", items, Settings(index_workers=1))
    monkeypatch.setattr(facts_module, "PARALLEL_MIN", 10)
    assert _facts(tmp_path, "spread", items, Settings(index_workers=2)) == alone
