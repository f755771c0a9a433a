"""What the embedded vector store needs on disk, as a multiple of its size: opening it, optimizing it.

    .venv/bin/python scripts/bench_disk_space.py FOLDER [FOLDER ...] [--points 2000,5000,20000] [--json]

Give one folder per filesystem to compare, e.g. a tmpfs and a real disk (as root:
`mount -t tmpfs -o size=2g tmpfs /mnt/t`; `truncate -s 4G d.img && mkfs.ext4 -q d.img && mount -o loop d.img
/mnt/d`). Each run is a fresh process with a fresh store: synthetic chunk points (scripts/bench_store.py's),
then a third of the papers re-indexed (their points deleted and written again, as an update does), then the
optimize step with the disk's used space sampled every 5 ms, then close. Reported, in MB:

- size: what the store occupies before optimizing (allocated blocks, as `du` counts);
- load holes: what reading it into memory would allocate on this filesystem (index/space.py: the holes of
  the memory-mapped files the engine loads; they are allocated at close on memory-backed filesystems, so
  the next process opens it without them, and "after close" shows what is left);
- engine asks: the free space the engine checks for before optimizing (twice its segments' size), and
  on a memory-backed filesystem what agent-zot asks for on top (index/space.py: the segments' full size);
- optimize peak: the most the disk's used space grew while optimizing;
- final: the size after optimize and close.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_store import MODEL, Corpus

from agent_zot.index.space import READ_MARGIN, allocates_on_read, disk_usage, load_holes
from agent_zot.index.store_edge import EdgeStore

BATCH = 1000


def run_one(folder: Path, points: int) -> dict[str, Any]:
    """Build, update, optimize and close one store in ``folder`` (this process)."""
    store = EdgeStore(folder)
    store.open_or_create(model=MODEL, dense_dim=384, sparse="bm25")
    corpus = Corpus()
    written = []
    for batch in corpus.batches(points, BATCH):
        store.upsert(batch)
        written += batch
    items = sorted({p.payload["item_key"] for p in written})
    again = set(items[::3])
    store.delete_items(sorted(again))
    store.upsert([p for p in written if p.payload["item_key"] in again])
    shard = folder / "shard"
    size = disk_usage(folder)
    holes = load_holes(shard) if allocates_on_read(shard) else 0
    engine_asks = 2 * disk_usage(shard / "segments")
    # What agent-zot itself asks for on a memory-backed filesystem (space.optimize_shortfall)
    apparent = sum(f.stat().st_size for f in (shard / "segments").rglob("*") if f.is_file())
    agent_zot_asks = READ_MARGIN + apparent + holes if allocates_on_read(shard) else 0
    # Sampled from another process: the engine holds the interpreter while it optimizes
    peak = multiprocessing.Value("q", 0)
    done = multiprocessing.Event()
    sampler = multiprocessing.Process(target=_sample, args=(folder, peak, done), daemon=True)
    sampler.start()
    time.sleep(0.2)
    started = time.perf_counter()
    store.optimize()
    seconds = time.perf_counter() - started
    done.set()
    sampler.join()
    store.close()
    return {
        "points": points,
        "papers": len(items),
        "memory_backed": allocates_on_read(shard),
        "size_mb": size / 1e6,
        "load_holes_mb": holes / 1e6,
        "load_holes_after_close_mb": (load_holes(shard) if allocates_on_read(shard) else 0) / 1e6,
        "engine_asks_mb": engine_asks / 1e6,
        "agent_zot_asks_mb": agent_zot_asks / 1e6,
        "optimize_peak_mb": peak.value / 1e6,
        "optimize_s": seconds,
        "final_mb": disk_usage(folder) / 1e6,
    }


def _sample(folder: Path, peak: Any, done: Any) -> None:
    base = shutil.disk_usage(folder).used
    while not done.is_set():
        peak.value = max(peak.value, shutil.disk_usage(folder).used - base)
        time.sleep(0.005)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("folders", nargs="+", type=Path)
    parser.add_argument("--points", default="2000,5000,20000")
    parser.add_argument("--json", action="store_true")
    parser.add_argument("--one", nargs=2, metavar=("FOLDER", "POINTS"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(Path(args.one[0]), int(args.one[1]))))
        return
    rows = []
    for folder in args.folders:
        for points in (int(n) for n in args.points.split(",")):
            target = folder / f"bench-disk-{points}"
            shutil.rmtree(target, ignore_errors=True)
            command = [sys.executable, __file__, str(folder), "--one", str(target), str(points)]
            done = subprocess.run(command, capture_output=True, text=True, check=False)
            if done.returncode != 0:
                raise SystemExit(f"{target}: exit {done.returncode}\n{done.stderr}")
            rows.append({"folder": str(folder), **json.loads(done.stdout.splitlines()[-1])})
            shutil.rmtree(target, ignore_errors=True)
    if args.json:
        print(json.dumps(rows, indent=2))
        return
    print(
        "| filesystem | points | size | load holes (after close) | engine asks (agent-zot) | optimize peak "
        "| final |\n|---|---|---|---|---|---|---|"
    )
    for r in rows:
        kind = "memory-backed" if r["memory_backed"] else "disk"
        print(
            f"| {kind} | {r['points']:,} | {r['size_mb']:.0f} MB | {r['load_holes_mb']:.0f} MB "
            f"({r['load_holes_after_close_mb']:.0f} MB) | {r['engine_asks_mb']:.0f} MB "
            f"({r['agent_zot_asks_mb']:.0f} MB) | +{r['optimize_peak_mb']:.0f} MB "
            f"({r['optimize_peak_mb'] / r['size_mb']:.1f}x) | {r['final_mb']:.0f} MB |"
        )


if __name__ == "__main__":
    main()
