"""Warm-up at server start: load what the first search needs (the query model, the store and its integrity
check, the library, the routing tables, the search's own modules) in a background thread that `serve`
starts once the server is built (after its imports, which it would otherwise slow down: they share the
GIL), so that the first question is answered at once and `initialize` and `tools/list` never wait for it.

A request that arrives during the warm-up waits only for the part it needs (each part has its own lock, so
nothing loads twice); a plain search does not wait for the library at all (it answers from the index,
and says so), and the library's read waits for it. A warm-up that fails leaves the error for that
request to report, with its message. The warm-up counts as a request from the moment it is started: the
watcher's first look at the library (and the update process it starts) waits until it is done.
"""

from __future__ import annotations

import gc
import logging
import threading
import time
from functools import partial

from agent_zot.errors import AgentZotError
from agent_zot.services.context import AppContext

log = logging.getLogger(__name__)


def warm_up(ctx: AppContext, started: threading.Event | None = None) -> float:
    """Load the index's query side, the library, the routing tables and the resolver's tables; returns the
    seconds it took. ``started`` is set once the warm-up counts as a request."""
    began = time.perf_counter()
    with ctx.request():
        if started is not None:
            started.set()
        try:
            _warm(ctx)
        except AgentZotError as err:
            log.info("warm-up stopped (the first request will report it): %s", err.message)
    seconds = time.perf_counter() - began
    log.info("warm-up done in %.2f s", seconds)
    return seconds


def _warm(ctx: AppContext) -> None:
    from agent_zot.services import tools
    from agent_zot.services.routing.examples import warm_examples

    # Until the library is read, a plain search answers from the index (services/search/answer.py): the
    # read holds the interpreter 0.5-1 s at 100,000 items, which a first answer does without.
    with ctx.reading_library():
        # First what a search waits longest for, none of which needs the library (a request checks that
        # the index is this library's before it answers): the index's query side, the routing tables,
        # the search's modules.
        resources = ctx.index_resources()
        if resources.exists():
            embedder = resources.embedder
            load_query = getattr(embedder, "load_query_model", embedder.load)
            load_query()
            resources.open()
            ctx.check_integrity()
        warm_examples()
        tools.spec_for("zot_search")
        tools.PRELOADS["zot_search"]()
        # A request that came meanwhile goes first: the read would share the interpreter with it.
        ctx.wait_for_quiet(others=1)  # the warm-up is a request itself
        library = ctx.library()
    from agent_zot.services.resolve.match import warm_texts
    from agent_zot.services.resolve.paper_index import warm_paper_index
    from agent_zot.services.watch.freshness import index_lag

    if resources.exists():
        index_lag(ctx)  # every answer from the index says whether it is behind the library
    # Last: these tables grow with the library (seconds at 20,000 items), while only requests that name a
    # paper or an author read them. Built in pure Python, they would share the GIL with a request that
    # came in meanwhile: it goes first.
    pause = partial(ctx.wait_for_quiet, others=1)  # the warm-up is a request itself
    warm_texts(library, pause)
    warm_paper_index(library, pause)


def start_warm_up(ctx: AppContext, *, collector_paused: bool = False) -> threading.Thread:
    """The warm-up in a thread, counted as a request before this returns. ``collector_paused``: the
    caller turned off the cyclic garbage collector for the start (see `serve`); it is turned back on
    when the warm-up ends."""

    def run() -> None:
        try:
            warm_up(ctx, started)
        finally:
            started.set()  # also when it failed before counting itself
            if collector_paused:
                resume_collector()

    started = threading.Event()
    thread = threading.Thread(target=run, name="agent-zot-warm-up", daemon=True)
    thread.start()
    started.wait()
    return thread


def pause_collector() -> None:
    """Off during a server's start: what a start makes (modules, classes, the tools' schemas, the
    library) lives as long as the process, and the collector walked it again and again meanwhile (about
    a fifth of the imports' CPU time)."""
    gc.disable()


def resume_collector() -> None:
    """On again, with what lives now kept out of later collections (`gc.freeze`): it is there for good,
    and every full collection would otherwise walk it once more."""
    gc.freeze()
    gc.enable()
