"""Merging the papers' keyphrases into the library's concepts, from scratch or by what changed.

Merging joins equal keys, near-duplicates of the same head word, and an acronym with the expansion the
library defines for it one way only ("long short-term memory (LSTM)"). A `ConceptLedger` keeps what merging
derives from each paper (its top keys, the surface forms it wrote, the acronyms and dataset names its title
and abstract define) and the near-duplicate pairs among all keys: the costly parts. Merging from the ledger
re-runs only the cheap library-wide steps (grouping, choosing acronyms), so `ConceptLedger.update` after an
edit costs that paper's share and one pass over the keys, and says which concepts and papers changed: a
graph patched with them equals a rebuild.
"""

from __future__ import annotations

import json
from collections import Counter, defaultdict
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass, field

import numpy as np
from rapidfuzz import fuzz, process

from agent_zot.graph.concepts import NEAR_DUPLICATE, concept_type, dataset_names, normalise_concept
from agent_zot.graph.model import ConceptType
from agent_zot.text import acronym_definitions

TOP_K = 10  # concepts kept per paper
LEDGER_VERSION = 2


@dataclass(slots=True)
class Concept:
    key: str
    name: str  # display: the most frequent surface form
    type: ConceptType = ConceptType.CONCEPT
    aliases: list[str] = field(default_factory=list)  # other keys and surface forms merged into this one
    papers: dict[str, float] = field(default_factory=dict)  # paper key -> weight

    @property
    def doc_freq(self) -> int:
        return len(self.papers)


@dataclass(slots=True)
class ConceptSet:
    concepts: dict[str, Concept]
    per_paper: dict[str, list[tuple[str, float]]]  # paper key -> (concept key, weight), best first
    alias_to_key: dict[str, str]

    def __len__(self) -> int:
        return len(self.concepts)

    def __iter__(self) -> Iterator[Concept]:
        return iter(self.concepts.values())

    def __getitem__(self, key: str) -> Concept:
        return self.concepts[key]

    def key_for(self, phrase: str) -> str | None:
        """The concept key a phrase (any surface form, alias or acronym seen) resolves to."""
        key = normalise_concept(phrase)
        return self.alias_to_key.get(key) if key else None


def merge_concepts(
    per_paper: dict[str, list[tuple[str, float]]],
    *,
    texts: dict[str, str] | None = None,
    top_k: int = TOP_K,
) -> ConceptSet:
    """Merge per-paper keyphrases into concepts; ``texts`` (title and abstract) show acronym definitions."""
    return ConceptLedger.build(per_paper, texts or {}, top_k=top_k).concept_set()


# --- what one paper contributes ------------------------------------------------------------------------------


@dataclass(slots=True)
class PaperShare:
    """What merging reads from one paper, derived once from its keyphrases and text."""

    keys: dict[str, float]  # its top keys and their weights
    surfaces: list[tuple[str, str]]  # (key, surface form) of every phrase it gave, as written
    acronyms: list[tuple[str, str]]  # (acronym key, expansion key) its text defines
    datasets: list[str]  # keys of the names its text calls a dataset, corpus or benchmark

    def touched(self) -> set[str]:
        """Every key whose concept this paper's share can change."""
        return {*self.keys, *(k for k, _ in self.surfaces), *(k for pair in self.acronyms for k in pair)}

    def to_list(self) -> list[str]:
        """Four lines-of-fields strings for the ledger, far quicker to read back than nested JSON (keys and
        surfaces hold neither tabs nor newlines); a surface written as its key, nearly all of them, is
        the key alone."""
        return [
            "\n".join(f"{k}\t{w!r}" for k, w in self.keys.items()),
            "\n".join(k if k == s else f"{k}\t{s}" for k, s in self.surfaces),
            "\n".join(f"{a}\t{b}" for a, b in self.acronyms),
            "\n".join(self.datasets),
        ]

    @classmethod
    def from_list(cls, data: list[str]) -> PaperShare:
        keys, surfaces, acronyms, datasets = (part.split("\n") if part else [] for part in data)
        weights = {}
        for line in keys:
            key, _, weight = line.partition("\t")
            weights[key] = float(weight)
        written = []
        for line in surfaces:
            key, tab, surface = line.partition("\t")
            written.append((key, surface if tab else key))
        pairs = [(a, b) for a, _, b in (line.partition("\t") for line in acronyms)]
        return cls(weights, written, pairs, datasets)


def paper_share(phrases: Iterable[tuple[str, float]], text: str, *, top_k: int = TOP_K) -> PaperShare:
    weights: dict[str, float] = {}
    surfaces: list[tuple[str, str]] = []
    for phrase, weight in phrases:
        key = normalise_concept(phrase)
        if key and weight > 0:
            weights[key] = max(weights.get(key, 0.0), min(float(weight), 1.0))
            surfaces.append((key, " ".join(phrase.split())))
    top = dict(sorted(weights.items(), key=lambda kv: (-kv[1], kv[0]))[:top_k])
    return PaperShare(top, surfaces, sorted(_acronym_pairs(text)), sorted(dataset_names(text)))


# --- the ledger ------------------------------------------------------------------------------------------------


@dataclass(slots=True)
class ConceptChange:
    """What an update changed: the concepts to write again and the papers whose mentions to rewrite (a
    concept no rewritten paper mentions any more is gone)."""

    concepts: dict[str, Concept]
    per_paper: dict[str, list[tuple[str, float]]]


class ConceptLedger:
    def __init__(self, papers: dict[str, PaperShare], pairs: set[tuple[str, str]], *, top_k: int) -> None:
        self.papers = papers
        self.pairs = pairs  # near-duplicate keys, each pair sorted
        self.top_k = top_k
        self._group()

    @classmethod
    def build(
        cls, per_paper: Mapping[str, list[tuple[str, float]]], texts: Mapping[str, str], *, top_k: int = TOP_K
    ) -> ConceptLedger:
        papers = {p: paper_share(phrases, texts.get(p, ""), top_k=top_k) for p, phrases in per_paper.items()}
        keys = {k for share in papers.values() for k in share.keys}
        return cls(papers, set(_near_duplicate_pairs(keys, keys)), top_k=top_k)

    # -- grouping (cheap, library-wide) --

    def _group(self) -> None:
        self.doc_freq = Counter(k for share in self.papers.values() for k in share.keys)
        parent = {key: key for key in self.doc_freq}
        for a, b in sorted(self.pairs):
            _union(parent, self.doc_freq, a, b)
        acronyms = {pair for share in self.papers.values() for pair in share.acronyms}
        for short, long in _unambiguous_acronyms(acronyms, parent):
            _union(parent, self.doc_freq, long, short, keep=long)
        self.roots = {key: _find(parent, key) for key in parent}
        self.called = {name for share in self.papers.values() for name in share.datasets}

    def concept_set(self) -> ConceptSet:
        """Every concept and every paper's mentions."""
        concepts = self._concepts(set(self.roots.values()), self.papers)
        return ConceptSet(concepts, self._mentions(self.papers), dict(self.roots))

    def _concepts(self, roots: set[str], papers: Iterable[str]) -> dict[str, Concept]:
        """The concepts of ``roots``; ``papers`` must hold every paper mentioning them."""
        members: dict[str, list[str]] = defaultdict(list)
        for key, root in self.roots.items():
            if root in roots:
                members[root].append(key)
        forms: dict[str, Counter[str]] = defaultdict(Counter)
        wanted = {key for keys in members.values() for key in keys}
        for share in self.papers.values():
            for key, surface in share.surfaces:
                if key in wanted:
                    forms[self.roots[key]][surface] += 1
        concepts = {}
        for root, keys in members.items():
            seen = forms[root]
            name = max(seen, key=lambda s: (seen[s], normalise_concept(s) == root, -len(s), s))
            aliases = sorted((set(keys) | set(seen)) - {name, root})
            concepts[root] = Concept(root, name, concept_type(name, self.called, keys), aliases)
        for paper in papers:
            for root, weight in self._merged(paper).items():
                if root in concepts:
                    concepts[root].papers[paper] = weight
        return concepts

    def _merged(self, paper: str) -> dict[str, float]:
        merged: dict[str, float] = {}
        for key, weight in self.papers[paper].keys.items():
            root = self.roots[key]
            merged[root] = max(merged.get(root, 0.0), weight)
        return merged

    def _mentions(self, papers: Iterable[str]) -> dict[str, list[tuple[str, float]]]:
        return {
            p: sorted(self._merged(p).items(), key=lambda kv: (-kv[1], kv[0]))[: self.top_k] for p in papers
        }

    # -- updating --

    def update(self, changed: Mapping[str, PaperShare | None]) -> ConceptChange:
        """Take new shares for ``changed`` papers (None: the paper has no keyphrases now) and say what that
        changed. Equal, concept for concept and mention for mention, to building the ledger again."""
        before = dict(self.roots)
        called_before = self.called
        touched: set[str] = set()
        for paper, share in changed.items():
            old = self.papers.pop(paper, None)
            touched |= old.touched() if old else set()
            if share is not None:
                self.papers[paper] = share
                touched |= share.touched()
        keys_before = set(before)
        keys_now = {k for share in self.papers.values() for k in share.keys}
        gone, added = keys_before - keys_now, keys_now - keys_before
        self.pairs = {pair for pair in self.pairs if not (pair[0] in gone or pair[1] in gone)}
        self.pairs |= set(_near_duplicate_pairs(added, keys_now))
        self._group()
        moved = {k for k in keys_before | keys_now if before.get(k) != self.roots.get(k)}
        flipped = called_before ^ self.called
        affected = touched | moved | flipped
        # every key of a concept an affected key was or is in: those concepts are written again
        old_roots = {before[k] for k in affected if k in before}
        new_roots = {self.roots[k] for k in affected if k in self.roots}
        involved = {k for k, root in self.roots.items() if root in new_roots or before.get(k) in old_roots}
        papers = set(changed) & set(self.papers)
        papers |= {paper for paper, share in self.papers.items() if not involved.isdisjoint(share.keys)}
        concepts = self._concepts({self.roots[k] for k in involved}, papers)
        mentions = self._mentions(papers)
        mentions |= {paper: [] for paper in changed if paper not in self.papers}
        return ConceptChange(concepts, mentions)

    # -- keeping --

    def to_json(self) -> str:
        return json.dumps(
            {
                "v": LEDGER_VERSION,
                "top_k": self.top_k,
                "papers": {p: share.to_list() for p, share in self.papers.items()},
                "pairs": sorted(self.pairs),
            },
            separators=(",", ":"),
        )

    @classmethod
    def from_json(cls, text: str) -> ConceptLedger | None:
        """The ledger kept by `to_json`, or None when an older agent-zot wrote it."""
        data = json.loads(text)
        if data.get("v") != LEDGER_VERSION:
            return None
        papers = {str(p): PaperShare.from_list(share) for p, share in data["papers"].items()}
        pairs = {(str(a), str(b)) for a, b in data["pairs"]}
        return cls(papers, pairs, top_k=int(data["top_k"]))


# --- union-find ------------------------------------------------------------------------------------------------


def _find(parent: dict[str, str], key: str) -> str:
    while parent[key] != key:
        parent[key] = parent[parent[key]]
        key = parent[key]
    return key


def _union(
    parent: dict[str, str], doc_freq: Counter[str], a: str, b: str, *, keep: str | None = None
) -> None:
    """Join two groups; the root is ``keep``'s group (``keep`` is ``a``), else the more frequent key's. Without
    ``keep`` a group's root is its best key by (frequency, shortness, key), whatever the order of joins."""
    ra, rb = _find(parent, a), _find(parent, b)
    if ra == rb:
        return
    if keep != a:
        ra, rb = sorted((ra, rb), key=lambda k: (-doc_freq[k], len(k), k))
    parent[rb] = ra


# --- near-duplicates -------------------------------------------------------------------------------------------


def _near_duplicate_pairs(new: set[str], keys: set[str]) -> Iterator[tuple[str, str]]:
    """Sorted pairs (a, b) of near-duplicates with a in ``new`` and b in ``keys`` (``new`` ⊆ ``keys``). Keys
    are compared within their head word. A common head ("cell", "model") gathers thousands of keys, so the
    ratio matrix is computed by rapidfuzz in C and only the few close pairs are checked in Python."""
    by_head: dict[str, list[str]] = defaultdict(list)
    for key in sorted(keys):
        by_head[key.rsplit(" ", 1)[-1]].append(key)
    for group in by_head.values():
        fresh = [k for k in group if k in new]
        if not fresh or len(group) < 2:
            continue
        scores = process.cdist(
            fresh, group, scorer=fuzz.token_sort_ratio, score_cutoff=NEAR_DUPLICATE, dtype=np.uint8
        )
        for i, j in zip(*np.nonzero(scores), strict=True):
            a, b = fresh[i], group[j]
            if a != b and near_duplicate(a, b):
                yield (a, b) if a < b else (b, a)


def near_duplicate(a: str, b: str) -> bool:
    """Same head word, ≥ NEAR_DUPLICATE token_sort_ratio, and no meaning-changing difference: numbers
    must agree, and a word may not differ only by a prefix ("supervised" vs "unsupervised")."""
    if a == b:
        return True
    wa, wb = a.split(), b.split()
    if wa[-1] != wb[-1] or fuzz.token_sort_ratio(a, b) < NEAR_DUPLICATE:
        return False
    if _numbers(wa) != _numbers(wb):
        return False  # "2d convolution" is not "3d convolution"
    only_a, only_b = set(wa) - set(wb), set(wb) - set(wa)
    if not only_a or not only_b:
        return not only_a and not only_b  # reordered words merge; an added word ("hot") changes the meaning
    # each differing word of one key is a spelling of a word of the other ("antiretroviral" of "anti
    # retroviral"), checked from both sides so that which key a library saw first never decides
    return _spelled_alike(only_a, only_b) or _spelled_alike(only_b, only_a)


def _spelled_alike(words: set[str], others: set[str]) -> bool:
    return all(any(_spelling_variant(x, y) for y in others) for x in words)


def _numbers(words: list[str]) -> list[str]:
    return sorted(w for w in words if any(c.isdigit() for c in w))


def _spelling_variant(x: str, y: str) -> bool:
    # "convolutional"/"convolution" and "modeling"/"modelling" share a start; "unsupervised" adds a prefix.
    return x[:3] == y[:3] and not x.endswith(y) and not y.endswith(x)


# --- acronyms --------------------------------------------------------------------------------------------------


def _acronym_pairs(text: str) -> set[tuple[str, str]]:
    """(acronym key, expansion key) defined as "expansion (ACRONYM)" in the text."""
    pairs: set[tuple[str, str]] = set()
    for acronym, expansion in acronym_definitions(text):
        short, long = normalise_concept(acronym), normalise_concept(expansion)
        if short and long and short != long:
            pairs.add((short, long))
    return pairs


def _unambiguous_acronyms(pairs: set[tuple[str, str]], parent: dict[str, str]) -> list[tuple[str, str]]:
    """The (acronym, expansion) pairs among the keys whose acronym the library expands one way only,
    sorted (a set's order changes from run to run). Expansions already merged as near-duplicates count as
    one; "ACS" for acute coronary syndrome in one paper and the American Cancer Society in another is
    ambiguous and merges neither."""
    expansions: dict[str, dict[str, str]] = defaultdict(dict)
    for short, long in sorted(pairs):
        if short in parent and long in parent:
            expansions[short].setdefault(_find(parent, long), long)
    return [
        (short, next(iter(roots.values()))) for short, roots in sorted(expansions.items()) if len(roots) == 1
    ]
