"""What reading a Zotero 10 library costs while Zotero runs (issue 55, item 4).

    .venv/bin/python scripts/bench_wal_copy.py --work /tmp/walcopy [--sizes 5000,20000,100000]
        [--edits 5] [--json-out FILE]

Zotero 10 keeps zotero.sqlite in WAL mode under an exclusive lock, so its -wal is never empty while it
runs and agent-zot reads a private copy (zotero/connection.py, zotero/private_copy.py). Per size:

1. A Zotero-10-shaped library made from real metadata (scripts/bench_scale.py's records, the builder's
   "z10" shape) is built once into --work/<size>/base and copied to --work/<size>/live for each run.
2. A holder process opens it as Zotero 10 does (`locking_mode=EXCLUSIVE`, `journal_mode=WAL`, Zotero's
   default autocheckpoint) and commits one write, as Zotero does at start.
3. In this process: the first full read (`load_library`, as every new process pays), the marks a server
   reads once; then, --edits times, the holder commits one small edit (a tag on one item, the item saved)
   and agent-zot reads: the private copy alone (`read_consistently` with a one-row query), and, after the
   next edit, the incremental read a running server or watcher does (`load_library(previous=...)`);
   finally one read after the holder checkpoints (the main file changed: copied again).

Seconds are wall time; "written" is the bytes this process wrote meanwhile (/proc/self/io wchar, which
counts the copy whether it goes through write() or sendfile()). Medians over the edits.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sqlite3
import statistics
import subprocess
import sys
import textwrap
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

SCRIPTS = Path(__file__).resolve().parent
sys.path.insert(0, str(SCRIPTS))

from bench_scale import Pools, build_synthetic  # noqa: E402
from bench_upkeep import machine  # noqa: E402

from agent_zot.zotero.connection import read_consistently  # noqa: E402
from agent_zot.zotero.models import ReadOptions  # noqa: E402
from agent_zot.zotero.reader import attach_marks, load_library  # noqa: E402

# Zotero 10's connection (chrome/content/zotero/xpcom/db.js): exclusive locking, WAL, its default
# autocheckpoint. Commands on stdin: "tag ITEM_ID NAME" (one edit, saved as Zotero saves an item),
# "checkpoint", or an empty line to close.
HOLDER = textwrap.dedent(
    """
    import sqlite3, sys, time
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    conn.execute("PRAGMA synchronous=NORMAL")
    conn.execute("INSERT OR REPLACE INTO settings VALUES ('client', 'lastVersion', '10.0.0')")
    print("held", flush=True)
    for line in sys.stdin:
        words = line.split()
        if not words:
            break
        if words[0] == "checkpoint":
            conn.execute("PRAGMA wal_checkpoint(PASSIVE)")
        else:
            item_id, name = int(words[1]), words[2]
            now = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())
            conn.execute("BEGIN IMMEDIATE")
            tag = conn.execute("INSERT INTO tags (name) VALUES (?)", (name,)).lastrowid
            conn.execute("INSERT INTO itemTags (itemID, tagID, type) VALUES (?, ?, 0)", (item_id, tag))
            conn.execute(
                "UPDATE items SET clientDateModified = ?, dateModified = ?, synced = 0 WHERE itemID = ?",
                (now, now, item_id),
            )
            conn.execute("COMMIT")
        print("done", flush=True)
    conn.close()
    """
)


def written() -> int:
    """Bytes this process has written so far (Linux); 0 elsewhere."""
    try:
        for line in Path("/proc/self/io").read_text().splitlines():
            if line.startswith("wchar:"):
                return int(line.split()[1])
    except OSError:
        pass
    return 0


def timed(action: Callable[[], object]) -> tuple[float, int, object]:
    bytes_before, started = written(), time.perf_counter()
    result = action()
    return time.perf_counter() - started, written() - bytes_before, result


class Holder:
    """Zotero 10, as far as the database goes."""

    def __init__(self, db: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        if self._reply() != "held":
            raise SystemExit("the holder did not open the database")

    def _reply(self) -> str:
        assert self.process.stdout is not None
        return self.process.stdout.readline().strip()

    def send(self, command: str) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write(command + "\n")
        self.process.stdin.flush()
        if self._reply() != "done":
            raise SystemExit(f"the holder failed on {command!r}")

    def close(self) -> None:
        assert self.process.stdin is not None
        self.process.stdin.write("\n")
        self.process.stdin.close()
        self.process.wait(timeout=60)


def build(work: Path, size: int, pools: Pools | None) -> tuple[Path, float]:
    base = work / str(size) / "base"
    if (base / "zotero.sqlite").exists():
        return base, 0.0
    started = time.perf_counter()
    build_synthetic(base, size, 0.0, pools or Pools(), shape="z10")
    return base, time.perf_counter() - started


def first_item(db: Path) -> int:
    uri = db.resolve().as_uri() + "?mode=ro&immutable=1"
    with sqlite3.connect(uri, uri=True) as conn:
        return conn.execute("SELECT min(itemID) FROM items").fetchone()[0]


def _median(rows: list[tuple[float, int]]) -> dict[str, float]:
    return {
        "seconds": round(statistics.median(s for s, _ in rows), 4),
        "written_mb": round(statistics.median(b for _, b in rows) / 1e6, 3),
    }


def measure(work: Path, size: int, edits: int, pools: Pools | None) -> dict[str, Any]:
    base, build_s = build(work, size, pools)
    live = work / str(size) / "live"
    shutil.rmtree(live, ignore_errors=True)
    shutil.copytree(base, live)
    db = live / "zotero.sqlite"
    item = first_item(db)
    holder = Holder(db)
    one_row = lambda: read_consistently(db, lambda c: c.execute("SELECT count(*) FROM items").fetchone())  # noqa: E731
    try:
        full_s, full_b, library = timed(lambda: load_library(db))
        attach_marks(library, ReadOptions())
        copies, incremental = [], []
        for n in range(edits):
            holder.send(f"tag {item} bench-copy-{n}")
            seconds, wrote, _ = timed(one_row)
            copies.append((seconds, wrote))
            holder.send(f"tag {item} bench-read-{n}")
            seconds, wrote, library = timed(lambda last=library: load_library(db, previous=last))
            incremental.append((seconds, wrote))
        holder.send("checkpoint")
        checkpoint_s, checkpoint_b, _ = timed(one_row)
        wal_mb = Path(f"{db}-wal").stat().st_size / 1e6
    finally:
        holder.close()
    return {
        "items": size,
        "build_s": round(build_s, 1),
        "db_mb": round(db.stat().st_size / 1e6, 1),
        "wal_mb": round(wal_mb, 3),
        "first_full_read": {"seconds": round(full_s, 3), "written_mb": round(full_b / 1e6, 3)},
        "copy_after_edit": _median(copies),
        "incremental_read_after_edit": _median(incremental),
        "copy_after_checkpoint": {
            "seconds": round(checkpoint_s, 4),
            "written_mb": round(checkpoint_b / 1e6, 3),
        },
    }


def report(rows: list[dict[str, Any]]) -> None:
    print(
        "| items | zotero.sqlite | -wal | first full read | copy after an edit | incremental read after an edit "
        "| copy after a checkpoint |"
    )
    print("|---|---|---|---|---|---|---|")
    for r in rows:
        cells = [
            f"{r['items']:,}",
            f"{r['db_mb']} MB",
            f"{r['wal_mb']} MB",
            *(
                f"{r[k]['seconds']} s, {r[k]['written_mb']} MB"
                for k in (
                    "first_full_read",
                    "copy_after_edit",
                    "incremental_read_after_edit",
                    "copy_after_checkpoint",
                )
            ),
        ]
        print("| " + " | ".join(cells) + " |")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--sizes", default="5000,20000,100000")
    parser.add_argument("--edits", type=int, default=5)
    parser.add_argument("--json-out", type=Path)
    args = parser.parse_args()
    sizes = [int(s) for s in args.sizes.split(",")]
    pools = None if all((args.work / str(s) / "base" / "zotero.sqlite").exists() for s in sizes) else Pools()
    rows = []
    for size in sizes:
        rows.append(measure(args.work, size, args.edits, pools))
        print(json.dumps(rows[-1]), flush=True)
    report(rows)
    if args.json_out:
        args.json_out.write_text(json.dumps({"machine": machine(), "sizes": rows}, indent=2) + "\n")


if __name__ == "__main__":
    main()
