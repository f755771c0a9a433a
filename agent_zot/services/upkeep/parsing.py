"""Parsing the files of the items `update-db` re-indexes in full, in worker processes (ingest/pool.py: a
hung or hostile file is killed and reported), handing each item on as soon as all its files are parsed."""

from __future__ import annotations

from collections.abc import Iterator

from agent_zot.hardware import available_cpus, worker_count
from agent_zot.index.changes import ItemWork
from agent_zot.index.pipeline import IndexPipeline, ParsedItem
from agent_zot.ingest import ParseJob, ParseOutcome, parse_many
from agent_zot.ingest.ocr import OcrConfig


def parsed_items(
    work: list[ItemWork], pipeline: IndexPipeline, *, fulltext: bool, parser: str
) -> Iterator[ParsedItem]:
    """Yield items as soon as all their attachments are parsed (metadata-only items at once); without
    ``fulltext`` no file is parsed."""
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
    settings = pipeline.resources.settings
    workers = worker_count(settings.index_workers)
    # One OCR'd page uses the CPUs the other workers leave it (they mostly parse text layers, quickly).
    ocr = None if settings.ocr == "off" else OcrConfig(settings.ocr, max(1, available_cpus() // workers))
    outcomes_in_order = parse_many(
        jobs,
        workers=workers,
        timeout_s=settings.parse_timeout_s,
        memory_mb=settings.parse_memory_mb,
        parser=parser,
        ocr=ocr,
    )
    while True:
        with times.measure("parse (waiting for the workers)"):
            outcome = next(outcomes_in_order, None)
        if outcome is None:
            return
        item_key = owner[outcome.attachment_key]
        entry, outcomes = waiting[item_key]
        outcomes[outcome.attachment_key] = outcome
        parsed = {key: o for key, o in outcomes.items() if o is not None}
        if len(parsed) == len(outcomes):  # every file of the item is back
            del waiting[item_key]
            with times.measure("chunk"):
                ready = pipeline.prepare(entry, parsed)
            yield ready
