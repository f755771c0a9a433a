"""The query router: accuracy on a labelled set, parameter extraction, and the API contract."""

from __future__ import annotations

import datetime
import json
from collections import Counter, defaultdict
from pathlib import Path
from typing import Any

import pytest

from agent_zot.services.routing import TOOL_MODES, TOOLS, Route, route
from agent_zot.services.routing.model import INTENTS
from agent_zot.services.routing.router import MAX_ANALYSED_CHARS, RULE_TABLES
from agent_zot.services.routing.rules import rx

LABELLED = Path(__file__).parents[2] / "data" / "routing_queries.jsonl"
MIN_ACCURACY = 0.93
THIS_YEAR = datetime.date.today().year


def _load_cases() -> list[dict[str, Any]]:
    with LABELLED.open(encoding="utf-8") as fh:
        return [json.loads(line) for line in fh if line.strip()]


CASES = _load_cases()


def params_of(tool: str, query: str) -> dict[str, Any]:
    return route(tool, query).params


# --- (1) accuracy over the labelled set ------------------------------------------------------------

# Sets written by people who never saw the rules (scripts/data/routing_unseen*.jsonl). Rows marked "dev"
# have been tuned on; rows marked "test" are held out and only measured by scripts/bench_routing.py.
UNSEEN = sorted((Path(__file__).parents[3] / "scripts" / "data").glob("routing_unseen*.jsonl"))
MIN_UNSEEN_ACCURACY = 0.97


def test_the_packaged_examples_are_the_labelled_sets_without_held_out_rows() -> None:
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        "build", Path(__file__).parents[3] / "scripts" / "build_routing_examples.py"
    )
    assert spec and spec.loader
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    assert build.TARGET.read_text(encoding="utf-8") == build.render(), "run scripts/build_routing_examples.py"
    held_out = {
        json.loads(line)["query"]
        for path in UNSEEN
        for line in path.read_text(encoding="utf-8").splitlines()
        if json.loads(line)["split"] == "test"
    }
    assert held_out and not held_out & {row["query"] for row in build.rows()}


def test_a_request_no_rule_recognises_takes_the_mode_of_similar_labelled_requests() -> None:
    from agent_zot.services.routing.examples import NearestExamples

    examples = NearestExamples(
        [
            ("zot_manage_notes", "where did I scribble thoughts about sampling", "search"),
            ("zot_manage_notes", "my scribbled thoughts about priors, where are they", "search"),
            ("zot_manage_notes", "notes of ABCD2345", "list_notes"),
        ]
    )
    assert examples.nearest_mode("zot_manage_notes", "where did i scribbel my thougts on bias") == (
        "search",
        pytest.approx(0.5, abs=0.5),
    )
    assert examples.nearest_mode("zot_export", "anything") is None  # no examples for that tool
    # Through the router: nothing matches a rule, so the packaged examples decide, and the route says so.
    decided = route("zot_manage_collections", "things I grabbed into zotero this morning")
    assert (
        decided.mode == "recent" and not decided.cued and "most similar labelled requests" in decided.reason
    )


@pytest.mark.slow
def test_routing_holds_on_requests_written_without_the_rules() -> None:
    rows = [json.loads(line) for path in UNSEEN for line in path.read_text(encoding="utf-8").splitlines()]
    tuned = [row for row in rows if row["split"] == "dev"]
    assert len(tuned) >= 400
    misses = [
        f"{r['tool']} {r['mode']}: {r['query']}"
        for r in tuned
        if route(r["tool"], r["query"]).mode != r["mode"]
    ]
    assert 1 - len(misses) / len(tuned) >= MIN_UNSEEN_ACCURACY, "\n".join(misses)
    classes = Counter(row["class"] for row in rows)
    for wanted in (
        "people",
        "entity",
        "bibliographic",
        "structure",
        "related",
        "concept",
        "recent",
        "notes_search",
    ):
        assert classes[wanted] >= 40, wanted


def test_labelled_set_is_well_formed() -> None:
    assert len(CASES) >= 180
    per_tool = Counter(case["tool"] for case in CASES)
    for tool in ("zot_manage_collections", "zot_manage_tags", "zot_manage_notes", "zot_export"):
        assert per_tool[tool] >= 20, tool
    covered = {(case["tool"], case["mode"]) for case in CASES}
    for tool, modes in TOOL_MODES.items():
        for mode in modes:
            assert (tool, mode) in covered, f"no labelled query for {tool}/{mode}"
    for case in CASES:
        assert case["mode"] in TOOL_MODES[case["tool"]], case


def test_mode_accuracy_per_tool() -> None:
    right: Counter[str] = Counter()
    total: Counter[str] = Counter()
    misses: list[str] = []
    for case in CASES:
        got = route(case["tool"], case["query"])
        total[case["tool"]] += 1
        if got.mode == case["mode"]:
            right[case["tool"]] += 1
        else:
            misses.append(
                f"{case['tool']}: {case['query']!r} → {got.mode} (want {case['mode']}; {got.reason})"
            )
    print(f"\n{'tool':26} {'right':>5} {'total':>5} {'accuracy':>8}")
    for tool in TOOLS:
        print(f"{tool:26} {right[tool]:5d} {total[tool]:5d} {right[tool] / total[tool]:8.3f}")
    overall = sum(right.values()) / sum(total.values())
    print(f"{'overall':26} {sum(right.values()):5d} {sum(total.values()):5d} {overall:8.3f}")
    print("\n".join(misses))
    assert overall >= MIN_ACCURACY, "\n".join(misses)


def test_labelled_params_match() -> None:
    problems: list[str] = []
    for case in CASES:
        got = route(case["tool"], case["query"])
        for key, want in case.get("params", {}).items():
            if got.params.get(key) != want:
                problems.append(f"{case['query']!r}: {key} = {got.params.get(key)!r}, want {want!r}")
        if "compound" in case and got.compound != case["compound"]:
            problems.append(f"{case['query']!r}: compound = {got.compound} {got.subqueries}")
    assert not problems, "\n".join(problems)


# --- (2) parameter extractors --------------------------------------------------------------------


@pytest.mark.parametrize(
    ("query", "keys"),
    [
        ("summarize ABCD2345", ["ABCD2345"]),
        ("compare X7K2M9QP and 8HJW3ZRT", ["X7K2M9QP", "8HJW3ZRT"]),
        ("ABSTRACT of the paper", None),  # all letters: a shouted word, not a key
        ("12345678 items", None),  # all digits
        ("ABCD0123", None),  # 0 and 1 are not in Zotero's key alphabet
        ("ABCD23456", None),  # nine characters
        ("abcd2345", None),  # keys are upper case
        ("the DOI-ABCD2345-x thing", None),  # not a standalone token
    ],
)
def test_item_keys(query: str, keys: list[str] | None) -> None:
    assert params_of("zot_summarize", query).get("item_keys") == keys


def test_doi_and_arxiv() -> None:
    p = params_of("zot_search", "find doi:10.1038/nature14539.")
    assert p["doi"] == "10.1038/nature14539"
    assert "years" not in p
    p = params_of("zot_search", "https://doi.org/10.1145/3292500.3330701")
    assert p["doi"] == "10.1145/3292500.3330701"
    assert params_of("zot_search", "paper 2203.00130 please")["arxiv_id"] == "2203.00130"
    assert params_of("zot_search", "arXiv:1903.10676v2")["arxiv_id"] == "1903.10676v2"
    p = params_of("zot_search", "https://arxiv.org/abs/2203.00130")
    assert p["arxiv_id"] == "2203.00130"
    assert "years" not in p
    assert "arxiv_id" not in params_of("zot_search", "pi is 3.14159")


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("papers from 2019", 2019, 2019),
        ("work 2015–2020 on bees", 2015, 2020),
        ("work 2015-2020 on bees", 2015, 2020),
        ("between 2015 and 2020", 2015, 2020),
        ("from 2010 to 2012", 2010, 2012),
        ("since 2019", 2019, None),
        ("after 2018", 2019, None),
        ("before 2000", None, 1999),
        ("until 2005", None, 2005),
        ("in the 1990s", 1990, 1999),
        ("in the last 5 years", THIS_YEAR - 5, None),
        ("past 3 years", THIS_YEAR - 3, None),
        ("within the last two years", THIS_YEAR - 2, None),
        ("recent work on RNA", THIS_YEAR - 3, None),
        ("what was published recently on RNA", THIS_YEAR - 3, None),
        ("this year", THIS_YEAR, THIS_YEAR),
        ("2019 papers on attention", 2019, 2019),
        ("papers in 2019 about attention", 2019, 2019),
        ("Smith 2019 attention", 2019, 2019),
        # a venue's edition beside a publication noun is when the paper appeared
        ("ICML 2022 papers on offline reinforcement learning", 2022, 2022),
        ("papers at CVPR 2019", 2019, 2019),
        ("McDonald 2019 sleep spindles", 2019, 2019),  # a name, not an acronym
        ("the PLDI 2009 paper on garbage collection", 2009, 2009),
    ],
)
def test_years(query: str, start: int | None, end: int | None) -> None:
    assert params_of("zot_search", query)["years"] == {"start": start, "end": end}


@pytest.mark.parametrize(
    "query",
    [
        "top 10 papers on graphs",
        "10.1000/182 is the DOI",
        "arXiv 2203.00130",
        "key 2B3C4D5E",
        "the year 1850 and the year 2150",
        "most recent additions",  # library recency, not publication years
        "recently added papers",
        # a year inside a phrase names an event, not when a paper appeared
        "how much coverage avoids drifts in 2029 transit predictions?",
        "effects of the 2008 financial crisis on banks",
        "mobility during 2020 lockdowns",
        # an event's edition: the overview that reports it appeared later
        "what top-5 error did the CNN that won ILSVRC 2012 reach, in the deep learning overview?",
        "what did the teams at CASP 2018 use for contact prediction",
    ],
)
def test_not_years(query: str) -> None:
    assert "years" not in params_of("zot_search", query)


def test_recent_is_not_a_year_filter_for_management_tools() -> None:
    assert "years" not in params_of("zot_manage_collections", "recent items")
    assert "years" not in params_of("zot_manage_notes", "my recent notes")


@pytest.mark.parametrize(
    ("query", "authors"),
    [
        ("papers by Smith", ["Smith"]),
        ("papers by Smith and Jones", ["Smith", "Jones"]),
        ("by Smith, Jones & Lee", ["Smith", "Jones", "Lee"]),
        ("Hinton's work on capsules", ["Hinton"]),
        ("Show Hinton's papers", ["Hinton"]),
        ("papers of Marie Curie", ["Marie Curie"]),
        ("author Kahneman", ["Kahneman"]),
        ("author: Kahneman", ["Kahneman"]),
        ("co-authors of Geoffrey Hinton", ["Geoffrey Hinton"]),
        ("who collaborated with Yoshua Bengio", ["Yoshua Bengio"]),
        ("work by van der Maaten", ["van der Maaten"]),
        ("papers by Ludwig von Mises", ["Ludwig von Mises"]),
        ("by de la Cruz", ["de la Cruz"]),
        ("by di Stefano and da Silva and le Roux", ["di Stefano", "da Silva", "le Roux"]),
        ("by Jane O'Brien", ["Jane O'Brien"]),
        ("by Smith-Jones", ["Smith-Jones"]),
        ("by McDonald", ["McDonald"]),
        ("by Yann LeCun", ["Yann LeCun"]),
        ("by J. Smith", ["J. Smith"]),
        ("by J. R. Anderson", ["J. R. Anderson"]),
        ("by Smith, J. and Jones, K.", ["Smith, J.", "Jones, K."]),
        ("by Vaswani et al.", ["Vaswani"]),
        ("papers by Smith et al. 2019", ["Smith"]),
        ("by José Núñez", ["José Núñez"]),
    ],
)
def test_authors(query: str, authors: list[str]) -> None:
    assert params_of("zot_search", query)["authors"] == authors


@pytest.mark.parametrize(
    "query",
    [
        "papers by hinton",  # names are recognised by capitals only
        "sorted by Date",
        "papers about Transformers",
        "PAPERS BY HINTON",  # all caps: capitalisation carries no signal
        "by 2020",
    ],
)
def test_not_authors(query: str) -> None:
    assert "authors" not in params_of("zot_search", query)


def test_quoted_phrases() -> None:
    p = params_of(
        "zot_search", "find \"effect size\" and 'power analysis' and “open science” and ‘p-hacking’"
    )
    assert p["quoted"] == ["effect size", "power analysis", "open science", "p-hacking"]
    assert "quoted" not in params_of("zot_search", "Hinton's and O'Brien's papers")


@pytest.mark.parametrize(
    ("tool", "query", "collection"),
    [
        ("zot_search", "papers in my Thesis collection", "Thesis"),
        ("zot_search", "in my Thesis/Chapter 2 collection, anything on sampling", "Thesis/Chapter 2"),
        ("zot_search", "papers from collection Methods", "Methods"),
        ("zot_search", "items in collection 'Grant 2024'", "Grant 2024"),
        ("zot_search", "the collection called Reading list", "Reading list"),
        ("zot_manage_collections", "add ABCD2345 to the Reading list collection", "Reading list"),
        ("zot_manage_collections", "show items in Thesis/Chapter 2", "Thesis/Chapter 2"),
        ("zot_manage_collections", "add ABCD2345 to Reading list", "Reading list"),
        ("zot_manage_collections", "remove ABCD2345 from 'To Read'", "To Read"),
        # the name in brackets is the collection's own spelling, translated before it
        (
            "zot_explore_graph",
            "what does my Kalman filter collection (卡尔曼滤波器) cite most?",
            "卡尔曼滤波器",
        ),
        ("zot_search", "papers in the collection (Reading list) about attention", "Reading list"),
    ],
)
def test_collection(tool: str, query: str, collection: str) -> None:
    p = params_of(tool, query)
    assert p["collection"] == collection
    assert "years" not in p  # "Grant 2024" is a name, not a year filter


def test_not_collection() -> None:
    assert "collection" not in params_of("zot_manage_collections", "list my collections")
    assert "collection" not in params_of("zot_manage_collections", "show collection tree")
    assert "collection" not in params_of("zot_manage_collections", "latest additions to my library")


def test_new_collection_and_parent() -> None:
    p = params_of("zot_manage_collections", "create a collection called Thesis/Chapter 2")
    assert p["new_collection"] == "Thesis/Chapter 2"
    assert "collection" not in p
    p = params_of("zot_manage_collections", "create subcollection Methods under Thesis")
    assert (p["new_collection"], p["collection"]) == ("Methods", "Thesis")


@pytest.mark.parametrize(
    ("query", "tags"),
    [
        ("papers tagged to-read", ["to-read"]),
        ("items with tag review", ["review"]),
        ("items with tags ml, nlp", ["ml", "nlp"]),
        ("add tag important to ABCD2345", ["important"]),
        ("tag these papers with to-read", ["to-read"]),
        ("remove the tag draft from ABCD2345", ["draft"]),
        ("take the to-read tag off ABCD2345", ["to-read"]),
        ('papers tagged "to read"', ["to read"]),
    ],
)
def test_tags(query: str, tags: list[str]) -> None:
    assert params_of("zot_manage_tags", query)["tags"] == tags


@pytest.mark.parametrize(
    ("query", "color"),
    [
        ("my red highlights in the SciBERT paper", "red"),
        ("what did I highlight in yellow", "yellow"),
        ("what did I mark in green", "green"),
        ("highlights in colour: grey", "grey"),
        ("green-colored highlights", "green"),
        ("which highlights did I colour blue?", "blue"),
        ("annotations coloured #FF6666", "#ff6666"),
        ("notes about red blood cells", None),  # a colour word that colours nothing is topic
        ("annotations that mention the green revolution", None),
        ("search my notes for Orange County", None),
    ],
)
def test_annotation_colour(query: str, color: str | None) -> None:
    params = params_of("zot_manage_notes", query)
    assert params.get("color") == color
    if color is None:
        assert params["topic"]
    assert "color" not in params_of("zot_search", "red highlights")  # a notes parameter only


@pytest.mark.parametrize(
    ("query", "paper"),
    [
        ("show all highlights in the Watts Strogatz paper", "Watts Strogatz"),
        ("my red highlights in the SciBERT paper", "SciBERT"),
        ("find notes about line search in the Nocedal book", "Nocedal"),
        ("annotations in the same paper", None),
        ("highlights in the PDF of QWER5678", None),
    ],
)
def test_paper_named_by_title_words_in_a_notes_request(query: str, paper: str | None) -> None:
    assert params_of("zot_manage_notes", query).get("paper") == paper


def test_tag_expression() -> None:
    p = params_of("zot_manage_tags", "find items tagged ml || deep-learning -review")
    assert p["tag_expression"] == "ml || deep-learning -review"
    assert p["tags"] == ["ml", "deep-learning"]
    assert params_of("zot_manage_tags", "nlp || cv")["tag_expression"] == "nlp || cv"
    assert "tag_expression" not in params_of("zot_manage_tags", "state-of-the-art tags")


def test_path_and_format() -> None:
    p = params_of("zot_export", "export to refs/thesis.bib")
    assert (p["path"], p["format"]) == ("refs/thesis.bib", "bibtex")
    p = params_of("zot_export", "save as notes.md")
    assert (p["path"], p["format"]) == ("notes.md", "markdown")
    assert params_of("zot_export", "export CSL JSON")["format"] == "csljson"
    assert params_of("zot_export", "open it in Gephi")["format"] == "graphml"
    # the file extension wins over a format word
    assert route("zot_export", "BibTeX, but write refs.json").mode == "csljson"
    assert "format" not in params_of("zot_search", "export to refs/thesis.bib")


@pytest.mark.parametrize(
    ("query", "limit"),
    [("top 10 papers", 10), ("the 10 most recent items", 10), ("first 5", 5), ("show me 20 papers", 20)],
)
def test_limit(query: str, limit: int) -> None:
    p = params_of("zot_search", query)
    assert p["limit"] == limit
    assert "years" not in p


@pytest.mark.parametrize(
    "query",
    [
        "What top-1 and top-5 test error rates did the network reach on ILSVRC-2010?",
        "how much did overlapping pooling lower the top-5 error",
        "top 5 accuracy of vision transformers on ImageNet",
        "which model has the best top-1 classification score",
    ],
)
def test_a_ranking_measure_is_no_limit(query: str) -> None:
    """ "top-5 error" is what the question asks about; read as a limit it showed one paper or five."""
    p = params_of("zot_search", query)
    assert "limit" not in p
    assert "top" in p["topic"]


@pytest.mark.parametrize(
    ("query", "limit"),
    [("top-10 deep learning papers", 10), ("top 20 papers about test-time adaptation", 20)],
)
def test_top_papers_is_still_a_limit(query: str, limit: int) -> None:
    assert params_of("zot_search", query)["limit"] == limit


def test_a_one_paper_question_keeps_what_it_asks_in_its_topic() -> None:
    """With a filter the topic is what the index is asked; it lost the question's own words before,
    keeping only the clause that names the paper ("unites a local and a global law")."""
    r = route(
        "zot_search",
        "What do controllers that switch between modes buy you, according to the 2013 backstepping paper "
        "that unites a local and a global law?",
    )
    assert r.mode == "fast"
    assert r.params["years"] == {"start": 2013, "end": 2013}
    topic = r.params["topic"]
    assert "controllers that switch between modes" in topic
    assert "backstepping paper that unites a local and a global law" in topic
    assert "2013" not in topic
    # a search request's wording is still cut from its topic
    assert params_of("zot_search", "find papers about attention in transformers since 2019")["topic"] == (
        "attention in transformers"
    )


@pytest.mark.parametrize(
    ("query", "days"),
    [
        ("added in the last 7 days", 7),
        ("this week", 7),
        ("this month", 30),
        ("today", 1),
        ("past 2 weeks", 14),
        ("last 24 hours", 1),
        ("items from the last 10000 days", 10000),  # a long window is still a window, not a collection
        ("what came in over the past 200 weeks", 1400),
        ("the last 5000 months", 36_500),  # capped at the days argument's own bound
    ],
)
def test_days(query: str, days: int) -> None:
    p = params_of("zot_manage_collections", query)
    assert p["days"] == days
    assert "years" not in p


@pytest.mark.parametrize(
    ("query", "venue"),
    [
        ("papers in Nature on CRISPR", "Nature"),
        ("work presented at NeurIPS", "NeurIPS"),
        ("published in Physical Review Letters since 2001", "Physical Review Letters"),
        ("articles in the Journal of Machine Learning Research", "Journal of Machine Learning Research"),
        (
            "in IEEE Transactions on Pattern Analysis and Machine Intelligence",
            "IEEE Transactions on Pattern Analysis and Machine Intelligence",
        ),
        ("at the Conference on Robot Learning in 2021", "Conference on Robot Learning"),
    ],
)
def test_venue(query: str, venue: str) -> None:
    assert params_of("zot_search", query)["venue"] == venue


@pytest.mark.parametrize(
    "query",
    [
        "papers in my Thesis collection",
        "in the last 5 years",
        "export in BibTeX",
        "what does it say in Section 3",
        "look at Smith's papers",
        "participatory budgeting in Latin American cities",  # a place after "in", not a venue
        "the reception of Plato in Renaissance Florence",
        "sepsis biomarkers in the ICU",
    ],
)
def test_not_venue(query: str) -> None:
    assert "venue" not in params_of("zot_search", query)


@pytest.mark.parametrize(
    ("query", "text"),
    [
        ("add a note to ABCD2345 saying check the supplementary data", "check the supplementary data"),
        ("create a note on ABCD2345: Great related-work section", "Great related-work section"),
        ("new note for ABCD2345 with text follow up with the authors", "follow up with the authors"),
        ('add note "revisit figure 3" to ABCD2345', "revisit figure 3"),
    ],
)
def test_note_text(query: str, text: str) -> None:
    p = params_of("zot_manage_notes", query)
    assert p["note_text"] == text


def test_note_text_is_not_mined_for_parameters() -> None:
    p = params_of("zot_manage_notes", "write a note on ABCD2345 that says compare with Smith 2019")
    assert p["note_text"] == "compare with Smith 2019"
    assert "years" not in p
    assert "authors" not in p
    assert "note_text" not in params_of("zot_manage_notes", "grep notes: transformer")


def test_topic() -> None:
    assert params_of("zot_search", "find papers about attention in transformers")["topic"] == (
        "attention in transformers"
    )
    assert params_of("zot_search", "papers by Smith on coral reefs since 2019")["topic"] == "coral reefs"
    assert params_of("zot_explore_graph", "papers similar to ABCD2345")["topic"] == ""
    assert params_of("zot_search", "Attention Is All You Need")["topic"] == "Attention Is All You Need"
    assert params_of("zot_search", "papers on time series forecasting")["topic"] == "time series forecasting"
    assert (
        params_of("zot_search", "papers about 'to be or not to be' please")["topic"] == "to be or not to be"
    )
    assert params_of("zot_search", "I'm looking for the BERT paper by Devlin")["topic"] == "BERT"
    assert params_of("zot_search", "")["topic"] == ""


def test_only_found_keys_are_present() -> None:
    p = params_of("zot_search", "sleep and memory")
    assert set(p) == {"topic"}


# --- (3) contract: forcing, errors, edge inputs, serialisation -------------------------------------


def test_force_mode() -> None:
    r = route("zot_search", "papers by Smith", force_mode="comprehensive")
    assert (r.mode, r.confidence, r.reason) == ("comprehensive", 1.0, "forced")
    assert r.intent == "semantic"
    assert set(r.backends) >= {"vector", "sparse", "graph", "zotero"}
    assert r.params["authors"] == ["Smith"]


def test_unknown_tool_and_mode() -> None:
    with pytest.raises(ValueError, match="zot_search"):
        route("zot_nonsense", "x")
    with pytest.raises(ValueError, match="fast, entity, graph, metadata, comprehensive"):
        route("zot_search", "x", force_mode="turbo")


def test_short_tool_aliases() -> None:
    assert route("search", "papers by Smith").tool == "zot_search"
    assert route("tags", "list tags").tool == "zot_manage_tags"


@pytest.mark.parametrize("tool", TOOLS)
def test_empty_query_gets_default_mode_with_low_confidence(tool: str) -> None:
    for query in ("", "   \n\t"):
        r = route(tool, query)
        assert r.mode == TOOL_MODES[tool][0]
        assert r.confidence < 0.5
        assert "empty" in r.reason


@pytest.mark.parametrize("tool", TOOLS)
def test_very_long_query(tool: str) -> None:
    query = "find papers similar to this: " + "slow-wave sleep predicts retention in adolescents. " * 200
    r = route(tool, query[:10_000])
    assert r.mode in TOOL_MODES[tool]
    assert len(r.params["topic"]) > MAX_ANALYSED_CHARS  # the pasted text stays in the topic
    for hostile in ("a" * 10_000, "'" * 10_000, "in my " * 1700, "by Smith " * 1100, "||" * 5000):
        assert route(tool, hostile).mode in TOOL_MODES[tool]


@pytest.mark.parametrize("case", CASES[::7], ids=lambda c: c["query"][:40])
def test_to_dict_is_json_ready(case: dict[str, Any]) -> None:
    r = route(case["tool"], case["query"])
    data = json.loads(json.dumps(r.to_dict()))
    assert data["mode"] == r.mode
    assert data["params"] == r.params
    assert isinstance(data["subqueries"], list) and isinstance(data["backends"], list)
    assert set(data) == {
        "tool",
        "intent",
        "mode",
        "confidence",
        "compound",
        "subqueries",
        "backends",
        "escalated",
        "forced",
        "reason",
        "params",
    }
    assert data["forced"] is False


def test_routes_are_well_formed() -> None:
    for case in CASES:
        r = route(case["tool"], case["query"])
        assert r.intent in INTENTS
        assert 0.0 <= r.confidence <= 1.0
        assert r.backends
        assert r.reason
        assert "topic" in r.params
        assert all(v not in (None, "", [], {}) for k, v in r.params.items() if k != "topic")


def test_compound_queries() -> None:
    r = route("zot_search", "transfer learning OR domain adaptation")
    assert r.subqueries == ("transfer learning", "domain adaptation")
    r = route("zot_search", "papers on attention, transformers, and BERT")
    assert r.subqueries == ("attention", "transformers", "BERT")
    for query in (
        "papers by Smith and Jones",
        "between 2015 and 2020",
        "graph neural networks and their applications",
        "research and development in pharma",
    ):
        assert not route("zot_search", query).compound, query
    assert route("zot_summarize", "methods and results of ABCD2345").subqueries == ()
    assert route("zot_search", "coral bleaching; ocean acidification").subqueries == (
        "coral bleaching",
        "ocean acidification",
    )


def test_a_question_with_a_semicolon_asks_one_thing() -> None:
    """What it says of its paper and what it asks were two searches, merged: one paper's question, answered
    as a compound topic."""
    r = route(
        "zot_search",
        "In the upper-arm band that picks up a weak ECG, the heartbeat classifier uses ten motion-tolerant "
        "features; how many raw candidate features were they chosen from?",
    )
    assert not r.compound and r.subqueries == ()


@pytest.mark.parametrize(
    "query",
    [
        "How was the reference soil moisture measured in the capacitive probe study?",
        "In the study that used a gradient-boosted model on lake buoys, how many sites were held out?",
        "Why does the ice-cover model built on satellite albedo drop the winter months?",
        "In the proof-of-concept that mapped sonar echoes to fish counts, what reference counts were used?",
        # a clause naming the paper, as the passage picker reads it, decides over cues said in passing
        "What do the authors of the lake-ice merging study blame for most of their misdated winters?",
        "Why is it a problem, according to the sonar study that works with noisy as well as clean echoes, to "
        "let one lake's surveys recur many times in the training data?",
        "In the short example showing how the ice model applies to shallow lakes, when would the earlier method "
        "of reference [5] suffice?",
        "In the deep RNN for lake temperature forecasting, how does a residual connection pass information on?",
    ],
)
def test_a_question_about_one_papers_content_stays_a_search(query: str) -> None:
    """A question about what one paper did is answered from its passages, whatever cue it names in passing
    ("reference", "used", "built on")."""
    assert route("zot_search", query).mode == "fast", route("zot_search", query).reason


@pytest.mark.parametrize(
    ("query", "mode"),
    [
        ("which papers cite the lake-ice model paper?", "graph"),
        ("who are the researchers behind the capacitive probe study?", "graph"),
        ("which datasets do papers on sepsis prediction use?", "entity"),
        ("who are the authors of the capacitive probe study?", "graph"),
        (
            "How strong is the support in my papers for the claim that lake ice forms later each decade?",
            "evidence",
        ),
    ],
)
def test_a_question_about_the_librarys_papers_keeps_its_mode(query: str, mode: str) -> None:
    assert route("zot_search", query).mode == mode


def test_a_question_is_one_search_whatever_its_ands() -> None:
    """A question asks one thing: its "and" joins what it is about ("spring and autumn ice"), it lists no
    searches; an explicit AND still splits."""
    for question in (
        "Why were separate regression models fitted for spring and autumn ice in the gauge and buoy study?",
        "which sensors and loggers did the lake survey deploy",
        "Did grazing and fire change soil carbon in the prairie trial?",
    ):
        assert route("zot_search", question).subqueries == (), question
    assert route("zot_search", "which papers cover grazing AND fire").subqueries == ("grazing", "fire")


@pytest.mark.slow
def test_subqueries_never_equal_the_query() -> None:
    queries = [case["query"] for case in CASES] + ["AND", "a AND a", "x, x", "sleep AND"]
    for query in queries:
        r = route("zot_search", query)
        normalised = " ".join(query.split()).lower()
        assert all(" ".join(s.split()).lower() != normalised for s in r.subqueries), query
        assert r.compound == bool(r.subqueries)
        assert not r.subqueries or len(r.subqueries) >= 2


def test_rule_tables_are_consistent() -> None:
    for tool, rules in RULE_TABLES.items():
        for rule in rules:
            assert rule.mode in TOOL_MODES[tool], (tool, rule)
    with pytest.raises(ValueError, match="lower case"):
        rx("fast", 1.0, r"\bQuick\b")


# --- (4) determinism -----------------------------------------------------------------------------


def test_determinism() -> None:
    first: dict[tuple[str, str], Route] = {}
    for _ in range(3):
        for case in CASES:
            key = (case["tool"], case["query"])
            r = route(*key)
            assert first.setdefault(key, r) == r


def test_route_is_hashable_and_frozen() -> None:
    r = route("zot_search", "papers by Smith")
    assert hash(r) == hash(route("zot_search", "papers by Smith"))
    with pytest.raises(AttributeError):
        r.mode = "fast"  # type: ignore[misc]


def test_every_mode_reachable_without_forcing() -> None:
    seen: defaultdict[str, set[str]] = defaultdict(set)
    for case in CASES:
        seen[case["tool"]].add(route(case["tool"], case["query"]).mode)
    for tool, modes in TOOL_MODES.items():
        assert seen[tool] == set(modes), tool


@pytest.mark.parametrize(
    "query",
    [
        "How does the bootstrap procedure differ from Deutsch et al. (2021) in what it resamples?",
        "How is faithfulness defined for long-form summaries (following Wang et al. 2022)?",
        "Which corpus did they compare against, as in (Lo et al., 2020) and Smith and Jones 2019?",
    ],
)
def test_a_cited_work_in_a_question_is_topic_not_a_filter(query: str) -> None:
    decision = route("zot_search", query)
    assert "years" not in decision.params and "authors" not in decision.params
    assert any(year in decision.params["topic"] for year in ("2019", "2020", "2021", "2022"))


@pytest.mark.parametrize("query", ["Lo et al. 2020", "What did Lo et al. 2020 find?"])
def test_a_request_that_is_mostly_a_citation_still_names_the_year(query: str) -> None:
    assert route("zot_search", query).params["years"] == {"start": 2020, "end": 2020}


# -- classes of request the nearest-request fallback used to misroute (issue 26) ----------------------


@pytest.mark.parametrize(
    "query",
    [
        "antibiotic resistance in hospital wastewater",
        "papers on graph rewriting systems",
        "what do I have on coastal erosion modelling",
        "I need stuff about the Hanseatic League and grain prices",
        "effects of noise exposure on children's reading",
        "the role of microglia in synaptic pruning",
        "mechanisms by which exercise improves insulin sensitivity",
        "whether minimum wages reduce employment",
        "neighbourhood effects on school achievement",
        "genes regulated by p53 in tumours",  # a passive modifier names a topic; "is regulated by" claims
        # a claim verb's noun twin: a noun joined by "and", "or", "of" or a comma is no finite verb
        "climate damage and temperature variability",
        "wage increases and inflation expectations",
        "storm damage or flood losses in coastal towns",
        "a decrease of serum ferritin in athletes",
        "interest rate increases, bank lending and house prices",
        # a clause naming the paper (with a claim verb in it), then the question: a question, not a claim
        "For the deep RNN that predicts blood pressure from PPG, how much did a bidirectional layer reduce error?",
        "In the trial where exercise improves mood, what was the sample size?",
        # ... and the question after the clause may open with its preposition ("for what", "in which")
        "Given its drift offsets from the gauge, for what use does the lake sensor seem suited?",
        "Since warming affects the ice cover, in which months did the buoys stop recording?",
    ],
)
def test_a_plain_topic_stays_a_search(query: str) -> None:
    assert route("zot_search", query).mode == "fast"


@pytest.mark.parametrize(
    "query",
    [
        "intermittent fasting improves insulin sensitivity",
        "Microfinance does not reduce household poverty.",
        "bilingual children outperform monolinguals on executive function tasks",
        "air pollution is associated with dementia risk",
        "remote work has no effect on productivity",
        "transformers have better sample efficiency than LSTMs",
        "is it true, given what I saved, that tariffs raised consumer prices?",
        "verify: the Younger Dryas was triggered by a meteor impact",
        "is there evidance that mindfulness lowers blood pressure",
        "smoking increased lung cancer risk in miners",
        "hepcidin is regulated by iron stores",
        "ozone damages lung tissue",
        "heat waves damage crops and reduce yields",
        "sleep improves memory, which is well known",
    ],
)
def test_a_claim_goes_to_evidence(query: str) -> None:
    assert route("zot_search", query).mode == "evidence"


@pytest.mark.parametrize(
    ("tool", "query", "mode"),
    [
        ("zot_summarize", "give me the citation for this paper", "quick"),
        ("zot_summarize", "how should I cite the Bigtable paper in APA", "quick"),
        ("zot_summarize", "how many words is this paper", "full"),
        ("zot_summarize", "what is Rawls's A Theory of Justice from 1971 really about", "quick"),
        ("zot_manage_notes", "show my notes on the GFS paper", "list_notes"),
        ("zot_manage_notes", "what notes did I jot down for the Framingham study", "list_notes"),
        ("zot_manage_notes", "my annotations on Shannon 1948", "list_annotations"),
        ("zot_manage_notes", "show my annotations on this paper", "list_annotations"),
        ("zot_manage_notes", "notes mentioning calibration in the GFS paper", "search"),
        ("zot_manage_notes", "add a note to the GFS paper: single master", "create"),
    ],
)
def test_one_paper_requests(tool: str, query: str, mode: str) -> None:
    assert route(tool, query).mode == mode


@pytest.mark.parametrize(
    ("query", "mode"),
    [
        ("the reference book full of matrix identities, derivatives and inverses", "quick"),
        ("summarize the matrix cookbook", "quick"),
        ("summarize the paper on covariance matrix estimation", "quick"),
        ("compare these papers in a matrix: sample size, outcome", "matrix"),
        ("matrix of methods for my Thesis collection", "matrix"),
    ],
)
def test_a_matrix_of_mathematics_is_no_review_matrix(query: str, mode: str) -> None:
    assert route("zot_summarize", query).mode == mode


@pytest.mark.parametrize(
    "query",
    [
        "In the sleep study, how long was the data collection period?",
        "What does the five-stage collection process consist of in the PPG dataset paper?",
        "How were birds counted in the field collection campaign of the survey?",
    ],
)
def test_a_studys_data_collection_is_no_zotero_collection(query: str) -> None:
    """Read as a collection, "data" would confine the search to a library's "Data" collection (or say there
    is none); the study's collecting is what the question asks about."""
    p = params_of("zot_search", query)
    assert "collection" not in p
    assert "collection" in p["topic"]


@pytest.mark.parametrize(
    ("query", "collection"),
    [
        ("papers in collection Methods", "Methods"),
        ("papers in the Data collection about sleep", "Data"),
        ("items in the collection called data period", "data period"),
    ],
)
def test_a_collection_named_beside_those_words_is_still_one(query: str, collection: str) -> None:
    assert params_of("zot_search", query)["collection"] == collection


@pytest.mark.parametrize(
    "query",
    [
        "Which relationship do the authors of the almost-ISS paper flag as worth studying later?",
        "Which regions do the authors label as high risk in the flood study?",
    ],
)
def test_what_a_papers_authors_label_is_no_tag(query: str) -> None:
    p = params_of("zot_search", query)
    assert "tags" not in p


@pytest.mark.parametrize(
    ("tool", "query", "tags"),
    [
        ("zot_search", "what did I mark as to-read about transformers", ["to-read"]),
        ("zot_manage_tags", "please mark ABCD2345 as important", ["important"]),
        ("zot_manage_tags", "flag X7K2M9QP as must-read", ["must-read"]),
    ],
)
def test_the_users_own_label_is_a_tag(tool: str, query: str, tags: list[str]) -> None:
    assert params_of(tool, query)["tags"] == tags
