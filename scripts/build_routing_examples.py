"""Write agent_zot/services/routing/examples.jsonl, the labelled requests the router's fallback uses.

    python scripts/build_routing_examples.py

Takes tests/data/routing_queries.jsonl and the rows marked "dev" of scripts/data/routing_unseen*.jsonl
(rows marked "test" are held out and never become examples), and the reading-gap requests of the works
sets' development rows (scripts/data/works_dev.jsonl, and works_new.jsonl's "dev" rows), marked "gap", with
their other explore requests (no mode): the explore tool's reading-gap fallback reads them. tests/services/resolve/test_routing.py fails when the file is out of date.
"""

from __future__ import annotations

import json
from pathlib import Path

from agent_zot.services.routing.examples import ASKS_FOR_GAP

ROOT = Path(__file__).resolve().parents[1]
TARGET = ROOT / "agent_zot" / "services" / "routing" / "examples.jsonl"


GAP_CLASSES = ("reading_gap", "reading_gap_phrasing")


def rows() -> list[dict[str, object]]:
    found: list[dict[str, object]] = []
    sources = [ROOT / "tests" / "data" / "routing_queries.jsonl"]
    sources += sorted((ROOT / "scripts" / "data").glob("routing_unseen*.jsonl"))
    for path in sources:
        for line in path.read_text(encoding="utf-8").splitlines():
            if not line.strip():
                continue
            row = json.loads(line)
            if row.get("split", "dev") == "dev":
                example = {"tool": row["tool"], "query": row["query"], "mode": row["mode"]}
                if row["mode"] == "influence" and ASKS_FOR_GAP.search(row["query"]):
                    example["gap"] = True
                found.append(example)
    for name in ("works_dev.jsonl", "works_new.jsonl"):
        for line in (ROOT / "scripts" / "data" / name).read_text(encoding="utf-8").splitlines():
            row = json.loads(line) if line.strip() else {}
            if row.get("tool") != "zot_explore_graph" or row.get("split", "dev") != "dev":
                continue
            if row["class"] in GAP_CLASSES:
                found.append({"tool": row["tool"], "query": row["query"], "mode": "influence", "gap": True})
            else:  # a request about cited works, not the gap; no mode label (only the gap fallback reads it)
                found.append({"tool": row["tool"], "query": row["query"], "mode": None})
    return found


def render() -> str:
    return "".join(json.dumps(row, ensure_ascii=False) + "\n" for row in rows())


if __name__ == "__main__":
    TARGET.write_text(render(), encoding="utf-8")
    print(f"wrote {TARGET.relative_to(ROOT)} ({len(rows())} requests)")
