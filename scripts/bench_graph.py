"""Benchmark of the graph stores on a synthetic library graph (about 25k nodes and 130k edges).

    .venv/bin/python scripts/bench_graph.py [--scale 1.0] [--queries 200]
        [--neo4j-url bolt://localhost:7687 --neo4j-user neo4j --neo4j-password ... --neo4j-database ...]
        [--arcadedb]   # also start the tests' ArcadeDB Bolt server and measure the Neo4j store against it

The graph looks like a library's: 10k papers, 8k authors (2.5 per paper, popular ones more often), 3k
concepts, 500 venues, 200 tags, 100 collections and 3.2k external works; edges AUTHORED_BY, PUBLISHED_IN,
CITES (4 per paper, skewed towards old popular papers and external works), MENTIONS, TAGGED, IN_COLLECTION
and the derived CO_AUTHOR. Measured per store (data generation not timed): replace_all of the whole graph,
an upsert of it again (the idempotent MERGE path), the first read of a fresh store object (embedded: counts,
from the kind indexes), and neighbourhood p50/p95 over every edge kind (both directions, limit 500) at 1, 2 and
3 hops from random papers. Memory: for the embedded store the Python heap a fresh store holds after its
first read (tracemalloc); a server's memory is the server's and is not measured.

``--cold`` measures what a user's process pays, each in a new process: the peak RSS of one that makes the
graph and writes it whole (``replace_all``, as update-db's first build does; the graph alone, made and not
written, is measured apart), and a fresh process's first graph request (an author's collaborators: a name
lookup and two hops), then the p50/p95 of 100 more.

``--library DIR`` (with ``--cold``): the build itself, as update-db's first build runs it, in a new process:
DIR's zotero.sqlite read, facts made up for it (references: a fifth to the library's papers by title, the
rest to 2,000 outside works by DOI or title; keyphrases from the titles' words), ``build_graph`` and
``replace_all``; peak RSS after the read, the build and the write; then a fresh process's first graph request
on what was written (as above, for 101 of the built authors). ``--dump FILE`` writes the built graph's rows,
sorted, to compare two builders' output.
"""

from __future__ import annotations

import argparse
import json
import random
import resource
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from itertools import combinations
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from agent_zot.graph.build import build_graph
from agent_zot.graph.facts import PaperFacts
from agent_zot.graph.model import Edge, EdgeKind, GraphData, Node, NodeKind
from agent_zot.graph.references import Reference
from agent_zot.graph.store import Direction, GraphStore
from agent_zot.graph.store_neo4j import Neo4jGraphStore
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.services.explore import citations, neighbours
from agent_zot.services.resolve.graph import Field
from agent_zot.zotero.models import Item, Library
from agent_zot.zotero.reader import load_library

SIZES = {
    "papers": 10_000,
    "authors": 8_000,
    "concepts": 3_000,
    "venues": 500,
    "tags": 200,
    "collections": 100,
}
SIZES["works"] = 3_200


def skewed(rng: random.Random, n: int) -> int:
    """An index in [0, n), low ones far more likely (a few authors and papers are very popular)."""
    return int(n * rng.random() ** 2.5)


def synthetic_graph(scale: float = 1.0, seed: int = 11) -> GraphData:
    rng = random.Random(seed)
    n = {k: max(2, int(v * scale)) for k, v in SIZES.items()}
    papers = [f"paper:P{i:06d}" for i in range(n["papers"])]
    authors = [f"author:a{i:06d}" for i in range(n["authors"])]
    concepts = [f"concept:c{i:05d}" for i in range(n["concepts"])]
    venues = [f"venue:v{i:04d}" for i in range(n["venues"])]
    tags = [f"tag:t{i:03d}" for i in range(n["tags"])]
    collections = [f"collection:K{i:03d}" for i in range(n["collections"])]
    works = [f"work:doi:10.{i}/x" for i in range(n["works"])]
    nodes = [
        *(Node(p, NodeKind.PAPER, {"title": f"Paper {i} on graphs", "year": 1980 + i % 45, "item_key": p[6:],
                                   "item_type": "journalArticle"}) for i, p in enumerate(papers)),
        *(Node(a, NodeKind.AUTHOR, {"name": f"Author {i}", "creator_ids": [i]}) for i, a in enumerate(authors)),
        *(Node(c, NodeKind.CONCEPT, {"name": f"concept {i}", "type": "Method", "aliases": [f"c{i}"]})
          for i, c in enumerate(concepts)),
        *(Node(v, NodeKind.VENUE, {"name": f"Venue {i}"}) for i, v in enumerate(venues)),
        *(Node(t, NodeKind.TAG, {"name": f"tag{i}"}) for i, t in enumerate(tags)),
        *(Node(k, NodeKind.COLLECTION, {"name": f"Coll {i}", "path": ["Root", f"Coll {i}"]})
          for i, k in enumerate(collections)),
        *(Node(w, NodeKind.EXTERNAL_WORK, {"title": f"External {i}", "doi": w[9:]}) for i, w in enumerate(works)),
    ]  # fmt: skip
    edges: dict[tuple[str, str, str], Edge] = {}

    def add(source: str, kind: EdgeKind, target: str, **props: object) -> None:
        edges[(source, kind.value, target)] = Edge(source, target, kind, dict(props))

    for i, p in enumerate(papers):
        team = sorted({authors[skewed(rng, len(authors))] for _ in range(rng.randint(1, 4))})
        for position, a in enumerate(team):
            add(p, EdgeKind.AUTHORED_BY, a, position=position)
        for a, b in combinations(team, 2):
            add(a, EdgeKind.CO_AUTHOR, b, count=1)
        add(p, EdgeKind.PUBLISHED_IN, venues[skewed(rng, len(venues))])
        for _ in range(4):
            cited = works[skewed(rng, len(works))] if rng.random() < 0.3 else papers[skewed(rng, max(i, 1))]
            if cited != p:
                add(p, EdgeKind.CITES, cited, confidence=round(rng.random(), 2), method="doi")
        for _ in range(rng.randint(1, 4)):
            add(p, EdgeKind.MENTIONS, concepts[skewed(rng, len(concepts))], weight=round(rng.random(), 2))
        if rng.random() < 0.5:
            add(p, EdgeKind.TAGGED, tags[skewed(rng, len(tags))])
        if rng.random() < 0.3:
            add(p, EdgeKind.IN_COLLECTION, collections[rng.randrange(len(collections))])
    return GraphData(nodes, list(edges.values()))


@dataclass
class Result:
    store: str
    write_s: float = 0.0
    rewrite_s: float = 0.0
    first_read_s: float = 0.0
    hops_ms: dict[int, tuple[float, float, float]] = field(default_factory=dict)  # p50, p95, mean nodes
    memory_mb: float | None = None


@contextmanager
def timed(into: list[float]) -> Iterator[None]:
    start = time.perf_counter()
    yield
    into.append(time.perf_counter() - start)


def bench_store(label: str, make: Callable[[], GraphStore], graph: GraphData, queries: int) -> Result:
    result = Result(label)
    times: list[float] = []
    store = make()
    with timed(times):
        store.replace_all(graph)
    with timed(times):
        store.upsert(graph)
    store.close()
    fresh = make()
    with timed(times):
        fresh.counts()
    result.write_s, result.rewrite_s, result.first_read_s = times
    rng = random.Random(5)
    papers = [n.id for n in graph.nodes if n.kind is NodeKind.PAPER]
    starts = [papers[rng.randrange(len(papers))] for _ in range(queries)]
    for hops in (1, 2, 3):
        latencies: list[float] = []
        sizes = []
        for start in starts:
            with timed(latencies):
                sub = fresh.neighbourhood([start], direction=Direction.BOTH, hops=hops, limit=500)
            sizes.append(len(sub.nodes))
        p95 = statistics.quantiles(latencies, n=20)[-1] if len(latencies) > 1 else latencies[0]
        result.hops_ms[hops] = (statistics.median(latencies) * 1e3, p95 * 1e3, statistics.fmean(sizes))
    fresh.close()
    return result


def _item(node_id: str) -> Item:
    key = node_id.split(":", 1)[1]
    return Item(
        key=key, item_id=0, item_type="journalArticle", library_id=1, fields={"title": key}, base_fields={}
    )


def bench_modes(store: GraphStore, graph: GraphData, queries: int) -> dict[str, float]:
    """p50 ms of each zot_explore_graph mode (as the services run it) on random starting points; content
    similarity is a vector search (see bench_store.py) and is left out."""
    rng = random.Random(9)
    by_kind: dict[NodeKind, list[Node]] = {}
    for node in graph.nodes:
        by_kind.setdefault(node.kind, []).append(node)

    def pick(kind: NodeKind) -> Node:
        return by_kind[kind][skewed(rng, len(by_kind[kind]))]

    def field_of(concept: Node) -> Field:
        edges = store.edges_of([concept.id], kinds=[EdgeKind.MENTIONS], direction=Direction.IN)
        return Field("bench", {e.source for e in edges})

    runs: dict[str, Callable[[], object]] = {
        "citation 3-hop traversal (CITES, both ways)": lambda: store.neighbourhood(
            [pick(NodeKind.PAPER).id], kinds=[EdgeKind.CITES], direction=Direction.BOTH, hops=3, limit=500
        ),
        "citation mode (3 hops, paths)": lambda: citations.citation_chains(
            store, _item(pick(NodeKind.PAPER).id), direction=Direction.BOTH, hops=3, limit=20
        ),
        "influence (PageRank, whole graph)": lambda: citations.influence(store, None, limit=20),
        "related": lambda: neighbours.related(store, _item(pick(NodeKind.PAPER).id), limit=20),
        "collaboration (2 hops)": lambda: neighbours.collaboration(
            store, pick(NodeKind.AUTHOR), hops=2, limit=20
        ),
        "concept": lambda: neighbours.concept_cooccurrence(store, pick(NodeKind.CONCEPT), limit=20),
        "temporal (a concept's papers)": lambda: neighbours.temporal(
            store, field_of(pick(NodeKind.CONCEPT)), start=None, end=None, limit=20
        ),
        "venue (whole library)": lambda: citations.venues(store, None, limit=20),
    }
    results = {}
    for name, run in runs.items():
        latencies: list[float] = []
        for _ in range(queries if "whole" not in name else max(3, queries // 10)):
            with timed(latencies):
                run()
        results[name] = statistics.median(latencies) * 1e3
    return results


def held_memory_mb(path: Path) -> float:
    """The Python heap a fresh store holds after its first read (the read itself is slower under
    tracemalloc)."""
    tracemalloc.start()
    store = SqliteGraphStore(path)
    store.counts()
    held = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    store.close()
    return held / 2**20


def _rss_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def cold_phase(phase: str, path: Path, scale: float) -> dict[str, float]:
    """One measure in this (new) process; see ``--cold``."""
    if phase in ("build", "made"):
        graph = synthetic_graph(scale)
        made = _rss_mb()
        start = time.perf_counter()
        if phase == "build":
            SqliteGraphStore(path).replace_all(graph)
        return {"made_mb": made, "peak_mb": _rss_mb(), "write_s": time.perf_counter() - start,
                "edges": len(graph.edges)}  # fmt: skip
    rng = random.Random(3)
    names = path.with_suffix(".authors.json")  # a built library's authors (``--library``)
    authors = (
        json.loads(names.read_text())
        if names.exists()
        else [f"Author {skewed(rng, int(SIZES['authors'] * scale))}" for _ in range(101)]
    )
    latencies: list[float] = []
    began = time.perf_counter()  # the first request's time includes opening the store
    store = SqliteGraphStore(path)
    for name in authors:
        [author] = store.find_nodes(NodeKind.AUTHOR, name=name, limit=1)
        neighbours.collaboration(store, author, hops=2, limit=20)
        latencies.append(time.perf_counter() - began)
        began = time.perf_counter()
    first = latencies.pop(0)
    return {"first_s": first, "p50_ms": statistics.median(latencies) * 1e3,
            "p95_ms": statistics.quantiles(latencies, n=20)[-1] * 1e3, "peak_mb": _rss_mb()}  # fmt: skip


def library_facts(library: Library, seed: int = 5) -> dict[str, PaperFacts]:
    """Facts of the shape update-db finds (see ``--library``), the same for the same library."""
    rng = random.Random(seed)
    items = sorted(library.items.values(), key=lambda i: i.key)
    facts = {}
    for item in items:
        references = []
        for n in range(rng.randint(0, 12)):
            if rng.random() < 0.2:
                cited = items[skewed(rng, len(items))]
                references.append(Reference(f"[{n + 1}] {cited.title}", year=cited.year, title=cited.title))
                continue
            w = skewed(rng, 2000)
            doi = f"10.{w}/w" if w % 3 else None
            references.append(Reference(f"[{n + 1}] Work {w}", (f"Writer {w % 97}",), 1990 + w % 30,
                                        f"Outside work number {w}", doi=doi))  # fmt: skip
        words = [w.lower() for w in item.title.split() if len(w) > 4][:6]
        keyphrases = [(word, round(rng.random(), 3)) for word in words]
        facts[item.key] = PaperFacts(item.key, references, keyphrases)
    return facts


def library_phase(folder: Path, path: Path, dump: Path | None) -> dict[str, float]:
    """The build of ``--library``, in this (new) process."""
    library = load_library(folder / "zotero.sqlite")
    facts = library_facts(library)
    read = _rss_mb()
    start, cpu = time.perf_counter(), time.process_time()
    graph, stats, _ = build_graph(library, facts)
    made, build_s, build_cpu_s = _rss_mb(), time.perf_counter() - start, time.process_time() - cpu
    start = time.perf_counter()
    SqliteGraphStore(path).replace_all(graph)
    written, write_s = _rss_mb(), time.perf_counter() - start
    # the authors a fresh process then asks for (the first phase), picked here so that one reads nothing first
    names = sorted(str(n.props["name"]) for n in graph.nodes if n.kind is NodeKind.AUTHOR)
    picked = random.Random(3).sample(names, min(101, len(names)))
    path.with_suffix(".authors.json").write_text(json.dumps(picked))
    if dump is not None:
        nodes = sorted((n.id, n.kind.value, json.dumps(n.props, sort_keys=True)) for n in graph.nodes)
        edges = sorted(
            (e.source, e.kind.value, e.target, json.dumps(e.props, sort_keys=True)) for e in graph.edges
        )
        dump.write_text(json.dumps({"nodes": nodes, "edges": edges}))
    return {"read_mb": read, "made_mb": made, "peak_mb": written, "build_s": build_s, "write_s": write_s,
            "build_cpu_s": build_cpu_s,
            "edges": stats.edges, "nodes": len(list(graph.nodes))}  # fmt: skip


def bench_cold(scale: float) -> dict[str, dict[str, float]]:
    results = {}
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "state.sqlite"
        for phase in ("made", "build", "first"):
            command = [sys.executable, __file__, "--scale", str(scale), "--phase", phase, "--db", str(path)]
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            results[phase] = json.loads(out.strip().splitlines()[-1])
    return results


def print_table(results: list[Result], graph: GraphData) -> None:
    print(f"\ngraph: {len(graph.nodes):,} nodes, {len(graph.edges):,} edges")
    header = f"{'store':<18}{'write s':>9}{'rewrite s':>11}{'1st read s':>12}"
    header += "".join(f"{f'{h}-hop p50/p95 ms (nodes)':>29}" for h in (1, 2, 3)) + f"{'memory MB':>11}"
    print(header)
    for r in results:
        row = f"{r.store:<18}{r.write_s:>9.2f}{r.rewrite_s:>11.2f}{r.first_read_s:>12.2f}"
        for h in (1, 2, 3):
            p50, p95, size = r.hops_ms[h]
            row += f"{f'{p50:.1f}/{p95:.1f} ({size:.0f})':>29}"
        row += f"{r.memory_mb:>11.0f}" if r.memory_mb is not None else f"{'n/a':>11}"
        print(row)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--scale", type=float, default=1.0, help="graph size relative to ~25k nodes")
    parser.add_argument("--queries", type=int, default=200, help="neighbourhood queries per hop count")
    parser.add_argument("--neo4j-url")
    parser.add_argument("--neo4j-user", default="neo4j")
    parser.add_argument("--neo4j-password", default="")
    parser.add_argument("--neo4j-database")
    parser.add_argument("--arcadedb", action="store_true", help="start ArcadeDB's Bolt server (dev extra)")
    parser.add_argument("--cold", action="store_true", help="only the new-process measures (see above)")
    parser.add_argument("--library", type=Path, help="with --cold: build this Zotero folder's graph")
    parser.add_argument("--dump", type=Path, help="with --library: write the built graph's rows here")
    parser.add_argument("--phase", choices=("made", "build", "first", "library"), help=argparse.SUPPRESS)
    parser.add_argument("--db", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.phase == "library":
        print(json.dumps(library_phase(args.library, args.db, args.dump)))
        return
    if args.phase:
        print(json.dumps(cold_phase(args.phase, args.db, args.scale)))
        return
    if args.cold and args.library:
        with tempfile.TemporaryDirectory() as tmp:
            db = str(Path(tmp) / "state.sqlite")
            command = [sys.executable, __file__, "--phase", "library", "--library", str(args.library)]
            command += ["--db", db] + (["--dump", str(args.dump)] if args.dump else [])
            out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
            # then a fresh process's first graph request on what was written
            command = [sys.executable, __file__, "--phase", "first", "--db", db]
            first_out = subprocess.run(command, check=True, capture_output=True, text=True).stdout
        built = json.loads(out.strip().splitlines()[-1])
        first = json.loads(first_out.strip().splitlines()[-1])
        print(f"{built['nodes']:,} nodes, {built['edges']:,} edges; peak RSS (MB): library read "
              f"{built['read_mb']:.0f}, graph built {built['made_mb']:.0f} ({built['build_s']:.1f} s, "
              f"{built['build_cpu_s']:.1f} CPU-s), "
              f"written {built['peak_mb']:.0f} ({built['write_s']:.1f} s); fresh process: first request "
              f"{first['first_s'] * 1e3:.0f} ms, then p50/p95 {first['p50_ms']:.1f}/{first['p95_ms']:.1f} ms, "
              f"peak RSS {first['peak_mb']:.0f} MB")  # fmt: skip
        return
    if args.cold:
        cold = bench_cold(args.scale)
        print(f"edges {cold['build']['edges']:,}; peak RSS (MB): graph made {cold['made']['peak_mb']:.0f}, "
              f"made and written {cold['build']['peak_mb']:.0f} (write {cold['build']['write_s']:.1f} s); "
              f"fresh process: first request {cold['first']['first_s'] * 1e3:.0f} ms, then p50/p95 "
              f"{cold['first']['p50_ms']:.1f}/{cold['first']['p95_ms']:.1f} ms, peak RSS "
              f"{cold['first']['peak_mb']:.0f} MB")  # fmt: skip
        return
    graph = synthetic_graph(args.scale)
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "state.sqlite"
        embedded = bench_store("sqlite (embedded)", lambda: SqliteGraphStore(path), graph, args.queries)
        embedded.memory_mb = held_memory_mb(path)
        results.append(embedded)
        modes = {"sqlite (embedded)": bench_modes(SqliteGraphStore(path), graph, args.queries // 4)}
        if args.neo4j_url:
            url, user, password, db = (
                args.neo4j_url,
                args.neo4j_user,
                args.neo4j_password,
                args.neo4j_database,
            )
            results.append(
                bench_store("neo4j", lambda: Neo4jGraphStore(url, user, password, db), graph, args.queries)
            )
        if args.arcadedb:
            result, modes["neo4j (ArcadeDB)"] = bench_arcadedb(Path(tmp), graph, args.queries)
            results.append(result)
    print_table(results, graph)
    print("\nzot_explore_graph modes, p50 ms:")
    for store_name, timings in modes.items():
        for mode, ms in timings.items():
            print(f"  {store_name:<18} {mode:<46} {ms:9.1f}")


def bench_arcadedb(root: Path, graph: GraphData, queries: int) -> tuple[Result, dict[str, float]]:
    from tests.bolt_server import start_bolt_server

    server = start_bolt_server(root / "arcadedb")
    print(f"ArcadeDB Bolt server started in {server.startup_s:.2f}s at {server.url}")
    try:

        def make() -> GraphStore:
            return Neo4jGraphStore(server.url, server.user, server.password, server.database)

        result = bench_store("neo4j (ArcadeDB)", make, graph, queries)
        return result, bench_modes(make(), graph, max(4, queries // 20))
    finally:
        server.stop()


if __name__ == "__main__":
    main()
