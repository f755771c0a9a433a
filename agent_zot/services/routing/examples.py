"""The fallback for requests no rule recognises: the mode of the most similar labelled requests.

Rules carry routing; they recognise the phrasings they were written for. A request none of them matches
(new wording, typos, non-native phrasing) used to get the tool's default mode. Instead it now gets the
mode its nearest labelled requests have (`examples.jsonl`: the labelled sets written by people who never
saw the rules, plus the rules' own labelled set; held-out requests are never in it). Similarity is cosine
over TF-IDF weighted character 3-5-grams (robust to typos and inflection) and whole words; the five most
similar requests vote with their similarity. Pure Python, deterministic; the examples are read once, on
the first request that needs them.
"""

from __future__ import annotations

import json
import math
import re
import threading
from collections import Counter, defaultdict
from functools import cache
from importlib import resources
from typing import Any

from .rules_explore import READING_GAP

NEIGHBOURS = 5
GAP_TOOL = "zot_explore_graph"
# How similar the nearest labelled request must be before its vote says "reading gap": chosen leaving each
# development request out in turn (34 of 36 reading-gap requests found, 1 of 315 others taken for one).
GAP_FLOOR = 0.25
ASKS_FOR_GAP = re.compile(READING_GAP, re.IGNORECASE)  # one wording for the route and the answer
_SPACES = re.compile(r"\s+")
_WORD = re.compile(r"\w+")

Vector = dict[str, float]


def _features(text: str) -> Counter[str]:
    padded = " " + _SPACES.sub(" ", text.lower()).strip() + " "
    found: Counter[str] = Counter()
    for size in (3, 4, 5):
        found.update(padded[i : i + size] for i in range(len(padded) - size + 1))
    for word in _WORD.findall(text.lower()):
        found["w:" + word] += 2  # whole words count more than the fragments they share with others
    return found


class NearestExamples:
    """Labelled requests per tool, as unit TF-IDF vectors."""

    def __init__(self, examples: list[tuple[str, str, str]]) -> None:
        counted = [(tool, _features(query), mode) for tool, query, mode in examples]
        frequency: Counter[str] = Counter()
        for _, features, _ in counted:
            frequency.update(features.keys())
        total = len(counted)
        self._idf = {f: math.log((1 + total) / (1 + n)) + 1 for f, n in frequency.items()}
        self._by_tool: dict[str, list[tuple[Vector, str]]] = defaultdict(list)
        for tool, features, mode in counted:
            self._by_tool[tool].append((self._unit(features), mode))

    def _unit(self, features: Counter[str]) -> Vector:
        weighted = {f: n * self._idf.get(f, 1.0) for f, n in features.items()}
        norm = math.sqrt(sum(w * w for w in weighted.values())) or 1.0
        return {f: w / norm for f, w in weighted.items()}

    def nearest_mode(self, tool: str, query: str) -> tuple[str, float] | None:
        """The mode the most similar labelled requests vote for, and the best similarity (0-1)."""
        labelled = self._by_tool.get(tool)
        if not labelled or not query.strip():
            return None
        wanted = self._unit(_features(query))
        scored = sorted(
            ((sum(wanted.get(f, 0.0) * w for f, w in vector.items()), mode) for vector, mode in labelled),
            key=lambda pair: -pair[0],
        )[:NEIGHBOURS]
        if not scored or scored[0][0] <= 0.0:
            return None
        votes: dict[str, float] = {}
        for similarity, mode in scored:
            votes[mode] = votes.get(mode, 0.0) + similarity
        return max(votes.items(), key=lambda vote: vote[1])[0], scored[0][0]


_lock = threading.Lock()


@cache
def _rows() -> tuple[dict[str, Any], ...]:
    """The packaged labelled requests, read once for both uses below."""
    text = resources.files(__package__).joinpath("examples.jsonl").read_text(encoding="utf-8")
    return tuple(json.loads(line) for line in text.splitlines() if line.strip())


@cache
def _packaged() -> NearestExamples:
    return NearestExamples([(row["tool"], row["query"], row["mode"]) for row in _rows() if row["mode"]])


@cache
def _gap_examples() -> NearestExamples:
    """The explore tool's labelled requests as reading-gap requests or others."""
    return NearestExamples(
        [
            (row["tool"], row["query"], "gap" if row.get("gap") else "other")
            for row in _rows()
            if row["tool"] == GAP_TOOL
        ]
    )


def warm_examples() -> None:
    """Build the labelled examples now (the server's warm-up) rather than on the first unclear request."""
    with _lock:
        _packaged()
        _gap_examples()


def asks_for_gap(text: str) -> bool:
    """Whether a request asks for the reading gap: in a wording the rules know, or most like the
    labelled reading-gap requests."""
    return bool(ASKS_FOR_GAP.search(text)) or reads_like_gap(text)[0]


def reads_like_gap(query: str) -> tuple[bool, float]:
    """Whether the labelled requests most like ``query`` are mostly reading-gap requests ("what should I
    add to my library?"), and how similar the nearest is: a wording no rule was written for."""
    with _lock:
        examples = _gap_examples()
    nearest = examples.nearest_mode(GAP_TOOL, query)
    if nearest is None:
        return False, 0.0
    return nearest[0] == "gap" and nearest[1] >= GAP_FLOOR, nearest[1]


def nearest_mode(tool: str, query: str) -> tuple[str, float] | None:
    with _lock:  # build once even when several threads route at the same moment
        examples = _packaged()
    return examples.nearest_mode(tool, query)
