"""Which engine embeds an update's documents, and what the update's summary says about it.

A small update runs on the model's ONNX export when there is one (no torch import); a larger one, such
as a first build, takes the engine that suits this machine's CPU (index/engine_probe.py), so the build
process imports torch only where torch is clearly the faster engine, or on an accelerator.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass

from agent_zot.errors import AgentZotError
from agent_zot.index.changes import ItemWork
from agent_zot.index.embed import Embedder

log = logging.getLogger(__name__)

# An update expected to embed fewer chunks than this runs on the model's ONNX export (when it has one):
# importing torch costs 5-10 s, about what torch's forward pass saves over ~1,000 chunks where torch is
# the faster engine (some Intel CPUs; on others the export is, by up to 1.8x).
SMALL_UPDATE_CHUNKS = 500
CHUNKS_PER_FILE = 50  # a typical paper's chunks (930 for the 18 shared PDFs), for the estimate above


@dataclass(frozen=True, slots=True)
class EngineChoice:
    small: bool  # expected to embed fewer than SMALL_UPDATE_CHUNKS chunks
    light: bool  # a small update on the export, without torch


def choose_engine(embedder: Embedder, full: list[ItemWork], retext: int, *, fulltext: bool) -> EngineChoice:
    """Choose the engine for an update that re-indexes ``full`` in full and embeds ``retext`` metadata
    points again in place, and start loading it in the background when the update embeds anything."""
    files = sum(len(entry.attachments) for entry in full) if fulltext else 0
    return engine_for(embedder, len(full) + retext + CHUNKS_PER_FILE * files)


def engine_for(embedder: Embedder, chunks: int) -> EngineChoice:
    """Choose the engine for embedding about ``chunks`` chunks (see ``choose_engine``)."""
    small = chunks < SMALL_UPDATE_CHUNKS
    embeds = chunks > 0
    use_export = getattr(embedder, "use_export_for_documents", None)
    light = embeds and small and use_export is not None and bool(use_export())
    if embeds and not light:
        if not small and (for_build := getattr(embedder, "choose_engine_for_build", None)):
            for_build()
        _load_in_background(embedder)
    return EngineChoice(small=small, light=light)


def engine_note(embedder: Embedder, choice: EngineChoice) -> str:
    """The summary's one line on the engine: why it ran and that its vectors are the index's own."""
    note = str(getattr(embedder, "engine_note", ""))
    if note and choice.light:
        return f"{note}; used for updates under {SMALL_UPDATE_CHUNKS} chunks, to skip loading torch (5-10 s)"
    return note


def release_engine(embedder: Embedder, choice: EngineChoice) -> None:
    """Before the graph stage of a large update: drop the export's session if it embedded the update."""
    if not choice.small and (drop := getattr(embedder, "release_build_engine", None)):
        drop()


def _load_in_background(embedder: Embedder) -> None:
    """Load the model while the workers parse the first files, so the load costs no wall time.

    A failure is left for the first embedding call to raise again, with its message, in the main thread.
    """

    def load() -> None:
        try:
            embedder.load()
        except AgentZotError as err:  # a missing model or device: written for the user, said again there
            log.debug("background model load failed (the first embedding call reports it): %s", err)

    threading.Thread(target=load, name="agent-zot-model-load", daemon=True).start()
