"""Benchmark attachment parsing on the shared PDFs: one process, then the worker pool.

    python scripts/bench_parse.py [--pdfs ../shared/data/pdfs] [--workers 2] [--parser pdfium] [--repeat 3]
    python scripts/bench_parse.py --front-matter   # title/first author read from each PDF vs metadata.csv

Single process: pages/s by wall clock and by CPU time (the machine may be busy with other work), the
total seconds, per-file failures and the process's peak RSS. Pool: the same through parse_many with
--workers workers: wall time (worker start-up included), pages/s per worker by job time and by the
workers' CPU time, per-file failures and the largest per-job peak RSS. POSIX only (resource).
--front-matter: what ingest/front_matter.py reads (for PDFs Zotero has no metadata for) against the true
titles and authors in the folder's metadata.csv: how many get the title and the first author right.
"""

from __future__ import annotations

import argparse
import csv
import re
import resource
import sys
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

from agent_zot.ingest import ParseJob, extract_attachment, parse_many  # noqa: E402
from agent_zot.zotero.models import Attachment, LinkMode  # noqa: E402

DEFAULT_PDFS = REPO_ROOT.parent / "shared" / "data" / "pdfs"


def attachments(folder: Path) -> list[Attachment]:
    return [
        Attachment(
            key=path.stem,
            item_id=i,
            parent_key=None,
            title=path.name,
            link_mode=LinkMode.LINKED_FILE,
            content_type="application/pdf",
            raw_path=str(path),
            path=path,
            exists=True,
        )
        for i, path in enumerate(sorted(folder.glob("*.pdf")))
    ]


def _children_cpu_s() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def failure(source: str, reason: str | None, error: str | None = None) -> str | None:
    if error:
        return error
    return f"{source}: {reason}" if reason else None


def single_process(items: list[Attachment], parser: str, repeat: int) -> None:
    best_wall, best_cpu, pages = float("inf"), float("inf"), 0
    failures: dict[str, str] = {}
    for _ in range(repeat):
        wall, cpu = time.perf_counter(), time.process_time()
        pages = 0
        for item in items:
            doc = extract_attachment(item, parser=parser)
            pages += doc.page_count
            if problem := failure(doc.source, doc.fallback_reason):
                failures[item.key] = problem
        best_wall = min(best_wall, time.perf_counter() - wall)
        best_cpu = min(best_cpu, time.process_time() - cpu)
    peak_mb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"single process ({parser}, best of {repeat}): {len(items)} files, {pages} pages")
    print(f"  total {best_wall:.2f} s wall, {best_cpu:.2f} s CPU")
    print(f"  {pages / best_wall:.0f} pages/s wall, {pages / best_cpu:.0f} pages/s per CPU-second")
    print(f"  peak RSS {peak_mb:.0f} MB; failures: {failures or 'none'}")


def pool(items: list[Attachment], parser: str, workers: int, timeout_s: float, memory_mb: int) -> None:
    children_cpu = _children_cpu_s()
    wall = time.perf_counter()
    pages, busy_s, peak_mb = 0, 0.0, 0.0
    failures: dict[str, str] = {}
    jobs = (ParseJob(item) for item in items)
    for outcome in parse_many(jobs, workers=workers, timeout_s=timeout_s, memory_mb=memory_mb, parser=parser):
        doc = outcome.document
        pages += doc.page_count if doc is not None else 0
        busy_s += outcome.seconds
        peak_mb = max(peak_mb, outcome.peak_rss_mb or 0.0)
        source, reason = (doc.source, doc.fallback_reason) if doc is not None else ("none", None)
        if problem := failure(source, reason, outcome.error):
            failures[outcome.attachment_key] = problem
    wall = time.perf_counter() - wall
    children_cpu = _children_cpu_s() - children_cpu  # the workers have exited and been joined
    print(f"pool ({parser}, {workers} workers, timeout {timeout_s:g} s, cap {memory_mb} MB):")
    print(f"  total {wall:.2f} s wall (worker start-up included), {pages / wall:.0f} pages/s overall")
    print(f"  {pages / busy_s:.0f} pages/s per worker by job wall time (summed: {busy_s:.2f} s)")
    print(
        f"  workers used {children_cpu:.2f} s CPU in all, start-up included: {pages / children_cpu:.0f} pages/s"
    )
    print(f"  largest per-job peak RSS {peak_mb:.0f} MB; failures: {failures or 'none'}")


def _norm(text: str) -> str:
    return re.sub(r"[\W_]+", "", text.casefold())


def front_matter(folder: Path) -> None:
    from agent_zot.ingest.front_matter import read_front_matter

    with (folder / "metadata.csv").open(encoding="utf-8") as fh:
        truth = {row["file"]: row for row in csv.DictReader(fh)}
    titles = firsts = 0
    started = time.perf_counter()
    for name, row in truth.items():
        found = read_front_matter(folder / name)
        title_ok = found is not None and _norm(found.title) == _norm(row["title"])
        surname = _norm(row["authors"].split(";")[0].split(",")[0])
        first = _norm(found.authors[0].split()[-1]) if found and found.authors else ""
        author_ok = bool(first) and (first in surname or surname.endswith(first))
        titles, firsts = titles + title_ok, firsts + author_ok
        shown = (
            f"{found.title[:50]!r} / {found.authors[:1]} / {found.year} ({found.source})" if found else "-"
        )
        print(f"  {'T' if title_ok else '.'}{'A' if author_ok else '.'} {name}: {shown}")
    seconds = time.perf_counter() - started
    print(f"front matter: title right {titles}/{len(truth)}, first author right {firsts}/{len(truth)}")
    print(f"  {seconds / len(truth) * 1000:.0f} ms a file (open, document info, first page)")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pdfs", type=Path, default=DEFAULT_PDFS)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--parser", default="pdfium")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--timeout", type=float, default=60.0)
    parser.add_argument("--memory-mb", type=int, default=1024)
    parser.add_argument("--front-matter", action="store_true", help="titles and authors read vs metadata.csv")
    args = parser.parse_args()
    if not args.pdfs.is_dir():
        print(f"skipped: {args.pdfs} is absent (the shared PDFs are not on this machine)")
        return 0
    if args.front_matter:
        front_matter(args.pdfs)
        return 0
    items = attachments(args.pdfs)
    if not items:
        print(f"skipped: no PDFs in {args.pdfs}")
        return 0
    single_process(items, args.parser, args.repeat)
    pool(items, args.parser, args.workers, args.timeout, args.memory_mb)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
