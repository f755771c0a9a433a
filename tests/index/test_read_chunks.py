"""The chunks read last are kept across requests (``ReadChunks``): by point id, text and section, the
oldest let go past the size; reading from them gives what reading afresh gives."""

from __future__ import annotations

from agent_zot.index.chunk_sentences import ChunkSentences, ReadChunks, SentenceMemo
from agent_zot.index.store import Hit

TEXT = "3 Results\nThe band recorded the heart rate at night. Sleep hours were chosen to avoid motion."


def _hit(point: str, text: str = TEXT, section: str | None = "3 Results") -> Hit:
    return Hit(point, 0.0, {"text": text, "section": section, "section_kind": "results"})


def test_a_chunk_read_again_is_the_reading_kept() -> None:
    kept = ReadChunks(size=4)
    first = kept.of(_hit("a"))
    assert kept.of(_hit("a")) is first and len(kept) == 1
    # what the reading depends on changed: read afresh
    assert kept.of(_hit("a", text=TEXT + " More.")) is not first
    assert kept.of(_hit("a", section="4 Discussion")) is not first
    assert len(kept) == 3


def test_the_oldest_reading_goes_past_the_size() -> None:
    kept = ReadChunks(size=2)
    a = kept.of(_hit("a"))
    kept.of(_hit("b"))
    assert kept.of(_hit("a")) is a  # used again: now the newest
    kept.of(_hit("c"))  # b, the oldest, goes
    assert len(kept) == 2
    assert kept.of(_hit("a")) is a
    assert kept.of(_hit("b")) is not None and len(kept) == 2


def test_a_kept_reading_is_what_reading_afresh_gives() -> None:
    memo = SentenceMemo(shared=False, kept=ReadChunks())
    kept, fresh = memo.of(_hit("a")), ChunkSentences(_hit("a").payload)
    assert kept.spans == fresh.spans and kept.headings == fresh.headings
    assert kept.sections == fresh.sections and kept.kinds == fresh.kinds
    assert kept.prose() == fresh.prose()
