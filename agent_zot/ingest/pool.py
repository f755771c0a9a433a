"""Parse many attachments in worker processes, each job under a timeout and a memory cap.

Design: a small pool of long-lived worker processes ("spawn" context: no inherited locks or pdfium
state), each with its own pipe. The parent hands a worker one job at a time, so at most ``workers`` jobs
are in flight and jobs are pulled from the caller's iterator only when a worker is free. The parent
waits on the pipes and the process sentinels with a deadline: a worker past ``timeout_s`` is killed and
replaced, one that dies mid-job (a crash, or the memory cap in C code) is reported and replaced, and the
other workers carry on. A job's clock starts when its worker has started up (a new worker says "ready"
after its imports), so a slow interpreter start on a busy machine does not eat into the timeout. Pages read
by OCR do not count against ``timeout_s`` (a long scan is slow, not hung): the worker says when each begins
and ends (``ingest/ocr/pages.py``), and each page has ``page_timeout_s``. A page past it is skipped: its
worker is replaced and the file handed out again with the pages read so far (kept, not read again) and the
skipped page named in the document's ``fallback_reason``.
``concurrent.futures.ProcessPoolExecutor`` cannot do this: it cannot kill one hung task, and a dead
worker breaks the whole executor. Workers ignore SIGINT (Ctrl-C is the parent's: it terminates them and
re-raises) and exit on their own if the parent dies without cleaning up.

Memory: on POSIX each worker caps its address space (``RLIMIT_AS``) at its size after start-up plus
``memory_mb``, so ``memory_mb`` is what one parse may allocate. A MemoryError is reported as "exceeded
memory limit" and that worker is replaced (its heap may be in a bad state). Platforms without
``resource`` run uncapped.

Outcomes carry a document even when the worker failed: the attachment's fallback (Zotero's full-text
cache, or a ``source="none"`` document saying why), built in the parent; ``error`` says what went wrong.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field, replace
from multiprocessing.connection import Connection, wait
from multiprocessing.process import BaseProcess
from typing import Any

from agent_zot.ingest.extract import extract_attachment, fallback_document, parser_factory
from agent_zot.ingest.models import ParsedDocument, Parser
from agent_zot.ingest.ocr import OcrConfig, PageEvent
from agent_zot.ingest.worker_limits import cap_memory, peak_rss_mb, reset_peak_rss
from agent_zot.zotero.models import Attachment

_CONTEXT = multiprocessing.get_context("spawn")
_KILL_GRACE_S = 2.0
_STARTUP_S = 60.0  # how long a new worker may take to start (interpreter, imports) before its job counts
_READY, _DONE, _PAGE = "ready", "done", "page"
# The start of the reason a file was read without some of its pages (services/upkeep/unread.py reads it)
PAGES_OVER_BUDGET = "OCR took over"
_ORPHAN_CHECK_S = 1.0


@dataclass(frozen=True, slots=True)
class ParseJob:
    attachment: Attachment
    language: str = ""  # the item's Language field: the language its scanned pages are read in
    front_matter: bool = False  # read the title, authors and year too (a PDF Zotero has no metadata for)
    # A file handed out again after a page ran past its OCR budget: the pages read before (0-based index,
    # the text kept or None) and those skipped
    ocr_known: tuple[tuple[int, str | None], ...] = ()
    ocr_skipped: tuple[int, ...] = ()


# What the caller hears while a file is read: the job handed to a worker (event None), each OCR'd page
# beginning and ending
ParseWatch = Callable[[ParseJob, PageEvent | None], None]


@dataclass(slots=True)
class ParseOutcome:
    """One job's result. ``error`` is set when the worker failed (timeout, crash, memory); ``document`` is
    then the attachment's fallback. ``seconds`` is the parse time measured in the worker (for failures:
    the time since the job was handed out); ``peak_rss_mb`` the worker's peak memory during the job."""

    attachment_key: str
    document: ParsedDocument | None
    error: str | None
    seconds: float
    peak_rss_mb: float | None


# --- worker side -----------------------------------------------------------------------------------


def _parse_one(
    parser: Parser, job: ParseJob, ocr: OcrConfig | None
) -> tuple[ParsedDocument | None, str | None, bool]:
    """(document, error, worker must exit). Every failure is turned into a message for the parent."""
    try:
        document = extract_attachment(
            job.attachment, parser=parser, ocr=ocr, language=job.language, front_matter=job.front_matter
        )
        return document, None, False
    except MemoryError:
        return None, "exceeded memory limit", True
    except Exception as err:  # noqa: BLE001 - process boundary: a parser bug must not stop the batch
        return None, f"parser failed: {type(err).__name__}: {err}", False


def _exit_with_parent() -> None:
    """A worker stuck in a parse never reads its pipe again: if the parent is killed outright, a
    watcher thread ends the orphan (pdfium calls release the GIL, so the thread gets to run)."""
    parent = os.getppid()

    def watch() -> None:
        while True:
            time.sleep(_ORPHAN_CHECK_S)
            if os.getppid() != parent:
                os._exit(1)

    threading.Thread(target=watch, name="agent-zot-parent-watch", daemon=True).start()


def _worker_main(conn: Connection, factory: Any, memory_mb: int | None, ocr: OcrConfig | None) -> None:
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle
    _exit_with_parent()
    from agent_zot.ingest.ocr.pages import on_page, resume_from  # in the worker only: OCR loads there

    parser: Parser = factory()
    on_page(lambda event: conn.send((_PAGE, event)))
    if memory_mb:
        cap_memory(memory_mb)
    conn.send((_READY,))  # the job's clock starts now, not while the interpreter was starting
    while True:
        try:
            job = conn.recv()
        except EOFError:  # the parent went away
            return
        if job is None:
            return
        reset_peak_rss()
        resume_from(dict(job.ocr_known), frozenset(job.ocr_skipped))
        started = time.perf_counter()
        document, error, fatal = _parse_one(parser, job, ocr)
        conn.send((_DONE, document, error, time.perf_counter() - started, peak_rss_mb(), fatal))
        if fatal:
            return


# --- parent side -----------------------------------------------------------------------------------


@dataclass(slots=True)
class _Worker:
    process: BaseProcess
    conn: Connection
    ready: bool = False  # it has started up; until then its job's deadline is the start-up limit
    job: ParseJob | None = None
    started: float = 0.0
    deadline: float = 0.0
    page: PageEvent | None = None  # the page being OCR'd, when one is
    known: dict[int, str | None] = field(default_factory=dict)  # pages OCR'd so far, for a retry
    used: float = 0.0  # seconds of the file's own limit used (OCR'd pages excluded)
    mark: float = 0.0  # since when ``used`` runs


def _stop(worker: _Worker, *, kill: bool) -> None:
    """End a worker: politely when idle, by terminate/kill when it is stuck or we are interrupted."""
    if not kill:
        try:
            worker.conn.send(None)
        except OSError:  # BrokenPipeError, ConnectionResetError: it is gone already
            kill = True
    if kill and worker.process.is_alive():
        worker.process.terminate()
    worker.process.join(_KILL_GRACE_S)
    if worker.process.is_alive():
        worker.process.kill()
        worker.process.join(_KILL_GRACE_S)
    worker.conn.close()


def _death_message(process: BaseProcess) -> str:
    process.join(_KILL_GRACE_S)
    code = process.exitcode
    if code is not None and code < 0:
        return f"parser crashed (signal {-code})"
    return f"parser crashed (exit code {code})"


class _Pool:
    """Workers, the jobs they hold, and the rules for replacing them."""

    def __init__(self, factory: Any, *, size: int, timeout_s: float, page_timeout_s: float,
                 memory_mb: int | None, ocr: OcrConfig | None, watch: ParseWatch | None) -> None:  # fmt: skip
        self.factory = factory
        self.ocr = ocr
        self.size = max(1, size)
        self.timeout_s = timeout_s
        self.page_timeout_s = page_timeout_s
        self.memory_mb = memory_mb
        self.watch = watch
        self.idle: list[_Worker] = []
        self.busy: list[_Worker] = []
        self.again: list[ParseJob] = []  # files to hand out again, without the page that ran over

    def _start(self) -> _Worker:
        parent_end, child_end = _CONTEXT.Pipe(duplex=True)
        process = _CONTEXT.Process(
            target=_worker_main,
            args=(child_end, self.factory, self.memory_mb, self.ocr),
            daemon=True,
            name="agent-zot-parse",
        )
        process.start()
        child_end.close()  # the child holds its own copy; ours would hide the child's death from recv()
        return _Worker(process, parent_end)

    def _send(self, worker: _Worker, job: ParseJob) -> bool:
        """Hand out a job (a worker still starting up gets it queued in its pipe)."""
        worker.job, worker.started = job, time.monotonic()
        worker.page, worker.known, worker.used, worker.mark = None, dict(job.ocr_known), 0.0, worker.started
        limit = self.timeout_s if worker.ready else max(_STARTUP_S, self.timeout_s)
        worker.deadline = worker.started + limit
        if self.watch is not None:
            self.watch(job, None)
        try:
            worker.conn.send(job)
        except OSError:
            return False
        return True

    def submit(self, job: ParseJob) -> None:
        worker = self.idle.pop() if self.idle else self._start()
        if not self._send(worker, job):  # it died while idle: replace it
            _stop(worker, kill=True)
            worker = self._start()
            self._send(worker, job)
        self.busy.append(worker)

    def _outcome(self, worker: _Worker, document: ParsedDocument | None, error: str | None,
                 peak: float | None = None, seconds: float | None = None) -> ParseOutcome:  # fmt: skip
        """``seconds``: the worker's own parse time; else (failures) the time since the job started."""
        job = worker.job
        assert job is not None
        if document is None and error is not None:
            document = fallback_document(job.attachment, error)
        if seconds is None:
            seconds = time.monotonic() - worker.started
        if job.ocr_skipped and document is not None:
            pages = ", ".join(str(i + 1) for i in sorted(job.ocr_skipped))
            word = "pages" if len(job.ocr_skipped) > 1 else "page"
            skipped = f"{PAGES_OVER_BUDGET} {self.page_timeout_s:g} s on {word} {pages}, not read"
            document.fallback_reason = "; ".join(filter(None, (skipped, document.fallback_reason)))
        return ParseOutcome(job.attachment.key, document, error, seconds, peak)

    def _receive(self, worker: _Worker) -> tuple[ParseOutcome, bool] | None:
        """The outcome of a worker whose pipe or process is ready and whether it can take more work;
        None when the message only said it has started, or that it finished OCR of a page."""
        try:
            message = worker.conn.recv()
        except (EOFError, OSError):  # it died before answering
            return self._outcome(worker, None, _death_message(worker.process)), False
        if message[0] == _READY:
            worker.ready, worker.started = True, time.monotonic()
            worker.mark, worker.deadline = worker.started, worker.started + self.timeout_s
            return None
        if message[0] == _PAGE:
            self._page(worker, message[1])
            return None
        _, document, error, seconds, peak, fatal = message
        return self._outcome(worker, document, error, peak, seconds), not fatal

    def _page(self, worker: _Worker, event: PageEvent) -> None:
        """A page's OCR began (its own budget starts; the file's clock stops) or ended (the file's clock
        goes on with what it had left)."""
        now = time.monotonic()
        if event.done:
            worker.known[event.page] = event.text
            worker.page, worker.mark = None, now
            worker.deadline = now + max(0.0, self.timeout_s - worker.used)
        else:
            worker.used += now - worker.mark
            worker.page, worker.deadline = event, now + self.page_timeout_s
        if self.watch is not None and worker.job is not None:
            self.watch(worker.job, event)

    def _expired(self, worker: _Worker) -> tuple[ParseOutcome, bool] | None:
        """A job past its deadline: the file failed, or (a page over its OCR budget) it is handed out
        again without that page (None)."""
        job = worker.job
        if worker.page is not None and job is not None:
            skipped = (*job.ocr_skipped, worker.page.page)
            self.again.append(replace(job, ocr_known=tuple(worker.known.items()), ocr_skipped=skipped))
            return None
        if worker.ready:
            error = f"timed out after {self.timeout_s:g} s"
        else:
            error = f"parser worker did not start within {max(_STARTUP_S, self.timeout_s):g} s"
        return self._outcome(worker, None, error), False

    def wait_round(self) -> Iterator[ParseOutcome]:
        """Wait until some job finishes, dies or times out; yield those outcomes."""
        timeout = max(0.0, min(w.deadline for w in self.busy) - time.monotonic())
        handles = [w.conn for w in self.busy] + [w.process.sentinel for w in self.busy]
        ready = set(wait(handles, timeout))
        for worker in list(self.busy):
            result: tuple[ParseOutcome, bool] | None = None
            if worker.conn in ready or worker.process.sentinel in ready:
                result = self._receive(worker)
            elif time.monotonic() >= worker.deadline:
                result = self._expired(worker)
                if result is None:  # handed out again: this worker is stuck in the page
                    self.busy.remove(worker)
                    _stop(worker, kill=True)
                    continue
            if result is None:
                continue
            outcome, usable = result
            self.busy.remove(worker)
            worker.job = None
            if usable:
                self.idle.append(worker)
            else:
                _stop(worker, kill=True)
            yield outcome

    def close(self) -> None:
        for worker in self.busy:
            _stop(worker, kill=True)
        for worker in self.idle:
            _stop(worker, kill=False)
        self.busy.clear()
        self.idle.clear()


def parse_many(
    jobs: Iterable[ParseJob],
    *,
    workers: int,
    timeout_s: float,
    memory_mb: int | None,
    parser: str = "pdfium",
    ocr: OcrConfig | None = None,
    page_timeout_s: float = 300.0,
    watch: ParseWatch | None = None,
) -> Iterator[ParseOutcome]:
    """Parse every job in worker processes; outcomes are yielded as they complete (in any order).
    ``ocr``: how pages without a usable text layer are read (None: they are not); ``timeout_s`` is a file's
    limit, its OCR'd pages excluded, each of which has ``page_timeout_s``; ``watch`` hears of each file
    handed out and each OCR'd page.

    On Ctrl-C (or when the caller stops iterating) the workers are terminated and the
    KeyboardInterrupt goes on up."""
    factory = parser_factory(parser, ocr)  # an unknown name fails here, before any process starts
    pool = _Pool(factory, size=workers, timeout_s=timeout_s, page_timeout_s=page_timeout_s,
                 memory_mb=memory_mb, ocr=ocr, watch=watch)  # fmt: skip
    pending = iter(jobs)
    try:
        while True:
            while len(pool.busy) < pool.size and (job := _next(pool.again, pending)) is not None:
                pool.submit(job)
            if not pool.busy:
                return
            yield from pool.wait_round()
    finally:
        pool.close()


def _next(again: list[ParseJob], pending: Iterator[ParseJob]) -> ParseJob | None:
    """A file handed out again first (its pages read so far are in memory), then the next new one."""
    return again.pop(0) if again else next(pending, None)
