"""Benchmark of `agent-zot view` on a synthetic library graph, in headless Chromium (Debian's /usr/bin/chromium).

    .venv/bin/python scripts/bench_view.py [--papers 5000] [--seconds 4] [--screenshot view-5000.png]
    .venv/bin/python scripts/bench_view.py --demo-screenshot docs/view.png   # the README's picture

The graph looks like a library's: N papers with 2-6 authors each (popular authors more often), 8 concepts
each out of N/2, 4 in-library citations each (skewed towards popular papers), 40 collections. Measured:
building the view data from the graph store (build_view), the page's size, and in the browser: time from
navigation to the first frame and to the end of the ForceAtlas2 layout, then frames per second while the
camera pans and zooms continuously (citations and shared authors drawn, then every link kind).
Chromium runs with --disable-gpu, so WebGL is SwiftShader on the CPU: a machine with a GPU draws faster.
"""

from __future__ import annotations

import argparse
import math
import random
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_zot.graph.model import Edge, EdgeKind, GraphData, Node, NodeKind, paper_id
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.services.explore.view_data import build_view
from agent_zot.services.explore.view_scope import ViewRequest
from agent_zot.view.page import render_page
from agent_zot.zotero.models import Collection, Creator, Item, Library, LibraryInfo, ZoteroDate

CHROMIUM = "/usr/bin/chromium"
# No connection attempts beyond loopback, and a software WebGL: what a machine without a display has.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--enable-unsafe-swiftshader",
]
WORDS = [
    "graph",
    "neural",
    "network",
    "citation",
    "language",
    "model",
    "corpus",
    "retrieval",
    "transformer",
    "attention",
    "protein",
    "structure",
    "learning",
    "deep",
    "sparse",
    "dense",
    "embedding",
    "survey",
    "dataset",
    "benchmark",
    "evaluation",
    "scholarly",
    "document",
    "parsing",
    "reference",
    "metadata",
    "extraction",
    "topic",
    "model",
    "bayesian",
    "inference",
]
COUNT_FRAMES = """() => {
  const start = performance.now();
  let frames = 0, last = start;
  const tick = (now) => { frames += 1; last = now; if (!window.__stopFrames) requestAnimationFrame(tick); };
  window.__stopFrames = false;
  window.__frameRate = () => { window.__stopFrames = true; return frames / ((last - start) / 1000); };
  requestAnimationFrame(tick);
}"""
FPS_SCRIPT = """async (ms) => {
  const camera = window.agentZotView.renderer.getCamera();
  let frames = 0;
  const start = performance.now();
  return await new Promise((resolve) => {
    function tick(now) {
      frames += 1;
      const t = (now - start) / 1000;
      camera.setState({ x: 0.5 + 0.2 * Math.sin(t), y: 0.5 + 0.2 * Math.cos(t), ratio: 0.7 + 0.4 * Math.sin(t / 2), angle: 0 });
      if (now - start < ms) requestAnimationFrame(tick);
      else resolve(frames / ((now - start) / 1000));
    }
    requestAnimationFrame(tick);
  });
}"""


def synthetic(papers: int, seed: int = 7) -> tuple[GraphData, Library]:
    rng = random.Random(seed)
    skew = lambda n: int(n * rng.random() ** 2.5)  # noqa: E731 (low indexes far more likely)
    collections = {
        f"C{i:07d}": Collection(f"C{i:07d}", i, f"Topic {i}", None, 1, f"Topic {i}") for i in range(40)
    }
    nodes: list[Node] = []
    edges: list[Edge] = []
    items: dict[str, Item] = {}
    n_authors, n_concepts = max(2, papers), max(2, papers // 2)
    nodes += [Node(f"author:a{i}", NodeKind.AUTHOR, {"name": f"Author {i}"}) for i in range(n_authors)]
    nodes += [Node(f"concept:c{i}", NodeKind.CONCEPT, {"name": f"concept {i}"}) for i in range(n_concepts)]
    nodes += [Node(f"collection:{k}", NodeKind.COLLECTION, {"name": c.name}) for k, c in collections.items()]
    for i in range(papers):
        key = f"P{i:07d}"
        title = " ".join(rng.choice(WORDS) for _ in range(rng.randint(4, 10))).capitalize()
        year = 1990 + skew(35)
        coll = [f"C{skew(40):07d}"]
        authors = sorted({skew(n_authors) for _ in range(rng.randint(2, 6))})
        nodes.append(Node(paper_id(key), NodeKind.PAPER, {"title": title, "year": year, "item_key": key}))
        edges += [Edge(paper_id(key), f"author:a{a}", EdgeKind.AUTHORED_BY) for a in authors]
        edges += [Edge(paper_id(key), f"collection:{c}", EdgeKind.IN_COLLECTION) for c in coll]
        for c in {skew(n_concepts) for _ in range(8)}:
            edges.append(Edge(paper_id(key), f"concept:c{c}", EdgeKind.MENTIONS, {"weight": 0.5}))
        for _ in range(4 if i else 0):
            cited = skew(i)
            edges.append(Edge(paper_id(key), paper_id(f"P{cited:07d}"), EdgeKind.CITES, {"confidence": 1.0}))
        items[key] = Item(
            key,
            i,
            "journalArticle",
            1,
            {"title": title, "abstractNote": f"Abstract of {title.lower()}. " * 8},
            {"publicationTitle": f"Journal {skew(50)}"},
            creators=[Creator(a, "author", f"Surname{a}", f"Given{a}") for a in authors],
            collection_keys=coll,
            date=ZoteroDate(str(year), year),
        )
    library = Library(
        Path(),
        Path("zotero.sqlite"),
        123,
        [LibraryInfo(1, "user", "My Library")],
        items,
        collections,
        [],
        [],
        {},
    )
    return GraphData(nodes, list({e.key: e for e in edges}.values())), library


def wait_ready(page: object, timeout: float = 300.0) -> None:
    """Until the layout is done. Polled with evaluate: wait_for_function compiles its predicate with eval,
    which the page's Content-Security-Policy forbids."""
    deadline = time.monotonic() + timeout
    while not page.evaluate("() => Boolean(window.agentZotView && window.agentZotView.ready)"):  # type: ignore[attr-defined]
        if time.monotonic() > deadline:
            raise TimeoutError("the page did not finish its layout")
        time.sleep(0.05)


def measure_page(path: Path, seconds: float, screenshot: Path | None) -> dict[str, float]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p, tempfile.TemporaryDirectory() as profile:
        browser = p.chromium.launch_persistent_context(
            profile,
            executable_path=CHROMIUM,
            headless=True,
            args=CHROMIUM_ARGS,
            viewport={"width": 1400, "height": 900},
        )
        page = browser.new_page()
        page.goto(path.as_uri())
        wait_ready(page)
        built, first, layout = page.evaluate(
            "[window.agentZotView.graphBuiltMs, window.agentZotView.firstDrawMs, window.agentZotView.layoutMs]"
        )
        fps = page.evaluate(FPS_SCRIPT, seconds * 1000)
        drag = drag_fps(page, seconds)
        page.check("#edge-concept")
        fps_all = page.evaluate(FPS_SCRIPT, seconds * 1000)
        page.uncheck("#edge-concept")
        if screenshot is not None:
            page.evaluate(
                "window.agentZotView.renderer.getCamera().setState({x: 0.5, y: 0.5, ratio: 1, angle: 0})"
            )
            page.wait_for_timeout(300)
            page.screenshot(path=str(screenshot))
        browser.close()
    return {
        "graph_built_ms": built,
        "first_frame_ms": first,
        "layout_done_ms": layout,
        "fps": fps,
        "fps_all_links": fps_all,
        "drag_fps": drag,
    }


def drag_fps(page: object, seconds: float) -> float:
    """Frames per second while the mouse drags the graph around (as a user pans it)."""
    box = page.locator("#graph").bounding_box()  # type: ignore[attr-defined]
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    page.evaluate(COUNT_FRAMES)  # type: ignore[attr-defined]
    mouse = page.mouse  # type: ignore[attr-defined]
    mouse.move(cx, cy)
    mouse.down()
    started = time.monotonic()
    while (t := time.monotonic() - started) < seconds:
        mouse.move(cx + 150 * math.sin(t * 2), cy + 100 * math.cos(t * 2))
    mouse.up()
    return float(page.evaluate("window.__frameRate()"))  # type: ignore[attr-defined]


def bench(papers: int, seconds: float, screenshot: Path | None) -> None:
    graph, library = synthetic(papers)
    with tempfile.TemporaryDirectory() as tmp:
        store = SqliteGraphStore(Path(tmp) / "state.sqlite")
        store.replace_all(graph)
        started = time.perf_counter()
        data = build_view(store, library, ViewRequest(max_nodes=papers))
        built = time.perf_counter() - started
        store.close()
        print(f"build_view: {built:.2f} s", flush=True)
        page = render_page(data.to_json(), f"synthetic library of {papers:,} papers")
        path = Path(tmp) / "view.html"
        path.write_text(page, encoding="utf-8")
        counts = data.counts()
        print(
            f"{papers:,} papers: {counts['cites']:,} citations, {counts['coauthor']:,} shared-author and "
            f"{counts['concept']:,} shared-concept links; build_view {built:.2f} s; page {len(page) / 1e6:.1f} MB"
        )
        result = measure_page(path, seconds, screenshot)
    print(
        f"data parsed and graph built {result['graph_built_ms'] / 1000:.2f} s after navigation, "
        f"layout done {result['layout_done_ms'] / 1000:.2f} s, first frame {result['first_frame_ms'] / 1000:.2f} s; "
        f"camera moving every frame {result['fps']:.1f} fps "
        f"({result['fps_all_links']:.1f} fps with shared-concept links too); mouse drag {result['drag_fps']:.1f} fps"
    )


def demo_screenshot(path: Path) -> None:
    """The demo library indexed (update-db), drawn, BERT selected: the picture in the README."""
    from playwright.sync_api import sync_playwright

    from agent_zot.config import Settings
    from agent_zot.services.context import AppContext
    from agent_zot.services.explore.view_data import library_view
    from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
    from agent_zot.zotero.demo import ensure_demo_library

    with tempfile.TemporaryDirectory() as tmp:
        db = ensure_demo_library(Path(tmp) / "demo")
        ctx = AppContext(Settings(zotero_data_dir=db.parent, data_dir=Path(tmp) / "state"))
        try:
            update_index(ctx.library(), ctx.index_resources(), UpdateOptions(), graph=ctx.graph())
            data = library_view(ctx, ViewRequest())
            bert = next(n["key"] for n in data.nodes if n["title"].startswith("BERT"))
        finally:
            ctx.close()
        page_path = Path(tmp) / "view.html"
        page_path.write_text(render_page(data.to_json(), f"agent-zot · {data.scope}"), encoding="utf-8")
        with sync_playwright() as p:
            browser = p.chromium.launch_persistent_context(
                str(Path(tmp) / "profile"),
                executable_path=CHROMIUM,
                headless=True,
                args=CHROMIUM_ARGS,
                viewport={"width": 1400, "height": 680},
            )
            page = browser.new_page()
            page.goto(page_path.as_uri())
            wait_ready(page)
            box = page.locator("#graph").bounding_box()
            spot = page.evaluate("(key) => window.agentZotView.screenPosition(key)", bert)
            page.mouse.click(box["x"] + spot["x"], box["y"] + spot["y"])
            page.wait_for_timeout(800)
            page.screenshot(path=str(path), type="png")
            browser.close()
    print(f"Wrote {path} ({path.stat().st_size / 1024:.0f} KB)")


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--papers", type=int, default=5000)
    parser.add_argument(
        "--seconds", type=float, default=4.0, help="How long to pan and zoom per measurement."
    )
    parser.add_argument("--screenshot", type=Path, default=None, help="Save the synthetic graph's picture.")
    parser.add_argument(
        "--demo-screenshot", type=Path, default=None, help="Only take the demo library's picture."
    )
    args = parser.parse_args()
    if not Path(CHROMIUM).is_file():
        sys.exit(f"{CHROMIUM} is missing: apt-get install chromium")
    if args.demo_screenshot:
        demo_screenshot(args.demo_screenshot)
        return
    bench(args.papers, args.seconds, args.screenshot)


if __name__ == "__main__":
    main()
