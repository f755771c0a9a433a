"""End-to-end indexing benchmark on ../shared/data: `update-db` as a user runs it.

    .venv/bin/python scripts/bench_index.py [--libraries pdfs,shared,scifact] [--threads N] [--workers N] [--json]

- ``pdfs``: a Zotero library built from the 18 shared PDFs and their metadata.csv (one item per paper, the PDF
  as a stored attachment).
- ``shared``: each of the four shared Zotero libraries.
- ``scifact``: the metadata-heavy case, SciFact's 5,183 abstracts as items without files (most real libraries
  are mostly such items). After the first run and the no-change re-run, 10 items are dropped from the index
  (as if just added in Zotero) and indexed again: the cost of a small update on a large library.

Every run is a real `agent-zot update-db --json` process in a fresh data folder (graph included), timed from
process start, with the CPU seconds of the process and its workers and the peak RSS of the process tree.
The ceiling for each first run is the embedding model alone on the same texts in a fresh process, model
load included (``raw``), also reported without the load.
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from agent_zot.zotero.builder import ZoteroLibraryBuilder

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"
sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_retrieval import build_library as build_scifact_library  # noqa: E402


def build_pdf_library(folder: Path, pdfs: Path = SHARED / "pdfs") -> Path:
    """One journal article per shared PDF, with title, authors, year, venue and DOI from metadata.csv
    (``pdfs``: another folder of the same files, e.g. the image-only copies of scripts/bench_ocr.py)."""
    b = ZoteroLibraryBuilder(folder, shape="z7", seed=18)
    b.add_papers_from_csv(pdfs / "metadata.csv")
    return b.build()


def sizing_env(args: argparse.Namespace) -> dict[str, str]:
    env = {}
    if args.threads:
        env["AGENT_ZOT_EMBED_THREADS"] = str(args.threads)
    if args.workers:
        env["AGENT_ZOT_INDEX_WORKERS"] = str(args.workers)
    return env


def run_update(library: Path, data_dir: Path, sizing: dict[str, str], *extra: str) -> dict:
    """`agent-zot update-db --json` in a subprocess: wall time, CPU seconds (the process and every worker
    it waited for) and peak RSS summed over its process tree."""
    env = {**os.environ, "AGENT_ZOT_DATA_DIR": str(data_dir), **sizing}
    command = [sys.executable, "-m", "agent_zot", "--library", str(library), "update-db", "--json", *extra]
    cpu_before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(command, env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    peak = [0.0]
    stop = threading.Event()

    def sample() -> None:
        parent = psutil.Process(proc.pid)
        while not stop.is_set():
            try:
                tree = [parent, *parent.children(recursive=True)]
                peak[0] = max(peak[0], sum(p.memory_info().rss for p in tree) / 1e6)
            except psutil.Error:
                pass
            time.sleep(0.05)

    sampler = threading.Thread(target=sample, daemon=True)
    sampler.start()
    out, _ = proc.communicate()
    elapsed = time.perf_counter() - started
    cpu_after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (cpu_after.ru_utime - cpu_before.ru_utime) + (cpu_after.ru_stime - cpu_before.ru_stime)
    stop.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"update-db failed for {library}")
    summary = json.loads(out)
    return {
        "wall_s": elapsed,
        "cpu_s": cpu,
        "peak_rss_mb": peak[0],
        **{k: summary[k] for k in ("indexed", "unchanged", "pages", "chunks", "seconds", "embed_seconds")},
        "engine": summary.get("engine", ""),
        "stages": summary.get("stages", {}),
        "graph": summary.get("graph"),
        "skipped": len(summary["skipped"]),
        "failed": len(summary["failed"]),
    }


def stored_texts(data_dir: Path) -> list[str]:
    """The texts of every point the run stored (chunks and metadata records)."""
    from agent_zot.config import Settings
    from agent_zot.index.resources import IndexResources

    resources = IndexResources(Settings(data_dir=data_dir))
    resources.open()
    texts = []
    for key in resources.state.item_fingerprints():
        texts.extend(h.payload["text"] for h in resources.store.get_by_item(key))
    resources.close()
    return texts


def raw_embedding(texts_file: Path, threads: int | None) -> dict:
    """The embedding model alone on the texts, in a fresh process as update-db would be: seconds to import
    and load it, seconds to embed (batches of 128 as the pipeline sends them) and CPU seconds."""
    command = [sys.executable, __file__, "--raw-worker", str(texts_file)]
    env = {**os.environ, **({"AGENT_ZOT_EMBED_THREADS": str(threads)} if threads else {})}
    return json.loads(subprocess.run(command, env=env, capture_output=True, text=True, check=True).stdout)


def raw_worker(texts_file: Path) -> None:
    started = time.perf_counter()
    from agent_zot.config import Settings
    from agent_zot.index.embed_local import SentenceTransformerEmbedder

    texts = json.loads(texts_file.read_text())
    embedder = SentenceTransformerEmbedder(threads=Settings().embed_threads, device=Settings().embed_device)
    embedder.load()
    loaded = time.perf_counter()
    for i in range(0, len(texts), 128):
        embedder.embed_documents(texts[i : i + 128])
    done = time.perf_counter()
    usage = resource.getrusage(resource.RUSAGE_SELF)
    print(json.dumps({
        "texts": len(texts), "load_s": loaded - started, "embed_s": done - loaded,
        "cpu_s": usage.ru_utime + usage.ru_stime, "threads": embedder.threads, "engine": embedder.engine,
    }))  # fmt: skip


def forget_items(data_dir: Path, count: int) -> list[str]:
    """Drop ``count`` items from the index, as if they had just been added to the library."""
    from agent_zot.config import Settings
    from agent_zot.index.resources import IndexResources

    resources = IndexResources(Settings(data_dir=data_dir))
    resources.open()
    keys = sorted(resources.state.item_fingerprints())[:count]
    resources.store.delete_items(keys)
    resources.state.forget_items(keys)
    resources.close()
    return keys


def measure_library(
    name: str, library: Path, data_dir: Path, args: argparse.Namespace, results: dict
) -> None:
    sizing = sizing_env(args)
    first = results[f"{name}: first run"] = run_update(library, data_dir, sizing)
    results[f"{name}: no-change re-run"] = run_update(library, data_dir, sizing)
    if name == "scifact":
        forget_items(data_dir, 10)
        results[f"{name}: 10 items added"] = run_update(library, data_dir, sizing)
    if name in ("pdfs", "scifact"):
        texts_file = data_dir.parent / f"{name}-texts.json"
        texts_file.write_text(json.dumps(stored_texts(data_dir)))
        raw = raw_embedding(texts_file, args.threads)
        raw["texts_per_s"] = raw["texts"] / (raw["load_s"] + raw["embed_s"])
        raw["texts_per_s_without_load"] = raw["texts"] / raw["embed_s"]
        pipeline = first["chunks"] / first["wall_s"]
        raw["pipeline_texts_per_s"] = pipeline
        raw["pipeline_share"] = pipeline / raw["texts_per_s"]
        raw["cpu_ms_per_item"] = first["cpu_s"] / max(first["indexed"], 1) * 1000
        results[f"{name}: raw embedding"] = raw


def print_table(results: dict) -> None:
    print(
        f"{'run':<36} {'wall s':>7} {'CPU s':>7} {'items':>6} {'pages':>6} {'chunks':>7} {'skip':>5} "
        f"{'fail':>5} {'RSS MB':>7}  engine"
    )
    for name, r in results.items():
        if "wall_s" in r:
            print(
                f"{name:<36} {r['wall_s']:7.1f} {r['cpu_s']:7.1f} {r['indexed']:6d} {r['pages']:6d} "
                f"{r['chunks']:7d} {r['skipped']:5d} {r['failed']:5d} {r['peak_rss_mb']:7.0f}  {r['engine']}"
            )
    for name, r in results.items():
        if r.get("graph"):
            g = r["graph"]
            print(
                f"  graph {name}: {g['papers']} papers, {g['authors']} authors, {g['concepts']} concepts, "
                f"{g['references']} references → {g['citations_in_library']} in-library citations, "
                f"{g['external_works']} external works, {g.get('seconds', 0):.1f} s"
            )
    for name, r in results.items():
        if r.get("stages") and r["wall_s"] > 5:
            shown = sorted(r["stages"].items(), key=lambda kv: -kv[1])
            rest = r["wall_s"] - sum(r["stages"].values())
            print(
                f"  stages {name}: "
                + ", ".join(f"{k} {v:.1f} s" for k, v in shown)
                + f"; the rest {rest:.1f} s"
            )
    for name, r in results.items():
        if "pipeline_share" in r:
            print(
                f"\n{name} ({r['threads']} threads, {r['engine']}): {r['texts']} texts, model load "
                f"{r['load_s']:.1f} s, embedding {r['embed_s']:.1f} s = {r['texts_per_s']:.1f}/s with the load "
                f"({r['texts_per_s_without_load']:.1f}/s without), {r['cpu_s'] / r['texts'] * 1000:.0f} ms CPU "
                f"per text.\n  whole update-db: {r['pipeline_texts_per_s']:.1f}/s = {r['pipeline_share']:.0%} of "
                f"raw with the load; {r['cpu_ms_per_item']:.0f} ms CPU per item"
            )


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--libraries", default="pdfs,shared", help="comma-separated: pdfs, shared, scifact")
    parser.add_argument("--threads", type=int, help="embedding threads (default: every usable CPU)")
    parser.add_argument("--workers", type=int, help="parse/keyphrase worker processes (default: sized)")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--raw-worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.raw_worker:
        raw_worker(args.raw_worker)
        return
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} is not present")
    wanted = {name.strip() for name in args.libraries.split(",")}
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        if "pdfs" in wanted:
            pdf_db = build_pdf_library(root / "pdf-library")
            measure_library("pdfs", pdf_db.parent, root / "state-pdfs", args, results)
        if "shared" in wanted:
            for folder in sorted((SHARED / "zotero").iterdir()):
                measure_library(folder.name, folder, root / f"state-{folder.name}", args, results)
        if "scifact" in wanted:
            library = build_scifact_library(root / "scifact")
            measure_library("scifact", library, root / "state-scifact", args, results)
    if args.json:
        print(json.dumps(results, indent=2))
    else:
        print_table(results)


if __name__ == "__main__":
    main()
