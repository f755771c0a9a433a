"""One resolver for "which paper, author and citation direction does this request name", in every tool.

A library built for the classes of request that used to miss: a title word after a citation verb, an author
with a year in any author position, acronyms, the direction of a citation request, a possessive with a quoted
title, duplicates, and words that contain a mode word. The resolver is checked alone, then through the MCP
tools (summarize, explore, notes, export), `agent-zot view --item` and `agent-zot route`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastmcp import Client

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.services.context import AppContext
from agent_zot.services.explore.view_scope import ViewRequest, resolve_scope
from agent_zot.services.resolve.papers import PaperMatch, PaperRequest, resolve_named_paper, resolve_papers
from agent_zot.services.routing import route
from agent_zot.services.routing.direction import citation_direction
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.models import Library
from agent_zot.zotero.reader import load_library
from tests.conftest import connect, guard_database, index_library, library_settings, text_of
from tests.pdf_factory import write_paper

BODY = "Distributed storage keeps structured data across many machines; {} is described and evaluated here."
FILLERS = (
    "[{n}] U. Writer and V. Author. Notes on indexing large document collections. Information Retrieval, 5:10-20, 2008.",
    "[{n}] W. Scholar. Statistical methods for text, second edition. Springer, Berlin, 2011.",
    "[{n}] X. Reader, Y. Critic and Z. Editor. Evaluating search engines for science. In Proc. of SIGIR, 2013.",
)
GFS_REF = (
    "[{n}] S. Ghemawat, H. Gobioff and S. Leung. The Google file system. In Proc. of SOSP, pages 29-43, 2003."
)
BIGTABLE_REF = (
    "[{n}] F. Chang, J. Dean and S. Ghemawat. Bigtable: A distributed storage system for structured data. "
    "In Proc. of OSDI, pages 205-218, 2006."
)


def refs(*entries: str) -> list[str]:
    return [entry.format(n=i) for i, entry in enumerate((*entries, *FILLERS), 1)]


@pytest.fixture(scope="module")
def named(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    """A library whose papers are named in every way the tests use; Bigtable cites GFS, Okafor cites
    Bigtable (from their PDFs' reference lists), and GFS is in the library twice."""
    root = tmp_path_factory.mktemp("resolve")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=30)
    k: dict[str, str] = {}

    def add(name: str, title: str, year: int, authors: list[tuple[str, str]], **fields: str) -> str:
        k[name] = b.add_item(
            "journalArticle",
            title=title,
            date=f"{year}-00-00 {year}",
            creators=authors,
            publicationTitle=fields.pop("venue", "Journal of Systems"),
            **fields,
        )
        return k[name]

    def with_pdf(name: str, references: list[str]) -> None:
        path = write_paper(pdfs / f"{name}.pdf", body_pages=1, body=BODY.format(name), references=references)
        b.add_attachment(k[name], filename=f"{name}.pdf", content=path.path.read_bytes())

    add(
        "gfs",
        "The Google File System",
        2003,
        [("Sanjay", "Ghemawat"), ("Howard", "Gobioff"), ("Shun-Tak", "Leung")],
    )
    with_pdf("gfs", refs())
    # The same paper entered again (an import from another database): no file, fewer fields.
    k["gfs_copy"] = b.add_item(
        "journalArticle",
        title="The Google file system.",
        date="2003-00-00 2003",
        creators=[("S.", "Ghemawat")],
        tags=["imported"],
    )
    b.add_note(k["gfs"], "<p>GFS: single master, 64 MB chunks.</p>")
    add(
        "bigtable",
        "Bigtable: A Distributed Storage System for Structured Data",
        2006,
        [("Fay", "Chang"), ("Jeffrey", "Dean"), ("Sanjay", "Ghemawat")],
    )
    with_pdf("bigtable", refs(GFS_REF))
    add(
        "okafor",
        "Deep learning for auditory processing in cochlear implants",
        2019,
        [("Ada", "Okafor"), ("Min", "Lee")],
    )
    with_pdf("okafor", refs(BIGTABLE_REF))
    add(
        "cap",
        "Brewer's conjecture and the feasibility of consistent, available, partition-tolerant web services",
        2002,
        [("Seth", "Gilbert"), ("Nancy", "Lynch")],
    )
    add(
        "gnn",
        "Graph neural networks for jet tagging",
        2021,
        [("Ji", "Lee"), ("Soo", "Park"), ("Hana", "Cho")],
    )
    add(
        "protein",
        "Protein structure prediction with transformers",
        2022,
        [("Amy", "Adams"), ("Bo", "Baker"), ("Linh", "Nguyen"), ("Dee", "Diaz")],
    )
    add("norm", "What is a norm?", 2015, [("Paola", "Rossi")], venue="Legal Theory")
    add("reply", "What is a norm? A reply to Rossi", 2016, [("Marco", "Verdi")], venue="Legal Theory")
    add("prieur_a", "Stability of switched systems", 2013, [("Christophe", "Prieur")])
    add("prieur_b", "Hybrid control of oscillators", 2013, [("Christophe", "Prieur")])
    add("transformer", "Transformer: a novel neural network architecture", 2017, [("Jakob", "Uszkoreit")])
    # Author lists as citations write them: two 2008 papers by Dean and Ghemawat, one with others first.
    add(
        "mapreduce",
        "MapReduce: simplified data processing on large clusters",
        2008,
        [("Jeffrey", "Dean"), ("Sanjay", "Ghemawat")],
    )
    add(
        "cluster",
        "Large-scale cluster management with a central scheduler",
        2008,
        [("Abhishek", "Verma"), ("Jeffrey", "Dean"), ("Sanjay", "Ghemawat"), ("Luis", "Pedrosa")],
    )
    # Authors' initials: FLP; BFT is also Baker, Fox and Tan's initials, but a title acronym comes first.
    add(
        "flp",
        "Impossibility of distributed consensus with one faulty process",
        1985,
        [("Michael", "Fischer"), ("Nancy", "Lynch"), ("Michael", "Paterson")],
    )
    add("pbft", "Practical Byzantine fault tolerance", 1999, [("Miguel", "Castro"), ("Barbara", "Liskov")])
    add(
        "ocean",
        "Ocean heat uptake in a warming climate",
        2020,
        [("Bo", "Baker"), ("Eve", "Fox"), ("Ann", "Tan")],
    )
    db = guard_database(b.build())
    return index_library(library_settings(db.parent, root), root / "home", graph=True), k


@pytest.fixture(scope="module")
def library(named: tuple[Settings, dict[str, str]]) -> Library:
    folder = named[0].zotero_data_dir
    return load_library(folder / "zotero.sqlite", folder)


def resolved(library: Library, tool: str, query: str) -> PaperMatch:
    """The paper the tool's request names, as the tool resolves it (routing first)."""
    return resolve_papers(library, PaperRequest.of(query, route(tool, query).params))


# -- the resolver alone, one class of request at a time ----------------------------------------------------


@pytest.mark.parametrize(
    ("query", "paper"),
    [
        # 1. a title word after a citation verb is not an author
        ("which papers cite Transformer", "transformer"),
        ("what cites Bigtable?", "bigtable"),
        # 2. author + year, the surname in any author position, one or several surnames
        ("what does Okafor 2019 cite?", "okafor"),
        ("citation network of Lee, Park and Cho 2021", "gnn"),
        ("what is Nguyen 2022 about?", "protein"),
        ("Lee 2019: who cites it", "okafor"),
        ("Gilbert and Lynch (2002)", "cap"),
        ("chang et al. 2006", "bigtable"),
        ("Dean and Ghemawat 2008: what do they reference?", "mapreduce"),
        ("summarize Verma et al. 2008", "cluster"),
        ("summarize Dean et al. 2008", "mapreduce"),
        # 3. acronyms of title words, and of the authors' surnames
        ("what cites the CAP result?", "cap"),
        ("the CAP theorem paper", "cap"),
        ("summarize FLP", "flp"),
        ("what does FLP85 cite?", "flp"),
        ("summarize the BFT paper", "pbft"),
        # 5. a possessive with a quoted title
        ('Rossi\'s "What is a norm?"', "norm"),
        ("Verdi's reply on norms", "reply"),
        # 7. words that hold a mode word
        ("summarize the paper on auditory processing", "okafor"),
        # and the plain ways: a typo, lower case, a whole title
        ("the goggle file sytem paper", "gfs"),
        ("bigtable: a distributed storage system for structured data", "bigtable"),
    ],
)
@pytest.mark.slow
def test_each_class_of_request_reaches_its_paper(
    library: Library, named: tuple[Settings, dict[str, str]], query: str, paper: str
) -> None:
    tool = "zot_summarize" if "summarize" in query or "about" in query else "zot_explore_graph"
    assert resolved(library, tool, query).item.key == named[1][paper]


@pytest.mark.parametrize(
    ("query", "direction"),
    [
        ("who cites the Bigtable paper?", "in"),
        ("which papers cite Transformer", "in"),
        ("what papers build on Bigtable?", "in"),
        ("follow-ups to the GFS paper", "in"),
        ("papers citing Okafor 2019", "in"),
        ("is Bigtable cited by anything in my library", "in"),
        ("what does Okafor 2019 cite?", "out"),
        ("what does Bigtable build on", "out"),
        ("references of the Bigtable paper", "out"),
        ("papers cited by the Bigtable paper", "out"),
        ("Gilbert and Lynch's bibliography", "out"),
        ("what is the Okafor paper based on?", "out"),
        ("citation network of Lee, Park and Cho 2021", "both"),
        ("summarize the Bigtable paper", None),
    ],
)
def test_citation_direction_is_parsed_both_ways(query: str, direction: str | None) -> None:
    assert citation_direction(query) == direction
    assert route("zot_explore_graph", query).params.get("direction") == direction


@pytest.mark.slow
def test_duplicates_are_one_paper_answered_from_the_copy_with_a_file(
    library: Library, named: tuple[Settings, dict[str, str]]
) -> None:
    k = named[1]
    for query in ("what does the Google File System paper cite", f"summarize {k['gfs_copy']}"):
        match = resolved(library, "zot_explore_graph", query)
        keys = {match.item.key, *(d.key for d in match.duplicates)}
        assert keys == {k["gfs"], k["gfs_copy"]}
    assert resolved(library, "zot_summarize", "the GFS paper by Ghemawat").item.key == k["gfs"]  # has the PDF
    assert "a duplicate" in (resolved(library, "zot_summarize", "the Google File System").note() or "")


@pytest.mark.slow
def test_duplicates_are_one_node_of_the_graph_that_names_its_records(
    named: tuple[Settings, dict[str, str]],
) -> None:
    from agent_zot.graph.build import filing_edges
    from agent_zot.graph.model import EdgeKind, NodeKind, paper_id
    from agent_zot.graph.store import Direction

    settings, k = named
    ctx = AppContext(settings)
    try:
        store = ctx.graph().local
        papers = {n.id: n for n in store.find_nodes(NodeKind.PAPER, limit=10**6)}
        assert paper_id(k["gfs"]) in papers and paper_id(k["gfs_copy"]) not in papers
        assert papers[paper_id(k["gfs"])].props["copies"] == [k["gfs_copy"]]
        assert len(papers) == len(k) - 1  # every other record is a paper of its own
        citing = store.edges_of([paper_id(k["gfs"])], kinds=[EdgeKind.CITES], direction=Direction.IN)
        assert {e.source for e in citing} == {paper_id(k["bigtable"])}
        # The copy's filing counts for the paper, in a full build and in a retag's patch.
        tagged = store.edges_of([paper_id(k["gfs"])], kinds=[EdgeKind.TAGGED], direction=Direction.OUT)
        assert {e.target for e in tagged} == {"tag:imported"}
        sources, patch = filing_edges(ctx.library(), [ctx.library().items[k["gfs_copy"]]])
        assert sources == [paper_id(k["gfs"])]
        assert {(e.source, e.target) for e in patch.edges if e.kind is EdgeKind.TAGGED} == {
            (paper_id(k["gfs"]), "tag:imported")
        }
        # `agent-zot view --item <copy key>` draws the paper.
        scope = resolve_scope(store, ctx.library(), ViewRequest(item=k["gfs_copy"], hops=0))
        assert scope.pinned == [paper_id(k["gfs"])]
    finally:
        ctx.close()


@pytest.mark.slow
def test_close_candidates_are_asked_back_ranked_with_year_and_first_author(library: Library) -> None:
    with pytest.raises(AmbiguousNameError) as err:
        resolved(library, "zot_summarize", "summarize Prieur 2013")
    assert len(err.value.candidates) == 2
    assert all("(2013, Prieur)" in c for c in err.value.candidates)
    assert all(c.endswith("— fits: Prieur, 2013") for c in err.value.candidates)  # each with its reason
    # author and year and a title word together pick one
    assert resolved(library, "zot_summarize", "Prieur 2013 on oscillators").item.title.startswith("Hybrid")


@pytest.mark.slow
def test_a_paper_not_in_the_library_is_not_guessed(library: Library) -> None:
    for query in (
        "what cites Mandel & Agol 2002",
        "summarize Longformer",
        'Kipping\'s "Transit light curves"',
    ):
        with pytest.raises(NotFoundError):
            resolved(library, "zot_explore_graph", query)
    with pytest.raises(InvalidArgumentError):
        resolve_papers(library, PaperRequest.of("summarize the paper"))


@pytest.mark.slow
def test_a_long_request_is_read_up_to_its_first_thousand_characters(
    library: Library, named: tuple[Settings, dict[str, str]]
) -> None:
    pasted = "the results were consistent across the sites we surveyed. " * 400  # 23,000 characters pasted
    match = resolve_papers(library, PaperRequest.of(f"what does Okafor 2019 cite? Context: {pasted}"))
    assert match.item.key == named[1]["okafor"]


@pytest.mark.slow
def test_requests_about_many_papers_name_none(
    library: Library, named: tuple[Settings, dict[str, str]]
) -> None:
    assert resolve_named_paper(library, PaperRequest.of("notes about storage systems")) is None
    match = resolve_named_paper(library, PaperRequest.of("my notes on Chang et al. 2006"))
    assert match is not None and match.item.key == named[1]["bigtable"]


# -- through the tools -----------------------------------------------------------------------------------


@pytest.fixture
async def client(named: tuple[Settings, dict[str, str]], tmp_path: Path):
    async with connect(named[0], home=tmp_path / "home") as connected:
        yield connected


async def call(client: Client, tool: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool(tool, arguments, raise_on_error=False)
    assert not result.is_error, text_of(result)
    data = result.structured_content
    data["_text"] = text_of(result)
    return data


@pytest.mark.slow
async def test_the_same_words_reach_the_same_paper_in_summarize_and_explore(
    client: Client, named: tuple[Settings, dict[str, str]]
) -> None:
    k = named[1]
    for words, paper in (
        ("the CAP theorem paper", "cap"),
        ("Nguyen 2022", "protein"),
        ("Okafor 2019", "okafor"),
    ):
        summary = await call(client, "zot_summarize", query=f"what is {words} about?")
        graph = await call(client, "zot_explore_graph", query=f"who cites {words}?")
        assert summary["resolved"]["papers"][0]["key"] == graph["resolved"]["papers"][0]["key"] == k[paper]


@pytest.mark.slow
async def test_explore_answers_in_the_direction_asked(
    client: Client, named: tuple[Settings, dict[str, str]]
) -> None:
    k = named[1]
    citing = await call(client, "zot_explore_graph", query="which papers cite Bigtable?")
    assert citing["route"]["mode"] == "citation" and citing["resolved"]["direction"] == "in"
    assert "cites" not in citing and [p["item_key"] for p in citing["cited_by"]] == [k["okafor"]]
    cited = await call(client, "zot_explore_graph", query="what does the Bigtable paper cite?")
    assert cited["resolved"]["direction"] == "out" and "cited_by" not in cited
    assert {k["gfs"], k["gfs_copy"]} & {p.get("item_key") for p in cited["cites"]}  # either copy
    # Bigtable's reference to GFS may have been matched to either copy: both count as the paper
    gfs = await call(client, "zot_explore_graph", query="who cites the Google File System paper?")
    assert [p["item_key"] for p in gfs["cited_by"]] == [k["bigtable"]]
    both = await call(client, "zot_explore_graph", query="citation network of Chang et al. 2006")
    assert both["resolved"]["direction"] == "both" and "cites" in both and "cited_by" in both
    forced = await call(client, "zot_explore_graph", query="who cites Bigtable", direction="out")
    assert forced["resolved"]["direction"] == "out" and "cited_by" not in forced  # the argument wins


@pytest.mark.slow
async def test_a_duplicate_is_named_in_the_answer(
    client: Client, named: tuple[Settings, dict[str, str]]
) -> None:
    data = await call(client, "zot_summarize", query="summarize the Google File System paper")
    assert data["item_key"] == named[1]["gfs"]
    assert data["resolved"]["papers"][0]["duplicates"] == [named[1]["gfs_copy"]]
    assert f"Also in your library as {named[1]['gfs_copy']}" in data["_text"]


@pytest.mark.slow
async def test_a_mode_word_inside_another_word_routes_nowhere_odd(client: Client) -> None:
    data = await call(client, "zot_summarize", query="summarize the paper on auditory processing")
    assert data["route"]["mode"] != "audit" and data["title"].startswith("Deep learning for auditory")


@pytest.mark.slow
async def test_notes_and_export_reach_the_named_paper(
    client: Client, named: tuple[Settings, dict[str, str]]
) -> None:
    k = named[1]
    notes = await call(client, "zot_manage_notes", query="show my notes on the GFS paper")
    assert notes["resolved"]["papers"][0]["key"] == k["gfs"] and "64 MB chunks" in notes["_text"]
    exported = await call(
        client, "zot_export", query="export Gilbert and Lynch 2002 to bibtex", overwrite=True
    )
    assert exported["resolved"]["papers"][0]["key"] == k["cap"] and exported["count"] == 1
    text = Path(exported["path"]).read_text(encoding="utf-8")
    assert "Brewer" in text and "Bigtable" not in text
    everything = await call(client, "zot_export", query="export all my papers to bibtex", overwrite=True)
    assert everything["count"] == len(named[1]) and "resolved" not in everything  # every item, no paper


@pytest.mark.slow
def test_view_item_uses_the_same_resolver(named: tuple[Settings, dict[str, str]], library: Library) -> None:
    ctx = AppContext(named[0])
    try:
        scope = resolve_scope(ctx.graph().store, library, ViewRequest(item="Lee, Park and Cho 2021", hops=0))
    finally:
        ctx.close()
    assert scope.pinned == [f"paper:{named[1]['gnn']}"]


@pytest.mark.slow
def test_route_shows_the_resolved_paper_and_direction(named: tuple[Settings, dict[str, str]]) -> None:
    settings, k = named
    library_args = ["--library", str(settings.zotero_data_dir)]
    result = CliRunner().invoke(cli, [*library_args, "route", "explore", "what papers build on Bigtable?"])
    assert result.exit_code == 0, result.output
    assert f"paper: [{k['bigtable']}] Bigtable" in result.output and "direction: in" in result.output
    as_json = CliRunner().invoke(cli, [*library_args, "route", "summarize", "Prieur 2013", "--json"])
    assert '"candidates"' in as_json.output and "Stability of switched systems" in as_json.output


def test_a_request_naming_a_main_title_word_for_word_is_that_paper(tmp_path: Path) -> None:
    """Two of Saaty's books hold "the analytic hierarchy process"; one is titled so, the other only says it
    after its own title: "Saaty's analytic hierarchy process book" names the first. Nothing settles two
    titles that both carry the words after the colon."""
    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=45)
    ahp = b.add_item(
        "book", title="The Analytic Hierarchy Process: Planning, Priority Setting, Resource Allocation",
        date="1980", creators=[("Thomas", "Saaty")],
    )  # fmt: skip
    b.add_item(
        "book", title="Decision Making for Leaders: The Analytic Hierarchy Process for Decisions in a Complex World",
        date="2001", creators=[("Thomas", "Saaty")],
    )  # fmt: skip
    b.add_item(
        "book", title="Fundamentals of Decision Making: The Analytic Hierarchy Process in Practice",
        date="2006", creators=[("Thomas", "Saaty")],
    )  # fmt: skip
    library = load_library(guard_database(b.build()))
    found = resolve_papers(library, PaperRequest(text="summarize Saaty's analytic hierarchy process book"))
    assert found.item.key == ahp
    with pytest.raises(AmbiguousNameError):
        resolve_papers(library, PaperRequest(text="summarize Saaty's decision making book"))


def test_a_citation_label_names_a_paper_by_its_authors_initials_and_year(tmp_path: Path) -> None:
    """ "AWBHHL22" has a Zotero key's shape, but no item has that key: it is an alphabetic citation label,
    the six authors' initials and the year. A label no paper spells ("CHW21") names a paper the library
    lacks, which is said, not guessed from words of other papers."""
    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=47)
    authors = [
        ("Tal", "August"),
        ("Lucy", "Wang"),
        ("J.", "Bragg"),
        ("M.", "Hearst"),
        ("A.", "Head"),
        ("K.", "Lo"),
    ]
    plain = b.add_item(
        "journalArticle", title="Paper Plain: medical papers for readers", date="2022", creators=authors
    )
    b.add_item("journalArticle", title="Reading aids for long papers", date="2021", creators=authors[:2])
    library = load_library(guard_database(b.build()))
    for tool, query in (
        ("zot_explore_graph", "who cites AWBHHL22?"),
        ("zot_summarize", "summarize AWBHHL22"),
    ):
        match = resolve_papers(library, PaperRequest.of(query, route(tool, query).params))
        assert match.item.key == plain
    with pytest.raises(NotFoundError, match="AWBHHL23"):  # the year is part of the label
        resolve_papers(
            library,
            PaperRequest.of("summarize AWBHHL23", route("zot_summarize", "summarize AWBHHL23").params),
        )
    with pytest.raises(NotFoundError):  # though "paper" is a word of Paper Plain's title
        resolve_papers(library, PaperRequest(text="summarize the CHW21 paper"))
