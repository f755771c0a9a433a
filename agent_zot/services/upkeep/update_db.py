"""`agent-zot update-db`: bring the full-text index up to date with the library, incrementally.

This module plans the update (`index/changes.py` says what each change touches) and runs it: metadata
edits in place first, then items re-indexed in full, whose files `services/upkeep/parsing.py` parses in worker
processes; `index/pipeline.py` chunks parsed items, embeds them in batches across items, replaces each
item's points and records the item in the state database only after its points are stored, so an
interrupted run simply continues next time.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from agent_zot.errors import AgentZotError, NotFoundError
from agent_zot.graph.facts import FACTS_VERSION
from agent_zot.graph.model import GRAPH_BUILD
from agent_zot.hardware import worker_count
from agent_zot.index.changes import (
    LIBRARY_STAMP,
    METADATA,
    changed_since_indexed,
    library_stamp,
    plan_update,
)
from agent_zot.index.heap import release_free_heap
from agent_zot.index.integrity import UPDATE_LOCK, IntegrityReport, check_index
from agent_zot.index.notes import update_notes
from agent_zot.index.owner import check_library, record_library
from agent_zot.index.pipeline import RELEASE_STAGE, IndexPipeline, ParsedItem
from agent_zot.index.resources import IndexResources
from agent_zot.index.sentence_backfill import backfill_sentence_vectors, needs_backfill
from agent_zot.index.space import (
    MARGIN,
    check_space,
    disk_full_error,
    disk_usage,
    free_bytes,
    is_disk_full,
    needed_bytes,
)
from agent_zot.index.stages import StageTimes
from agent_zot.ingest import READER_VERSION
from agent_zot.locks import open_lock_file, try_lock, unlock
from agent_zot.services.upkeep.engine_choice import choose_engine, engine_for, engine_note, release_engine
from agent_zot.services.upkeep.parsing import parsed_items
from agent_zot.services.upkeep.progress import Progress, ProgressTracker
from agent_zot.services.upkeep.reread import Reread, record, to_reread
from agent_zot.services.upkeep.unread import partly_read
from agent_zot.services.upkeep.update_summary import UpdateSummary
from agent_zot.state.index import IndexState
from agent_zot.zotero.file_metadata import FILE_METADATA_VERSION, with_file_metadata
from agent_zot.zotero.models import Library

if TYPE_CHECKING:
    from agent_zot.graph.resources import GraphResources

log = logging.getLogger(__name__)

__all__ = ["Progress", "UpdateBusyError", "UpdateOptions", "UpdateSummary", "update_index"]

EMBED_BATCH_CHUNKS = 128  # chunks embedded together (across items) before their items are stored
IN_PLACE_BATCH = 256  # items updated in place per embedding call and state transaction
# Metadata points embedded again in place, above which the store is optimized as after a full update
OPTIMIZE_AFTER_CHUNKS = 1_000


@dataclass(frozen=True, slots=True)
class UpdateOptions:
    fulltext: bool = True
    force_rebuild: bool = False
    limit: int | None = None
    item_keys: tuple[str, ...] = ()
    parser: str = "pdfium"
    wait: bool = True  # for another update of this index to finish; False: refuse at once (the watcher)
    # Count every point against the state before planning (index/integrity.py); the watcher's frequent
    # runs take the quick check and go thorough only when it finds damage
    thorough_check: bool = True
    retry_failed: bool = False  # read again every file an update could not read or read in part


class UpdateBusyError(AgentZotError):
    """Another update of this index is running."""


def update_index(
    library: Library,
    resources: IndexResources,
    options: UpdateOptions,
    *,
    on_progress: Callable[[Progress], None] | None = None,
    graph: GraphResources | None = None,
) -> UpdateSummary:
    """Index what changed; then, when anything changed (or the graph is still empty), rebuild the graph.

    ``force_rebuild`` builds a new generation of the index beside the live one (which keeps answering)
    and makes it live when complete; see index/generations.py."""
    unknown = [key for key in options.item_keys if key not in library.items]
    if unknown:
        raise NotFoundError(
            f"No item with key {', '.join(unknown[:5])} in this library; nothing was indexed.",
            hint="Item keys are 8 characters, as `agent-zot status` or a search answer shows them.",
        )
    repaired = resources.layout.repair_pointer()  # before the sweep, which keeps only the live one
    resources.sweep()  # generations left behind by earlier rebuilds and their users
    if not options.force_rebuild:
        with _one_update_at_a_time(resources.folder, wait=options.wait):
            found = check_index(resources, thorough=options.thorough_check)
            if not found.ok and not found.thorough:
                found = check_index(resources, thorough=True)
            if not found.state_unreadable:
                check_library(resources.state, library)
                repaired = "; ".join(r for r in (repaired, _repair(resources, found)) if r) or None
                with _disk_full_named(resources.folder):
                    summary = _update(library, resources, options, on_progress, graph)
                summary.repaired = repaired
                return summary
        # The state database is unreadable: build a new generation beside it (searches keep answering
        # from what is left until it is live).
        log.warning("the index state database is damaged; rebuilding the index")
        repaired = f"{found.describe()}: the index was rebuilt"
        options = replace(options, force_rebuild=True, item_keys=(), limit=None)
    with resources.layout.rebuild() as job:  # one rebuild at a time; updates of the live index go on

        def report(progress: Progress) -> None:
            job.report(progress.items_done, progress.items_total)
            if on_progress is not None:
                on_progress(progress)

        target = IndexResources(resources.settings, job.generation, models_from=resources)
        target_graph = graph.for_state(target.folder / "state.sqlite") if graph is not None else None
        try:
            if repaired is None:
                _carry_facts(resources, target, library)
            with _disk_full_named(target.folder):
                summary = _update(library, target, options, report, target_graph)
            summary.repaired = repaired
            job.publish()
        finally:
            if target_graph is not None:
                target_graph.close()
            target.close()
    resources.close()  # this process is done with the old generation; it is deleted once no other uses it
    resources.sweep()
    return summary


@contextmanager
def _disk_full_named(folder: Path) -> Iterator[None]:
    """A write that failed because the disk is full becomes a message that says so and what to do; every
    other error goes on as it was. (The embedded store reports OS errors as plain Exceptions.)"""
    try:
        yield
    except Exception as err:
        if is_disk_full(err):
            raise disk_full_error(folder, free_bytes(folder)) from err
        raise


@contextmanager
def _one_update_at_a_time(folder: Path, *, wait: bool) -> Iterator[None]:
    """One update of an index generation at a time (a manual update-db and the watcher's, or two
    servers' watchers racing at start): two would parse and embed the same items twice and interleave
    their writes."""
    folder.mkdir(parents=True, exist_ok=True)
    with open_lock_file(folder / UPDATE_LOCK) as handle:
        told = False
        while not try_lock(handle):
            if not wait:
                raise UpdateBusyError(
                    "Another update of this index is running.",
                    hint="It indexes the same changes; nothing to do until it finishes.",
                )
            if not told:
                log.warning("another update of this index is running; waiting for it to finish")
                told = True
            time.sleep(0.5)
        try:
            yield
        finally:
            unlock(handle)


def _to_retry(state: IndexState, options: UpdateOptions, library: Library) -> set[str]:
    """Items whose files an update could not read, or read only in part, and this one reads again: all
    with --retry-failed or after an upgrade whose reader reads more (``READER_VERSION``), and those named
    with --item (asking for an item by name is asking for it to be read). Once, documents that are items of their own, indexed
    before their title and authors were read from the file (zotero/file_metadata.py)."""
    own: set[str] = set()
    if options.fulltext and state.get_meta("file_metadata") != FILE_METADATA_VERSION:
        own = {key for key, item in library.items.items() if item.item_type == "attachment"}
    upgraded = options.fulltext and state.get_meta("reader_version") != str(READER_VERSION)
    if not options.retry_failed and not options.item_keys and not upgraded:
        return own
    unread = {r.item_key for r in [*state.unread_files(), *partly_read(state.indexed_with_reasons())]}
    if options.retry_failed or upgraded:
        return own | unread
    return own | (unread & {key.upper() for key in options.item_keys})


def _rereading(state: IndexState, options: UpdateOptions, most: int, library: Library) -> Reread:
    """The files an earlier release read otherwise, to read again in this run: looked for only by a
    complete full-text run (a rebuild reads every file anyway, and then records the text version)."""
    if not options.fulltext or options.item_keys or options.limit is not None:
        return Reread()
    if options.force_rebuild:
        return Reread(since=-1)  # every file is read this run

    def files() -> dict[str, Path]:  # only when an earlier release's index is to be looked through
        return {a.key: a.path for a in library.attachments if a.path is not None and a.is_pdf}

    return to_reread(state, most, files=files)


def _carry_facts(live: IndexResources, target: IndexResources, library: Library) -> None:
    """A rebuild keeps the live index's cached graph facts (keyed by item fingerprint, so only those of
    unchanged items are used): reference extraction and keyphrases are not redone for every paper."""
    if not live.exists() or live.state.get_meta("library") != library.identity:
        return
    from agent_zot.graph.facts import FactsCache

    cache = FactsCache(target.state.path)
    try:
        cache.copy_from(live.state.path)
    finally:
        cache.close()


def _update(
    library: Library,
    resources: IndexResources,
    options: UpdateOptions,
    on_progress: Callable[[Progress], None] | None,
    graph: GraphResources | None,
) -> UpdateSummary:
    settings = resources.settings
    workers = worker_count(settings.index_workers)
    tracker = ProgressTracker(on_progress, interval_s=settings.progress_interval_s, workers=workers)
    with tracker.heartbeat():  # never silent for long, whichever step runs
        return _run(library, resources, options, tracker, graph)


def _run(
    library: Library,
    resources: IndexResources,
    options: UpdateOptions,
    tracker: ProgressTracker,
    graph: GraphResources | None,
) -> UpdateSummary:
    started = time.perf_counter()
    times = StageTimes()
    summary = UpdateSummary(model=resources.embedder.name, store=resources.settings.vector_store)
    state = resources.state
    resources.open()

    reread = _rereading(state, options, resources.settings.text_reread_items, library)
    plan = plan_update(
        library,
        state.item_fingerprints(),
        state.attachment_fingerprints(),
        state.attachments_by_item(),
        force=options.force_rebuild,
        only=options.item_keys or None,
        limit=options.limit,
        fulltext=options.fulltext,
        retry=_to_retry(state, options, library) | reread.items,
        changed_since_indexed=changed_since_indexed(state.get_meta(LIBRARY_STAMP), library),
    )
    summary.unchanged = plan.unchanged
    full = plan.full
    if plan.work:
        files = sum(len(entry.attachments) for entry in full) if options.fulltext else 0
        check_space(resources.folder, needed_bytes(files, len(plan.work)))
    in_place = plan.in_place
    retext = sum(1 for w in in_place if w.scope == METADATA)  # metadata points to embed again
    engine = choose_engine(resources.embedder, full, retext, fulltext=options.fulltext)
    if plan.removed:
        resources.store.delete_items(plan.removed)
        state.forget_items(plan.removed)
        summary.removed = len(plan.removed)

    pipeline = IndexPipeline(resources, times)
    # Metadata edits first: they cost milliseconds an item, and are then searchable at once
    for start in range(0, len(in_place), IN_PLACE_BATCH):
        with tracker.doing(f"metadata in place: {start:,} of {len(in_place):,} items"):
            refreshed = pipeline.refresh(in_place[start : start + IN_PLACE_BATCH])
        summary.updated_in_place += refreshed.items
        summary.chunks += refreshed.chunks
        summary.embed_seconds += refreshed.embed_seconds
    graph_patch = [w.item for w in in_place if w.graph_local]
    graph_rebuild = any(not w.graph_local for w in in_place)
    batch: list[ParsedItem] = []
    total = len(full)
    tracker.items(0, total, summary.chunks)
    parsed = parsed_items(full, pipeline, fulltext=options.fulltext, parser=options.parser, tracker=tracker)
    for ready in parsed:
        summary.failed += ready.failed
        summary.skipped += ready.skipped
        batch.append(ready)
        if sum(len(r.chunks) for r in batch) >= EMBED_BATCH_CHUNKS:
            _store(pipeline, batch, summary, tracker)
            batch = []
            tracker.items(summary.indexed, total, summary.chunks)
    _store(pipeline, batch, summary, tracker)
    tracker.items(summary.indexed, total, summary.chunks)
    library = with_file_metadata(library, state.front_matter())  # what this run read, for the graph

    # Notes and annotations are short and cheap to embed, so --limit and --no-fulltext leave them be;
    # --item looks at that item's only.
    with times.measure("notes and annotations"), tracker.doing("embedding notes and annotations"):
        notes = update_notes(
            library, resources, only_items=options.item_keys or None, on_progress=tracker.notes
        )
    summary.notes = notes.to_dict()
    if (
        options.fulltext
        and not options.item_keys
        and options.limit is None
        and resources.settings.sentence_backfill_minutes > 0
        and needs_backfill(resources)
    ):
        _backfill(resources, summary, tracker, times)
    if summary.chunks or notes.indexed:
        summary.engine = getattr(resources.embedder, "engine", "")
        summary.engine_note = engine_note(resources.embedder, engine)
    if summary.indexed or notes.indexed or summary.chunks >= OPTIMIZE_AFTER_CHUNKS:
        store_size = disk_usage(resources.folder / "vectors")
        if free_bytes(resources.folder) < store_size + MARGIN:
            # Optimizing rewrites the store's segments; searches work without it, at some speed cost
            summary.optimize_skipped = (
                f"skipped optimizing the vector store: it needs about {store_size / 1e6:,.0f} MB free"
            )
            log.warning(summary.optimize_skipped)
        else:
            with times.measure("vector store writes"):
                resources.store.optimize()
    record_library(state, library)
    state.set_meta("model", summary.model)
    state.set_meta("store", summary.store)
    state.set_meta("updated_at", time.strftime("%Y-%m-%d %H:%M:%S"))
    if not options.item_keys and options.limit is None:
        # What a complete run indexes: the answers' "index is behind" note compares the library with it.
        state.set_meta("fulltext", "1" if options.fulltext else "0")
        state.set_meta(LIBRARY_STAMP, library_stamp(library))
        if options.fulltext:  # every unread file was tried by this release's reader
            state.set_meta("reader_version", str(READER_VERSION))
            state.set_meta("file_metadata", FILE_METADATA_VERSION)
            record(state, reread)
            summary.reread, summary.reread_left = len(reread.items), not reread.through
    if graph is not None:
        # built by an older agent-zot, or without the memo an edit patches it from
        outdated = state.get_meta("graph_build") != _GRAPH_MADE_BY or not graph.memo_is_current()
        with tracker.doing("updating the knowledge graph"):
            if summary.indexed or summary.removed or graph_rebuild or outdated or graph.is_empty():
                with times.measure(RELEASE_STAGE):
                    release_engine(resources.embedder, engine)  # the export's session, if it embedded
                    release_free_heap()  # what embedding freed, before the graph allocates its own
                _update_graph(graph, library, state, summary, times, rebuild=outdated)
            elif graph_patch:  # tags and collections only: the papers' own nodes and edges
                _patch_graph(graph, library, graph_patch, summary, times)
    prepare_queries = getattr(resources.embedder, "prepare_query_model", None)
    if prepare_queries is not None and (summary.indexed or plan.unchanged):
        with times.measure("query model export"):
            prepare_queries()  # once per model: servers then answer their first query without torch
    summary.seconds = time.perf_counter() - started
    summary.stages = times.to_dict()
    return summary


def _backfill(
    resources: IndexResources, summary: UpdateSummary, tracker: ProgressTracker, times: StageTimes
) -> None:
    """An index made before sentence vectors were kept gets them from its stored chunks' text, for as long
    as ``sentence_backfill_minutes`` allows a run; the next run goes on."""
    lacking = resources.state.items_without_sentence_vectors()
    # the engine an update of that many chunks would take: the export for a few, the faster one for many
    choice = engine_for(resources.embedder, sum(lacking.values()))
    step = f"adding sentence vectors to {len(lacking):,} items indexed before they were kept"
    with times.measure("sentence vectors for earlier items"), tracker.doing(step):
        done = backfill_sentence_vectors(
            resources,
            list(lacking),
            budget_s=resources.settings.sentence_backfill_minutes * 60,
            on_item=lambda items: tracker.now_doing(f"{step}: {items:,} done"),
        )
    with times.measure(RELEASE_STAGE):
        release_engine(resources.embedder, choice)
    summary.sentence_vectors_added = done.items
    summary.sentence_vectors_left = done.left


def _repair(resources: IndexResources, found: IntegrityReport) -> str | None:
    """Make the state database and the vector store agree again before planning: items and notes whose
    points are missing are forgotten (so this run embeds them again) and points nobody recorded are
    dropped. Returns what was repaired, for the summary."""
    if found.ok:
        return None
    if found.damaged_query_model is not None:  # made again by prepare_query_model, later in this run
        found.damaged_query_model.unlink(missing_ok=True)
    state, store = resources.state, resources.store
    again = found.missing_items + found.missing_notes
    if again:
        store.delete_items(again)  # their partial points, if any
        state.forget_items(found.missing_items)
        state.forget_notes(found.missing_notes)
    if found.orphan_keys:
        store.delete_items(found.orphan_keys)
    log.warning("repairing the index: %s", found.describe())
    done = [f"re-embedding {len(again):,} items and notes"] if again else []
    if found.orphan_keys:
        done.append(f"dropped the points of {len(found.orphan_keys):,} unknown keys")
    if found.damaged_query_model is not None:
        done.append("exporting the query model again")
    return f"{found.describe()}: {', '.join(done)}"


# The versions of what makes the graph: its assembly and the per-paper facts (a better reference parser
# reads the same stored text anew); a graph either changed is rebuilt at the next update-db.
_GRAPH_MADE_BY = f"{GRAPH_BUILD}.{FACTS_VERSION}"


def _update_graph(
    graph: GraphResources,
    library: Library,
    state: Any,
    summary: UpdateSummary,
    times: StageTimes,
    *,
    rebuild: bool,
) -> None:
    started = time.perf_counter()
    try:
        built: dict[str, float] = {**graph.update(library, state, times, rebuild=rebuild).to_dict()}
        built["seconds"] = round(time.perf_counter() - started, 3)
        summary.graph = built
        state.set_meta("graph_build", _GRAPH_MADE_BY)
    except AgentZotError as err:  # e.g. Neo4j or Ollama down: the index is fine, say what failed
        summary.graph_error = str(err)
        log.warning("knowledge graph not updated: %s", err)


def _patch_graph(
    graph: GraphResources, library: Library, items: list[Any], summary: UpdateSummary, times: StageTimes
) -> None:
    started = time.perf_counter()
    try:
        with times.measure("graph: patch"):
            summary.graph = graph.patch_papers(library, items)
        summary.graph["seconds"] = round(time.perf_counter() - started, 3)
    except AgentZotError as err:
        summary.graph_error = str(err)
        log.warning("knowledge graph not updated: %s", err)


def _store(
    pipeline: IndexPipeline, batch: list[ParsedItem], summary: UpdateSummary, tracker: ProgressTracker
) -> None:
    """Embed and store a batch; the heartbeat says so meanwhile (a batch takes seconds on a busy CPU)."""
    chunks = sum(len(ready.chunks) for ready in batch)
    with tracker.doing(f"embedding {chunks:,} chunks"):
        stored = pipeline.store(batch)
    summary.indexed += stored.items
    summary.chunks += stored.chunks
    summary.pages += stored.pages
    summary.embed_seconds += stored.embed_seconds
    summary.ocr_pages += stored.ocr_pages
    summary.ocr_seconds += stored.ocr_seconds
