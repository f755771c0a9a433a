"""Multi-object item writes: send changes in batches, read each object's fate, retry version conflicts once.

The web API answers a multi-object POST with four maps keyed by the object's index in the request:
``successful`` (index -> object), ``success`` (index -> key), ``unchanged`` (index -> key) and
``failed`` (index -> {key, code, message}). A 412 in ``failed`` means the object changed since we
read it: we re-read it, recompute the change on the current data, and send it once more.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from agent_zot.services.writes.client import BATCH_SIZE, ZoteroWriter
from agent_zot.services.writes.errors import RouteUnavailableError, VersionConflictError, ZoteroWriteError

# Given an item's current editable JSON, the fields to send (PATCH semantics), or None if nothing to do.
Change = Callable[[dict[str, Any]], dict[str, Any] | None]
Check = Callable[[dict[str, Any]], bool]


@dataclass
class Outcome:
    changed: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)  # already as asked: nothing sent or Zotero kept it
    failed: dict[str, str] = field(default_factory=dict)  # key -> why
    retried: list[str] = field(default_factory=list)  # changed after one version-conflict retry
    unconfirmed: list[str] = field(default_factory=list)  # written, but the re-read did not show it

    def to_dict(self) -> dict[str, Any]:
        return {
            "changed": self.changed,
            "unchanged": self.unchanged,
            "failed": [{"key": k, "reason": why} for k, why in self.failed.items()],
            "retried_after_conflict": self.retried,
            "unconfirmed": self.unconfirmed,
        }


@dataclass(frozen=True)
class Fates:
    """One multi-object response, by key."""

    success: list[str]
    unchanged: list[str]
    failed: dict[str, tuple[int | None, str]]


def read_fates(response: dict[str, Any], sent: list[str]) -> Fates:
    """Map a multi-object response's index-keyed maps back to the keys we sent."""

    def key_at(index: str, fallback: object = None) -> str:
        if isinstance(fallback, str):
            return fallback
        position = int(index)
        return sent[position] if position < len(sent) else index

    success = {i: key_at(i, k) for i, k in (response.get("success") or {}).items()}
    for i, obj in (response.get("successful") or {}).items():
        success.setdefault(i, key_at(i, obj.get("key") if isinstance(obj, dict) else None))
    unchanged = [key_at(i, k) for i, k in (response.get("unchanged") or {}).items()]
    failed: dict[str, tuple[int | None, str]] = {}
    for i, entry in (response.get("failed") or {}).items():
        entry = entry if isinstance(entry, dict) else {}
        failed[key_at(i, entry.get("key"))] = (entry.get("code"), str(entry.get("message") or "failed"))
    return Fates(list(success.values()), unchanged, failed)


def apply_changes(writer: ZoteroWriter, objects: dict[str, dict[str, Any]], change: Change) -> Outcome:
    """Write ``change`` to each object; report every key's fate."""
    outcome = Outcome()
    conflicts = _send(writer, _payloads(objects, change, outcome), outcome)
    if not conflicts:
        return outcome
    fresh = writer.items(conflicts)
    for key in conflicts:
        if key not in fresh:
            outcome.failed[key] = "deleted on the server while this change was being written"
    retry = _payloads({k: v for k, v in fresh.items() if k in conflicts}, change, outcome)
    before = len(outcome.changed)
    still = _send(writer, retry, outcome)
    outcome.retried.extend(outcome.changed[before:])
    for key in still:
        outcome.failed[key] = (
            "version conflict (HTTP 412) again after re-reading the item: it is being edited elsewhere; "
            "repeat the request later"
        )
    return outcome


def confirm(writer: ZoteroWriter, outcome: Outcome, check: Check) -> None:
    """Re-read what was written and note any object that does not show the change."""
    if not outcome.changed:
        return
    current = writer.items(outcome.changed)
    outcome.unconfirmed = [k for k in outcome.changed if k not in current or not check(current[k]["data"])]


def _payloads(objects: dict[str, dict[str, Any]], change: Change, outcome: Outcome) -> list[dict[str, Any]]:
    payloads = []
    for key, obj in objects.items():
        fields = change(obj["data"])
        if fields is None:
            outcome.unchanged.append(key)
        else:
            payloads.append({"key": key, "version": obj["version"], **fields})
    return payloads


def _send(writer: ZoteroWriter, payloads: list[dict[str, Any]], outcome: Outcome) -> list[str]:
    """Send in batches; returns the keys that hit a version conflict."""
    conflicts: list[str] = []
    for start in range(0, len(payloads), BATCH_SIZE):
        batch = payloads[start : start + BATCH_SIZE]
        keys = [p["key"] for p in batch]
        try:
            fates = read_fates(writer.write_items(batch), keys)
        except VersionConflictError:
            conflicts.extend(keys)  # the whole request was refused: every object is re-read
            continue
        except RouteUnavailableError:
            raise  # nothing went through this route; the caller may try the next one
        except ZoteroWriteError as exc:
            if not outcome.changed and not start:
                raise  # nothing changed yet: a plain error says it best
            for p in payloads[start:]:
                outcome.failed[p["key"]] = f"not written: {exc.message}"
            break
        outcome.changed.extend(fates.success)
        outcome.unchanged.extend(fates.unchanged)
        for key, (code, message) in fates.failed.items():
            if code == 412:
                conflicts.append(key)
            else:
                outcome.failed[key] = f"HTTP {code}: {message}" if code else message
    return conflicts
