"""The knowledge graph end to end: a library whose PDFs cite each other is indexed by update-db, the graph
is built from the reference lists, and every `zot_explore_graph` mode answers through a real MCP client."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.graph.model import EdgeKind, NodeKind, paper_id
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import connect, guard_database, library_settings
from tests.pdf_factory import write_paper

pytestmark = pytest.mark.slow

EXTERNAL_DOI = "10.9999/external.2010.1"
GNN_BODY = (
    "Graph neural networks propagate information along citation links between papers. We use a graph neural "
    "network to recommend citations: the citation recommendation model scores candidate papers by their "
    "neighbourhood in the citation graph and by the text of the citing sentence."
)
CONTEXT_BODY = (
    "Citation context analysis classifies why a paper is cited. Transformers read the citing sentence and "
    "predict the citation intent; citation context analysis helps citation recommendation and search."
)
SURVEY_BODY = (
    "Scholarly document processing covers parsing PDFs, extracting metadata and resolving references. "
    "This survey of scholarly document processing reviews reference parsing and metadata extraction."
)
PROTEIN_BODY = (
    "Protein structure prediction with deep learning: residues are embedded and a network predicts "
    "distances between residues, from which the folded protein structure is assembled."
)
REF_X = f"[{{n}}] R. Outsider and S. Else. A classic dataset of citations. Journal of Old Things, 3:1-9, 2010. doi:{EXTERNAL_DOI}"
REF_Y = "[{n}] T. Elder. Foundations of bibliometrics revisited. Bibliometric Letters, 12:40-52, 2012."


FILLERS = (
    "[{n}] U. Writer and V. Author. Notes on indexing large document collections. Information Retrieval, 5:10-20, 2008.",
    "[{n}] W. Scholar. Statistical methods for text, second edition. Springer, Berlin, 2011.",
    "[{n}] X. Reader, Y. Critic and Z. Editor. Evaluating search engines for science. In Proc. of SIGIR, 2013.",
)


def refs(*entries: str) -> list[str]:
    """A reference list: the given entries plus unrelated ones, as real lists have (at least four)."""
    return [entry.format(n=i) for i, entry in enumerate((*entries, *FILLERS), 1)]


@pytest.fixture(scope="module")
def graph_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("graph")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=44)
    k: dict[str, str] = {}

    def paper(name: str, body: str, references: list[str], **fields: Any) -> None:
        k[name] = b.add_item("journalArticle", **fields)
        path = write_paper(pdfs / f"{name}.pdf", body_pages=2, body=body, references=references).path
        b.add_attachment(k[name], filename=f"{name}.pdf", content=path.read_bytes())

    paper(
        "survey",
        SURVEY_BODY,
        refs(REF_Y),
        title="A survey of scholarly document processing",
        date="2015-00-00 2015",
        publicationTitle="Journal of Documentation",
        creators=[("Dan", "Evans")],
        abstractNote=SURVEY_BODY,
        tags=["survey"],
    )
    paper(
        "context",
        CONTEXT_BODY,
        refs(
            "[{n}] D. Evans. A survey of scholarly document processing. Journal of Documentation, 71:1-30, 2015.",
            REF_X,
        ),
        title="Citation context analysis with transformers",
        date="2017-00-00 2017",
        publicationTitle="Scientometrics",
        DOI="10.1234/context.2017",
        creators=[("Bo", "Chen"), ("Carla", "Diaz")],
        abstractNote=CONTEXT_BODY,
        tags=["citation analysis"],
    )
    paper(
        "gnn",
        GNN_BODY,
        refs(
            "[{n}] B. Chen and C. Diaz. Citation context analysis with transformers. Scientometrics, 2017. "
            "doi:10.1234/context.2017",
            REF_X,
            REF_Y,
        ),
        title="Graph neural networks for citation recommendation",
        date="2019-00-00 2019",
        publicationTitle="Scientometrics",
        creators=[("Ada", "Lovelace"), ("Bo", "Chen")],
        abstractNote=GNN_BODY,
        tags=["citation analysis", "graphs"],
    )
    paper(
        "protein",
        PROTEIN_BODY,
        refs(REF_X),
        title="Deep learning for protein structure prediction",
        date="2021-00-00 2021",
        publicationTitle="Bioinformatics",
        creators=[("Eve", "Fox")],
        abstractNote=PROTEIN_BODY,
    )
    k["revisited"] = b.add_item(
        "journalArticle",
        title="Citation recommendation with graph neural networks, revisited",
        date="2022-00-00 2022",
        publicationTitle="Scientometrics",
        creators=[("Ada", "Lovelace")],
        abstractNote=GNN_BODY,
    )
    db = guard_database(b.build())
    settings = library_settings(db.parent, root)
    ctx = AppContext(settings, home=root / "home")
    try:
        summary = update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
    finally:
        ctx.close()
    assert summary.graph is not None and summary.graph_error is None
    assert {"graph: references and keyphrases", "graph: build", "graph: write"} <= set(summary.stages)
    return settings, k


@pytest.fixture
async def client(graph_library: tuple[Settings, dict[str, str]], tmp_path: Path):
    async with connect(graph_library[0], home=tmp_path / "home") as connected:
        yield connected


async def explore(client: Client, **arguments: Any) -> Any:
    result = await client.call_tool("zot_explore_graph", arguments, raise_on_error=False)
    assert not result.is_error, result.content[0].text
    return result


def test_the_graph_holds_citations_authors_and_co_authors(
    graph_library: tuple[Settings, dict[str, str]],
) -> None:
    settings, k = graph_library
    ctx = AppContext(settings)
    store = ctx.graph().store
    cites = {(e.source, e.target) for e in store.all_edges([EdgeKind.CITES])}
    assert (paper_id(k["gnn"]), paper_id(k["context"])) in cites  # by DOI
    assert (paper_id(k["context"]), paper_id(k["survey"])) in cites  # by title, year and author
    assert (paper_id(k["gnn"]), f"work:doi:{EXTERNAL_DOI}") in cites
    assert not any(target == paper_id(k["revisited"]) for _, target in cites)  # nothing cites it
    authors = {n.name for n in store.find_nodes(NodeKind.AUTHOR, limit=100)}
    assert {"Ada Lovelace", "Bo Chen", "Carla Diaz", "Dan Evans", "Eve Fox"} <= authors
    counts = store.counts()
    assert ctx.graph().local.stored_counts() == counts  # the cheap count from the tables agrees
    assert counts["Paper"] == 5 and counts["ExternalWork"] >= 2 and counts["Concept"] > 0
    co_authors = store.edges_of(
        [n.id for n in store.find_nodes(NodeKind.AUTHOR, name="Bo Chen")], kinds=[EdgeKind.CO_AUTHOR]
    )
    assert len(co_authors) == 2
    ctx.close()


async def test_citation_chains_in_both_directions_with_paths(client: Client, graph_library) -> None:
    _, k = graph_library
    cited_by = await explore(client, query="who cites the survey of scholarly document processing", hops=2)
    data = cited_by.structured_content
    assert data["route"]["mode"] == "citation" and "cites" not in data
    reached = {r["item_key"]: r for r in data["cited_by"]}
    assert reached[k["context"]]["hops"] == 1
    assert reached[k["gnn"]]["hops"] == 2
    assert reached[k["gnn"]]["path"] == [paper_id(k["survey"]), paper_id(k["context"]), paper_id(k["gnn"])]
    out = await explore(client, query="what does the graph neural networks paper cite", item_key=k["gnn"])
    cited = out.structured_content["cites"]
    assert cited[0]["item_key"] == k["context"]  # library papers come before works you do not have
    assert any(r.get("doi") == EXTERNAL_DOI for r in cited)


async def test_influence_and_the_most_cited_missing_work(client: Client, graph_library) -> None:
    _, k = graph_library
    result = await explore(client, query="most influential papers")
    data = result.structured_content
    ranked = [p["item_key"] for p in data["papers"]]
    assert ranked.index(k["survey"]) < ranked.index(k["revisited"])
    missing = {w.get("doi") or w["title"]: w["cited_by"] for w in data["external"]}
    assert missing[EXTERNAL_DOI] == 3  # cited by three papers, in no item of the library
    assert missing["Statistical methods for text, second edition"] == 4


@pytest.mark.parametrize(
    ("query", "force_mode"),
    [
        ("what does my library cite most that I don't have", None),  # the README's example
        ("most cited works missing from my library", "influence"),
        ("which works do my papers cite most that are not in my library?", None),
    ],
)
async def test_the_most_cited_works_you_do_not_have(
    client: Client, query: str, force_mode: str | None
) -> None:
    arguments = {"query": query} | ({"force_mode": force_mode} if force_mode else {})
    data = (await explore(client, **arguments)).structured_content
    assert data["route"]["mode"] == "influence"
    assert "field" not in data or not data["field"]  # the whole library, not papers matching "missing"
    missing = {w.get("doi") or w["title"]: w["cited_by"] for w in data["missing"]}  # the reading gap
    assert missing["Statistical methods for text, second edition"] == 4 and missing[EXTERNAL_DOI] == 3
    assert list(missing.values()) == sorted(missing.values(), reverse=True)  # most cited first


async def test_which_venues_publish_most_of_my_papers(client: Client) -> None:
    data = (await explore(client, query="which venues publish most of my papers")).structured_content
    assert data["route"]["mode"] == "venue"
    assert data["venues"][0] == {**data["venues"][0], "venue": "Scientometrics", "papers": 3}


async def test_related_papers_say_why(client: Client, graph_library) -> None:
    _, k = graph_library
    result = await explore(client, query="papers related to this one", item_key=k["gnn"])
    related = {r["item_key"]: r["reasons"] for r in result.structured_content["related"]}
    assert "Bo Chen" in related[k["context"]]["shared_author"]
    assert "cites" in related[k["context"]]
    assert "Ada Lovelace" in related[k["revisited"]]["shared_author"]
    assert k["protein"] in related  # both cite the same external dataset paper
    assert related[k["protein"]].get("shared_reference")


async def test_collaboration_network(client: Client) -> None:
    result = await explore(client, query="who are the co-authors of Bo Chen", hops=2)
    data = result.structured_content
    assert {c["name"] for c in data["co_authors"]} == {"Ada Lovelace", "Carla Diaz"}
    assert data["papers"] == 2


async def test_an_author_argument_alone_explores_collaboration(client: Client) -> None:
    result = await client.call_tool("zot_explore_graph", {"author": "Bo Chen"}, raise_on_error=False)
    data = result.structured_content
    assert data["route"]["mode"] == "collaboration" and data["route"]["forced"] is False
    assert {c["name"] for c in data["co_authors"]} == {"Ada Lovelace", "Carla Diaz"}


async def test_a_concept_argument_alone_explores_the_concept(client: Client) -> None:
    by_query = await explore(client, query="concepts related to citation recommendation")
    by_argument = await client.call_tool(
        "zot_explore_graph", {"concept": "citation recommendation"}, raise_on_error=False
    )
    data = by_argument.structured_content
    assert data["route"]["mode"] == "concept"
    assert data["concept"]["name"] == by_query.structured_content["concept"]["name"]
    assert data["co_occurring"]


async def test_unknown_author_suggests_close_names(client: Client) -> None:
    result = await client.call_tool(
        "zot_explore_graph", {"query": "co-authors of Ada Lovelase"}, raise_on_error=False
    )
    assert not result.is_error  # close enough to resolve
    missing = await client.call_tool(
        "zot_explore_graph", {"query": "co-authors of Zebulon Quartermaine"}, raise_on_error=False
    )
    assert missing.is_error and "No author named" in missing.content[0].text


async def test_concepts_temporal_and_venues(client: Client, graph_library) -> None:
    concept = await explore(client, query="concepts related to citation recommendation")
    data = concept.structured_content
    assert data["concept"]["name"]
    assert data["papers"] and data["co_occurring"]
    temporal = await explore(client, query="how has citation analysis changed between 2016 and 2022")
    years = {row["year"]: row["papers"] for row in temporal.structured_content["years"]}
    assert set(years) <= set(range(2016, 2023)) and 2017 in years and 2019 in years
    venues = await explore(client, query="top venues", force_mode="venue")
    top = venues.structured_content["venues"][0]
    assert top["venue"] == "Scientometrics" and top["papers"] == 3


async def test_content_similarity_and_comprehensive(client: Client, graph_library) -> None:
    _, k = graph_library
    similar = await explore(client, query="papers similar to this", item_key=k["gnn"])
    nearest = [p["key"] for p in similar.structured_content["similar"]]
    assert nearest[0] == k["revisited"] and k["gnn"] not in nearest
    everything = await explore(client, query="everything connected to this paper", item_key=k["gnn"])
    assert everything.structured_content["strategies"] == ["citation", "related", "content_similarity"]


async def test_empty_graph_says_how_to_build_it(tmp_path: Path, graph_library) -> None:
    settings, _ = graph_library
    empty = settings.model_copy(update={"data_dir": tmp_path / "fresh"})
    ctx = AppContext(empty, home=tmp_path / "home")
    async with Client(build_server(ctx)) as fresh:
        result = await fresh.call_tool(
            "zot_explore_graph", {"query": "most influential papers"}, raise_on_error=False
        )
    ctx.close()
    assert result.is_error and "agent-zot update-db" in result.content[0].text


async def test_graphml_export_loads_in_networkx(client: Client, graph_library) -> None:
    import networkx as nx

    _, k = graph_library
    whole = await client.call_tool("zot_export", {"query": "export the citation graph to graph.graphml"})
    assert not whole.is_error, whole.content[0].text
    graph = nx.read_graphml(whole.structured_content["path"])
    kinds = {data["kind"] for _, data in graph.nodes(data=True)}
    assert {"Paper", "Author", "Concept", "ExternalWork", "Venue"} <= kinds
    assert graph.has_edge(paper_id(k["gnn"]), paper_id(k["context"]))
    assert graph.nodes[paper_id(k["gnn"])]["label"] == "Graph neural networks for citation recommendation"
    papers = await client.call_tool(
        "zot_export",
        {
            "path": "papers.graphml",
            "node_types": ["Paper", "Author"],
            "item_keys": [k["gnn"]],
            "max_nodes": 4,
        },
    )
    small = nx.read_graphml(papers.structured_content["path"])
    assert small.number_of_nodes() == 4 and paper_id(k["gnn"]) in small
    assert {d["kind"] for _, d in small.nodes(data=True)} <= {"Paper", "Author"}
    bad = await client.call_tool(
        "zot_export", {"path": "x.graphml", "node_types": ["Planet"]}, raise_on_error=False
    )
    assert bad.is_error and "Unknown node type" in bad.content[0].text


@pytest.mark.parametrize(
    ("arguments", "expected"),
    [
        ({"query": "who cites the paper on quantum gravity loops"}, "No paper in the library matches"),
        ({"query": "papers similar to this", "item_key": "ZZZZ9999"}, "No item with key"),
        ({"query": "how did citation analysis change", "year_min": 2022, "year_max": 2016}, "runs backwards"),
        ({"query": "concepts related to", "force_mode": "concept"}, "No concept"),
    ],
)
async def test_bad_requests_get_actionable_errors(client: Client, arguments: dict, expected: str) -> None:
    result = await client.call_tool("zot_explore_graph", arguments, raise_on_error=False)
    assert result.is_error and expected in result.content[0].text


def test_citations_appear_when_a_metadata_only_run_is_followed_by_a_full_one(
    graph_library: tuple[Settings, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import json

    from click.testing import CliRunner

    from agent_zot.cli.main import cli

    settings, _ = graph_library
    runner = CliRunner()

    def update(data_dir: Path, *flags: str) -> dict[str, Any]:
        monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(data_dir))
        result = runner.invoke(
            cli,
            ["--library", str(settings.zotero_data_dir), "update-db", "--json", *flags],
            catch_exceptions=False,
        )
        assert result.exit_code == 0, result.output
        graph = json.loads(result.stdout)["graph"]
        graph.pop("seconds")
        return graph

    fresh = update(tmp_path / "fresh")
    assert fresh["citations_in_library"] == 2  # context cites the survey, gnn cites context
    assert (
        update(tmp_path / "steps", "--no-fulltext")["citations_in_library"] == 0
    )  # no reference lists read yet
    assert update(tmp_path / "steps") == fresh  # the full run reads them: the same graph as a fresh run
    assert update(tmp_path / "steps", "--force-rebuild") == fresh


def test_doctor_says_when_the_graph_outgrows_the_embedded_store(
    graph_library: tuple[Settings, dict[str, str]], tmp_path: Path
) -> None:
    """Past the measured size, doctor names the Neo4j server as the graph's better home and the one
    command that moves it there."""
    from agent_zot.services.upkeep.doctor import graph_home

    ctx = AppContext(graph_library[0], home=tmp_path / "home")
    try:
        fine = graph_home(ctx)
        assert fine.status == "ok" and "papers" in fine.detail
        outgrown = graph_home(ctx, server_edges=1)
        assert outgrown.status == "warn" and "Neo4j" in outgrown.detail
        assert "agent-zot graph sync" in outgrown.fix
    finally:
        ctx.close()
