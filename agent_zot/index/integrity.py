"""Does the index still hold what its state database says it holds?

An index is two stores that must agree: the state database (what was indexed: items, their chunk counts,
notes, pages, graph) and the vector store (the points searches read). A sync tool, a bad copy, a full disk
or a crash can damage either; nothing else would notice, and searches would quietly answer from what is
left. This module compares them:

- ``quick`` (every process, once per index generation, before its first answer): the state database opens
  and answers, the store's point count equals the state's, and a sample of items has all its points.
- ``thorough`` (`agent-zot index check`, `doctor`, and every `update-db` before it plans): SQLite's
  ``quick_check`` and every point's item counted against the state.

Each finding says what is wrong and what repairs it; `update-db` repairs what ``thorough`` finds.
"""

from __future__ import annotations

import random
import sqlite3
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_zot.errors import AgentZotError
from agent_zot.index.store import SearchFilter
from agent_zot.locks import open_lock_file, try_lock, unlock
from agent_zot.state.db import StateError

if TYPE_CHECKING:
    from agent_zot.index.resources import IndexResources

SAMPLE = 16
UPDATE_DB = "a plain `agent-zot update-db`"
UPDATE_LOCK = "update.lock"  # held by the update of an index generation in progress, in any process


@dataclass(frozen=True, slots=True)
class Damage:
    part: str  # state | vectors
    what: str  # for the user
    repair: str


@dataclass(slots=True)
class IntegrityReport:
    thorough: bool
    damage: list[Damage] = field(default_factory=list)
    checked: list[str] = field(default_factory=list)
    seconds: float = 0.0
    # What update-db re-embeds or drops (thorough checks only): item and note keys
    missing_items: list[str] = field(default_factory=list)
    missing_notes: list[str] = field(default_factory=list)
    orphan_keys: list[str] = field(default_factory=list)
    state_unreadable: bool = False
    damaged_query_model: Path | None = None

    @property
    def ok(self) -> bool:
        return not self.damage

    def describe(self) -> str:
        if self.ok:
            return f"index intact ({', '.join(self.checked)} checked in {self.seconds:.2f} s)"
        return "; ".join(d.what for d in self.damage)

    def to_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "thorough": self.thorough,
            "damage": [{"part": d.part, "what": d.what, "repair": d.repair} for d in self.damage],
            "checked": self.checked,
            "seconds": round(self.seconds, 3),
        }


class IndexDamagedError(AgentZotError):
    """The index's parts disagree: answers would come from what is left of it."""


def damaged_error(report: IntegrityReport) -> IndexDamagedError:
    return IndexDamagedError(
        f"The full-text index is damaged: {report.describe()}.",
        hint=f"Run {UPDATE_DB}: it repairs the index (the library itself is untouched).",
    )


def quick_verdict(resources: IndexResources) -> IntegrityReport | None:
    """The quick check for a process about to answer; None when it found damage while an update of this
    index is running (its writes make the two stores disagree for a moment: no verdict)."""
    report = check_index(resources)
    return None if not report.ok and update_running(resources.folder) else report


def update_running(folder: Any) -> bool:
    """Whether another process holds this generation's update lock (tested without waiting)."""
    try:
        handle = open_lock_file(folder / UPDATE_LOCK)
    except OSError:
        return False
    with handle:
        if try_lock(handle):
            unlock(handle)
            return False
        return True


def check_index(resources: IndexResources, *, thorough: bool = False) -> IntegrityReport:
    """Compare the state database with the vector store (see the module docstring). An index that was
    never built has nothing to check."""
    started = time.perf_counter()
    report = IntegrityReport(thorough)
    if resources.exists():
        expected = _check_state(resources, report)
        if expected is not None:
            _check_vectors(resources, report, expected)
        if report.thorough:
            _check_query_model(resources, report)
    report.seconds = time.perf_counter() - started
    return report


def _check_state(resources: IndexResources, report: IntegrityReport) -> dict[str, int] | None:
    """Chunks per item and points per note as the state records them; None when it cannot be read."""
    try:
        state = resources.state
        if report.thorough:
            verdict = state.quick_check()
            if verdict != "ok":
                raise sqlite3.DatabaseError(verdict)
        recorded = state.points_recorded()
    except (sqlite3.DatabaseError, StateError) as err:
        report.state_unreadable = True
        report.damage.append(
            Damage(
                "state",
                f"its state database cannot be read ({err})",
                f"{UPDATE_DB} rebuilds it from your Zotero library",
            )
        )
        return None
    report.checked.append("state database")
    return recorded


def _check_vectors(resources: IndexResources, report: IntegrityReport, expected: dict[str, int]) -> None:
    resources.open()
    store = resources.store
    total, stored = sum(expected.values()), store.count()
    report.checked.append("vector store")
    if report.thorough:
        found = store.points_per_item()
        missing = sorted(k for k, n in expected.items() if found.get(k, 0) < n)
        orphans = sorted(k for k in found if k not in expected)
    else:
        sample = random.Random(stored).sample(sorted(expected), min(SAMPLE, len(expected)))
        missing = [k for k in sample if store.count(SearchFilter(item_keys=(k,))) < expected[k]]
        orphans = []
    state = resources.state
    note_keys = set(state.note_fingerprints())
    report.missing_notes = [k for k in missing if k in note_keys]
    report.missing_items = [k for k in missing if k not in note_keys]
    report.orphan_keys = orphans
    if stored < total or missing:
        gone = (
            "all the"
            if stored == 0
            else f"{total - stored:,} of the {total:,}"
            if stored < total
            else "some of the"
        )
        report.damage.append(
            Damage(
                "vectors",
                f"{gone} passages it recorded are missing from the vector store"
                + (f" (items {', '.join(missing[:5])}{'…' if len(missing) > 5 else ''})" if missing else ""),
                f"{UPDATE_DB} embeds them again",
            )
        )
    elif stored > total or orphans:
        report.damage.append(
            Damage(
                "vectors",
                f"the vector store holds {stored - total:,} passages the state database does not know",
                f"{UPDATE_DB} removes them",
            )
        )


def _check_query_model(resources: IndexResources, report: IntegrityReport) -> None:
    """The ONNX copy of the model that embeds queries, against the digest written when it was made."""
    from agent_zot.index.query_onnx import export_damaged

    model_file = getattr(resources.embedder, "query_file", None)
    if model_file is None or not model_file.is_file():
        return
    report.checked.append("query model")
    if export_damaged(model_file):
        report.damaged_query_model = model_file
        report.damage.append(
            Damage(
                "query model",
                f"the exported query model {model_file} no longer matches its checksum",
                f"{UPDATE_DB} exports it again",
            )
        )
