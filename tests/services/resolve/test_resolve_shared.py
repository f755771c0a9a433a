"""The resolver on the real libraries of ../shared/data (skipped when that folder is absent): the tuned labelled
requests of scripts/data/resolve_dev.jsonl keep reaching the paper and direction they name. The held-out set
(resolve_heldout.jsonl) never enters the tests; scripts/bench_resolve.py measures it through the tools."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from agent_zot.errors import AgentZotError, AmbiguousNameError
from agent_zot.services.resolve.papers import PaperRequest, resolve_papers
from agent_zot.services.routing import route
from agent_zot.services.routing.direction import citation_direction
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.models import Library
from agent_zot.zotero.reader import load_library
from tests.conftest import REPO_ROOT, SHARED_DATA, SHARED_ZOTERO, guard_database

ROOT = REPO_ROOT
SHARED = SHARED_DATA
DEV = ROOT / "scripts" / "data" / "resolve_dev.jsonl"

pytestmark = [pytest.mark.slow, pytest.mark.shared_data(SHARED_ZOTERO)]


def pdf_library(folder: Path) -> Path:
    """The 18 shared PDFs as scripts/bench_index.py builds them (same seed), so the keys are the labels'."""
    b = ZoteroLibraryBuilder(folder, shape="z7", seed=18)
    b.add_papers_from_csv(SHARED / "pdfs" / "metadata.csv")
    return b.build()


@pytest.fixture(scope="module")
def libraries(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Library]:
    found = {}
    for folder in sorted((SHARED / "zotero").iterdir()):
        if (folder / "zotero.sqlite").is_file():
            found[folder.name] = load_library(folder / "zotero.sqlite", folder)
    if (SHARED / "pdfs" / "metadata.csv").is_file():
        db = guard_database(pdf_library(tmp_path_factory.mktemp("pdfs")))
        found["pdfs"] = load_library(db, db.parent)
    return found


def outcome(library: Library, row: dict[str, Any]) -> bool:
    tool = "zot_summarize" if row["tool"] == "view" else row["tool"]
    wanted = set(row.get("expect_items") or [])
    try:
        match = resolve_papers(library, PaperRequest.of(row["query"], route(tool, row["query"]).params))
    except AmbiguousNameError as err:
        listed = {c.split(":")[0] for c in err.candidates}
        return row.get("expect") == "ambiguous" and len(wanted & listed) >= 2
    except AgentZotError:
        return row.get("expect") == "absent"
    return row.get("expect", "resolve") == "resolve" and match.item.key in wanted


def test_the_tuned_requests_still_reach_their_papers_and_directions(libraries: dict[str, Library]) -> None:
    rows = [json.loads(line) for line in DEV.read_text(encoding="utf-8").splitlines() if line.strip()]
    papers = [
        r
        for r in rows
        if r["library"] in libraries and (r.get("expect_items") or r.get("expect") != "resolve")
    ]
    assert len(papers) >= 200
    misses = [r["query"] for r in papers if not outcome(libraries[r["library"]], r)]
    assert len(misses) <= 0.04 * len(papers), misses
    directed = [r for r in rows if r.get("expect_direction")]
    wrong = [r["query"] for r in directed if citation_direction(r["query"]) != r["expect_direction"]]
    assert len(wrong) <= 0.03 * len(directed), wrong
