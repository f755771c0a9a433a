"""A chunk's sentences as passages.py reads them: where each is, which are headings or stubs, the section
and the role each is under, how much of each is prose, and its BM25 terms. None of it depends on the
question, so the searches of one request that pick passages from the same chunks (a claim check's
refutation variants find the same papers) read each chunk once: a ``SentenceMemo`` shared between them.
Across requests, the chunks read last are kept (``ReadChunks``): an assistant asks its next question of the
papers it just asked about, and reading a chunk's sentences is most of what picking passages costs.
"""

from __future__ import annotations

import threading
from bisect import bisect_right
from collections import OrderedDict
from typing import Any

from agent_zot.index.sections import sentence_kinds, sentence_sections
from agent_zot.index.sentences import NUMBERED_HEADING, is_stub, names_a_section, prose_share, sentence_spans
from agent_zot.index.sparse import Bm25Encoder
from agent_zot.index.store import Hit, SparseVector, VectorStore
from agent_zot.ingest.headings import heading_lines, section_name
from agent_zot.ingest.section_kinds import payload_kind


def _line_holding(lines: list[tuple[int, int]], starts: list[int], a: int, b: int) -> tuple[int, int] | None:
    """The line of ``lines`` (in order, apart; ``starts`` their starts) that holds ``a``-``b``, if any."""
    i = bisect_right(starts, a) - 1
    return lines[i] if i >= 0 and b <= lines[i][1] else None


class ChunkSentences:
    """One chunk's sentences (``spans`` into ``text``); ``headings``: the indices of heading lines,
    numbered headings and stubs, never a passage's words."""

    __slots__ = ("_prose", "_sentences", "_terms", "headings", "kinds", "sections", "spans", "text")

    def __init__(self, payload: dict[str, Any]) -> None:
        text: str = payload.get("text", "")
        lines = heading_lines(text)
        spans = sentence_spans(text, lines)
        self.text, self.spans = text, spans
        self._sentences = [text[a:b] for a, b in spans]
        # a heading line the sentence split cut in two ("2." | "Data Description") is one heading
        starts = [start for start, _ in lines]
        line_of = [_line_holding(lines, starts, a, b) for a, b in spans]
        self.headings = frozenset(
            i
            for i, (a, b) in enumerate(spans)
            if line_of[i] or NUMBERED_HEADING.match(text[a:b]) or is_stub(text[a:b])
        )
        labels: dict[int, str] = {}
        for i in sorted(self.headings):
            line = line_of[i]
            label = text[line[0] : line[1]] if line else self._sentences[i]
            if (line is None or i == 0 or line_of[i - 1] != line) and names_a_section(label):
                labels[i] = label
        section = section_name(payload.get("section"))
        self.sections = sentence_sections(section, labels, len(spans))
        self.kinds = sentence_kinds(self.sections, self._sentences, (section, payload_kind(payload)))
        self._prose: list[float] | None = None
        self._terms: dict[tuple[float, float, float], list[SparseVector]] = {}

    def sentences(self) -> list[str]:
        return self._sentences

    def prose(self) -> list[float]:
        if self._prose is None:
            self._prose = [prose_share(sentence) for sentence in self.sentences()]
        return self._prose

    def terms(self, encoder: Bm25Encoder) -> list[SparseVector]:
        """Each sentence's BM25 weights by ``encoder`` (kept per encoder setting)."""
        key = (encoder.k1, encoder.b, encoder.avg_len)
        if key not in self._terms:
            self._terms[key] = encoder.encode_documents(self.sentences())
        return self._terms[key]


# Chunks whose reading is kept across requests: a question's first paper read in depth takes up to 48
# (query_vectors.DEEP_CANDIDATES) and the others 16 each, so this is some ten answers' worth (a kept reading
# with its terms and prose shares is about 13 KiB: 1,426 chunks of the z5 library took 18.4 MiB, so about
# 26 MiB when full).
CHUNKS_KEPT = 2048

_Key = tuple[str, str, Any, Any]


class ReadChunks:
    """The last ``CHUNKS_KEPT`` chunks read, by point id, text and section (what the reading depends on);
    shared by the threads of one index (a kept reading only ever fills in what it computes the same way)."""

    def __init__(self, size: int = CHUNKS_KEPT) -> None:
        self.size = size
        self._kept: OrderedDict[_Key, ChunkSentences] = OrderedDict()
        self._lock = threading.Lock()

    def __len__(self) -> int:
        return len(self._kept)

    def of(self, hit: Hit) -> ChunkSentences:
        payload = hit.payload
        key = (hit.id, payload.get("text", ""), payload.get("section"), payload.get("section_kind"))
        with self._lock:
            found = self._kept.get(key)
            if found is not None:
                self._kept.move_to_end(key)
                return found
        found = ChunkSentences(payload)
        with self._lock:
            self._kept[key] = found
            while len(self._kept) > self.size:
                self._kept.popitem(last=False)
        return found


class SentenceMemo:
    """Chunks read once per request, by point id and text: a hit whose text was made of several chunks
    (a run read as one) is not the chunk its id names. Also the whole payloads read for hits that came
    with a few fields (``whole``)."""

    def __init__(self, *, shared: bool = True, kept: ReadChunks | None = None) -> None:
        # One search alone reads each chunk once: keeping what it read would only cost memory and time
        # (``kept``, the index's readings kept across requests, does that for it).
        self.shared, self.kept = shared, kept
        self._chunks: dict[tuple[str, str], ChunkSentences] = {}
        self._payloads: dict[str, dict[str, Any]] = {}

    def __len__(self) -> int:
        """The chunks kept for the request's other searches."""
        return len(self._chunks)

    def whole(self, store: VectorStore, hits: list[Hit]) -> list[Hit]:
        """``hits`` with their whole payloads, each read from ``store`` once per request."""
        missing = [hit.id for hit in hits if hit.id not in self._payloads]
        if missing:
            self._payloads.update(store.payloads(missing))
        return [Hit(hit.id, hit.score, self._payloads.get(hit.id, hit.payload)) for hit in hits]

    def of(self, hit: Hit) -> ChunkSentences:
        if self.kept is not None:
            return self.kept.of(hit)
        if not self.shared:
            return ChunkSentences(hit.payload)
        key = (hit.id, hit.payload.get("text", ""))
        found = self._chunks.get(key)
        if found is None:
            found = self._chunks[key] = ChunkSentences(hit.payload)
        return found
