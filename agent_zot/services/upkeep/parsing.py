"""Parsing the files of the items `update-db` re-indexes in full, in worker processes (ingest/pool.py: a
hung or hostile file is killed and reported), handing each item on as soon as all its files are parsed."""

from __future__ import annotations

from collections.abc import Iterator

import pypdfium2 as pdfium

from agent_zot.hardware import available_cpus, worker_count
from agent_zot.index.changes import ItemWork
from agent_zot.index.pipeline import IndexPipeline, ParsedItem
from agent_zot.ingest import ParseJob, ParseOutcome, parse_many
from agent_zot.ingest.ocr import OcrConfig
from agent_zot.services.upkeep.progress import ProgressTracker
from agent_zot.zotero.models import Attachment


def parsed_items(
    work: list[ItemWork],
    pipeline: IndexPipeline,
    *,
    fulltext: bool,
    parser: str,
    tracker: ProgressTracker | None = None,
) -> Iterator[ParsedItem]:
    """Yield items as soon as all their attachments are parsed (metadata-only items at once); without
    ``fulltext`` no file is parsed. ``tracker`` hears of each file and OCR'd page as it is read."""
    waiting: dict[str, tuple[ItemWork, dict[str, ParseOutcome | None]]] = {}
    owner: dict[str, str] = {}
    jobs: list[ParseJob] = []
    times = pipeline.times
    for entry in work:
        files = [a for a, _ in entry.attachments] if fulltext else []
        if not files:
            with times.measure("chunk"):
                ready = pipeline.prepare(entry, {})
            yield ready
            continue
        waiting[entry.item.key] = (entry, dict.fromkeys((a.key for a in files), None))
        for attachment in files:
            owner[attachment.key] = entry.item.key
            # A document that is an item of its own has no metadata but its file's (index/pdf_metadata.py)
            own = entry.item.item_type == "attachment"
            jobs.append(ParseJob(attachment, entry.item.field("language"), front_matter=own))
    if not jobs:
        return
    if tracker is not None:
        with tracker.doing(f"counting the pages of {len(jobs):,} files"):
            tracker.pages_to_read({job.attachment.key: page_count(job.attachment) for job in jobs})
    settings = pipeline.resources.settings
    workers = worker_count(settings.index_workers)
    # One OCR'd page uses the CPUs the other workers leave it (they mostly parse text layers, quickly).
    ocr = None if settings.ocr == "off" else OcrConfig(settings.ocr, max(1, available_cpus() // workers))
    outcomes_in_order = parse_many(
        jobs,
        workers=workers,
        timeout_s=settings.parse_timeout_s,
        page_timeout_s=settings.ocr_page_timeout_s,
        memory_mb=settings.parse_memory_mb,
        parser=parser,
        ocr=ocr,
        watch=tracker.watch if tracker is not None else None,
    )
    while True:
        with times.measure("parse (waiting for the workers)"):
            outcome = next(outcomes_in_order, None)
        if outcome is None:
            return
        if tracker is not None:
            tracker.file_done(outcome)
        item_key = owner[outcome.attachment_key]
        entry, outcomes = waiting[item_key]
        outcomes[outcome.attachment_key] = outcome
        parsed = {key: o for key, o in outcomes.items() if o is not None}
        if len(parsed) == len(outcomes):  # every file of the item is back
            del waiting[item_key]
            with times.measure("chunk"):
                ready = pipeline.prepare(entry, parsed)
            yield ready


def page_count(attachment: Attachment) -> int:
    """A file's pages for the ETA (a PDF's from its page tree, which pdfium reads without the pages; other
    files count one)."""
    path = attachment.path
    if path is None or not attachment.exists or not attachment.is_pdf:
        return 1
    try:
        document = pdfium.PdfDocument(path)
    except (pdfium.PdfiumError, OSError):  # damaged or encrypted: the worker says why
        return 1
    try:
        return len(document)
    finally:
        document.close()
