"""Do summaries and the claim check use sentences by role? On the 18 shared PDFs and the four shared Zotero
libraries (issue 54).

    .venv/bin/python scripts/bench_roles_use.py --work /tmp/NAME/work [--split test|dev|all] [--json]
        [--corpora NAME,...] [--no-corpora] [--limit-papers N]

The 18 PDFs are built into a library and indexed as scripts/bench_passages.py does (kept under
``--work/pdfs``); each shared library is indexed in place (read-only) under ``--work/<name>``. With --work
the indexes are reused. Everything is asked through fastmcp's in-memory client.

(a) Comprehensive summary of every paper with indexed full text: each slot's passages are split into
    sentences, and each sentence is given the role the paper's own sentence reading gives it
    (services/paper_reading/roles.py over the indexed pages: the section kind of its heading, "front" for the
    first page's text before any heading) and the role it reads as whatever its heading
    (index/sections.py: reference entry, caption, chrome, thanks, biography). Reported per slot: the
    share of its sentences whose role is one of the slot's roles (SLOT_ROLES: the issue's table), and the
    share that are thanks, references, biographies, captions or chrome ("junk").
(b) Claims (scripts/data/role_claims.jsonl: 30 written from the PDFs' abstracts, each with the paper's own
    sentence; a third, chosen by sha256 of the id, set aside before any tuning as "test"): the share of
    claim-check passages that are reference entries, captions or chrome, whether the paper's own sentence is
    among the passages (fuzzy, >= 90), and how many papers a check lists.

Roles are read with the code in the tree the script sits in, so a baseline run with an older tree first on
PYTHONPATH (PYTHONPATH=/tmp/old .venv/bin/python scripts/bench_roles_use.py ...) is judged by the same rules.
"""

from __future__ import annotations

import argparse
import asyncio
import hashlib
import importlib.util
import json
import re
import statistics
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

from fastmcp import Client
from rapidfuzz import fuzz

from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_passages import item_keys_by_file, prepare, prepare_corpus

ROOT = Path(__file__).resolve().parents[1]
CLAIMS = ROOT / "scripts" / "data" / "role_claims.jsonl"
CORPORA = ("gglin001-z5", "hsteinshiromoto-z6", "pthemis5-z7", "yuanluochen-z7")
SLOT_ROLES: dict[str, frozenset[str]] = {
    "research question": frozenset({"abstract", "introduction", "front"}),
    "method": frozenset({"methods"}),
    "findings": frozenset({"results", "conclusion", "abstract", "front"}),
    "conclusions": frozenset({"conclusion", "discussion"}),
    "limitations": frozenset({"discussion", "limitations", "conclusion"}),
}
JUNK = frozenset({"acknowledgements", "references", "biography", "caption", "chrome"})
NEVER_A_PASSAGE = frozenset({"references", "caption", "chrome"})
MATCH = 90


def _load(name: str, relative: str) -> ModuleType:
    """A module of this tree (the judge), whatever tree ``agent_zot`` is imported from."""
    spec = importlib.util.spec_from_file_location(name, ROOT / relative)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module  # dataclasses look their module up
    spec.loader.exec_module(module)
    return module


SECTIONS = _load("_judge_sections", "agent_zot/index/sections.py")
ROLES = _load("_judge_roles", "agent_zot/services/paper_reading/roles.py")
SENTENCES = _load("_judge_sentences", "agent_zot/index/sentences.py")


def _norm(text: str) -> str:
    return " ".join(text.split()).lower()


class PaperRoles:
    """Each sentence of one paper with its role, to look a summary's sentences up in."""

    def __init__(self, pages: list[tuple[int, str]]) -> None:
        self.sentences = [(_norm(s.text), s.kind) for s in ROLES.paper_sentences(pages)]

    def role(self, sentence: str) -> str:
        own = SECTIONS.sentence_role(sentence, "body")
        if own != "body":
            return str(own)
        wanted = _norm(sentence)
        for text, kind in self.sentences:
            if wanted and (wanted in text or text in wanted) and min(len(wanted), len(text)) > 20:
                return str(kind)
        best = max(self.sentences, key=lambda s: fuzz.ratio(wanted, s[0]), default=None)
        return str(best[1]) if best and fuzz.ratio(wanted, best[0]) >= MATCH else "unmatched"


def _passages(text: str) -> dict[str, list[str]]:
    """The passages of each slot of a comprehensive summary's text ("## Slot" then "- [p. 3] (Section) ...")."""
    slots: dict[str, list[str]] = {}
    current = None
    for line in text.splitlines():
        if line.startswith("## "):
            current = line[3:].strip().lower()
            slots[current] = []
        elif current and line.startswith("- [") and "] " in line:
            body = line.split("] ", 1)[1]
            if body.startswith("(") and ") " in body:
                body = body.split(") ", 1)[1]
            slots[current].append(body)
    return slots


async def summaries(client: Client, ctx: AppContext, limit: int | None) -> dict[str, Any]:
    state = ctx.index().state
    papers = []
    for item in ctx.library().items.values():
        records = [r for r in state.attachments_of(item.key) if r.chunks > 0]
        if records:
            pages = state.pages_of(records[0].attachment_key)
            papers.append((item.key, [(p.number, p.text) for p in pages]))
    counts: dict[str, dict[str, int]] = {slot: {"on_role": 0, "junk": 0, "all": 0} for slot in SLOT_ROLES}
    junk_examples: list[str] = []
    for key, pages in papers[:limit]:
        result = await client.call_tool(
            "zot_summarize",
            {"query": "comprehensive summary", "item_key": key, "force_mode": "comprehensive"},
            raise_on_error=False,
        )
        if result.is_error:
            continue
        roles = PaperRoles(pages)
        for slot, passages in _passages(result.content[0].text).items():
            if slot not in counts:
                continue
            for passage in passages:
                for start, end in SENTENCES.sentence_spans(passage):
                    sentence = passage[start:end]
                    if len(sentence.split()) < 3:
                        continue
                    role = roles.role(sentence)
                    counts[slot]["all"] += 1
                    counts[slot]["on_role"] += role in SLOT_ROLES[slot]
                    if role in JUNK:
                        counts[slot]["junk"] += 1
                        if len(junk_examples) < 8:
                            junk_examples.append(f"{key} {slot} [{role}] {sentence[:100]}")
    return {"papers": len(papers[:limit]), "slots": counts, "junk_examples": junk_examples}


def load_claims(split: str) -> list[dict[str, Any]]:
    rows = [json.loads(line) for line in CLAIMS.read_text(encoding="utf-8").splitlines() if line.strip()]
    for row in rows:
        row["split"] = "test" if int(hashlib.sha256(row["id"].encode()).hexdigest(), 16) % 3 == 0 else "dev"
    return [r for r in rows if split == "all" or r["split"] == split]


_PASSAGE = re.compile(r"^\s+\[\d+\] \[([A-Z0-9]{8})(?:[^\[\]]|\[[^\]]*\])*\] (.*)$")


def _evidence_passages(text: str) -> list[tuple[str, str]]:
    """(item key, passage text) of each numbered passage of a claim check's text
    ("   [3] [KEY p. 4 [104] · Methods] text")."""
    return [(m.group(1), m.group(2)) for m in map(_PASSAGE.match, text.splitlines()) if m]


async def claims(client: Client, keys: dict[str, str], split: str) -> dict[str, Any]:
    rows = []
    for claim in load_claims(split):
        result = await client.call_tool(
            "zot_search", {"query": claim["claim"], "force_mode": "evidence"}, raise_on_error=False
        )
        text = result.content[0].text if result.content else ""
        passages = _evidence_passages(text)
        roles = [SECTIONS.sentence_role(p, "body") for _, p in passages]
        bad = sum(
            1
            for (_, passage), role in zip(passages, roles, strict=True)
            if role in NEVER_A_PASSAGE
            or any(
                SECTIONS.sentence_role(passage[a:b], "body") in NEVER_A_PASSAGE
                for a, b in SENTENCES.sentence_spans(passage)
            )
        )
        own_key = keys.get(claim["file"])
        own = any(
            key == own_key and fuzz.partial_ratio(_norm(claim["own"]), _norm(passage)) >= MATCH
            for key, passage in passages
        )
        papers = len((result.structured_content or {}).get("papers", []))
        rows.append({"id": claim["id"], "passages": len(passages), "bad": bad, "own": own, "papers": papers})
    total = sum(r["passages"] for r in rows)
    return {
        "claims": len(rows),
        "bad_share": round(sum(r["bad"] for r in rows) / total, 3) if total else 0.0,
        "own_found": round(sum(r["own"] for r in rows) / len(rows), 3) if rows else 0.0,
        "papers_mean": round(statistics.mean(r["papers"] for r in rows), 2) if rows else 0.0,
        "rows": rows,
    }


def _shares(counts: dict[str, dict[str, int]]) -> dict[str, dict[str, float]]:
    return {
        slot: {
            "sentences": c["all"],
            "on_role": round(c["on_role"] / c["all"], 3) if c["all"] else 0.0,
            "junk": round(c["junk"] / c["all"], 3) if c["all"] else 0.0,
        }
        for slot, c in counts.items()
    }


def _merge(totals: dict[str, dict[str, int]], found: dict[str, dict[str, int]]) -> None:
    for slot, c in found.items():
        for name, n in c.items():
            totals[slot][name] += n


async def run(args: argparse.Namespace) -> dict[str, Any]:
    work: Path = args.work
    report: dict[str, Any] = {"libraries": {}}
    totals = {slot: {"on_role": 0, "junk": 0, "all": 0} for slot in SLOT_ROLES}
    libraries = [("pdfs", prepare(work / "pdfs"))]
    corpora = [] if args.no_corpora else (args.corpora.split(",") if args.corpora else list(CORPORA))
    libraries += [(name, prepare_corpus(name, work)) for name in corpora]
    for name, settings in libraries:
        keys = item_keys_by_file(settings) if name == "pdfs" else {}
        ctx = AppContext(settings, home=work / "home")
        async with Client(build_server(ctx)) as client:
            found = await summaries(client, ctx, args.limit_papers)
            _merge(totals, found["slots"])
            entry: dict[str, Any] = {"papers": found["papers"], "slots": _shares(found["slots"])}
            entry["junk_examples"] = found["junk_examples"]
            if name == "pdfs":
                entry["claims"] = await claims(client, keys, args.split)
            report["libraries"][name] = entry
        ctx.close()
    report["summary_all"] = _shares(totals)
    return report


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True, help="keep the libraries and indexes here")
    parser.add_argument("--split", choices=("test", "dev", "all"), default="test")
    parser.add_argument("--corpora", default="", help="comma-separated shared libraries (default: all four)")
    parser.add_argument("--no-corpora", action="store_true", help="the 18 PDFs only")
    parser.add_argument("--limit-papers", type=int, default=None, help="summaries of the first N papers")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    report = asyncio.run(run(args))
    if args.json:
        print(json.dumps(report, indent=2))
        return
    for name, entry in report["libraries"].items():
        print(f"{name}: {entry['papers']} papers")
        for slot, s in entry["slots"].items():
            print(
                f"  {slot:18} {s['sentences']:4} sentences  on role {s['on_role']:.3f}  junk {s['junk']:.3f}"
            )
        for example in entry["junk_examples"]:
            print(f"    junk: {example}")
        if "claims" in entry:
            c = entry["claims"]
            print(
                f"  claims ({args.split}, {c['claims']}): bad passages {c['bad_share']:.3f}, own sentence found "
                f"{c['own_found']:.3f}, papers listed {c['papers_mean']}"
            )
    print("all libraries:")
    for slot, s in report["summary_all"].items():
        print(f"  {slot:18} {s['sentences']:4} sentences  on role {s['on_role']:.3f}  junk {s['junk']:.3f}")


if __name__ == "__main__":
    main()
