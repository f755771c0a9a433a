"""What one `update-db` run did: the counts, times and notes the CLI reports and the tools show."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any


@dataclass(slots=True)
class UpdateSummary:
    indexed: int = 0  # items whose files were parsed and chunks embedded again
    updated_in_place: int = 0  # items whose metadata changed: payloads rewritten, files left as they were
    unchanged: int = 0
    removed: int = 0
    pages: int = 0
    chunks: int = 0
    skipped: list[dict[str, str]] = field(
        default_factory=list
    )  # files not read from the file itself (a fallback, or none), and why
    failed: list[dict[str, str]] = field(default_factory=list)
    seconds: float = 0.0
    embed_seconds: float = 0.0  # time spent embedding (dense + sparse), model load excluded
    ocr_pages: int = 0  # pages without a usable text layer, read by OCR
    ocr_seconds: float = 0.0  # worker time those pages took (summed over the parse workers)
    model: str = ""
    engine: str = ""  # what ran the model: "torch (cpu)", "torch (cuda)", "onnx (cpu)"...; "" when idle
    engine_note: str = ""  # why a lighter engine ran and that its vectors are the index's own; "" otherwise
    store: str = ""
    graph: dict[str, float] | None = None  # what the knowledge graph holds after the run, when rebuilt
    notes: dict[str, Any] | None = None  # notes and annotations embedded, unchanged, removed (index/notes.py)
    graph_error: str | None = None  # the graph could not be updated (the index update still stands)
    repaired: str | None = None  # what the integrity check found damaged and this run repaired
    optimize_skipped: str | None = None  # the optimize step did not run for want of space
    # items of an index made before sentence vectors were kept, given theirs (index/sentence_backfill.py)
    sentence_vectors_added: int = 0
    sentence_vectors_left: int = 0  # and those left for the next update (sentence_backfill_minutes ran out)
    # items read again because this release reads their stored text differently (services/upkeep/reread.py)
    reread: int = 0
    reread_left: bool = False  # and the look for them goes on at the next update
    stages: dict[str, float] = field(default_factory=dict)  # wall seconds per stage (index/stages.py)

    def to_dict(self) -> dict[str, Any]:
        return {
            "indexed": self.indexed,
            "updated_in_place": self.updated_in_place,
            "unchanged": self.unchanged,
            "removed": self.removed,
            "pages": self.pages,
            "chunks": self.chunks,
            "skipped": self.skipped,
            "failed": self.failed,
            "seconds": round(self.seconds, 3),
            "embed_seconds": round(self.embed_seconds, 3),
            "ocr_pages": self.ocr_pages,
            "ocr_seconds": round(self.ocr_seconds, 3),
            "model": self.model,
            "engine": self.engine,
            "engine_note": self.engine_note,
            "store": self.store,
            "graph": self.graph,
            "graph_error": self.graph_error,
            "notes": self.notes,
            "repaired": self.repaired,
            "optimize_skipped": self.optimize_skipped,
            "sentence_vectors_added": self.sentence_vectors_added,
            "sentence_vectors_left": self.sentence_vectors_left,
            "reread": self.reread,
            "reread_left": self.reread_left,
            "stages": self.stages,
        }
