"""The data `agent-zot view` draws (agent_zot.services.explore.view_data and .scope): counts, scopes, the cap, bad input."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from agent_zot.config import Settings
from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.graph.model import EdgeKind, NodeKind
from agent_zot.graph.store import Direction
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.services.context import AppContext
from agent_zot.services.explore.view_data import ViewData, build_view, library_view
from agent_zot.services.explore.view_scope import ViewRequest
from agent_zot.zotero.demo import ensure_demo_library
from tests.view.view_fixtures import DEMO_TITLES, demo_settings, synthetic_library


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return demo_settings(tmp_path_factory)


def view(settings: Settings, **request: Any) -> ViewData:
    ctx = AppContext(settings)
    try:
        return library_view(ctx, ViewRequest(**request))
    finally:
        ctx.close()


def titles(data: ViewData) -> set[str]:
    return {n["title"] for n in data.nodes}


def by_title(data: ViewData) -> dict[str, dict[str, Any]]:
    return {n["title"]: n for n in data.nodes}


def test_whole_demo_library(demo: Settings) -> None:
    data = view(demo)
    assert data.scope == "the whole library" and data.left_out == 0 and not data.note
    assert len(data.nodes) == data.total_papers == 7
    papers = by_title(data)
    bert, scibert, s2orc = (papers[DEMO_TITLES[k]] for k in ("bert", "scibert", "s2orc"))
    # The demo's PDFs: SciBERT cites BERT and Attention; S2ORC cites BERT and SciBERT.
    keys = [n["key"] for n in data.nodes]
    cites = {(keys[a], keys[b]) for a, b in data.edges["cites"]}
    assert (scibert["key"], bert["key"]) in cites and (s2orc["key"], bert["key"]) in cites
    assert data.counts() == {"papers": 7, "cites": 4, "coauthor": 1, "concept": 1}
    assert bert["cited_by"] == 2 and sorted(bert["cited_by_keys"]) == sorted([scibert["key"], s2orc["key"]])
    assert bert["key"] in scibert["cites"] and bert["pagerank"] > scibert["pagerank"] > 0
    assert s2orc["external_refs"] > 0  # works cited outside the library are counted, not drawn
    assert bert["link"] == f"zotero://select/library/items/{bert['key']}"
    assert (
        bert["authors"][0] == "Jacob Devlin"
        and bert["year"] == 2019
        and "Methods" in " ".join(bert["collections"])
    )
    # Kyle Lo wrote SciBERT and S2ORC: their shared-author link.
    ((a, b, weight),) = data.edges["coauthor"]
    assert {keys[a], keys[b]} == {scibert["key"], s2orc["key"]} and weight == 1
    assert {g["name"] for g in data.groups} == {
        "Thesis",
        "Thesis/Background",
        "Thesis/Methods",
        "Reading list",
    }
    assert all(-1 <= n["group"] < len(data.groups) for n in data.nodes)


def test_collection_scope_includes_sub_collections(demo: Settings) -> None:
    thesis = view(demo, collection="Thesis")
    assert DEMO_TITLES["s2orc"] in titles(thesis) and DEMO_TITLES["attention"] in titles(thesis)
    assert titles(view(demo, collection="methods")) == {
        DEMO_TITLES[k] for k in ("bert", "scibert", "attention")
    }
    assert thesis.scope == "collection 'Thesis'"


def test_author_scope_by_full_name_or_surname(demo: Settings) -> None:
    expected = {DEMO_TITLES["scibert"], DEMO_TITLES["s2orc"]}
    assert titles(view(demo, author="Kyle Lo")) == expected
    assert titles(view(demo, author="Lo")) == expected


def test_concept_scope_matches_the_graph(demo: Settings) -> None:
    data = view(demo, concept="full text")
    ctx = AppContext(demo)
    try:
        store = ctx.graph().local
        concept = store.get_nodes(["concept:full text"])[0]
        papers = store.edges_of([concept.id], kinds=[EdgeKind.MENTIONS], direction=Direction.IN)
        expected = {n.name for n in store.get_nodes([e.source for e in papers])}
    finally:
        ctx.close()
    assert titles(data) == expected and len(expected) == 2


def test_item_scope_with_hops(demo: Settings) -> None:
    bert = next(n for n in view(demo).nodes if n["title"] == DEMO_TITLES["bert"])
    near = view(demo, item=bert["key"])  # one hop by default: the papers citing BERT
    assert titles(near) == {DEMO_TITLES[k] for k in ("bert", "scibert", "s2orc")}
    assert titles(view(demo, item="bert pre-training", hops=0)) == {DEMO_TITLES["bert"]}
    # Two hops: through SciBERT to Attention, and to S2ORC; still not the unconnected papers.
    assert DEMO_TITLES["attention"] in titles(view(demo, item=bert["key"], hops=2))


def test_scopes_intersect(demo: Settings) -> None:
    assert titles(view(demo, collection="Methods", author="Kyle Lo")) == {DEMO_TITLES["scibert"]}
    with pytest.raises(NotFoundError, match="No paper is in"):
        view(demo, collection="Reading list", author="Kyle Lo")


def test_cap_keeps_the_most_connected(demo: Settings) -> None:
    data = view(demo, max_nodes=2)
    assert len(data.nodes) == 2 and data.left_out == 5 and data.total_papers == 7
    # SciBERT and S2ORC: linked to 3 papers each by citations, a shared author or a shared concept.
    assert titles(data) == {DEMO_TITLES["scibert"], DEMO_TITLES["s2orc"]}
    assert "Showing the 2 most connected of 7 papers; 5 left out" in data.note
    # Edges only among the papers drawn; papers named in a panel but not drawn get a label.
    assert all(max(e[:2]) < 2 for kind in data.edges.values() for e in kind)
    assert DEMO_TITLES["bert"] + " (2019)" in data.others.values()


def test_cap_on_a_synthetic_graph_keeps_the_hub_and_the_seed(tmp_path: Path) -> None:
    graph, library = synthetic_library(60)
    store = SqliteGraphStore(tmp_path / "state.sqlite")
    try:
        store.replace_all(graph)
        data = build_view(store, library, ViewRequest(max_nodes=5))
        keys = {n["key"] for n in data.nodes}
        assert len(keys) == 5 and "P0000000" in keys and data.left_out == 55
        assert len(data.edges["cites"]) == sum(1 for k in keys if k != "P0000000") + ("P0000002" in keys)
        seeded = build_view(store, library, ViewRequest(item="P0000059", hops=1, max_nodes=1))
        assert [n["key"] for n in seeded.nodes] == ["P0000059"]  # the seed beats the hub
        assert build_view(store, library, ViewRequest(max_nodes=100)).left_out == 0
    finally:
        store.close()


@pytest.mark.parametrize(
    ("request_", "error", "names"),
    [
        ({"collection": "Zoology"}, NotFoundError, "Reading list"),
        ({"collection": "Thesys"}, AmbiguousNameError, "Thesis"),
        ({"author": "Devlim"}, NotFoundError, "Jacob Devlin"),
        ({"concept": "mixed efects"}, NotFoundError, "mixed effect"),
        ({"item": "VP87HHZ5"}, NotFoundError, "VP87HHZ4"),
        ({"hops": 2}, InvalidArgumentError, "--item"),
    ],
)
def test_unknown_names_get_the_closest(
    demo: Settings, request_: dict[str, Any], error: type[Exception], names: str
) -> None:
    with pytest.raises(error) as caught:
        view(demo, **request_)
    assert names in str(caught.value)


def test_no_index_says_to_run_update_db(tmp_path: Path) -> None:
    db = ensure_demo_library(tmp_path / "demo")
    settings = Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state")
    with pytest.raises(NotFoundError, match="agent-zot update-db"):
        view(settings)
    assert not (tmp_path / "state" / "index").exists() or not any(
        (tmp_path / "state" / "index").rglob("*.sqlite")
    )


def test_empty_graph_says_to_run_update_db(tmp_path: Path) -> None:
    graph, library = synthetic_library(3)
    store = SqliteGraphStore(tmp_path / "state.sqlite")
    try:
        store.replace_all(graph)
        store.delete_nodes([n.id for n in graph.nodes if n.kind is NodeKind.PAPER])
        with pytest.raises(NotFoundError, match="agent-zot update-db"):
            build_view(store, library, ViewRequest())
    finally:
        store.close()


def test_the_readme_examples_work_on_the_demo(demo: Settings) -> None:
    """Each `agent-zot view` line of the README, run on the demo library through the CLI."""
    import re
    import shlex

    from click.testing import CliRunner

    from agent_zot.cli.main import cli

    readme = (Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8")
    lines = re.findall(r"^\.venv/bin/agent-zot view(.*?)(?:#.*)?$", readme, re.M)
    examples = [shlex.split(line) for line in lines if "--serve" not in line]
    assert len(examples) >= 3
    env = {"AGENT_ZOT_DATA_DIR": str(demo.data_dir)}
    for n, arguments in enumerate(examples):
        out = demo.data_dir.parent / f"readme-{n}.html"
        library = ["--library", str(demo.zotero_data_dir)]
        result = CliRunner().invoke(
            cli, [*library, "view", *arguments, "--no-open", "--out", str(out)], env=env
        )
        assert result.exit_code == 0, (arguments, result.output)
        assert out.stat().st_size > 10_000
        if "--claim" in arguments:  # the claim and the paper it restates (tests/view/test_view_evidence.py)
            assert result.stdout.startswith("Evidence for 1 claim: 1 claim drawn with")
            assert "SciBERT" in out.read_text(encoding="utf-8")
