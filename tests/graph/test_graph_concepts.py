"""Keyphrase concepts: normalisation, YAKE extraction, merging across papers and rule-based typing."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent_zot.graph.concept_merge import (
    ConceptLedger,
    PaperShare,
    merge_concepts,
    near_duplicate,
    paper_share,
)
from agent_zot.graph.concepts import (
    BODY_CHARS,
    concept_type,
    dataset_names,
    extract_keyphrases,
    normalise_concept,
    singularise,
)
from agent_zot.graph.model import ConceptType

REPO_ROOT = Path(__file__).resolve().parents[2]

# --- normalise_concept ----------------------------------------------------------------------------

NORMALISE = [
    ("Fine-Tuning", "fine tuning"),
    ("fine tuning", "fine tuning"),
    ("fine–tuning", "fine tuning"),  # en dash
    ("Neural Networks", "neural network"),
    ("case studies", "case study"),
    ("meta-analyses", "meta analysis"),
    ("null hypotheses", "null hypothesis"),
    ("selection bias", "selection bias"),
    ("quantum physics", "quantum physics"),
    ("discrete mathematics", "discrete mathematics"),
    ("big data", "big data"),
    ("the Transformer", "transformer"),
    ("A Survey of Graph Neural Networks", "survey of graph neural network"),
    ("Convolutional Neural Networks (CNNs)", "convolutional neural network"),
    ("CNNs", "cnn"),
    ("LLMs", "llm"),
    ("Bayes' theorem", "bayes theorem"),
    ("Fisher's information", "fisher information"),
    ("language modelling", "language modeling"),
    ("Bayesian optimisation", "bayesian optimization"),
    ("processes", ""),  # generic on its own
    ("Gaussian processes", "gaussian process"),
    ("support vector machines", "support vector machine"),
    ("search approaches", "search approach"),
    ("sparse matrices", "sparse matrix"),
    ("evaluation criteria", "evaluation criterion"),
    ("knowledge bases", "knowledge base"),
    ("research ideas", "research idea"),
    ("topics", "topic"),
    ("first-order logic", "first order logic"),
    ("GPT-4", "gpt 4"),
    ("theory of mind", "theory of mind"),
    ("random variables", "random variable"),
    ("  Deep   Learning  ", "deep learning"),
    # junk
    ("the", ""),
    ("of the", ""),
    ("42", ""),
    ("2014", ""),
    ("x", ""),
    ("iii", ""),
    ("https://example.org/paper", ""),
    ("www.example.com", ""),
    ("someone@example.org", ""),
    ("results", ""),
    ("data", ""),
    ("recurrent or convolutional", ""),
    ("include an encoder", ""),
    ("convolutional neural", ""),
    ("e-mail", ""),
    ("word " * 8, ""),
    ("a" * 70, ""),
    ("", ""),
]


@pytest.mark.parametrize(("phrase", "key"), NORMALISE)
def test_normalise_concept(phrase: str, key: str) -> None:
    assert normalise_concept(phrase) == key


@pytest.mark.parametrize("phrase", [p for p, k in NORMALISE if k])
def test_normalise_concept_is_idempotent(phrase: str) -> None:
    key = normalise_concept(phrase)
    assert normalise_concept(key) == key


@pytest.mark.parametrize(
    ("plural", "singular"),
    [
        ("networks", "network"),
        ("studies", "study"),
        ("analyses", "analysis"),
        ("hypotheses", "hypothesis"),
        ("diagnoses", "diagnosis"),
        ("classes", "class"),
        ("approaches", "approach"),
        ("boxes", "box"),
        ("indices", "index"),
        ("phenomena", "phenomenon"),
        ("caches", "cache"),
        ("characteristics", "characteristic"),
        ("gans", "gan"),
        # invariant
        ("bias", "bias"),
        ("physics", "physics"),
        ("mathematics", "mathematics"),
        ("statistics", "statistics"),
        ("genomics", "genomics"),
        ("data", "data"),
        ("series", "series"),
        ("species", "species"),
        ("analysis", "analysis"),
        ("corpus", "corpus"),
        ("loss", "loss"),
        ("status", "status"),
        ("continuous", "continuous"),
        ("gas", "gas"),
    ],
)
def test_singularise(plural: str, singular: str) -> None:
    assert singularise(plural) == singular


# --- extract_keyphrases -----------------------------------------------------------------------------

TITLE = "Attention Is All You Need"
ABSTRACT = (
    "The dominant sequence transduction models are based on complex recurrent or convolutional neural "
    "networks that include an encoder and a decoder. The best performing models also connect the encoder "
    "and decoder through an attention mechanism. We propose a new simple network architecture, the "
    "Transformer, based solely on attention mechanisms, dispensing with recurrence and convolutions "
    "entirely. Experiments on two machine translation tasks show these models to be superior in quality "
    "while being more parallelizable and requiring significantly less time to train. Our model achieves "
    "28.4 BLEU on the WMT 2014 English-to-German translation task, improving over the existing best "
    "results, including ensembles, by over 2 BLEU."
)
BODY = (
    "1 Introduction\nRecurrent neural networks, long short-term memory (LSTM) and gated recurrent neural "
    "networks in particular, have been firmly established as state of the art approaches in sequence "
    "modeling and transduction problems such as language modeling and machine translation. Attention "
    "mechanisms have become an integral part of compelling sequence modeling and transduction models. "
    "In this work we propose the Transformer, a model architecture eschewing recurrence and instead "
    "relying entirely on an attention mechanism to draw global dependencies between input and output. "
    "Self-attention, sometimes called intra-attention, is an attention mechanism relating different "
    "positions of a single sequence in order to compute a representation of the sequence. "
) * 3


def test_extract_keyphrases_on_a_real_abstract() -> None:
    phrases = extract_keyphrases(TITLE, ABSTRACT, BODY, top_k=10)
    keys = [k for k, _ in phrases]
    assert 5 <= len(phrases) <= 10
    assert len(set(keys)) == len(keys)
    assert phrases[0][1] == 1.0
    assert all(0 < w <= 1 for _, w in phrases)
    assert [w for _, w in phrases] == sorted((w for _, w in phrases), reverse=True)
    assert all(normalise_concept(k) == k for k in keys)  # already normalised
    assert "attention mechanism" in keys
    assert any("neural network" in k for k in keys)
    assert not any(k in {"model", "based", "result", "models"} for k in keys)


def test_title_phrases_are_boosted() -> None:
    body = "Gradient descent appears here. " * 5 + "Kernel methods appear here too. " * 5
    with_title = dict(extract_keyphrases("Kernel Methods", "", body))
    without = dict(extract_keyphrases("Unrelated", "", body))
    assert with_title["kernel method"] == 1.0
    assert without.get("kernel method", 0) < with_title["kernel method"]


def test_lone_word_under_a_better_phrase_is_dropped() -> None:
    abstract = (
        "Blood pressure estimation from PPG signals. Blood pressure matters. Continuous blood pressure."
    )
    keys = [k for k, _ in extract_keyphrases("Blood Pressure Estimation", abstract, "")]
    assert "blood pressure estimation" in keys and "pressure" not in keys and "blood" not in keys


def test_author_names_can_be_excluded() -> None:
    body = "Humberto Stein Shiromoto wrote about contraction metrics. " * 5
    keys = [
        k
        for k, _ in extract_keyphrases("Contraction Metrics", "", body, exclude=["Humberto Stein Shiromoto"])
    ]
    assert "contraction metric" in keys
    assert not any(set(k.split()) <= {"humberto", "stein", "shiromoto"} for k in keys)


def test_empty_input_gives_nothing() -> None:
    assert extract_keyphrases("", "", "") == []
    assert extract_keyphrases(TITLE, ABSTRACT, "", top_k=0) == []


def test_yake_reads_a_bounded_share_of_a_long_body() -> None:
    """What keeps keyphrase extraction fast per paper (timed by scripts/bench_index.py, not here): a body is
    read up to BODY_CHARS whatever its length, so a paper three times as long gives what its opening gives."""
    long_body = (BODY * (3 * BODY_CHARS // len(BODY) + 1))[: 3 * BODY_CHARS]
    assert extract_keyphrases(TITLE, ABSTRACT, long_body) == extract_keyphrases(
        TITLE, ABSTRACT, long_body[:BODY_CHARS]
    )


def test_importing_concepts_does_not_import_yake() -> None:
    code = (
        "import sys, agent_zot.graph.concepts as c; c.normalise_concept('x y'); print('yake' in sys.modules)"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert out.stdout.strip() == "False"


# --- merge_concepts ---------------------------------------------------------------------------------


def test_same_keys_merge_with_document_frequency_and_display() -> None:
    concepts = merge_concepts(
        {
            "P1": [("Neural Networks", 1.0), ("dropout", 0.5)],
            "P2": [("neural network", 0.8)],
            "P3": [("neural-networks", 0.3), ("Neural Networks", 0.2)],
        }
    )
    nn = concepts["neural network"]
    assert nn.doc_freq == 3
    assert nn.papers == {"P1": 1.0, "P2": 0.8, "P3": 0.3}
    assert nn.name == "Neural Networks"  # the most frequent surface form
    assert "neural-networks" in nn.aliases
    assert concepts.key_for("NEURAL NETWORKS") == "neural network"
    assert concepts.key_for("unknown thing") is None
    assert concepts.per_paper["P3"] == [("neural network", 0.3)]


def test_top_k_per_paper() -> None:
    words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta"]
    phrases = [(f"{w} decay", 1.0 - i / 10) for i, w in enumerate(words)]
    concepts = merge_concepts({"P": phrases}, top_k=3)
    assert [k for k, _ in concepts.per_paper["P"]] == ["alpha decay", "beta decay", "gamma decay"]
    assert len(concepts) == 3


@pytest.mark.parametrize(
    ("a", "b", "same"),
    [
        ("convolutional neural network", "convolution neural network", True),
        ("restricted boltzmann machine", "restricted boltzman machine", True),
        ("visual analytics sas", "sas visual analytics", False),  # different head word
        ("supervised learning", "unsupervised learning", False),
        ("semi supervised learning", "self supervised learning", False),
        ("2d convolution", "3d convolution", False),
        ("low density super earth", "hot low density super earth", False),
        ("neural network", "deep neural network", False),
        ("linear regression", "logistic regression", False),
        ("gaussian process", "gaussian process", True),
    ],
)
def test_near_duplicates(a: str, b: str, same: bool) -> None:
    assert near_duplicate(a, b) is same
    assert near_duplicate(b, a) is same


def test_near_duplicates_merge_into_the_more_frequent_key() -> None:
    concepts = merge_concepts(
        {
            "P1": [("restricted boltzmann machine", 1.0)],
            "P2": [("restricted boltzmann machines", 0.9)],
            "P3": [("restricted boltzman machine", 0.7)],
            "P4": [("unsupervised learning", 1.0)],
            "P5": [("supervised learning", 1.0)],
        }
    )
    rbm = concepts["restricted boltzmann machine"]
    assert rbm.doc_freq == 3 and "restricted boltzman machine" in rbm.aliases
    assert "unsupervised learning" in concepts.concepts and "supervised learning" in concepts.concepts


def test_acronym_merges_with_its_expansion_when_a_text_defines_it() -> None:
    per_paper = {
        "P1": [("long short-term memory", 1.0), ("sequence modeling", 0.5)],
        "P2": [("LSTM", 0.9)],
        "P3": [("RNN", 0.8), ("CNN", 0.7)],
        "P4": [("recurrent neural networks", 0.6)],
    }
    texts = {
        "P1": "We use a long short-term memory (LSTM) network.",
        "P4": "Recurrent neural networks (RNNs) are widely used.",
    }
    concepts = merge_concepts(per_paper, texts=texts)
    lstm = concepts["long short term memory"]
    assert lstm.doc_freq == 2 and "lstm" in lstm.aliases
    assert concepts.key_for("LSTM") == "long short term memory"
    assert concepts.key_for("RNNs") == "recurrent neural network"
    assert "cnn" in concepts.concepts  # never defined: stays alone
    without_texts = merge_concepts(per_paper)
    assert "lstm" in without_texts.concepts


AMBIGUOUS = {
    "P1": [("acute coronary syndrome", 1.0), ("ACS", 0.6)],
    "P2": [("American Cancer Society", 1.0), ("ACS", 0.5)],
    "P3": [("long-term potentiation", 1.0), ("LTP", 0.7)],
    "P4": [("acute coronary syndromes", 0.8)],
}
AMBIGUOUS_TEXTS = {
    "P1": "Patients with acute coronary syndrome (ACS) were enrolled.",
    "P2": "Guidelines of the American Cancer Society (ACS) were followed.",
    "P3": "Long-term potentiation (LTP) was induced.",
    "P4": "Acute coronary syndromes (ACS) were treated.",  # the same expansion again: still one meaning
}


def test_an_acronym_the_library_expands_two_ways_merges_with_neither() -> None:
    concepts = merge_concepts(AMBIGUOUS, texts=AMBIGUOUS_TEXTS)
    assert concepts.key_for("ACS") == "acs"  # not "acute coronary syndrome" nor the society
    assert "acs" not in concepts["acute coronary syndrome"].aliases
    assert concepts["acute coronary syndrome"].doc_freq == 2  # P1 and P4, singular and plural
    assert concepts.key_for("American Cancer Society") == "american cancer society"
    assert concepts.key_for("LTP") == "long term potentiation"  # defined one way only: merged


@pytest.mark.slow
def test_merging_gives_the_same_concepts_in_every_process() -> None:
    """Concept ids are graph node ids: they must not depend on Python's per-process string hashing."""
    script = (
        "from tests.graph.test_graph_concepts import AMBIGUOUS, AMBIGUOUS_TEXTS\n"
        "from agent_zot.graph.concept_merge import merge_concepts\n"
        "c = merge_concepts(AMBIGUOUS, texts=AMBIGUOUS_TEXTS)\n"
        "print(sorted((k, v.name, sorted(v.aliases), sorted(v.papers.items())) for k, v in c.concepts.items()))"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", script],
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
            cwd=Path(__file__).resolve().parents[2],
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1 and "acute coronary syndrome" in outputs.pop()


# --- concept_type -------------------------------------------------------------------------------------

TYPES = [
    ("ImageNet", ConceptType.DATASET),
    ("ImageNet-21k", ConceptType.DATASET),
    ("CIFAR-10", ConceptType.DATASET),
    ("LAION-400M", ConceptType.DATASET),
    ("Penn Treebank", ConceptType.DATASET),
    ("a new benchmark", ConceptType.DATASET),
    ("text corpus", ConceptType.DATASET),
    ("MIMIC-III database", ConceptType.DATASET),
    ("central limit theorem", ConceptType.THEORY),
    ("game theory", ConceptType.THEORY),
    ("Moore's law", ConceptType.THEORY),
    ("free energy principle", ConceptType.THEORY),
    ("efficient market hypothesis", ConceptType.THEORY),
    ("Riemann conjecture", ConceptType.THEORY),
    ("model of computation", ConceptType.THEORY),
    ("Nash equilibrium", ConceptType.THEORY),
    ("convolutional neural network", ConceptType.METHOD),
    ("transformer", ConceptType.METHOD),
    ("gradient descent", ConceptType.METHOD),
    ("logistic regression", ConceptType.METHOD),
    ("kernel density estimator", ConceptType.METHOD),
    ("reinforcement learning", ConceptType.METHOD),
    ("Bayesian optimisation", ConceptType.METHOD),
    ("k-means clustering", ConceptType.METHOD),
    ("rule-based", ConceptType.METHOD),
    ("principal component analysis", ConceptType.METHOD),
    ("blood pressure", ConceptType.CONCEPT),
    ("exoplanet", ConceptType.CONCEPT),
    ("climate change", ConceptType.CONCEPT),
]


@pytest.mark.parametrize(("name", "kind"), TYPES)
def test_concept_type_rules(name: str, kind: ConceptType) -> None:
    assert concept_type(name) is kind


def test_dataset_named_in_context() -> None:
    context = "We evaluate on the MIMIC dataset and on a benchmark called GSM8K; the CNN baseline is weak."
    called = dataset_names(context)
    assert concept_type("MIMIC", called) is ConceptType.DATASET
    assert concept_type("mimic", called) is ConceptType.DATASET
    assert concept_type("GSM8K", called) is ConceptType.DATASET
    assert concept_type("CNN", called) is ConceptType.CONCEPT
    assert concept_type("MIMIC-III", called, keys=["mimic"]) is ConceptType.DATASET  # by an alias
    assert concept_type("mimic") is ConceptType.CONCEPT  # without context
    assert dataset_names("the lowercase dataset and the SQuAD dataset") == {"squad"}


def test_merge_types_concepts_with_their_texts() -> None:
    concepts = merge_concepts(
        {"P1": [("MIMIC", 1.0), ("sepsis prediction", 0.8), ("gradient boosting", 0.5)]},
        texts={"P1": "Using the MIMIC dataset we predict sepsis with gradient boosting."},
    )
    assert concepts["mimic"].type is ConceptType.DATASET
    assert concepts["sepsis prediction"].type is ConceptType.CONCEPT
    assert concepts["gradient boosting"].type is ConceptType.METHOD


# --- merging by what changed ---------------------------------------------------------------------------------

PHRASES = [
    "graph neural network", "graph neural networks", "Graph Neural Network", "GNN", "neural network",
    "convolutional neural network", "convolution neural network", "CNN", "acute coronary syndrome",
    "acute coronary syndromes", "ACS", "American Cancer Society", "long-term potentiation", "LTP",
    "anti retroviral therapy", "antiretroviral therapy", "ImageNet dataset", "MIMIC", "message passing",
    "attention", "self-attention", "self attention mechanism", "protein folding", "protein structure",
]  # fmt: skip
DEFINITIONS = [
    "We train a graph neural network (GNN).", "A convolutional neural network (CNN) reads images.",
    "Patients with acute coronary syndrome (ACS) were enrolled.", "The American Cancer Society (ACS) funds it.",
    "Long-term potentiation (LTP) was induced.", "We use the MIMIC dataset.", "",
]  # fmt: skip


def _random_paper(rng: Any) -> tuple[list[tuple[str, float]], str]:
    phrases = [(p, round(rng.uniform(0.05, 1.0), 3)) for p in rng.sample(PHRASES, rng.randint(0, 8))]
    return phrases, " ".join(rng.sample(DEFINITIONS, rng.randint(0, 3)))


def _shape(concepts: Any) -> tuple[Any, ...]:
    found = {
        k: (c.name, c.type, sorted(c.aliases), sorted(c.papers.items())) for k, c in concepts.concepts.items()
    }
    return found, concepts.per_paper, concepts.alias_to_key


def _assert_update_equals_a_build(
    ledger: ConceptLedger, changed: dict[str, PaperShare | None], papers: dict[str, tuple[Any, str]]
) -> None:
    """Update ``ledger`` with ``changed``; it must merge as a ledger built from ``papers`` (the library
    after the change), and its change must name every concept and paper whose merged form differs."""
    before = _shape(ledger.concept_set())
    change = ledger.update(changed)
    fresh = ConceptLedger.build({p: v[0] for p, v in papers.items()}, {p: v[1] for p, v in papers.items()})
    after = _shape(fresh.concept_set())
    assert _shape(ledger.concept_set()) == after
    assert ConceptLedger.from_json(ledger.to_json()).concept_set().per_paper == after[1]
    for key in {k for k in after[0] if after[0][k] != before[0].get(k)}:
        assert key in change.concepts
        found = change.concepts[key]
        assert (found.name, found.type, sorted(found.aliases), sorted(found.papers.items())) == after[0][key]
    moved = {p for p in set(after[1]) | set(before[1]) if after[1].get(p, []) != before[1].get(p, [])}
    assert moved <= set(change.per_paper)
    assert all(change.per_paper[p] == after[1].get(p, []) for p in change.per_paper)


def test_a_second_expansion_of_an_acronym_rewrites_the_concept_it_leaves() -> None:
    papers = {p: (AMBIGUOUS[p], AMBIGUOUS_TEXTS[p]) for p in ("P1", "P3", "P4")}
    ledger = ConceptLedger.build({p: v[0] for p, v in papers.items()}, {p: v[1] for p, v in papers.items()})
    assert ledger.concept_set().key_for("ACS") == "acute coronary syndrome"
    papers["P2"] = (AMBIGUOUS["P2"], AMBIGUOUS_TEXTS["P2"])
    _assert_update_equals_a_build(ledger, {"P2": paper_share(*papers["P2"])}, papers)
    assert ledger.concept_set().key_for("ACS") == "acs"


@pytest.mark.parametrize("seed", range(12))
def test_a_ledger_updated_by_what_changed_equals_one_built_again(seed: int) -> None:
    """Papers edited, emptied, added and removed at random."""
    import random

    rng = random.Random(seed)
    papers = {
        p: v for p, v in ((f"P{i}", _random_paper(rng)) for i in range(14)) if v[0]
    }  # as a build has them
    ledger = ConceptLedger.build({p: v[0] for p, v in papers.items()}, {p: v[1] for p, v in papers.items()})
    for _ in range(3):
        changed: dict[str, PaperShare | None] = {}
        for paper in rng.sample([*sorted(papers), "P-new"], 3):
            phrases, text = _random_paper(rng) if rng.random() >= 0.25 else ([], "")
            changed[paper] = paper_share(phrases, text) if phrases else None
            papers.pop(paper, None)
            if phrases:
                papers[paper] = (phrases, text)
        _assert_update_equals_a_build(ledger, changed, papers)
