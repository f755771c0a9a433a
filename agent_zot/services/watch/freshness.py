"""Whether the index is behind the library: items added, changed or removed in Zotero since the last
update. Answers from the index say so ("2 items added since the last index; indexing them now"), so the
assistant knows a missing paper may simply not be indexed yet.

The comparison is the one update-db plans with (index/changes.py), made only when zotero.sqlite or the
index changed since the last check: an unchanged library costs one header read per answer.
"""

from __future__ import annotations

import threading
import weakref
from dataclasses import dataclass

from agent_zot.index.changes import LIBRARY_STAMP, changed_since_indexed, plan_update
from agent_zot.services.context import AppContext
from agent_zot.services.watch.watcher import UpdateFailure, update_failure, updater_active


@dataclass(frozen=True, slots=True)
class IndexLag:
    added: int
    changed: int
    removed: int
    updating: bool  # a server or `agent-zot watch` is indexing this data folder
    failure: UpdateFailure | None = None  # why the background updates have not caught up

    @property
    def behind(self) -> bool:
        return bool(self.added or self.changed or self.removed)

    def describe(self) -> str:
        parts = [
            f"{n} item{'s' if n != 1 else ''} {what}"
            for n, what in ((self.added, "added"), (self.changed, "changed"), (self.removed, "removed"))
            if n
        ]
        if self.failure is not None:
            then = f"{self.failure.describe()}. `agent-zot doctor` checks why; `agent-zot update-db` retries"
        elif self.updating:
            then = "indexing now; ask again in a moment for them"
        else:
            then = "run `agent-zot update-db` to index them (or keep `agent-zot watch` running)"
        return f"{', '.join(parts)} in Zotero since the last index: {then}"

    def to_dict(self) -> dict[str, object]:
        lag: dict[str, object] = {
            "added": self.added,
            "changed": self.changed,
            "removed": self.removed,
            "updating": self.updating,
        }
        if self.failure is not None:
            lag["update_failing"] = self.failure.to_dict()
        return lag


_cache: weakref.WeakKeyDictionary[AppContext, tuple[object, IndexLag | None]] = weakref.WeakKeyDictionary()
_lock = threading.Lock()


def index_lag(ctx: AppContext) -> IndexLag | None:
    """How far the index is behind the library; None without an index (answers already say how to build
    one)."""
    resources = ctx.index_resources()
    if not resources.exists():
        return None
    library = ctx.library()
    state = resources.state
    key = (ctx.library_state, resources.generation, state.get_meta("updated_at"))
    # Held while planning: the server's warm-up and a first request may both ask; one plans, for both
    with _lock:
        cached = _cache.get(ctx)
        if cached is not None and cached[0] == key:
            lag = cached[1]
        else:
            indexed = state.item_fingerprints()
            plan = plan_update(
                library,
                indexed,
                state.attachment_fingerprints(),
                state.attachments_by_item(),
                fulltext=state.get_meta("fulltext") != "0",
                changed_since_indexed=changed_since_indexed(state.get_meta(LIBRARY_STAMP), library),
            )
            known = state.item_keys()
            added = sum(1 for work in plan.work if work.item.key not in known)
            # An item that failed to index (a broken PDF) is known but not indexed: retried by the next
            # update, it is not news to the user.
            changed = sum(1 for work in plan.work if work.item.key in indexed)
            lag = IndexLag(added, changed, len(plan.removed), updating=False)
            _cache[ctx] = (key, lag)
    if lag is None or not lag.behind:
        return None
    data_dir = ctx.settings.data_dir
    failure = update_failure(data_dir, indexed_at=state.get_meta("updated_at"))
    return IndexLag(lag.added, lag.changed, lag.removed, updating=updater_active(data_dir), failure=failure)
