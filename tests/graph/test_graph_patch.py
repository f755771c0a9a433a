"""An edit to a few papers patches the graph instead of rebuilding it, and the patched graph is the one a
rebuild makes: node for node, edge for edge, props included. Edits as Zotero writes them, to a library
whose PDFs have reference lists naming a library paper and works outside it; titles and abstracts that
define acronyms and share phrases, so concepts merge and split. The real embedder and embedded stores."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest

from agent_zot.config import Settings
from agent_zot.graph.build import build_graph
from agent_zot.graph.facts import FactsCache, current_facts
from agent_zot.graph.model import EdgeKind, GraphData, NodeKind
from agent_zot.graph.resources import GraphResources
from agent_zot.index.embed import make_embedder
from agent_zot.index.resources import IndexResources
from agent_zot.services.upkeep.update_db import UpdateOptions, UpdateSummary, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.edits import LocalEdits
from agent_zot.zotero.reader import load_library
from tests.conftest import fingerprint, guard_database
from tests.pdf_factory import write_paper

pytestmark = pytest.mark.slow

FOLDING = "Protein structure prediction with deep attention networks"
CITING_BODY = (
    "Structure prediction has advanced quickly. Attention networks predict residue contacts [1]. Message "
    "passing generalises convolution to graphs [2]. We compare both on benchmark proteins."
)
REFERENCES = [
    f"[1] A. Fold and B. Helix. {FOLDING}. Journal of Structural Biology, 12:1-20, 2021.",
    "[2] T. Kipf and M. Welling. Semi-supervised classification with graph convolutional networks. In "
    "Proc. of ICLR, 2017.",
    "[3] W. Scholar. Statistical methods for protein science, second edition. Springer, Berlin, 2011.",
]
ABSTRACTS = {
    "fold": "We predict protein structure with a graph neural network (GNN) and attention over residues.",
    "gnn": "Graph neural networks (GNN) learn on citation graphs; message passing aggregates neighbours.",
    "cite": "We compare attention networks and graph neural networks for protein structure prediction.",
    "acs": "Patients with acute coronary syndrome (ACS) were followed for a year after discharge.",
    "other": "Message passing neural networks predict molecular properties from molecular graphs.",
}


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("graph-patch")
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=41)
    k: dict[str, str] = {"shelf": b.add_collection("Shelf")}
    titles = {
        "fold": FOLDING,
        "gnn": "Graph neural networks for citation graphs",
        "cite": "Attention or message passing for protein structure",
        "acs": "Outcomes after acute coronary syndrome",
        "other": "Neural message passing for quantum chemistry",
    }
    # the authors and years the reference lists give, where a list names the paper (or will)
    creators = {"fold": [("A.", "Fold"), ("B.", "Helix")], "other": [("Thomas", "Kipf"), ("Max", "Welling")]}
    for name, title in titles.items():
        k[name] = b.add_item(
            "journalArticle",
            title=title,
            abstractNote=ABSTRACTS[name],
            date="2017" if name == "other" else "2021",
            creators=creators.get(name, [("Ada", f"Writer{name.title()}")]),
            publicationTitle="Journal of Examples",
        )
    for name in ("cite", "other"):
        path = write_paper(root / f"{name}.pdf", body_pages=2, body=CITING_BODY, references=REFERENCES).path
        b.add_attachment(k[name], filename=f"{name}.pdf", content=path.read_bytes())
    guard_database(b.build())
    return root / "Zotero", k


class Index:
    def __init__(self, data_dir: Path, embedder: Any) -> None:
        self.settings = Settings(data_dir=data_dir, index_workers=2, parse_timeout_s=60)
        self.resources = IndexResources(self.settings)
        self.resources.__dict__["embedder"] = embedder
        self.graph = GraphResources(self.settings, self.resources.state.path)

    def update(self, zotero: Path) -> UpdateSummary:
        self.library = load_library(zotero / "zotero.sqlite")
        return update_index(self.library, self.resources, UpdateOptions(), graph=self.graph)

    def stored(self) -> GraphData:
        store = self.graph.local
        nodes = [n for kind in NodeKind for n in store.find_nodes(kind, limit=10**6)]
        return GraphData(nodes, store.all_edges([]))

    def rebuilt(self) -> GraphData:
        """What a build from scratch makes of the same library and facts."""
        cache = FactsCache(self.resources.state.path)
        try:
            facts = current_facts(
                self.library.items.values(), self.resources.state, cache, settings=self.settings
            )
        finally:
            cache.close()
        return build_graph(self.library, facts)[0]

    def close(self) -> None:
        self.graph.close()
        self.resources.close()


def rows(graph: GraphData) -> tuple[list[tuple[str, ...]], list[tuple[str, ...]]]:
    """Nodes and edges with their props as stored (JSON), sorted."""
    nodes = sorted((n.id, n.kind.value, json.dumps(n.props, sort_keys=True)) for n in graph.nodes)
    edges = sorted(
        (e.source, e.kind.value, e.target, json.dumps(e.props, sort_keys=True)) for e in graph.edges
    )
    return nodes, edges


@pytest.fixture
def live(source, embedder, tmp_path: Path):
    zotero = tmp_path / "Zotero"
    shutil.copytree(source[0], zotero)
    index = Index(tmp_path / "data", embedder)
    first = index.update(zotero)
    assert first.graph is not None and "patched_papers" not in first.graph  # the first graph is built
    yield zotero, source[1], index, LocalEdits(zotero / "zotero.sqlite")
    index.close()


def cites(index: Index, source: str) -> set[str]:
    return {e.target for e in index.stored().edges if e.kind is EdgeKind.CITES and e.source == source}


def concept(index: Index, key: str) -> Any:
    return index.graph.local.get_nodes([f"concept:{key}"])[0]


def assert_patched_like_a_rebuild(index: Index, summary: UpdateSummary, papers: int) -> None:
    assert summary.graph is not None and summary.graph.get("patched_papers") == papers, summary.graph
    assert rows(index.stored()) == rows(index.rebuilt())


def test_a_title_edit_moves_the_citations_that_named_the_paper(live) -> None:
    zotero, k, index, edits = live
    citing = f"paper:{k['cite']}"
    assert f"paper:{k['fold']}" in cites(index, citing)

    edits.set_field(k["fold"], "title", "Residue contact maps from sequence alone")
    summary = index.update(zotero)
    assert_patched_like_a_rebuild(index, summary, 1)
    moved = cites(index, citing)
    assert f"paper:{k['fold']}" not in moved  # the reference list now names a work outside the library
    titles = {n.props.get("title") for n in index.graph.local.get_nodes(sorted(moved))}
    assert FOLDING in titles, titles

    edits.set_field(k["other"], "title", "Semi-supervised classification with graph convolutional networks")
    summary = index.update(zotero)
    assert_patched_like_a_rebuild(index, summary, 1)
    assert f"paper:{k['other']}" in cites(index, citing)  # a library paper now holds the cited work


def test_a_process_that_patches_again_keeps_the_memo_a_new_process_reads(live, embedder, tmp_path) -> None:
    """`watch` patches edit after edit with the memo it keeps in memory; what it wrote is what a new
    process reads, and that process patches the next edit as a rebuild would make it."""
    zotero, k, index, edits = live
    for n, title in enumerate(("Residue contact maps", "Contact prediction", "Folding from contacts")):
        edits.set_field(k["fold"], "title", f"{title} ({n})")
        assert_patched_like_a_rebuild(index, index.update(zotero), 1)
    index.close()
    again = Index(tmp_path / "data", embedder)
    try:
        edits.set_field(k["fold"], "title", "Protein contact maps from sequence")
        assert_patched_like_a_rebuild(again, again.update(zotero), 1)
    finally:
        again.close()


def test_abstract_edits_merge_and_split_concepts_as_a_rebuild_does(live) -> None:
    zotero, k, index, edits = live
    assert "acs" in concept(index, "acute coronary syndrome").props["aliases"]  # defined one way
    # a second expansion of ACS makes the acronym ambiguous: it merges with neither
    edits.set_field(k["other"], "abstractNote", "The American Cancer Society (ACS) funds outcome research.")
    assert_patched_like_a_rebuild(index, index.update(zotero), 1)
    assert "acs" not in concept(index, "acute coronary syndrome").props["aliases"]
    edits.set_field(k["gnn"], "abstractNote", "Graph convolutional networks (GCN) learn from labelled nodes.")
    edits.set_field(k["fold"], "abstractNote", "")
    assert_patched_like_a_rebuild(index, index.update(zotero), 2)


def test_a_retag_with_a_title_edit_is_one_patch(live) -> None:
    zotero, k, index, edits = live
    edits.add_tag([k["acs"], k["gnn"]], "to-read")
    edits.add_to_collection([k["gnn"]], k["shelf"])
    edits.set_field(k["acs"], "title", "Long-term outcomes after acute coronary syndrome (ACS)")
    summary = index.update(zotero)
    assert_patched_like_a_rebuild(index, summary, 2)
    tagged = {e.source for e in index.stored().edges if e.kind is EdgeKind.TAGGED}
    assert {f"paper:{k['acs']}", f"paper:{k['gnn']}"} <= tagged


def test_a_change_to_what_places_a_paper_rebuilds_and_the_memo_follows(live) -> None:
    zotero, k, index, edits = live
    db = zotero / "zotero.sqlite"
    edits.set_field(k["gnn"], "publicationTitle", "Journal of Other Examples")  # a venue: rebuilt
    summary = index.update(zotero)
    assert summary.graph is not None and "patched_papers" not in summary.graph
    assert rows(index.stored()) == rows(index.rebuilt())
    edits.add_tag([k["fold"]], "only-a-tag")  # the retag patch keeps the memo current...
    index.update(zotero)
    edits.set_field(k["fold"], "title", "Contact maps for protein structure prediction")
    assert_patched_like_a_rebuild(index, index.update(zotero), 1)  # ...so the next edit still patches
    before = fingerprint(db)
    again = index.update(zotero)
    assert again.graph is None  # nothing changed: nothing written
    assert fingerprint(db) == before
