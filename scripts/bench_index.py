"""End-to-end indexing benchmark on ../shared/data: `update-db` as a user runs it.

    .venv/bin/python scripts/bench_index.py [--json]

1. Builds a Zotero library from the 18 shared PDFs and their metadata.csv (one item per paper, the PDF as a
   stored attachment), runs a full `update-db` in a fresh data folder, then a no-change re-run; both as
   real `agent-zot update-db --json` processes, timed from process start, with peak RSS of the process tree.
2. Does the same for each of the four shared Zotero libraries.
3. Measures the embedder's raw throughput on the chunks the run produced (the ceiling for the pipeline).
"""

from __future__ import annotations

import argparse
import csv
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

import psutil

from agent_zot.zotero.builder import ZoteroLibraryBuilder

SHARED = Path(__file__).resolve().parents[2] / "shared" / "data"


def build_pdf_library(folder: Path) -> Path:
    """One journal article per shared PDF, with title, authors, year, venue and DOI from metadata.csv."""
    b = ZoteroLibraryBuilder(folder, shape="z7", seed=18)
    with (SHARED / "pdfs" / "metadata.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            creators = []
            for name in filter(None, (n.strip() for n in row["authors"].split(";"))):
                last, _, first = name.partition(",")
                creators.append((first.strip(), last.strip()))
            fields = {"title": row["title"], "publicationTitle": row["venue"] or "Unknown venue"}
            if row["year"]:
                fields["date"] = f"{row['year']}-00-00 {row['year']}"
            if row["doi"]:
                fields["DOI"] = row["doi"]
            key = b.add_item("journalArticle", creators=creators, **fields)
            b.add_attachment(key, filename=row["file"], content=(SHARED / "pdfs" / row["file"]).read_bytes())
    return b.build()


def run_update(library: Path, data_dir: Path, *extra: str) -> dict:
    """`agent-zot update-db --json` in a subprocess: wall time and peak RSS summed over its process tree."""
    env = {**os.environ, "AGENT_ZOT_DATA_DIR": str(data_dir), "AGENT_ZOT_INDEX_WORKERS": "2"}
    command = [sys.executable, "-m", "agent_zot", "--library", str(library), "update-db", "--json", *extra]
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
    stop.set()
    sampler.join()
    if proc.returncode != 0:
        raise SystemExit(f"update-db failed for {library}")
    summary = json.loads(out)
    return {
        "wall_s": elapsed,
        "peak_rss_mb": peak[0],
        **{k: summary[k] for k in ("indexed", "unchanged", "pages", "chunks", "seconds", "embed_seconds")},
        "graph": summary.get("graph"),
        "skipped": len(summary["skipped"]),
        "failed": len(summary["failed"]),
    }


def raw_embedding_throughput(data_dir: Path) -> dict:
    """Chunks/s of the embedder alone on the chunk texts the run stored (no parsing, no store)."""
    from agent_zot.config import Settings
    from agent_zot.index.resources import IndexResources

    resources = IndexResources(Settings(data_dir=data_dir))
    resources.open()
    texts = []
    for key in resources.state.item_fingerprints():
        texts.extend(h.payload["text"] for h in resources.store.get_by_item(key))
    resources.embedder.embed_documents(texts[:32])  # load and warm up
    started = time.perf_counter()
    resources.embedder.embed_documents(texts)
    elapsed = time.perf_counter() - started
    resources.close()
    return {"chunks": len(texts), "chunks_per_s": len(texts) / elapsed}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    if not SHARED.is_dir():
        raise SystemExit(f"{SHARED} is not present")
    results: dict[str, dict] = {}
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        pdf_db = build_pdf_library(root / "pdf-library")
        results["18 shared PDFs: first run"] = run_update(pdf_db.parent, root / "state-pdfs")
        results["18 shared PDFs: no-change re-run"] = run_update(pdf_db.parent, root / "state-pdfs")
        results["raw embedding"] = raw_embedding_throughput(root / "state-pdfs")
        for folder in sorted((SHARED / "zotero").iterdir()):
            results[f"{folder.name}: first run"] = run_update(folder, root / f"state-{folder.name}")
            results[f"{folder.name}: no-change re-run"] = run_update(folder, root / f"state-{folder.name}")
    if args.json:
        print(json.dumps(results, indent=2))
        return
    raw = results.pop("raw embedding")
    print(
        f"{'run':<40} {'wall s':>7} {'items':>6} {'pages':>6} {'chunks':>7} {'skip':>5} {'fail':>5} {'RSS MB':>7}"
    )
    for name, r in results.items():
        print(
            f"{name:<40} {r['wall_s']:7.1f} {r['indexed']:6d} {r['pages']:6d} {r['chunks']:7d} "
            f"{r['skipped']:5d} {r['failed']:5d} {r['peak_rss_mb']:7.0f}"
        )
    for name, r in results.items():
        if r.get("graph"):
            g = r["graph"]
            print(
                f"  graph {name}: {g['papers']} papers, {g['authors']} authors, {g['concepts']} concepts, "
                f"{g['references']} references → {g['citations_in_library']} in-library citations, "
                f"{g['external_works']} external works"
            )
    first = results["18 shared PDFs: first run"]
    pipeline = first["chunks"] / first["seconds"] if first["seconds"] else 0.0
    stage = first["chunks"] / first["embed_seconds"] if first["embed_seconds"] else 0.0
    print(
        f"\nembedding inside the pipeline: {stage:.1f} chunks/s over {first['embed_seconds']:.1f} s of embedding "
        f"({stage / raw['chunks_per_s']:.0%} of raw; the model loads in the background while files parse)"
    )
    print(
        f"\nraw embedding throughput: {raw['chunks_per_s']:.1f} chunks/s over {raw['chunks']} chunks; "
        f"whole pipeline (parse + chunk + embed + store): {pipeline:.1f} chunks/s "
        f"({pipeline / raw['chunks_per_s']:.0%} of raw); {first['indexed'] / first['wall_s'] * 60:.0f} items/min"
    )


if __name__ == "__main__":
    main()
