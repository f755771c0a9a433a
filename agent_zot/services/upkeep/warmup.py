"""Warm-up at server start: read the library and load what the first search needs (the query model, the
store, the routing tables) in a background thread, so the first question is answered at once and
`tools/list` is never delayed.

A request that arrives during the warm-up waits only for the part it needs (each part has its own lock),
and a warm-up that fails leaves the error for that request to report, with its message.
"""

from __future__ import annotations

import logging
import threading
import time
from functools import partial

from agent_zot.errors import AgentZotError
from agent_zot.services.context import AppContext

log = logging.getLogger(__name__)


def warm_up(ctx: AppContext) -> float:
    """Load the library, the routing tables, the resolver's tables and the index's query side; returns the
    seconds it took."""
    started = time.perf_counter()
    with ctx.request():
        try:
            library = ctx.library()
            from agent_zot.services import tools
            from agent_zot.services.resolve.match import warm_texts
            from agent_zot.services.resolve.paper_index import warm_paper_index
            from agent_zot.services.routing.examples import warm_examples

            warm_examples()
            tools.spec_for("zot_search")
            resources = ctx.index()
            if resources.exists():
                embedder = resources.embedder
                load_query = getattr(embedder, "load_query_model", embedder.load)
                load_query()
                resources.open()
            # Last: what a search needs comes first, and these tables grow with the library (seconds at
            # 20,000 items), while only requests that name a paper or an author read them. Built in pure
            # Python, they would share the GIL with a request that came in meanwhile: it goes first.
            pause = partial(ctx.wait_for_quiet, others=1)  # the warm-up is a request itself
            warm_texts(library, pause)
            warm_paper_index(library, pause)
        except AgentZotError as err:
            log.info("warm-up stopped (the first request will report it): %s", err.message)
    seconds = time.perf_counter() - started
    log.info("warm-up done in %.2f s", seconds)
    return seconds


def start_warm_up(ctx: AppContext) -> threading.Thread:
    thread = threading.Thread(target=warm_up, args=(ctx,), name="agent-zot-warm-up", daemon=True)
    thread.start()
    return thread
