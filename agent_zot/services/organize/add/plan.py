"""What the lookups of one import request found, before anything is written, and how it is told."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent_zot.identifiers import Identifier
from agent_zot.services.organize.add.registries import Found

_WHERE = {"doi": "doi.org", "arxiv": "arXiv", "pmid": "PubMed", "isbn": "Open Library"}


@dataclass
class Plan:
    """What the lookups found, before anything is written."""

    new: list[Found] = field(default_factory=list)
    held: dict[Identifier, list[str]] = field(default_factory=dict)  # requested -> items holding it
    unknown: list[Identifier] = field(default_factory=list)
    same_as: dict[Identifier, Identifier] = field(default_factory=dict)  # a second name of a new paper


def held_lines(plan: Plan) -> list[str]:
    lines = []
    for ident, keys in plan.held.items():
        copies = f" (copies: {', '.join(f'[{k}]' for k in keys[1:])})" if len(keys) > 1 else ""
        lines.append(f"  = {ident.label}: already in the library as [{keys[0]}]{copies}; not added again")
    for ident, first in plan.same_as.items():
        lines.append(f"  = {ident.label}: the same paper as {first.label}; added once")
    for ident in plan.unknown:
        lines.append(f"  ? {ident.label}: not found at {_WHERE[ident.kind]}; check it")
    return lines


def held_data(plan: Plan) -> dict[str, Any]:
    return {
        "already_held": [
            {"identifier": i.value, "kind": i.kind, "item_keys": k} for i, k in plan.held.items()
        ],
        "unknown": [
            {"identifier": i.value, "kind": i.kind, "registry": _WHERE[i.kind]} for i in plan.unknown
        ],
        "same_as": [{"identifier": i.value, "same_as": f.value} for i, f in plan.same_as.items()],
    }
