"""How agent-zot's costs grow with the library: synthetic libraries made from real metadata at several
sizes, each built, updated, searched and checked the way a user would, and the curves drawn (issue 41).

    .venv/bin/python scripts/bench_scale.py --work /tmp/scale [--sizes 5000,20000,100000]
        [--abstracts 0.0] [--n 60] [--json-out FILE] [--plot docs/scale.png]
    .venv/bin/python scripts/bench_scale.py --report FILE [--plot docs/scale.png]

The libraries. Every record is made from real metadata (../shared/data): titles and abstracts from
SciFact's corpus, authors, venues and tags from the four shared Zotero libraries and the shared PDFs'
metadata. A record's title joins the first half of one real title to the second half of another, so every
title is distinct and reads like the field's titles (the graph folds records of one paper together by
title: repeated titles would measure a smaller library). Each record gets 1–6 authors drawn from a
Zipf-like pool of 2N names (the real ones, then real given names joined to real family names), a venue, a year (1985–2025, recent years likelier), 0–3
tags, a collection (a three-level tree, one collection per ~150 items), a DOI for 60 %. With
--abstracts S, a share S of records carries an abstract spliced the same way from two SciFact abstracts;
the default 0 is a metadata-only library (the costliest part of a build is embedding, and a 100,000-
abstract build takes hours on 2 cores).

Per size, in processes started as a user starts them (scripts/bench_upkeep.py's Runner):
- first build: `update-db --json` wall, CPU, peak RSS of the process tree, the summary's stages;
- index size on disk; no-change `update-db` (after one unmeasured run, so that the code under test last
  wrote the index); a new tag on 100 items, then `update-db`;
- cold process → first answer: `agent-zot serve` started over stdio, tools listed, one zot_search (median
  of --cold runs);
- `status` and `doctor` wall time;
and in one process through fastmcp's in-memory client (after a warm-up): zot_search p50/p95 for plain
queries (SciFact's training claims), with a collection, a tag, an author and a year range, and
zot_explore_graph for an author's collaborators; the integrity quick check's own time.

Libraries and indexes stay in --work/<size>/ and are reused by later runs (--fresh rebuilds them).
"""

from __future__ import annotations

import argparse
import asyncio
import inspect
import itertools
import json
import random
import shutil
import sqlite3
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from fastmcp import Client
from fastmcp.client.transports import StdioTransport

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

from bench_upkeep import Runner, edit_tag, machine, regular_items, run_update  # noqa: E402

from agent_zot.config import Settings  # noqa: E402
from agent_zot.mcp.server import build_server  # noqa: E402
from agent_zot.services.context import AppContext  # noqa: E402
from agent_zot.zotero.builder import ZoteroLibraryBuilder  # noqa: E402

SHARED = SCRIPTS.parents[1] / "shared" / "data"
SCIFACT = SHARED / "scifact"
ITEMS_PER_COLLECTION = 150


# -- real metadata ------------------------------------------------------------------------------


class Pools:
    """The real metadata records are made from."""

    def __init__(self) -> None:
        self.titles: list[str] = []
        self.abstracts: list[str] = []
        self.authors: list[tuple[str, str]] = []
        self.venues: list[str] = []
        self.tags: list[str] = []
        self._read_scifact()
        self._read_zotero()
        self._read_pdfs()
        if not self.titles or not self.authors:
            raise SystemExit(f"no real metadata found under {SHARED}")
        self.authors = sorted(set(self.authors))
        self.venues = sorted(set(self.venues))
        self.tags = sorted(set(self.tags))

    def _read_scifact(self) -> None:
        with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
            for line in fh:
                doc = json.loads(line)
                if doc["title"]:
                    self.titles.append(doc["title"].strip())
                if doc["text"]:
                    self.abstracts.append(doc["text"].strip())

    def _read_zotero(self) -> None:
        for db in sorted((SHARED / "zotero").glob("*/zotero.sqlite")):
            conn = sqlite3.connect(f"file:{db}?mode=ro&immutable=1", uri=True)
            try:
                self.authors += [
                    (first.strip(), last.strip())
                    for first, last in conn.execute("SELECT firstName, lastName FROM creators")
                    if first and last and first.strip() and last.strip()
                ]
                self.tags += [name for (name,) in conn.execute("SELECT name FROM tags") if 2 < len(name) < 40]
                self.venues += [
                    value
                    for (value,) in conn.execute(
                        "SELECT DISTINCT v.value FROM itemData d JOIN itemDataValues v ON v.valueID = d.valueID "
                        "JOIN fields f ON f.fieldID = d.fieldID WHERE f.fieldName IN "
                        "('publicationTitle', 'proceedingsTitle', 'conferenceName')"
                    )
                    if 3 < len(str(value)) < 120
                ]
                self.titles += [
                    str(value)
                    for (value,) in conn.execute(
                        "SELECT v.value FROM itemData d JOIN itemDataValues v ON v.valueID = d.valueID "
                        "JOIN fields f ON f.fieldID = d.fieldID WHERE f.fieldName = 'title'"
                    )
                    if len(str(value).split()) >= 4
                ]
            finally:
                conn.close()

    def _read_pdfs(self) -> None:
        import csv

        with (SHARED / "pdfs" / "metadata.csv").open(encoding="utf-8") as fh:
            for row in csv.DictReader(fh):
                if row["venue"]:
                    self.venues.append(row["venue"])


def _splice(first: str, second: str) -> str:
    """The first half of one text's words and the second half of another's."""
    a, b = first.split(), second.split()
    return " ".join(a[: max(1, len(a) // 2)] + b[len(b) // 2 :])


def _splice_sentences(first: str, second: str) -> str:
    a, b = first.split(". "), second.split(". ")
    return ". ".join(a[: max(1, len(a) // 2)] + b[len(b) // 2 :])


def build_synthetic(
    folder: Path, size: int, abstracts: float, pools: Pools, seed: int = 41, shape: str = "z7"
) -> Path:
    """A Zotero data folder of ``size`` distinct records (see the module docstring), in the builder's
    schema ``shape``."""
    rng = random.Random(seed)
    builder = ZoteroLibraryBuilder(folder, shape=shape, seed=seed)
    collections = _collection_tree(builder, max(3, size // ITEMS_PER_COLLECTION), pools, rng)
    authors = _author_pool(pools, 2 * size, rng)
    # Zipf-like popularity: a few prolific authors (the first on about 1 % of the records) and common
    # tags, long tails
    # cumulative once: rng.choices(weights=...) sums them on every call, which made 100,000 records take hours
    author_weights = list(itertools.accumulate(1 / (rank + 1) ** 0.6 for rank in range(len(authors))))
    tag_weights = list(itertools.accumulate(1 / (rank + 1) for rank in range(len(pools.tags))))
    seen: set[str] = set()
    for i in range(size):
        title = _splice(rng.choice(pools.titles), rng.choice(pools.titles))
        while title.lower() in seen:
            title = _splice(rng.choice(pools.titles), rng.choice(pools.titles))
        seen.add(title.lower())
        year = min(2025, int(1985 + 40 * rng.betavariate(3, 1.3)))
        fields = {
            "title": title,
            "publicationTitle": rng.choice(pools.venues),
            "date": f"{year}-{rng.randint(1, 12):02d}-00 {year}",
        }
        if rng.random() < 0.6:
            fields["DOI"] = f"10.5555/scale.{seed}.{i}"
        if rng.random() < abstracts:
            fields["abstractNote"] = _splice_sentences(
                rng.choice(pools.abstracts), rng.choice(pools.abstracts)
            )
        team = rng.choices(authors, cum_weights=author_weights, k=rng.choice((1, 2, 2, 3, 3, 3, 4, 4, 5, 6)))
        builder.add_item(
            "journalArticle",
            creators=list(dict.fromkeys(team)),
            tags=list(
                dict.fromkeys(rng.choices(pools.tags, cum_weights=tag_weights, k=rng.choice((0, 1, 1, 2, 3))))
            ),
            collections=[rng.choice(collections)],
            date_added=f"{min(2025, year + 1)}-03-01 10:00:00",
            **fields,
        )
    return builder.build().parent


def _author_pool(pools: Pools, count: int, rng: random.Random) -> list[tuple[str, str]]:
    """``count`` distinct names: the real names first, then a real given name joined to a real family
    name (a library of N items has about 2N authors)."""
    names = list(pools.authors)
    rng.shuffle(names)
    seen = set(names)
    firsts = [first for first, _ in pools.authors]
    lasts = [last for _, last in pools.authors]
    while len(names) < count:
        name = (rng.choice(firsts), rng.choice(lasts))
        if name not in seen:
            seen.add(name)
            names.append(name)
    return names[:count]


def _collection_tree(
    builder: ZoteroLibraryBuilder, count: int, pools: Pools, rng: random.Random
) -> list[str]:
    """``count`` collections: a tenth at the top, the rest one and two levels below, named after tags."""
    top = [
        builder.add_collection(f"{name.title()} {i}")
        for i, name in enumerate(rng.sample(pools.tags, max(1, count // 10)))
    ]
    keys = list(top)
    while len(keys) < count:
        parent = rng.choice(keys)
        keys.append(builder.add_collection(f"{rng.choice(pools.tags).title()} {len(keys)}", parent=parent))
    return keys


# -- measurements -------------------------------------------------------------------------------


def _percentile(values: list[float], share: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def _summary(times: list[float]) -> dict[str, float]:
    return {
        "n": len(times),
        "p50_ms": round(statistics.median(times) * 1000, 1),
        "p95_ms": round(_percentile(times, 0.95) * 1000, 1),
    }


def _claims(count: int) -> list[str]:
    with (SCIFACT / "queries.train.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line)["text"] for line, _ in zip(fh, range(count), strict=False)]


def _library_facts(db: Path) -> dict[str, list[Any]]:
    """Collection names, tags, full names of prolific authors, for filtered requests."""
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        return {
            "collections": [
                r[0] for r in conn.execute("SELECT collectionName FROM collections ORDER BY collectionID")
            ],
            "tags": [r[0] for r in conn.execute("SELECT name FROM tags ORDER BY tagID")],
            "authors": [
                f"{first} {last}"
                for first, last in conn.execute(
                    "SELECT c.firstName, c.lastName FROM itemCreators ic JOIN creators c ON c.creatorID = "
                    "ic.creatorID GROUP BY c.creatorID HAVING COUNT(*) >= 5 ORDER BY COUNT(*) DESC LIMIT 200"
                )
            ],
        }
    finally:
        conn.close()


def requests(db: Path, n: int, seed: int = 7) -> dict[str, list[tuple[str, dict[str, Any]]]]:
    rng = random.Random(seed)
    facts = _library_facts(db)
    claims = _claims(n * 6)
    by_class: dict[str, list[tuple[str, dict[str, Any]]]] = {
        "plain": [("zot_search", {"query": q}) for q in claims[:n]],
        "collection": [
            ("zot_search", {"query": q, "collection": rng.choice(facts["collections"])})
            for q in claims[n : 2 * n]
        ],
        "tag": [
            ("zot_search", {"query": q, "tags": [rng.choice(facts["tags"])]}) for q in claims[2 * n : 3 * n]
        ],
        "author": [
            ("zot_search", {"query": q, "authors": [rng.choice(facts["authors"])]})
            for q in claims[3 * n : 4 * n]
        ],
        "year": [
            ("zot_search", {"query": q, "year_min": (y := rng.randint(1995, 2020)), "year_max": y + 4})
            for q in claims[4 * n : 5 * n]
        ],
        "graph": [
            ("zot_explore_graph", {"author": rng.choice(facts["authors"]), "force_mode": "collaboration"})
            for _ in range(n)
        ],
    }
    return by_class


async def _latencies(
    ctx: AppContext, plan: dict[str, list[tuple[str, dict[str, Any]]]], warm: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    async with Client(build_server(ctx)) as client:
        for tool, args in plan["plain"][:warm]:
            await client.call_tool(tool, args)
        for name, calls in plan.items():
            times, errors = [], 0
            for tool, args in calls:
                started = time.perf_counter()
                result = await client.call_tool(tool, args, raise_on_error=False)
                times.append(time.perf_counter() - started)
                errors += bool(result.is_error)
            out[name] = _summary(times) | {"errors": errors}
    return out


def in_process(library: Path, data_dir: Path, n: int) -> dict[str, Any]:
    from agent_zot.index.integrity import check_index

    ctx = AppContext(Settings(zotero_data_dir=library, data_dir=data_dir))
    try:
        started = time.perf_counter()
        ctx.library()
        load = time.perf_counter() - started
        latencies = asyncio.run(_latencies(ctx, requests(library / "zotero.sqlite", n), warm=5))
        quick = [check_index(ctx.index()).seconds for _ in range(5)]
    finally:
        ctx.close()
    return {
        "library_load_s": round(load, 3),
        "search": latencies,
        "integrity_quick_s": round(statistics.median(quick), 4),
    }


async def _cold_first_answer(runner: Runner, library: Path, data_dir: Path, query: str) -> dict[str, float]:
    transport = StdioTransport(
        runner.python,
        ["-m", "agent_zot", "--library", str(library), "serve"],
        env=runner.env_for(data_dir),
        cwd=str(runner.cwd),
    )
    started = time.perf_counter()
    async with Client(transport) as client:
        await client.list_tools()
        listed = time.perf_counter() - started
        result = await client.call_tool("zot_search", {"query": query, "limit": 5})
        answered = time.perf_counter() - started
    if result.is_error:
        raise SystemExit(f"the first search failed: {result.content[0].text[:300]}")
    return {"tools_list_s": listed, "first_answer_s": answered}


def cold_start(runner: Runner, library: Path, data_dir: Path, runs: int) -> dict[str, float]:
    queries = _claims(runs)
    timings = [asyncio.run(_cold_first_answer(runner, library, data_dir, q)) for q in queries]
    return {key: round(statistics.median(t[key] for t in timings), 3) for key in timings[0]}


def cli_wall(runner: Runner, library: Path, data_dir: Path, *args: str) -> float:
    started = time.perf_counter()
    subprocess.run(
        runner.agent_zot(library, *args),
        env=runner.env_for(data_dir),
        cwd=runner.cwd,
        capture_output=True,
        check=False,
    )
    return round(time.perf_counter() - started, 3)


def disk_mb(folder: Path) -> float:
    """Space used (allocated blocks: the store's files are sparse, their sizes say more than they hold)."""
    return round(sum(p.stat().st_blocks * 512 for p in folder.rglob("*") if p.is_file()) / 1e6, 1)


def measure_size(size: int, args: argparse.Namespace, runner: Runner, pools: Pools) -> dict[str, Any]:
    base = args.work / str(size)
    library, data_dir, marker = base / "Zotero", base / "state", base / "build.json"
    if args.fresh and base.exists():
        shutil.rmtree(base)
    if not marker.is_file():
        base.mkdir(parents=True, exist_ok=True)
        print(f"[{size}] making the library…", file=sys.stderr, flush=True)
        started = time.perf_counter()
        library = build_synthetic(library, size, args.abstracts, pools)
        made = time.perf_counter() - started
        print(f"[{size}] first build (update-db)…", file=sys.stderr, flush=True)
        build = run_update(runner, library, data_dir) | {
            "library_made_s": round(made, 1),
            "code": runner.code(),
        }
        marker.write_text(json.dumps(build, indent=2))
    build = json.loads(marker.read_text())
    db = library / "zotero.sqlite"
    items = regular_items(db)
    result: dict[str, Any] = {
        "items": len(items),
        "abstracts": args.abstracts,
        "build": build,
        "index_mb": disk_mb(data_dir / "index"),
    }
    print(f"[{size}] no-change update-db…", file=sys.stderr, flush=True)
    run_update(runner, library, data_dir)  # settles an index the code under test did not write last
    result["no_change"] = _brief(run_update(runner, library, data_dir))
    rng = random.Random(size)
    tag = f"scale-retag-{int(time.time())}"
    edit_tag(db, [item_id for item_id, _, _ in rng.sample(items, 100)], tag)
    print(f"[{size}] retag 100 → update-db…", file=sys.stderr, flush=True)
    result["retag_100"] = _brief(run_update(runner, library, data_dir))
    print(f"[{size}] cold starts…", file=sys.stderr, flush=True)
    result["cold"] = cold_start(runner, library, data_dir, args.cold)
    result["status_s"] = cli_wall(runner, library, data_dir, "status")
    result["doctor_s"] = cli_wall(runner, library, data_dir, "doctor")
    print(f"[{size}] requests over MCP…", file=sys.stderr, flush=True)
    result |= in_process(library, data_dir, args.n)
    print(f"[{size}] retags in a running process…", file=sys.stderr, flush=True)
    result["running"] = edits_in_a_running_process(library, data_dir, items, size)
    return result


def edits_in_a_running_process(
    library: Path, data_dir: Path, items: list[tuple[int, str, str]], size: int
) -> dict[str, float]:
    """What a server or the watcher's update process pays for an edit: its library read again (only what
    changed, since it has read it once), and the update (as the update process runs it). The first
    retag loads the update's models; the second one is timed."""
    from agent_zot.services.upkeep.update_db import UpdateOptions, update_index

    # Code from before incremental reads reads the whole library again after each edit
    follows = (
        {"follows_library": True} if "follows_library" in inspect.signature(AppContext).parameters else {}
    )
    ctx = AppContext(Settings(zotero_data_dir=library, data_dir=data_dir), **follows)
    db = library / "zotero.sqlite"
    options = UpdateOptions(wait=False, thorough_check=False)
    rng = random.Random(size + 1)
    try:
        started = time.perf_counter()
        first = ctx.library()
        full_read = time.perf_counter() - started
        deadline = time.monotonic() + 120
        while follows and first.marks is None and time.monotonic() < deadline:
            time.sleep(0.05)
        timings: dict[str, float] = {"full_read_s": round(full_read, 3)}
        for round_ in ("warm", "timed"):
            edit_tag(db, [item_id for item_id, _, _ in rng.sample(items, 100)], f"scale-running-{round_}")
            started = time.perf_counter()
            now = ctx.library()
            read_again = time.perf_counter() - started
            update_index(now, ctx.index_resources(), options, graph=ctx.graph())
            timings |= {
                "read_after_retag_s": round(read_again, 3),
                "retag_update_s": round(time.perf_counter() - started, 3),
            }
    finally:
        ctx.close()
    return timings


def _brief(update: dict[str, Any]) -> dict[str, Any]:
    keep = ("wall_s", "cpu_s", "peak_rss_mb", "indexed", "updated_in_place", "unchanged", "seconds", "stages")
    return {k: update[k] for k in keep if k in update}


# -- report -------------------------------------------------------------------------------------


def report(results: dict[str, Any]) -> None:
    sizes = sorted(results["sizes"], key=int)
    rows = [
        ("items", lambda r: f"{r['items']:,}"),
        ("first build (s)", lambda r: f"{r['build']['wall_s']:.0f}"),
        ("  embedding (s)", lambda r: f"{r['build']['stages'].get('embed (dense)', 0):.0f}"),
        ("  graph (s)", lambda r: f"{r['build'].get('graph', {}).get('seconds', 0):.0f}"),
        ("peak RSS, build (MB)", lambda r: f"{r['build']['peak_rss_mb']:.0f}"),
        ("index on disk (MB)", lambda r: f"{r['index_mb']:.0f}"),
        ("no-change update-db (s)", lambda r: f"{r['no_change']['wall_s']:.2f}"),
        ("retag 100 → update-db (s)", lambda r: f"{r['retag_100']['wall_s']:.2f}"),
        ("retag 100, running process: read again (s)", lambda r: _running(r, "read_after_retag_s")),
        ("retag 100, running process: read + update (s)", lambda r: _running(r, "retag_update_s")),
        ("cold → tools listed (s)", lambda r: f"{r['cold']['tools_list_s']:.2f}"),
        ("cold → first answer (s)", lambda r: f"{r['cold']['first_answer_s']:.2f}"),
        ("status (s)", lambda r: f"{r['status_s']:.2f}"),
        ("doctor (s)", lambda r: f"{r['doctor_s']:.2f}"),
        ("library load (s)", lambda r: f"{r['library_load_s']:.2f}"),
        ("integrity quick check (ms)", lambda r: f"{r['integrity_quick_s'] * 1000:.0f}"),
    ]
    for name in ("plain", "collection", "tag", "author", "year", "graph"):
        rows.append(
            (
                f"{name} p50 / p95 (ms)",
                lambda r, n=name: f"{r['search'][n]['p50_ms']:.0f} / {r['search'][n]['p95_ms']:.0f}",
            )
        )
    print("| | " + " | ".join(f"{int(s):,}" for s in sizes) + " |")
    print("|---|" + "---|" * len(sizes))
    for label, cell in rows:
        print(f"| {label} | " + " | ".join(cell(results["sizes"][s]) for s in sizes) + " |")


def _running(result: dict[str, Any], key: str) -> str:
    running = result.get("running")  # not measured by runs before this figure existed
    return f"{running[key]:.2f}" if running else "—"


def plot(results: dict[str, Any], out: Path) -> None:
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError as err:
        raise SystemExit("--plot needs matplotlib: pip install -e '.[bench]'") from err
    sizes = sorted(results["sizes"], key=int)
    rs = [results["sizes"][s] for s in sizes]
    xs = [r["items"] for r in rs]
    fig, axes = plt.subplots(1, 3, figsize=(15, 4.2))
    ax = axes[0]
    for name in ("plain", "collection", "tag", "author", "year", "graph"):
        ax.plot(xs, [r["search"][name]["p95_ms"] for r in rs], marker="o", label=f"{name} p95")
    ax.axhline(150, color="grey", linestyle=":", label="target 150 ms")
    ax.set(title="requests over MCP, p95", xlabel="items", ylabel="ms", xscale="log")
    ax.legend(fontsize=7)
    ax = axes[1]
    for label, values in (
        ("cold → first answer", [r["cold"]["first_answer_s"] for r in rs]),
        ("no-change update-db", [r["no_change"]["wall_s"] for r in rs]),
        ("retag 100 → update-db", [r["retag_100"]["wall_s"] for r in rs]),
        ("doctor", [r["doctor_s"] for r in rs]),
    ):
        ax.plot(xs, values, marker="o", label=label)
    ax.set(title="waits a user sees", xlabel="items", ylabel="s", xscale="log")
    ax.legend(fontsize=7)
    ax = axes[2]
    ax.plot(xs, [r["build"]["wall_s"] / 60 for r in rs], marker="o", label="first build (min)")
    ax.plot(xs, [r["build"]["peak_rss_mb"] / 1000 for r in rs], marker="s", label="peak RSS (GB)")
    ax.plot(xs, [r["index_mb"] / 1000 for r in rs], marker="^", label="index on disk (GB)")
    ax.set(title="first build", xlabel="items")
    ax.legend(fontsize=7)
    fig.suptitle(
        f"agent-zot at scale: metadata-only libraries, {results['machine']['nproc']} cores", fontsize=10
    )
    fig.tight_layout()
    fig.savefig(out, dpi=110)
    print(f"wrote {out}", file=sys.stderr)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, default=Path("/tmp/agent-zot-scale"))
    parser.add_argument("--sizes", default="5000,20000,100000")
    parser.add_argument("--abstracts", type=float, default=0.0, help="share of records with an abstract")
    parser.add_argument("--n", type=int, default=60, help="requests timed per class")
    parser.add_argument("--cold", type=int, default=3, help="cold starts per size (median)")
    parser.add_argument("--fresh", action="store_true")
    parser.add_argument("--json-out", type=Path)
    parser.add_argument("--report", type=Path, help="print (and --plot) an earlier --json-out")
    parser.add_argument("--plot", type=Path)
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--pythonpath")
    args = parser.parse_args()
    if args.report:
        results = json.loads(args.report.read_text())
    else:
        args.work.mkdir(parents=True, exist_ok=True)
        runner = Runner(args.python, args.pythonpath, args.work)
        pools = Pools()
        results = (
            json.loads(args.json_out.read_text())
            if args.json_out and args.json_out.is_file()
            else {"sizes": {}}
        )
        results["machine"] = machine()
        for size in (int(s) for s in args.sizes.split(",")):
            results["sizes"][str(size)] = measure_size(size, args, runner, pools)
            if args.json_out:
                args.json_out.write_text(json.dumps(results, indent=2))
    report(results)
    if args.plot:
        plot(results, args.plot)


if __name__ == "__main__":
    main()
