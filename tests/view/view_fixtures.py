"""Shared by the `agent-zot view` tests: the demo library indexed once per session, a small synthetic graph,
and headless Chromium (Debian's /usr/bin/chromium, driven by Playwright without a browser download)."""

from __future__ import annotations

import os
import shutil
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from agent_zot.config import Settings
from agent_zot.graph.model import Edge, EdgeKind, GraphData, Node, NodeKind, paper_id
from agent_zot.zotero.demo import ensure_demo_library
from agent_zot.zotero.models import Collection, Creator, Item, Library, LibraryInfo, ZoteroDate
from tests.conftest import guard_database, index_library

CHROMIUM = Path("/usr/bin/chromium")
# As the machine notes say: without these, Chromium tries (and slowly fails) to reach Google's hosts.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-unsafe-swiftshader",  # WebGL on the CPU, where there is no GPU
]
DEMO_TITLES = {
    "bert": "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
    "scibert": "SciBERT: A Pretrained Language Model for Scientific Text",
    "s2orc": "S2ORC: The Semantic Scholar Open Research Corpus",
    "attention": "Attention Is All You Need",
}
_DEMO: dict[str, Settings] = {}


def demo_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """The demo library (its PDFs cite each other: SciBERT and S2ORC cite BERT) indexed with its graph,
    once per test session whichever module asks first."""
    if "settings" not in _DEMO:
        root = tmp_path_factory.mktemp("view-demo")
        db = guard_database(ensure_demo_library(root / "demo"))
        settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
        _DEMO["settings"] = index_library(settings, root / "home", graph=True)
    return _DEMO["settings"]


def synthetic_library(papers: int, *, hub: bool = True) -> tuple[GraphData, Library]:
    """``papers`` papers; with ``hub`` every paper cites P0000000 and P0000001 cites P0000002."""
    collection = Collection("COLL0001", 1, "Topic", None, 1, "Topic")
    nodes = [Node(f"collection:{collection.key}", NodeKind.COLLECTION, {"name": "Topic"})]
    edges: list[Edge] = []
    items: dict[str, Item] = {}
    for i in range(papers):
        key = f"P{i:07d}"
        title = f"Paper number {i}"
        nodes.append(
            Node(paper_id(key), NodeKind.PAPER, {"title": title, "year": 2000 + i % 20, "item_key": key})
        )
        edges.append(Edge(paper_id(key), f"collection:{collection.key}", EdgeKind.IN_COLLECTION))
        if hub and i > 0:
            edges.append(Edge(paper_id(key), paper_id("P0000000"), EdgeKind.CITES, {"confidence": 1.0}))
        items[key] = Item(
            key,
            i + 1,
            "journalArticle",
            1,
            {"title": title, "abstractNote": f"About paper {i}."},
            {},
            creators=[Creator(i + 1, "author", f"Author{i}", "Ann")],
            collection_keys=[collection.key] if i % 2 == 0 else [],
            date=ZoteroDate(str(2000 + i % 20), 2000 + i % 20),
        )
    if hub and papers > 2:
        edges.append(Edge(paper_id("P0000001"), paper_id("P0000002"), EdgeKind.CITES, {"confidence": 1.0}))
    library = Library(
        Path(),
        Path("zotero.sqlite"),
        123,
        [LibraryInfo(1, "user", "My Library")],
        items,
        {collection.key: collection},
        [],
        [],
        {},
    )
    return GraphData(nodes, edges), library


def browser_available() -> tuple[bool, str]:
    """Whether the browser tests can run; on CI (which installs Chromium) a missing browser is a failure."""
    try:
        import playwright.sync_api  # noqa: F401
    except ImportError:
        return False, "playwright is not installed (pip install -e '.[dev]')"
    if not CHROMIUM.is_file():
        return False, f"{CHROMIUM} is missing (apt-get install chromium); .ci/run installs it"
    return True, ""


def require_browser() -> None:
    ok, why = browser_available()
    if ok:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the browser tests: {why}")
    pytest.skip(why)


@contextmanager
def chromium() -> Iterator[Any]:
    """A Playwright browser context on Debian's Chromium, with a fresh profile."""
    from playwright.sync_api import sync_playwright

    profile = tempfile.mkdtemp(prefix="agent-zot-chromium-")
    try:
        with sync_playwright() as p:
            context = p.chromium.launch_persistent_context(
                profile,
                executable_path=str(CHROMIUM),
                headless=True,
                args=CHROMIUM_ARGS,
                viewport={"width": 1280, "height": 800},
            )
            try:
                yield context
            finally:
                context.close()
    finally:
        shutil.rmtree(profile, ignore_errors=True)


def wait_ready(page: Any, timeout: float = 120.0) -> None:
    """Until the page has laid out and drawn the graph. Polled with evaluate: Playwright's
    wait_for_function compiles its predicate with eval, which the page's Content-Security-Policy forbids."""
    deadline = time.monotonic() + timeout
    while not page.evaluate("() => Boolean(window.agentZotView && window.agentZotView.ready)"):
        if time.monotonic() > deadline:
            raise AssertionError("the page did not finish drawing the graph")
        time.sleep(0.05)
