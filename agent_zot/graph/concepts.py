"""Keyphrase concepts: extraction with YAKE, normalisation and rule-based typing (merging across papers is
concept_merge.py)."""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from collections.abc import Set as AbstractSet
from functools import lru_cache
from typing import Any

from agent_zot.graph.model import ConceptType
from agent_zot.text import EAST_ASIAN_CHARACTERS, STOPWORDS, fold

BODY_CHARS = 6000  # body text YAKE sees: the introduction carries the paper's terms; the rest is slow noise
TITLE_BOOST = 2.0
ABSTRACT_BOOST = 1.2
UNIGRAM_PENALTY = 0.75  # lone words are vaguer than phrases ("attention" vs "attention mechanism")
MAX_WORDS = 6
MAX_CHARS = 60
NEAR_DUPLICATE = 92  # rapidfuzz token_sort_ratio at or above which two keys of the same head merge


def _wordset(text: str) -> frozenset[str]:
    return frozenset(text.split())


# Words that alone are no concept (YAKE likes them because they recur in every abstract).
GENERIC = _wordset(
    """model method approach result paper study work analysis data task performance experiment problem
    system value number time case way set example effect type form field order level term part point
    process state show propose proposed present presented give given obtain obtained provide provided
    make made find found large small high low good better best different important significant recent
    general several many various certain main total well whole article review introduction conclusion
    figure table section appendix equation research application implementation evaluation framework
    technique tool feature information dataset parameter function property structure email mail copyright
    license preprint arxiv doi fig jan feb mar apr jun jul aug sep sept oct nov dec january february march
    april may june july august september october november december"""
)
_INNER_OK = frozenset({"of", "for", "to", "in", "on"})  # "theory of mind", "learning to rank"
# Endings of adjectives: a phrase ending in one is a fragment ("convolutional neural"), unless it is a noun.
_ADJECTIVE_ENDINGS = ("al", "ive", "ous", "ful", "less", "able", "ible", "ar")
_NOUNS_LIKE_ADJECTIVES = _wordset(
    """signal potential interval material manual tutorial trial journal animal proposal approval removal
    retrieval arrival survival terminal hospital capital rival criminal chemical individual objective
    derivative alternative narrative initiative representative incentive perspective collective adjective
    explosive additive primitive directive native negative positive festival rental portal metal crystal
    canal fractal mineral medal integral differential polynomial binomial multinomial exponential
    functional radical spiral principal editorial memorial testimonial marginal variable observable table
    cable deliverable vegetable syllable crucible radar lidar sonar grammar seminar calendar scholar pillar
    dollar star bar car war"""
)

# --- normalisation ----------------------------------------------------------------------------------------

_URL = re.compile(r"(https?://|www\.|doi\.org|\S+@\S+\.\w+|\.(com|org|net|edu)\b)", re.IGNORECASE)
_SEPARATORS = re.compile(r"[\-‐‑‒–—_/\\·]+")
_PUNCT = re.compile(r"[^\w\s+#]")
_CJK = re.compile(f"[{EAST_ASIAN_CHARACTERS}]")
_POSSESSIVE = re.compile(r"'s\b")
_PARENTHESES = re.compile(r"\([^)]*\)|\[[^\]]*\]")
_BRITISH = {
    "modelling": "modeling", "modelled": "modeled", "labelling": "labeling", "labelled": "labeled",
    "colour": "color", "behaviour": "behavior", "centre": "center", "analyse": "analyze", "tumour": "tumor",
    "signalling": "signaling", "travelling": "traveling", "optimise": "optimize", "generalise": "generalize",
}  # fmt: skip
_IRREGULAR = {
    "matrices": "matrix", "indices": "index", "vertices": "vertex", "criteria": "criterion",
    "phenomena": "phenomenon", "children": "child", "people": "people", "men": "man", "women": "woman",
    "mice": "mouse", "feet": "foot", "teeth": "tooth", "axes": "axis", "radii": "radius",
    "nuclei": "nucleus", "stimuli": "stimulus", "foci": "focus", "loci": "locus", "spectra": "spectrum",
    "maxima": "maximum", "minima": "minimum", "optima": "optimum", "corpora": "corpus", "genera": "genus",
    "formulae": "formula", "appendices": "appendix", "theses": "thesis", "schemata": "schema",
    "automata": "automaton", "lemmata": "lemma", "curricula": "curriculum", "caches": "cache",
    "niches": "niche", "avalanches": "avalanche", "headaches": "headache", "movies": "movie",
    "cookies": "cookie", "calories": "calorie",
}  # fmt: skip
_INVARIANT = _wordset(
    """data metadata bias physics mathematics statistics economics econometrics dynamics thermodynamics
    genetics genomics proteomics linguistics robotics electronics mechanics optics semantics ethics
    politics logistics analytics informatics bioinformatics acoustics kinematics photonics series species news means
    apparatus chassis lens gas chaos canvas atlas alias status virus corpus consensus census campus
    focus stimulus nexus radius bus plus minus bonus onus calculus cosmos ethos pathos logos
    diabetes herpes measles rabies scabies sars covid aids mrsa"""
)
_SINGULAR_RULES = (  # (suffix, replacement), first match wins; the word must stay >= 3 letters
    ("yses", "ysis"),
    ("theses", "thesis"),
    ("gnoses", "gnosis"),
    ("ies", "y"),
    ("sses", "ss"),
    ("shes", "sh"),
    ("ches", "ch"),
    ("xes", "x"),
    ("zzes", "zz"),
    ("ss", "ss"),
    ("us", "us"),
    ("is", "is"),
    ("s", ""),
)


def singularise(word: str) -> str:
    """The singular of an English (mostly technical) noun by a few suffix rules; unknown forms pass."""
    if word in _IRREGULAR:
        return _IRREGULAR[word]
    if word in _INVARIANT:
        return word
    if len(word) < 4 or not word.isalpha():
        return _plural_acronym(word)
    if word.endswith("ics") and _is_field_of_study(word):
        return word
    for suffix, replacement in _SINGULAR_RULES:
        if word.endswith(suffix):
            stem = word[: len(word) - len(suffix)] + replacement
            return stem if len(stem) >= 3 else word
    return word


def _plural_acronym(word: str) -> str:
    # "cnns" -> "cnn", "llms" -> "llm": a short token ending in s after a consonant cluster, no vowels.
    if 3 <= len(word) <= 6 and word.endswith("s") and not set(word[:-1]) & set("aeiou"):
        return word[:-1]
    return word


def _is_field_of_study(word: str) -> bool:
    return word.endswith(("omics", "physics", "matics", "dynamics", "onics", "etics"))


def _spelling(word: str) -> str:
    word = _BRITISH.get(word, word)
    for uk, us in (("isations", "izations"), ("isation", "ization"), ("isers", "izers"), ("iser", "izer")):
        if word.endswith(uk) and len(word) > len(uk) + 2:
            return word[: -len(uk)] + us
    return word


@lru_cache(maxsize=1 << 18)  # a graph build normalises each phrase several times (keys, names, types)
def normalise_concept(phrase: str) -> str:
    """The merge key of a phrase ("Fine-Tuning of the CNNs" -> "fine tuning of the cnn"); "" for junk."""
    text = fold(phrase).replace("’", "'").strip()
    if not text or len(text) > MAX_CHARS * 2 or _URL.search(text):
        return ""
    text = _PARENTHESES.sub(" ", text)  # "convolutional neural networks (cnns)": the acronym is an alias
    text = _PUNCT.sub(" ", _SEPARATORS.sub(" ", _POSSESSIVE.sub("", text)))
    words = [_spelling(w) for w in text.replace("e mail", "email").split()]
    while words and words[0] in STOPWORDS:
        words.pop(0)
    while words and words[-1] in STOPWORDS:
        words.pop()
    if not words or _is_junk(words):
        return ""
    words[-1] = singularise(words[-1])
    key = " ".join(words)
    return key if len(key) <= MAX_CHARS else ""


def _is_junk(words: list[str]) -> bool:
    if len(words) > MAX_WORDS or any(w in STOPWORDS and w not in _INNER_OK for w in words):
        return True  # "include an encoder", "recurrent or convolutional": clause fragments, not terms
    last = words[-1]
    if last.endswith(_ADJECTIVE_ENDINGS) and singularise(last) not in _NOUNS_LIKE_ADJECTIVES:
        return True
    content = [w for w in words if w not in STOPWORDS]
    if not content or all(_is_numberish(w) or len(w) == 1 for w in content):
        return True
    if any((len(set(w)) == 1 and len(w) > 2) or len(w) > (8 if _CJK.search(w) else 24) for w in words):
        return True  # "eee", or a whole CJK sentence without spaces
    return len(words) == 1 and (len(words[0]) < 2 or singularise(words[0]) in GENERIC)


def _is_numberish(word: str) -> bool:
    return bool(re.fullmatch(r"[\d.,%+#x]+|x{0,3}(ix|iv|v?i{1,3}|v)|\d+(st|nd|rd|th|s|d|k|m)?", word))


# --- extraction -------------------------------------------------------------------------------------------


@lru_cache(maxsize=4)
def _yake(n: int, top: int) -> Any:
    import yake  # imported on first use: it pulls in numpy/networkx-sized dependencies

    return yake.KeywordExtractor(lan="en", n=n, dedup_lim=0.9, top=top)


def extract_keyphrases(
    title: str, abstract: str, body: str, *, top_k: int = 10, exclude: Iterable[str] = ()
) -> list[tuple[str, float]]:
    """The ``top_k`` normalised keyphrases of a paper with a weight in (0, 1], best first.

    YAKE runs on the title, the abstract and the start of the body; phrases that also occur in the title or
    abstract are boosted. A lone word is dropped when a better-weighted phrase contains it ("pressure" under
    "blood pressure"), and so is a phrase made only of words from ``exclude`` (pass the authors' names).
    Weights are relative within the paper (the best phrase gets 1.0)."""
    text = "\n\n".join(part.strip() for part in (title, abstract, body[:BODY_CHARS]) if part and part.strip())
    if not text or top_k <= 0:
        return []
    candidates = _yake(3, max(30, top_k * 4)).extract_keywords(text)
    if not candidates:
        return []
    head = _title_forms(title)
    summary = f" {fold(abstract)} "
    scores = [float(score) for _, score in candidates]
    best: dict[str, float] = {}
    for (phrase, _), weight in zip(candidates, _weights(scores), strict=True):
        key = normalise_concept(phrase)
        if not key:
            continue
        weight *= _boost(key, phrase, head, summary)
        best[key] = max(best.get(key, 0.0), weight)
    excluded = {w for phrase in exclude for w in fold(phrase).replace("-", " ").replace(".", " ").split()}
    ranked = _prune(sorted(best.items(), key=lambda kv: (-kv[1], kv[0])), excluded)[:top_k]
    if not ranked:
        return []
    top = ranked[0][1]
    return [(key, round(max(weight / top, 1e-3), 4)) for key, weight in ranked]


def _prune(ranked: list[tuple[str, float]], excluded: set[str]) -> list[tuple[str, float]]:
    kept: list[tuple[str, float]] = []
    for key, weight in ranked:
        words = key.split()
        if excluded and all(w in excluded for w in words):
            continue
        if len(words) == 1 and any(key in k.split() for k, _ in kept if " " in k):
            continue  # ranked best first, so every phrase in ``kept`` outweighs this word
        kept.append((key, weight))
    return kept


def _weights(scores: list[float]) -> list[float]:
    """YAKE scores (lower is better, unbounded) -> (0, 1]: log-scaled between the best and worst candidate."""
    logs = [math.log(max(s, 1e-12)) for s in scores]
    low, high = min(logs), max(logs)
    span = high - low or 1.0
    return [1.0 - 0.8 * (value - low) / span for value in logs]


def _title_forms(title: str) -> tuple[str, str]:
    """The title's words as keys see them, once as written and once with every word singular."""
    words = [_spelling(w) for w in _PUNCT.sub(" ", _SEPARATORS.sub(" ", fold(title))).split()]
    return f" {' '.join(words)} ", f" {' '.join(singularise(w) for w in words)} "


def _boost(key: str, phrase: str, title: tuple[str, str], abstract: str) -> float:
    factor = 1.0 if " " in key else UNIGRAM_PENALTY
    if any(f" {key} " in form for form in title):
        factor *= TITLE_BOOST
    elif fold(phrase) in abstract:
        factor *= ABSTRACT_BOOST
    return factor


# --- typing ---------------------------------------------------------------------------------------------------

# First matching rule wins: (type, pattern over the folded name). Theory before Method so that
# "model of computation" or "central limit theorem" is not a method.
_TYPE_PATTERNS: tuple[tuple[ConceptType, str], ...] = (
    (ConceptType.DATASET, r"\b(data ?sets?|corpus|corpora|benchmarks?|treebanks?|databases?)\b"),
    (ConceptType.DATASET, r"\b(imagenet|cifar|mnist|ms ?coco|squad|superglue|glue|wikitext|librispeech"
                          r"|common ?crawl|the pile|laion|openwebtext|kinetics|cityscapes|pascal voc|uci)\b"),
    (ConceptType.DATASET, r"\b[a-z][a-z0-9]*[- ]\d+(\.\d+)?[km]\b"),  # ImageNet-21k, LAION-400M
    (ConceptType.THEORY, r"\b(theory|theories|theorem|lemma|laws?|principles?|hypothes[ie]s|conjecture"
                         r"|postulate|axioms?|paradox|model of|equilibrium)\b"),
    (ConceptType.METHOD, r"\b(methods?|algorithms?|networks?|models?|learning|regression|transformers?"
                         r"|estimators?|estimation|classifiers?|classification|clustering|optimi[sz]ation"
                         r"|optimi[sz]ers?|solvers?|sampling|sampler|filters?|filtering|encoders?|decoders?"
                         r"|autoencoders?|architectures?|techniques?|procedures?|descent|inference|attention"
                         r"|embeddings?|kernels?|tests?|simulations?|monte carlo|bootstrap|analysis"
                         r"|decomposition|segmentation|detection|fine ?tuning|training|pruning|quantization"
                         r"|distillation|retrieval|search|heuristics?|protocols?|schemes?|boosting|bagging)\b"),
    (ConceptType.METHOD, r"\w[- ]based\b"),
)  # fmt: skip
TYPE_RULES: tuple[tuple[ConceptType, re.Pattern[str]], ...] = tuple(
    (kind, re.compile(pattern)) for kind, pattern in _TYPE_PATTERNS
)
_DATASET_WORD = r"(?i:data ?sets?|corpus|corpora|benchmarks?|treebanks?)"
_CAPS_NAME = r"([A-Z][A-Za-z0-9]*[A-Z0-9][A-Za-z0-9-]*)"  # MIMIC, GSM8K, WikiText-103
_NAMED_DATASET = re.compile(
    rf"\b{_CAPS_NAME}\s+{_DATASET_WORD}\b|\b{_DATASET_WORD}\s+(?:(?i:called|named)\s+)?{_CAPS_NAME}\b"
)


def concept_type(
    name: str, called_datasets: AbstractSet[str] = frozenset(), keys: Iterable[str] = ()
) -> ConceptType:
    """Method, Dataset, Theory or Concept by the rules in ``TYPE_RULES``; a concept whose key (or one of
    ``keys``, its aliases) is among ``called_datasets`` (see `dataset_names`: what the papers write in
    capitals next to a dataset word, "the MIMIC dataset") is a Dataset."""
    kind = _type_by_rules(name)
    wanted = {normalise_concept(name), *keys}
    if kind is ConceptType.CONCEPT and called_datasets and not called_datasets.isdisjoint(wanted):
        return ConceptType.DATASET
    return kind


@lru_cache(maxsize=1 << 16)
def _type_by_rules(name: str) -> ConceptType:
    folded = " ".join(_SEPARATORS.sub(" ", fold(name)).split())
    for kind, pattern in TYPE_RULES:
        if pattern.search(folded):
            return kind
    return ConceptType.CONCEPT


def dataset_names(text: str) -> set[str]:
    """Keys of the capitalised names ``text`` calls a dataset, corpus or benchmark."""
    names = set()
    for match in _NAMED_DATASET.finditer(text):
        written = match.group(1) or match.group(2)
        if sum(c.isupper() for c in written) >= 2:
            names.add(normalise_concept(written))
    return names - {""}
