"""What daily metadata edits in Zotero cost the index: `update-db` and `watch` after a tag, title or
collection change, on SciFact (5,183 items without files) and on the 18 shared PDFs.

    .venv/bin/python scripts/bench_upkeep.py [--work DIR] [--libraries scifact,pdfs] [--skip-watch]
        [--repeat N] [--retag 100] [--retitle 10] [--recollect 20] [--json-out FILE]
        [--python PY] [--pythonpath DIR]

1. Each library is built once (SciFact as scripts/bench_retrieval.py does, the PDFs as scripts/bench_index.py
   does) and indexed with `update-db`; library and index are kept in --work/<library>/pristine and copied to
   --work/<library>/run for every run (the index names its library by path, so the copy goes back to the
   same place). --fresh rebuilds them (do so when the code under test changed the index's format).
2. On the benchmark's own copy of zotero.sqlite, one transaction per edit writes what Zotero writes:
   - tag: a new tag on --retag papers (all of them in a smaller library): a `tags` row, `itemTags` rows
     (type 0, a manual tag), and each item saved (below);
   - title: a new title on --retitle papers: the value in `itemDataValues` (added if new) and the
     `itemData` row of field 'title' pointed at it, and each item saved;
   - collection: --recollect papers added to a new collection: a `collections` row and `collectionItems`
     rows, and each item saved without a new dateModified (Zotero's Collection.addItems does
     `item.save({skipDateModifiedUpdate: true})`).
   Saving an item, as Zotero's DataObject/Item _saveData does on a local edit: clientDateModified (and,
   unless skipped, dateModified) set to the transaction's UTC time, synced = 0; `version` is left alone
   (it is the library version of the last sync; only syncing changes it). agent-zot's item fingerprint
   (index/changes.py) sees version|dateModified and a hash of title, tags and collections.
3. Each edit is measured through `update-db --json` (a process as a user runs it: wall time, CPU seconds,
   peak RSS of its process tree, the summary's own seconds, items re-indexed and chunks embedded); unless
   --skip-worker, through the watcher's kept update process (`agent-zot update-worker`, started once: the
   time from the request to its answer); and, unless --skip-watch, through `watch --interval` (--interval, default 1 s): the time from the edit's
   commit to the watcher's report line, when the watcher started the update process (detection) and that
   process's own duration, CPU seconds and peak RSS. The watcher acts once the library has settled (the
   change seen on one poll, unchanged on the next): 1 to 2 intervals. Each edit is made 2.5 intervals after
   the previous report, mid-way between two polls, so detection reads 1.5 intervals, the mean.
4. Correctness, in a separate process running the code under test (after each update-db run; after the
   watcher stops for the watch runs): every point of each retagged paper carries the new tag, a store count
   filtered by it finds exactly those points, and zot_search filtered by the tag answers only retagged
   papers; every point of a retitled paper carries its new title and the index's own hybrid search
   (services.retrieval.search_papers) ranks it first for that title (zot_search's rank is reported too: its
   router may read a title holding a DOI as a DOI lookup); every point of a moved paper carries the new
   collection and a store count filtered by it finds exactly those points. Finally the index is copied and
   rebuilt from scratch (`update-db --force-rebuild`) and the top-10 item keys of zot_search and of the
   index's own search are compared, incremental vs rebuilt, for the edited titles and five topic queries.

Every invocation starts again from the pristine copy; its edits accumulate in run/ (new tags, titles and
collections named after the path and repeat). --report FILE prints the table of an earlier --json-out.

--python and --pythonpath choose the interpreter and the code every agent-zot process (update-db, watch,
the checks) runs (default: this interpreter and whatever it imports), e.g. a git worktree of an older commit
(the processes start in --work, so the repository's own agent_zot does not shadow it):

    git worktree add /tmp/before HEAD
    PYTHONPATH=/tmp/before .venv/bin/python scripts/bench_upkeep.py --pythonpath /tmp/before --work /tmp/w
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import platform
import queue
import random
import resource
import shutil
import signal
import sqlite3
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import psutil

SCRIPTS = Path(__file__).resolve().parent
SHARED = SCRIPTS.parents[1] / "shared" / "data"
EDITS = ("tag", "title", "collection")
KEY_ALPHABET = "23456789ABCDEFGHIJKLMNPQRSTUVWXYZ"  # Zotero's item and collection keys
NON_REGULAR = ("attachment", "note", "annotation")
PDF_QUERIES = (
    "accelerated expansion of the universe and cosmological averaging",
    "dark matter made of ultra light bosons",
    "answer validation with information synthesis",
    "trace-based just-in-time compilation for dynamic languages",
    "extracting structure from scientific PDF documents",
)


# -- environment ------------------------------------------------------------------------------


class Runner:
    """How agent-zot processes are started: interpreter, PYTHONPATH, working folder (never the repository,
    whose agent_zot would shadow --pythonpath under `python -m`)."""

    def __init__(self, python: str, pythonpath: str | None, cwd: Path) -> None:
        self.python = python
        self.cwd = cwd
        self.env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        # An installed agent-zot has its bytecode; this machine forbids writing it, which had every
        # process measured compile agent_zot afresh (0.5-1 s of each cold start).
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        if pythonpath:
            rest = os.environ.get("PYTHONPATH")
            self.env["PYTHONPATH"] = pythonpath + (os.pathsep + rest if rest else "")

    def agent_zot(self, library: Path, *args: str) -> list[str]:
        return [self.python, "-m", "agent_zot", "--library", str(library), *args]

    def env_for(self, data_dir: Path) -> dict[str, str]:
        return {**self.env, "AGENT_ZOT_DATA_DIR": str(data_dir)}

    def code(self) -> dict[str, str]:
        """Which agent_zot the processes import, and its git commit."""
        probe = "import agent_zot, sys; print(agent_zot.__file__); print(sys.version.split()[0])"
        out = subprocess.run(
            [self.python, "-c", probe], env=self.env, cwd=self.cwd, capture_output=True, text=True, check=True
        ).stdout.split("\n")
        package = Path(out[0]).parent
        commit = subprocess.run(
            ["git", "-C", str(package.parent), "rev-parse", "HEAD"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        dirty = subprocess.run(
            ["git", "-C", str(package.parent), "status", "--porcelain", "--", "agent_zot"],
            capture_output=True,
            text=True,
            check=False,
        ).stdout.strip()
        return {
            "agent_zot": str(package),
            "commit": commit,
            "agent_zot_modified": "yes" if dirty else "no",
            "python": out[1],
        }


def machine() -> dict[str, Any]:
    cpu = platform.processor()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return {
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count(),
        "cpu": cpu,
        "memory_gb": round(psutil.virtual_memory().total / 2**30, 1),
        "platform": platform.platform(),
    }


# -- processes ----------------------------------------------------------------------------------


class TreeSampler:
    """Peak RSS summed over a process and its descendants, sampled every 50 ms."""

    def __init__(self, pid: int) -> None:
        self.pid = pid
        self.peak_mb = 0.0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        try:
            parent = psutil.Process(self.pid)
        except psutil.Error:
            return
        while not self._stop.is_set():
            try:
                tree = [parent, *parent.children(recursive=True)]
                self.peak_mb = max(self.peak_mb, sum(p.memory_info().rss for p in tree) / 1e6)
            except psutil.Error:
                pass
            self._stop.wait(0.05)

    def stop(self) -> float:
        self._stop.set()
        self._thread.join()
        return self.peak_mb


def run_update(runner: Runner, library: Path, data_dir: Path, *extra: str) -> dict[str, Any]:
    """`agent-zot update-db --json` as a user runs it: wall time from process start, CPU seconds of the
    process and the workers it waited for, peak RSS of its tree, and its summary."""
    command = runner.agent_zot(library, "update-db", "--json", *extra)
    load_before = os.getloadavg()[0]
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    proc = subprocess.Popen(
        command,
        env=runner.env_for(data_dir),
        cwd=runner.cwd,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    sampler = TreeSampler(proc.pid)
    out, err = proc.communicate()
    wall = time.perf_counter() - started
    peak = sampler.stop()
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"update-db failed ({' '.join(command)}):\n{err[-3000:]}")
    summary = json.loads(out)
    return {
        "wall_s": wall,
        "cpu_s": (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime),
        "peak_rss_mb": peak,
        # the 1-minute load average before and after: other work on the machine slows wall times
        "load_before": load_before,
        "load_after": os.getloadavg()[0],
        **compact(summary),
    }


def compact(summary: dict[str, Any]) -> dict[str, Any]:
    """The summary with its per-file lists reduced to counts (new fields of later versions kept)."""
    out = dict(summary)
    for key in ("skipped", "failed"):
        if isinstance(out.get(key), list):
            out[key] = len(out[key])
    return out


class Watch:
    """`agent-zot watch --interval S` in the background: its report lines (with the time each was read)
    and the update-db processes it starts (first seen, start time, peak RSS of their tree)."""

    def __init__(self, runner: Runner, library: Path, data_dir: Path, interval: float) -> None:
        self.proc = subprocess.Popen(
            runner.agent_zot(library, "watch", "--interval", f"{interval:g}"),
            env=runner.env_for(data_dir),
            cwd=runner.cwd,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.reports: queue.Queue[tuple[float, str]] = queue.Queue()
        self.stderr: list[str] = []
        self.updates: dict[int, dict[str, float]] = {}  # pid -> start (monotonic), seen, last, peak_mb
        self._lock = threading.Lock()
        self._stop = threading.Event()
        offset = time.time() - time.monotonic()
        self._offset = offset
        for target in (self._read_stdout, self._read_stderr, self._sample):
            threading.Thread(target=target, daemon=True).start()

    def _read_stdout(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.reports.put((time.monotonic(), line.rstrip("\n")))

    def _read_stderr(self) -> None:
        assert self.proc.stderr is not None
        for line in self.proc.stderr:
            self.stderr.append(line.rstrip("\n"))
            if "update failed" in line:
                self.reports.put((time.monotonic(), line.rstrip("\n")))

    def _sample(self) -> None:
        try:
            parent = psutil.Process(self.proc.pid)
        except psutil.Error:
            return
        while not self._stop.is_set():
            now = time.monotonic()
            try:
                children = parent.children(recursive=False)
            except psutil.Error:
                break
            for child in children:
                try:
                    if not {"update-db", "update-worker"} & set(child.cmdline()):
                        continue
                    tree = [child, *child.children(recursive=True)]
                    rss = sum(p.memory_info().rss for p in tree) / 1e6
                    times = [p.cpu_times() for p in tree]  # the child's own includes its reaped workers
                    cpu = (
                        sum(t.user + t.system for t in times)
                        + times[0].children_user
                        + times[0].children_system
                    )
                    start = child.create_time() - self._offset  # 1 s resolution (the boot time's)
                except psutil.Error:
                    continue
                with self._lock:
                    entry = self.updates.setdefault(
                        child.pid, {"start": start, "seen": now, "last": now, "peak_mb": 0.0, "cpu_s": 0.0}
                    )
                    entry["last"] = now
                    entry["peak_mb"] = max(entry["peak_mb"], rss)
                    entry["cpu_s"] = max(entry["cpu_s"], cpu)
            self._stop.wait(0.02)

    def next_report(self, timeout: float) -> tuple[float, str]:
        try:
            return self.reports.get(timeout=timeout)
        except queue.Empty:
            tail = "\n".join(self.stderr[-20:])
            raise SystemExit(f"watch reported nothing in {timeout:.0f} s; its stderr:\n{tail}") from None

    def update_started_after(self, moment: float) -> dict[str, float] | None:
        """The first update process seen after ``moment``."""
        with self._lock:
            found = [dict(e) for e in self.updates.values() if e["seen"] >= moment]
        return min(found, key=lambda e: e["seen"]) if found else None

    def stop(self) -> None:
        self.proc.send_signal(signal.SIGINT)  # Ctrl-C: the watcher releases its lock and exits
        try:
            self.proc.wait(timeout=60)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait()
        self._stop.set()


REPORT_PARTS = ("indexed", "removed", "unchanged")


def parse_report(line: str) -> dict[str, Any]:
    """`HH:MM:SS indexed N, removed N, unchanged N (S s)` (cli/watch_cmd.py)."""
    if "update failed" in line:
        return {"ok": False, "line": line}
    out: dict[str, Any] = {"ok": True, "line": line}
    words = line.replace(",", " ").replace("(", " ").split()
    for i, word in enumerate(words[:-1]):
        if word in REPORT_PARTS and words[i + 1].isdigit():
            out[word] = int(words[i + 1])
    if len(words) >= 2 and words[-1] in ("s)", "s"):
        with contextlib.suppress(ValueError):
            out["seconds"] = float(words[-2])
    return out


# -- the library and its edits ----------------------------------------------------------------


def zotero_now() -> str:
    """Zotero.DB.transactionDateTime: UTC, 'YYYY-MM-DD HH:MM:SS'."""
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime())


def table_of(conn: sqlite3.Connection, *names: str) -> str:
    existing = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('table', 'view')")}
    return next(n for n in names if n in existing)


def columns(conn: sqlite3.Connection, table: str) -> set[str]:
    return {r[1] for r in conn.execute(f"PRAGMA table_info({table})")}


def regular_items(db: Path) -> list[tuple[int, str, int]]:
    """(itemID, key, libraryID) of the library's regular items outside the trash, by itemID."""
    conn = sqlite3.connect(db)
    try:
        types = table_of(conn, "itemTypesCombined", "itemTypes")
        marks = ",".join("?" * len(NON_REGULAR))
        rows = conn.execute(
            f"SELECT i.itemID, i.key, i.libraryID FROM items i JOIN {types} t ON t.itemTypeID = i.itemTypeID "  # noqa: S608
            f"WHERE t.typeName NOT IN ({marks}) AND i.itemID NOT IN (SELECT itemID FROM deletedItems) "
            "ORDER BY i.itemID",
            NON_REGULAR,
        ).fetchall()
    finally:
        conn.close()
    return rows


def save_items(conn: sqlite3.Connection, item_ids: list[int], now: str, *, date_modified: bool) -> None:
    """What Zotero's item.save() writes to `items` for a local edit of existing items."""
    have = columns(conn, "items")
    sets = ["clientDateModified = ?"] if "clientDateModified" in have else []
    if date_modified:
        sets.append("dateModified = ?")
    values: list[Any] = [now] * len(sets)
    if "synced" in have:
        sets.append("synced = 0")
    conn.executemany(
        f"UPDATE items SET {', '.join(sets)} WHERE itemID = ?",  # noqa: S608
        [(*values, item_id) for item_id in item_ids],
    )


def edit_tag(db: Path, item_ids: list[int], tag: str) -> dict[str, Any]:
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        now = zotero_now()
        row = conn.execute("SELECT tagID FROM tags WHERE name = ?", (tag,)).fetchone()
        tag_id = row[0] if row else conn.execute("INSERT INTO tags (name) VALUES (?)", (tag,)).lastrowid
        conn.executemany(
            "INSERT OR IGNORE INTO itemTags (itemID, tagID, type) VALUES (?, ?, 0)",
            [(item_id, tag_id) for item_id in item_ids],
        )
        save_items(conn, item_ids, now, date_modified=True)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return {"tag": tag}


def edit_title(db: Path, item_ids: list[int], label: str) -> dict[str, Any]:
    """A new title per item: '<label> <n>: <old title>' (the old words stay, the label is new)."""
    conn = sqlite3.connect(db, isolation_level=None)
    titles: dict[int, str] = {}
    try:
        conn.execute("BEGIN IMMEDIATE")
        now = zotero_now()
        fields = table_of(conn, "fieldsCombined", "fields")
        sql = f"SELECT fieldID FROM {fields} WHERE fieldName = 'title'"  # noqa: S608
        field_id = conn.execute(sql).fetchone()[0]
        for n, item_id in enumerate(item_ids, 1):
            old = conn.execute(
                "SELECT v.value FROM itemData d JOIN itemDataValues v ON v.valueID = d.valueID "
                "WHERE d.itemID = ? AND d.fieldID = ?",
                (item_id, field_id),
            ).fetchone()
            title = f"{label} {n}: {old[0] if old else 'untitled'}"
            conn.execute("INSERT OR IGNORE INTO itemDataValues (value) VALUES (?)", (title,))
            value_id = conn.execute(
                "SELECT valueID FROM itemDataValues WHERE value = ?", (title,)
            ).fetchone()[0]
            conn.execute(
                "INSERT OR REPLACE INTO itemData (itemID, fieldID, valueID) VALUES (?, ?, ?)",
                (item_id, field_id, value_id),
            )
            titles[item_id] = title
        save_items(conn, item_ids, now, date_modified=True)
        conn.execute("COMMIT")
    finally:
        conn.close()
    return {"titles": titles}


def edit_collection(db: Path, item_ids: list[int], name: str, library_id: int, rng: random.Random) -> dict:
    conn = sqlite3.connect(db, isolation_level=None)
    try:
        conn.execute("BEGIN IMMEDIATE")
        now = zotero_now()
        taken = {r[0] for r in conn.execute("SELECT key FROM collections")}
        key = next(k for k in iter(lambda: "".join(rng.choices(KEY_ALPHABET, k=8)), None) if k not in taken)
        have = columns(conn, "collections")
        row: dict[str, Any] = {"collectionName": name, "libraryID": library_id, "key": key}
        row.update(
            {c: v for c, v in (("clientDateModified", now), ("version", 0), ("synced", 0)) if c in have}
        )
        collection_id = conn.execute(
            f"INSERT INTO collections ({', '.join(row)}) VALUES ({', '.join('?' * len(row))})",  # noqa: S608
            tuple(row.values()),
        ).lastrowid
        conn.executemany(
            "INSERT OR IGNORE INTO collectionItems (collectionID, itemID, orderIndex) VALUES (?, ?, ?)",
            [(collection_id, item_id, i) for i, item_id in enumerate(item_ids)],
        )
        save_items(conn, item_ids, now, date_modified=False)  # Collection.addItems: skipDateModifiedUpdate
        conn.execute("COMMIT")
    finally:
        conn.close()
    return {"collection": key, "collection_name": name}


def apply_edit(
    db: Path, edit: str, count: int, label: str, rng: random.Random, exclude: set[str] | None = None
) -> dict[str, Any]:
    """One transaction as Zotero writes it on ``count`` papers chosen by ``rng`` (those in ``exclude`` only
    when too few others are left); returns what changed (item keys and the new values)."""
    items = regular_items(db)
    fresh = [row for row in items if not exclude or row[1] not in exclude]
    count = min(count, len(items))
    chosen = rng.sample(fresh, min(count, len(fresh)))
    if len(chosen) < count:
        chosen += rng.sample([row for row in items if row not in fresh], count - len(chosen))
    chosen.sort()
    ids = [item_id for item_id, _, _ in chosen]
    keys = {item_id: key for item_id, key, _ in chosen}
    started = time.perf_counter()
    if edit == "tag":
        done = edit_tag(db, ids, label)
    elif edit == "title":
        done = edit_title(db, ids, label)
        done["titles"] = {keys[i]: t for i, t in done["titles"].items()}
    else:
        done = edit_collection(db, ids, label, chosen[0][2], rng)
    return {"edit": edit, "keys": [keys[i] for i in ids], "write_s": time.perf_counter() - started, **done}


# -- correctness (a separate process, running the code under test) ------------------------------


def check_worker(spec_file: Path) -> None:
    import agent_zot
    from agent_zot.config import Settings
    from agent_zot.index.retrieval import search_papers
    from agent_zot.index.store import SearchFilter
    from agent_zot.services import tools
    from agent_zot.services.context import AppContext

    spec = json.loads(spec_file.read_text())
    out: dict[str, Any] = {"agent_zot": agent_zot.__file__, "edits": [], "top10": {}}

    def search(ctx: AppContext, query: str, limit: int = 10, **filters: Any) -> list[dict[str, Any]]:
        response = tools.call(ctx, "zot_search", query=query, limit=limit, force_mode="fast", **filters)
        return list(response.data.get("papers", []))

    def index_top(query: str) -> list[str]:
        """The index's own answer (hybrid search, no routing): zot_search's router may read a title as a
        DOI lookup or a year filter."""
        return [p.item_key for p in search_papers(resources, query, limit=10)]

    ctx = AppContext(Settings(zotero_data_dir=Path(spec["library"]), data_dir=Path(spec["data_dir"])))
    resources = ctx.index_resources()
    resources.open()
    store = resources.store
    for edit in spec["edits"]:
        keys = edit["keys"]
        points = {key: store.get_by_item(key) for key in keys}
        result: dict[str, Any] = {"label": edit["label"], "edit": edit["edit"], "papers": len(keys)}
        result["points"] = sum(len(p) for p in points.values())
        if edit["edit"] == "tag":
            tag = edit["tag"]
            result["papers_all_points_tagged"] = sum(
                1 for hits in points.values() if hits and all(tag in h.payload.get("tags", []) for h in hits)
            )
            result["store_count_tag"] = store.count(SearchFilter(tags=(tag,)))
            answer = search(ctx, edit["query"], limit=200, tags=[tag])
            found = {p["key"] for p in answer}
            result["zot_search_tag_papers"] = len(found)
            result["zot_search_tag_outside"] = len(found - set(keys))
            result["ok"] = (
                result["papers_all_points_tagged"] == len(keys)
                and result["store_count_tag"] == result["points"]
                and not result["zot_search_tag_outside"]
                and bool(found)
            )
        elif edit["edit"] == "title":
            titles = edit["titles"]
            result["papers_all_points_titled"] = sum(
                1
                for key, hits in points.items()
                if hits and all(h.payload.get("title") == titles[key] for h in hits)
            )
            ranks, index_ranks = [], []
            for key in keys[: spec.get("title_queries", 3)]:
                answer = [p["key"] for p in search(ctx, titles[key])]
                top = index_top(titles[key])
                ranks.append(answer.index(key) + 1 if key in answer else None)
                index_ranks.append(top.index(key) + 1 if key in top else None)
                out["top10"][f"zot_search | title: {titles[key]}"] = answer
                out["top10"][f"index | title: {titles[key]}"] = top
            result["zot_search_title_ranks"] = ranks
            result["index_title_ranks"] = index_ranks
            result["ok"] = result["papers_all_points_titled"] == len(keys) and all(
                r == 1 for r in index_ranks
            )
        else:
            collection = edit["collection"]
            result["papers_all_points_in_collection"] = sum(
                1
                for hits in points.values()
                if hits and all(collection in h.payload.get("collections", []) for h in hits)
            )
            result["store_count_collection"] = store.count(SearchFilter(collections=(collection,)))
            result["ok"] = (
                result["papers_all_points_in_collection"] == len(keys)
                and result["store_count_collection"] == result["points"]
            )
        out["edits"].append(result)
    for query in spec.get("queries", []):
        out["top10"][f"zot_search | {query}"] = [p["key"] for p in search(ctx, query)]
        out["top10"][f"index | {query}"] = index_top(query)
    ctx.close()
    print(json.dumps(out))


def run_checks(runner: Runner, spec: dict[str, Any], folder: Path, name: str) -> dict[str, Any]:
    spec_file = folder / f"{name}.json"
    spec_file.write_text(json.dumps(spec))
    done = subprocess.run(
        [runner.python, str(Path(__file__).resolve()), "--check-worker", str(spec_file)],
        env=runner.env_for(Path(spec["data_dir"])),
        cwd=runner.cwd,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        raise SystemExit(f"check worker failed:\n{done.stderr[-3000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


def check_spec(library: Path, data_dir: Path, edits: list[dict[str, Any]], queries: list[str]) -> dict:
    """What the check worker verifies: the edits (each with a query for the tag-filtered search). A paper
    retitled again later is checked for its last title only."""
    last_title = {key: i for i, e in enumerate(edits) if e["edit"] == "title" for key in e["keys"]}
    specs = []
    for i, e in enumerate(edits):
        spec = {k: e[k] for k in ("edit", "label", "keys", "tag", "titles", "collection") if k in e}
        if e["edit"] == "title":
            spec["keys"] = [key for key in e["keys"] if last_title[key] == i]
            if not spec["keys"]:
                continue
        spec["query"] = queries[0] if queries else "research"
        specs.append(spec)
    return {"library": str(library), "data_dir": str(data_dir), "edits": specs, "queries": queries}


# -- one library --------------------------------------------------------------------------------


def build_library(name: str, folder: Path) -> Path:
    """The Zotero data folder of ``name`` under ``folder`` (built with the benchmark scripts' builders)."""
    sys.path.insert(0, str(SCRIPTS))
    if name == "scifact":
        from bench_retrieval import build_library as build_scifact

        return build_scifact(folder)
    from bench_index import build_pdf_library

    return build_pdf_library(folder / "Zotero").parent


def prepare(name: str, runner: Runner, work: Path, fresh: bool) -> tuple[Path, Path, dict[str, Any]]:
    """The library and its index in <work>/<name>/run, copied from the pristine build (made when missing)."""
    base = work / name
    run, pristine = base / "run", base / "pristine"
    marker = pristine / "build.json"
    if fresh and pristine.exists():
        shutil.rmtree(pristine)
    if run.exists():
        shutil.rmtree(run)
    if marker.is_file():
        shutil.copytree(pristine, run, symlinks=True)
        build = json.loads(marker.read_text())
        build["cached"] = True
        return run / "Zotero", run / "state", build
    run.mkdir(parents=True)
    library = build_library(name, run)
    print(f"[{name}] building the index (first update-db)…", file=sys.stderr, flush=True)
    build = run_update(runner, library, run / "state")
    build["code"] = runner.code()
    build["items"] = len(regular_items(library / "zotero.sqlite"))
    shutil.copytree(run, pristine, symlinks=True)
    marker.write_text(json.dumps(build, indent=2))
    build["cached"] = False
    return library, run / "state", build


def sizes(args: argparse.Namespace) -> dict[str, int]:
    return {"tag": args.retag, "title": args.retitle, "collection": args.recollect}


def queries_for(name: str, count: int = 5) -> list[str]:
    if name != "scifact":
        return list(PDF_QUERIES[:count])
    with (SHARED / "scifact" / "queries.train.jsonl").open(encoding="utf-8") as fh:
        return [json.loads(line)["text"] for line, _ in zip(fh, range(count), strict=False)]


def label_for(edit: str, path: str, rep: int) -> str:
    return {
        "tag": f"upkeep-{path}-{rep}",
        "title": f"Upkeep revision {path} {rep}",
        "collection": f"Upkeep {path} {rep}",
    }[edit]


def measure_library(name: str, runner: Runner, args: argparse.Namespace) -> dict[str, Any]:
    library, data_dir, build = prepare(name, runner, args.work, args.fresh)
    db = library / "zotero.sqlite"
    result: dict[str, Any] = {"items": len(regular_items(db)), "build": build, "runs": []}
    checks_dir = args.work / name / "checks"
    checks_dir.mkdir(parents=True, exist_ok=True)
    print(f"[{name}] no-change update-db…", file=sys.stderr, flush=True)
    result["no_change"] = run_update(runner, library, data_dir)
    if result["no_change"].get("indexed"):
        print(
            f"[{name}] warning: the no-change run re-indexed {result['no_change']['indexed']} items (an index "
            "built by other code? use --fresh)",
            file=sys.stderr,
        )
    queries = queries_for(name)
    counts = sizes(args)
    applied: list[dict[str, Any]] = []
    retitled: set[str] = set()  # a paper retitled twice would fail the first title's check
    for rep in range(args.repeat):
        for edit in args.edits:
            label = label_for(edit, "update-db", rep)
            rng = random.Random(f"{name}/{edit}/update-db/{rep}")
            done = apply_edit(db, edit, counts[edit], label, rng, retitled if edit == "title" else None)
            retitled.update(done["keys"] if edit == "title" else ())
            done.update(label=label, path="update-db", rep=rep)
            print(f"[{name}] {edit} ×{len(done['keys'])} → update-db…", file=sys.stderr, flush=True)
            done["update"] = run_update(runner, library, data_dir)
            spec = check_spec(library, data_dir, [done], queries[:1])
            done["check"] = run_checks(runner, spec, checks_dir, f"update-db-{edit}-{rep}")["edits"][0]
            result["runs"].append(done)
            applied.append(done)
    if not args.skip_worker:
        result["worker"] = measure_worker(runner, args, library, data_dir, counts, applied, retitled, result)
        spec = check_spec(
            library, data_dir, [r for r in result["runs"] if r["path"] == "worker"], queries[:1]
        )
        checked = {c["label"]: c for c in run_checks(runner, spec, checks_dir, "worker")["edits"]}
        for run in result["runs"]:
            if run["path"] == "worker":
                run["check"] = checked.get(run["label"], {"ok": None, "note": "retitled again later"})
    if not args.skip_watch:
        result["watch"] = measure_watch(runner, args, library, data_dir, counts, applied, retitled, result)
        spec = check_spec(library, data_dir, [r for r in result["runs"] if r["path"] == "watch"], queries[:1])
        checked = {c["label"]: c for c in run_checks(runner, spec, checks_dir, "watch")["edits"]}
        for run in result["runs"]:
            if run["path"] == "watch":  # a title edit whose papers were all retitled again: none
                run["check"] = checked.get(run["label"], {"ok": None, "note": "retitled again later"})
    if not args.no_compare:
        result["compare"] = compare_rebuild(name, runner, args, library, data_dir, applied, queries)
    return result


def measure_worker(
    runner: Runner,
    args: argparse.Namespace,
    library: Path,
    data_dir: Path,
    counts: dict[str, int],
    applied: list[dict[str, Any]],
    retitled: set[str],
    result: dict[str, Any],
) -> dict[str, Any]:
    """Each edit through the watcher's kept update process (`agent-zot update-worker`): wall time from the
    request to its answer, the process started once (its first, no-change, update is timed apart)."""
    from agent_zot.services.upkeep.update_worker import UpdateWorker

    db = library / "zotero.sqlite"
    name = library.parent.parent.name
    worker = UpdateWorker(runner.agent_zot(library, "update-worker"), env=runner.env_for(data_dir))
    try:
        print(f"[{name}] update-worker: first (no-change) update…", file=sys.stderr, flush=True)
        started = time.perf_counter()
        first = worker()
        info: dict[str, Any] = {"first_wall_s": time.perf_counter() - started, **compact(first.summary)}
        if not first.ok:
            raise SystemExit(f"update-worker failed: {first.error}")
        for rep in range(args.repeat):
            for edit in args.edits:
                label = label_for(edit, "worker", rep)
                rng = random.Random(f"{name}/{edit}/worker/{rep}")
                done = apply_edit(db, edit, counts[edit], label, rng, retitled if edit == "title" else None)
                retitled.update(done["keys"] if edit == "title" else ())
                print(f"[{name}] {edit} ×{len(done['keys'])} → update-worker…", file=sys.stderr, flush=True)
                load_before = os.getloadavg()[0]
                started = time.perf_counter()
                outcome = worker()
                wall = time.perf_counter() - started
                if not outcome.ok:
                    raise SystemExit(f"update-worker failed: {outcome.error}")
                done.update(
                    label=label,
                    path="worker",
                    rep=rep,
                    update={"wall_s": wall, "load_before": load_before, **compact(outcome.summary)},
                )
                result["runs"].append(done)
                applied.append(done)
        info["processes_started"] = worker.started
    finally:
        worker.close()
    return info


def measure_watch(
    runner: Runner,
    args: argparse.Namespace,
    library: Path,
    data_dir: Path,
    counts: dict[str, int],
    applied: list[dict[str, Any]],
    retitled: set[str],
    result: dict[str, Any],
) -> dict[str, Any]:
    db = library / "zotero.sqlite"
    name = library.parent.parent.name
    print(f"[{name}] watch --interval {args.interval:g}…", file=sys.stderr, flush=True)
    started = time.monotonic()
    watch = Watch(runner, library, data_dir, args.interval)
    info: dict[str, Any] = {"interval_s": args.interval}
    try:
        at, line = watch.next_report(args.watch_timeout)
        first = watch.update_started_after(started) or {}
        info["first_update"] = {
            "after_start_s": at - started,
            "update_process_s": at - first["seen"] if first else None,
            "peak_rss_mb": first.get("peak_mb"),
            **parse_report(line),
        }
        for rep in range(args.repeat):
            for edit in args.edits:
                time.sleep(args.interval * 2.5)  # a quiet library first: the watcher saw the last update
                label = label_for(edit, "watch", rep)
                rng = random.Random(f"{name}/{edit}/watch/{rep}")
                print(f"[{name}] {edit} → watch…", file=sys.stderr, flush=True)
                load_before = os.getloadavg()[0]
                before = time.monotonic()
                done = apply_edit(db, edit, counts[edit], label, rng, retitled if edit == "title" else None)
                retitled.update(done["keys"] if edit == "title" else ())
                edited = time.monotonic()
                at, line = watch.next_report(args.watch_timeout)
                report = parse_report(line)
                child = watch.update_started_after(before) or {}
                timing: dict[str, Any] = {
                    "edit_to_report_s": at - edited,
                    # the update process as first seen by a 20 ms poll (its create_time is only to ~1 s)
                    "detect_s": child["seen"] - edited if child else None,
                    "update_process_s": at - child["seen"] if child else None,
                    "peak_rss_mb": child.get("peak_mb"),
                    "cpu_s": child.get("cpu_s"),  # sampled every 20 ms: the last 20 ms are missing
                    "load_before": load_before,
                    "load_after": os.getloadavg()[0],
                    **report,
                }
                done.update(label=label, path="watch", rep=rep, update=timing)
                result["runs"].append(done)
                applied.append(done)
    finally:
        watch.stop()
    info["stderr_tail"] = watch.stderr[-10:]
    return info


def compare_rebuild(
    name: str,
    runner: Runner,
    args: argparse.Namespace,
    library: Path,
    data_dir: Path,
    applied: list[dict[str, Any]],
    queries: list[str],
) -> dict[str, Any]:
    """The incremental index against one rebuilt from scratch (a copy, `update-db --force-rebuild`)."""
    rebuilt = data_dir.parent / "state-rebuilt"
    if rebuilt.exists():
        shutil.rmtree(rebuilt)
    shutil.copytree(data_dir, rebuilt, symlinks=True)
    print(f"[{name}] update-db --force-rebuild on a copy…", file=sys.stderr, flush=True)
    rebuild = run_update(runner, library, rebuilt, "--force-rebuild")
    spec = check_spec(library, data_dir, applied, queries)
    incremental = run_checks(runner, spec, args.work / name / "checks", "compare-incremental")
    spec["data_dir"] = str(rebuilt)
    scratch = run_checks(runner, spec, args.work / name / "checks", "compare-rebuilt")
    same = {q: incremental["top10"][q] == scratch["top10"].get(q) for q in incremental["top10"]}
    overlap = {
        q: len(set(incremental["top10"][q]) & set(scratch["top10"].get(q, []))) for q in incremental["top10"]
    }
    by_kind = {
        kind: {
            "queries": sum(1 for q in same if q.startswith(kind)),
            "same_top10": sum(1 for q, v in same.items() if v and q.startswith(kind)),
            "empty_in_both": sum(
                1
                for q in same
                if q.startswith(kind) and not incremental["top10"][q] and not scratch["top10"].get(q)
            ),
        }
        for kind in ("zot_search", "index")
    }
    return {
        "rebuild": rebuild,
        "by_kind": by_kind,
        "queries": len(same),
        "same_top10": sum(same.values()),
        "same_top10_set": sum(
            1 for q in same if set(incremental["top10"][q]) == set(scratch["top10"].get(q, []))
        ),
        "overlap": overlap,
        "incremental_checks_ok": all(e["ok"] for e in incremental["edits"]),
        "rebuilt_checks_ok": all(e["ok"] for e in scratch["edits"]),
        "top10_incremental": incremental["top10"],
        "top10_rebuilt": scratch["top10"],
    }


# -- report -------------------------------------------------------------------------------------


def print_table(results: dict[str, Any]) -> None:
    m = results["machine"]
    code = results["code"]
    print(f"machine: {m['nproc']} CPUs ({m['cpu']}), {m['memory_gb']} GB")
    print(
        f"code: {code['agent_zot']} (commit {code['commit'][:10]}, agent_zot modified: {code['agent_zot_modified']})"
    )
    head = (
        f"{'library':<8} {'edit':<10} {'path':<9} {'papers':>6} {'wall s':>7} {'upd s':>6} {'CPU s':>6} "
        f"{'detect':>6} {'reidx':>6} {'chunks':>6} {'RSS MB':>7} {'s/paper':>7} {'load':>4}  check"
    )
    for name, lib in results["libraries"].items():
        print(f"\n{name}: {lib['items']} items")
        b, n = lib["build"], lib["no_change"]
        print(
            f"  build: {b['wall_s']:.1f} s wall{' (cached)' if b.get('cached') else ''}, {b['indexed']} items, "
            f"{b['chunks']} chunks, {b['peak_rss_mb']:.0f} MB; no-change update-db: {n['wall_s']:.1f} s wall "
            f"({n['seconds']:.1f} s in-process), {n['peak_rss_mb']:.0f} MB"
        )
        if "worker" in lib:
            w = lib["worker"]
            print(
                f"  update-worker: first (no-change) update {w['first_wall_s']:.1f} s from its start, "
                f"{w['processes_started']} process for all updates"
            )
        if "watch" in lib:
            first = lib["watch"]["first_update"]
            process = first.get("update_process_s")
            print(
                f"  watch --interval {lib['watch']['interval_s']:g}: first (no-change) update reported "
                f"{first['after_start_s']:.1f} s after start"
                + (f", its update process {process:.1f} s" if process is not None else "")
            )
        print(head)
        base = n["wall_s"]
        watch_base = (lib.get("watch", {}).get("first_update") or {}).get("update_process_s") or 0.0
        worker_base = (lib.get("worker") or {}).get("seconds") or 0.0
        for r in lib["runs"]:
            u = r["update"]
            wall = u.get("wall_s", u.get("edit_to_report_s"))
            indexed = u.get("indexed", 0)
            papers = len(r["keys"])
            if r["path"] == "update-db":
                per = (wall - base) / papers if papers else float("nan")
            elif r["path"] == "worker":
                per = (wall - worker_base) / papers if papers else float("nan")
            elif u.get("update_process_s") is not None:  # beyond the watcher's first (no-change) update
                per = (u["update_process_s"] - watch_base) / papers if papers else float("nan")
            else:  # the watcher's kept update process: no new process to time
                per = float("nan")
            shown_per = f"{per:7.2f}" if not per < 0 else f"{'~0':>7}"  # below the no-change run's noise
            load = f"{u['load_before']:4.1f}" if u.get("load_before") is not None else f"{'':>4}"
            detect = f"{u['detect_s']:6.1f}" if u.get("detect_s") is not None else f"{'':>6}"
            chunks = u.get("chunks", "")
            rss = u.get("peak_rss_mb") or 0.0
            print(
                f"{name:<8} {r['edit']:<10} {r['path']:<9} {len(r['keys']):>6} {wall:7.1f} "
                f"{u.get('seconds', float('nan')):6.1f} {u.get('cpu_s') or float('nan'):6.1f} {detect} "
                f"{indexed:>6} {chunks!s:>6} {rss:7.0f} {shown_per} {load}  "
                f"{CHECK_WORDS.get(r.get('check', {}).get('ok'), 'FAIL')}"
            )
            small = len(r["keys"]) < min(100, lib["items"])  # fewer than the default 100 (--retag)
            if r["edit"] == "tag" and r["path"] == "update-db" and small and per > 0:
                print(f"{'':>10} extrapolated to 100 papers: {base + per * 100:.1f} s (EXTRAPOLATED)")
            extra = {k: v for k, v in u.items() if k not in KNOWN_SUMMARY and isinstance(v, int | float)}
            if extra:
                print(f"{'':>10} also: " + ", ".join(f"{k}={v}" for k, v in extra.items()))
        if "compare" in lib:
            c = lib["compare"]
            kinds = "; ".join(
                f"{kind} {v['same_top10']}/{v['queries']}"
                + (f" ({v['empty_in_both']} empty in both)" if v["empty_in_both"] else "")
                for kind, v in c.get("by_kind", {}).items()
            )
            print(
                f"  vs a from-scratch rebuild ({c['rebuild']['wall_s']:.1f} s): same top-10 keys in order for "
                f"{c['same_top10']}/{c['queries']} answers [{kinds}], same set for {c['same_top10_set']}; edit checks "
                f"incremental {'ok' if c['incremental_checks_ok'] else 'FAIL'}, rebuilt "
                f"{'ok' if c['rebuilt_checks_ok'] else 'FAIL'}"
            )
    print(
        "\nwall s: update-db process wall time, or for watch the time from the edit's commit to the watcher's "
        "report; upd s: the update's own seconds (its summary); detect: edit → watcher started update-db; "
        "s/paper: (wall − no-change wall) / papers edited; for watch (update process − the watcher's first, "
        "no-change, update process) / papers edited; CPU s: the update's processes (update-db: from rusage; "
        "watch: sampled); load: the 1-minute load average before the edit (other work on the machine)."
    )


CHECK_WORDS = {True: "ok", False: "FAIL", None: "-"}
KNOWN_SUMMARY = {
    "load_before", "load_after", "wall_s", "cpu_s", "peak_rss_mb", "indexed", "unchanged", "removed", "pages", "chunks", "skipped",
    "failed", "seconds", "embed_seconds", "ocr_pages", "ocr_seconds", "edit_to_report_s", "detect_s",
    "update_process_s", "ok",
}  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--work", type=Path, default=Path("/tmp/bench-upkeep"), help="kept between runs")
    parser.add_argument("--libraries", default="scifact,pdfs", help="comma-separated: scifact, pdfs")
    parser.add_argument("--edits", default=",".join(EDITS), help="comma-separated: tag, title, collection")
    parser.add_argument("--skip-watch", action="store_true")
    parser.add_argument("--skip-worker", action="store_true", help="skip the kept update process's path")
    parser.add_argument("--no-compare", action="store_true", help="skip the from-scratch rebuild comparison")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--retag", type=int, default=100, help="papers given a new tag")
    parser.add_argument("--retitle", type=int, default=10, help="papers given a new title")
    parser.add_argument("--recollect", type=int, default=20, help="papers added to a new collection")
    parser.add_argument("--interval", type=float, default=1.0, help="watch --interval")
    parser.add_argument("--watch-timeout", type=float, default=3600.0)
    parser.add_argument("--fresh", action="store_true", help="rebuild the cached libraries and indexes")
    parser.add_argument("--python", default=sys.executable, help="interpreter of the agent-zot processes")
    parser.add_argument("--pythonpath", default=None, help="prepended to their PYTHONPATH (code under test)")
    parser.add_argument("--json-out", type=Path, default=None)
    parser.add_argument("--report", type=Path, help="only print the table of an earlier --json-out")
    parser.add_argument("--check-worker", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.check_worker:
        check_worker(args.check_worker)
        return
    if args.report:
        print_table(json.loads(args.report.read_text()))
        return
    args.edits = [e.strip() for e in args.edits.split(",") if e.strip()]
    if unknown := set(args.edits) - set(EDITS):
        parser.error(f"unknown edits: {', '.join(sorted(unknown))}")
    args.work = args.work.resolve()
    args.work.mkdir(parents=True, exist_ok=True)
    runner = Runner(args.python, args.pythonpath, args.work)
    results: dict[str, Any] = {
        "machine": machine(),
        "code": runner.code(),
        "args": vars(args),
        "libraries": {},
    }
    results["args"] = {k: str(v) if isinstance(v, Path) else v for k, v in results["args"].items()}
    print(f"agent-zot under test: {results['code']['agent_zot']}", file=sys.stderr)
    for name in [n.strip() for n in args.libraries.split(",") if n.strip()]:
        if name not in ("scifact", "pdfs"):
            parser.error(f"unknown library {name}")
        results["libraries"][name] = measure_library(name, runner, args)
        if args.json_out:
            args.json_out.write_text(json.dumps(results, indent=2))
    print_table(results)
    if args.json_out:
        args.json_out.write_text(json.dumps(results, indent=2))


if __name__ == "__main__":
    main()
