"""What `agent-zot doctor` reports: one check per part (its status, what was found, how to fix it), as lines
for the terminal or as data for `--json`."""

from __future__ import annotations

from dataclasses import asdict, dataclass


@dataclass(slots=True)
class Check:
    name: str
    status: str  # "ok" | "warn" | "fail"
    detail: str
    fix: str = ""


def format_checks(checks: list[Check]) -> str:
    marks = {"ok": "✓", "warn": "!", "fail": "✗"}
    lines = []
    for c in checks:
        lines.append(f"{marks[c.status]} {c.name}: {c.detail}")
        if c.fix and c.status != "ok":
            lines.append(f"    fix: {c.fix}")
    return "\n".join(lines)


def checks_as_dicts(checks: list[Check]) -> list[dict[str, str]]:
    return [asdict(c) for c in checks]
