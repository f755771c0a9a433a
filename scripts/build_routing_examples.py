"""Write agent_zot/services/routing/examples.jsonl, the labelled requests the router's fallback uses.

    python scripts/build_routing_examples.py

Takes tests/data/routing_queries.jsonl and the rows marked "dev" of scripts/data/routing_unseen*.jsonl
(rows marked "test" are held out and never become examples). tests/test_routing.py fails when the file is
out of date.
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "agent_zot" / "services" / "routing" / "examples.jsonl"


def rows() -> list[dict[str, str]]:
    found = []
    sources = [ROOT / "tests" / "data" / "routing_queries.jsonl"]
    sources += sorted((ROOT / "scripts" / "data").glob("routing_unseen*.jsonl"))
    for path in sources:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if row.get("split", "dev") == "dev":
                found.append({"tool": row["tool"], "query": row["query"], "mode": row["mode"]})
    return found


def render() -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows())


if __name__ == "__main__":
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)} ({len(rows())} requests)")
