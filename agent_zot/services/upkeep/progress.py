"""What `update-db` reports while it works, and a heartbeat that keeps reporting.

The run reports as items are stored; between those reports one long file (a scan read by OCR at a minute a
page on a busy machine) or a long embedding batch would leave the user without a line for minutes. So a
thread re-reports the latest state every ``progress_interval_s`` when nothing else did, naming what the
parse workers read now (the file, its OCR page i/n, for how long) and what the main process does.

The ETA counts pages, not items (one scan can take longer than a hundred born-digital papers): the pages
left with a text layer at the wall seconds a page measured so far, plus the pages known to need OCR at the
seconds a page measured for the engine (before any is measured: docs/performance.md's figure), spread over
the parse workers.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

from agent_zot.ingest import ParseJob, ParseOutcome
from agent_zot.ingest.ocr import OCR_SECONDS_A_PAGE, PageEvent


@dataclass(slots=True)
class Progress:
    """A snapshot for progress displays."""

    items_done: int
    items_total: int
    pages: int  # pages read so far, OCR'd pages counted
    chunks: int
    elapsed_s: float
    notes_done: int = 0  # notes and annotations embedded, after the items (index/notes.py)
    notes_total: int = 0
    ocr_pages: int = 0  # pages read by OCR so far (scanned PDFs)
    pages_total: int | None = None  # pages of the files this run reads, once counted
    ocr_pages_left: int = 0  # pages known to need OCR and not read yet
    ocr_seconds: float = 0.0  # worker seconds the OCR'd pages took
    reading: tuple[str, ...] = ()  # what the parse workers read now: "scan.pdf: OCR page 2/9, 41 s"
    doing: str = ""  # what the main process does now, when it is not waiting for the workers
    eta: float | None = None  # seconds left, by pages (estimate_eta_s); None before anything is measured

    @property
    def rate(self) -> float:
        return self.items_done / self.elapsed_s if self.elapsed_s > 0 else 0.0

    @property
    def eta_s(self) -> float | None:
        if self.eta is not None:
            return self.eta
        return (self.items_total - self.items_done) / self.rate if self.rate > 0 else None


def estimate_eta_s(progress: Progress, *, ocr_s_per_page: float, workers: int) -> float | None:
    """Seconds left: text-layer pages at the wall seconds a page so far, OCR pages at ``ocr_s_per_page``
    (worker seconds) over ``workers``; None until a page has been read or while the pages are uncounted."""
    if progress.pages_total is None:
        return None
    left = max(0, progress.pages_total - progress.pages)
    ocr_left = min(left, progress.ocr_pages_left)
    text_done = progress.pages - progress.ocr_pages
    workers = max(1, workers)
    text_wall = max(0.0, progress.elapsed_s - progress.ocr_seconds / workers)
    if text_done <= 0 and left > ocr_left:
        return None
    per_text_page = text_wall / text_done if text_done > 0 else 0.0
    return (left - ocr_left) * per_text_page + ocr_left * ocr_s_per_page / workers


@dataclass(slots=True)
class _Reading:
    name: str
    since: float
    page: PageEvent | None = None
    ocr_done: int = 0  # its pages OCR'd so far (counted as read already)


class ProgressTracker:
    """The run's live counts, fed by the update (items stored) and the parse workers (files and pages),
    reported to ``on_progress`` as they change and, by a heartbeat thread, at least every ``interval_s``."""

    def __init__(
        self, on_progress: Callable[[Progress], None] | None, *, interval_s: float, workers: int
    ) -> None:
        self._callback = on_progress
        self.interval_s = interval_s
        self.workers = workers
        self._lock = threading.Lock()
        self._started = time.perf_counter()
        self._last = 0.0
        self._items = (0, 0, 0)  # done, total, chunks
        self._notes = (0, 0)
        self._pages = 0  # of files read whole
        self._pages_total: int | None = None
        self._file_pages: dict[str, int] = {}
        self._ocr_done = 0
        self._ocr_seconds = 0.0
        self._engine = ""
        self._reading: dict[str, _Reading] = {}
        self._doing = ""
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    # -- fed by the update ---------------------------------------------------------------------

    def items(self, done: int, total: int, chunks: int) -> None:
        with self._lock:
            self._items = (done, total, chunks)
        self.report()

    def notes(self, done: int, total: int) -> None:
        with self._lock:
            self._notes = (done, total)
        self.report()

    def pages_to_read(self, pages: dict[str, int]) -> None:
        """The page count of each file to read (by attachment key), for the ETA."""
        with self._lock:
            self._file_pages = dict(pages)
            self._pages_total = sum(pages.values())

    @contextmanager
    def doing(self, what: str) -> Iterator[None]:
        """Name a long step of the main process for the heartbeat while it runs."""
        with self._lock:
            self._doing = what
        try:
            yield
        finally:
            with self._lock:
                self._doing = ""

    def now_doing(self, what: str) -> None:
        """Rename the step ``doing`` names, as it advances ("…: 1,200 done")."""
        with self._lock:
            self._doing = what
        self.report()

    # -- fed by the parse workers (ingest/pool.py) -------------------------------------------------

    def watch(self, job: ParseJob, event: PageEvent | None) -> None:
        key = job.attachment.key
        with self._lock:
            reading = self._reading.get(key)
            if event is None:  # handed out (again, after a page over its budget: its count goes on)
                path = job.attachment.path
                name = Path(path).name if path is not None else key
                done = reading.ocr_done if reading is not None else 0
                self._reading[key] = _Reading(name, time.perf_counter(), ocr_done=done)
                return
            if reading is not None:
                reading.page = event
                reading.ocr_done += event.done
            if event.done:
                self._ocr_done += 1
                self._ocr_seconds += event.seconds
            self._engine = event.engine

    def file_done(self, outcome: ParseOutcome) -> None:
        with self._lock:
            reading = self._reading.pop(outcome.attachment_key, None)
            document = outcome.document
            read = len(document.pages) if document is not None else 0
            # A file that failed counts its pages as done too: the ETA waits for them no more. Its OCR'd
            # pages were counted as they were read.
            read = max(read, self._file_pages.get(outcome.attachment_key, 0))
            self._pages += max(0, read - (reading.ocr_done if reading is not None else 0))

    # -- reporting -------------------------------------------------------------------------------

    def snapshot(self) -> Progress:
        with self._lock:
            now = time.perf_counter()
            done, total, chunks = self._items
            ocr_left = 0
            reading = []
            for entry in self._reading.values():
                page = entry.page
                where = ""
                if page is not None:
                    ocr_left += page.count - page.position + (0 if page.done else 1)
                    where = f": OCR page {page.position}/{page.count}"
                reading.append(f"{entry.name}{where}, {now - entry.since:.0f} s")
            progress = Progress(
                done,
                total,
                self._pages + self._ocr_done,
                chunks,
                now - self._started,
                self._notes[0],
                self._notes[1],
                self._ocr_done,
                pages_total=self._pages_total,
                ocr_pages_left=ocr_left,
                ocr_seconds=self._ocr_seconds,
                reading=tuple(reading),
                doing=self._doing,
            )
            measured = self._ocr_seconds / self._ocr_done if self._ocr_done else None
            per_page = measured or OCR_SECONDS_A_PAGE.get(self._engine, max(OCR_SECONDS_A_PAGE.values()))
        progress.eta = estimate_eta_s(progress, ocr_s_per_page=per_page, workers=self.workers)
        return progress

    def report(self) -> None:
        if self._callback is None:
            return
        progress = self.snapshot()
        with self._lock:  # one line at a time, from the update or the heartbeat
            self._last = time.perf_counter()
            self._callback(progress)

    @contextmanager
    def heartbeat(self) -> Iterator[None]:
        """Report at least every ``interval_s`` while the block runs."""
        if self._callback is None:
            yield
            return
        self._thread = threading.Thread(target=self._beat, name="agent-zot-progress", daemon=True)
        self._thread.start()
        try:
            yield
        finally:
            self._stop.set()
            self._thread.join()

    def _beat(self) -> None:
        while not self._stop.wait(self.interval_s / 2):
            with self._lock:
                due = time.perf_counter() - self._last >= self.interval_s
            if due:
                self.report()
