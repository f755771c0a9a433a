"""Every work the library mentions, by every name people use (issue 39): works the library's papers cite but
the library does not hold are reached like library papers (title words, authors as citations write them,
DOI), and the answer names the citing papers with the sentence and page that cite it; the reading gap ranks
such works by how many papers cite them and says plainly when none is cited twice; a library paper is still
the one reached when the library holds it. Through a real MCP client over a library whose PDFs have
numbered reference lists."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.graph.facts import FACTS_VERSION
from agent_zot.graph.model import GRAPH_BUILD, GraphData, Node, NodeKind
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.resolve.works import works_index
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, fingerprint, guard_database, library_settings
from tests.pdf_factory import write_paper

LIVE = (
    "[{n}] T. Chandra, R. Griesemer and J. Redstone. Paxos made live: an engineering perspective. In Proc. "
    "of PODC, pages 398-407, 2007. doi:10.1145/1281100.1281103"
)
PASTRY = (
    "[{n}] A. Rowstron and P. Druschel. Pastry: scalable, decentralized object location and routing for "
    "large-scale peer-to-peer systems. In Proc. of Middleware, pages 329-350, 2001."
)
PARLIAMENT = (
    "[{n}] L. Lamport. The part-time parliament. ACM Transactions on Computer Systems, 16:133-169, 1998."
)
# Each paper's own unrelated entries (real lists are longer than the works a test is about).
# Astronomy's reference lists print no titles: the authors, year and journal name the work.
ASTRO_MA = "[{n}] Ma C.-P., Bertschinger E., 1995, ApJ, 455, 7"
ASTRO_MANDEL = "[{n}] Mandel K., Agol E., 2002, ApJ, 580, L171"
FILLERS = (
    "[{n}] U. Writer and V. Author. Notes on indexing {topic} collections. Information Retrieval, 5:10-20, 2008.",
    "[{n}] W. Scholar. Statistical methods for {topic}, second edition. Springer, Berlin, 2011.",
)
RAFT_BODY = (
    "Consensus keeps replicated logs identical across servers. Google reported the engineering lessons of "
    "running consensus in production [1]. Overlay networks route requests between peers [2]. Our design "
    "favours understandability over generality."
)
ZAB_BODY = (
    "Atomic broadcast orders the updates of a primary-backup system. The original consensus protocol was "
    "told as a parliament on a Greek island [1]. Production experience shows that a proven protocol still "
    "needs careful engineering [2, 3]. We describe the broadcast protocol and its recovery."
)


def refs(topic: str, *entries: str) -> list[str]:
    return [entry.format(n=i, topic=topic) for i, entry in enumerate((*entries, *FILLERS), 1)]


@pytest.fixture(scope="module")
def cited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    """Raft cites Paxos Made Live [1] and Pastry [2]; ZAB cites The Part-Time Parliament [1] and Paxos Made
    Live [3]; the library holds Paxos Made Simple, which neither cites, in a collection of its own."""
    root = tmp_path_factory.mktemp("cited-works")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=39)
    k: dict[str, str] = {}
    consensus = b.add_collection("Consensus")
    theory = b.add_collection("Theory")

    def paper(name: str, body: str, references: list[str], **fields: Any) -> None:
        k[name] = b.add_item("conferencePaper", **fields)
        path = write_paper(pdfs / f"{name}.pdf", body_pages=2, body=body, references=references).path
        b.add_attachment(k[name], filename=f"{name}.pdf", content=path.read_bytes())

    paper(
        "raft",
        RAFT_BODY,
        refs("replicated logs", LIVE, PASTRY),
        title="In search of an understandable consensus algorithm",
        date="2014",
        creators=[("Diego", "Ongaro"), ("John", "Ousterhout")],
        collections=[consensus],
    )
    paper(
        "transits",
        "Transit light curves are fitted with the analytic model of Mandel and Agol (2002). The matter power "
        "spectrum follows the linear theory of Ma and Bertschinger (1995).",
        refs("light curves", ASTRO_MA, ASTRO_MANDEL),
        title="Fitting transit light curves",
        date="2019",
        creators=[("Ana", "Sky")],
    )
    paper(
        "zab",
        ZAB_BODY,
        refs(
            "atomic broadcast",
            PARLIAMENT,
            "[{n}] O. Other. Group communication in practice. Misc, 2000.",
            LIVE,
        ),
        title="Zab: high-performance broadcast for primary-backup systems",
        date="2011",
        creators=[("Flavio", "Junqueira"), ("Benjamin", "Reed"), ("Marco", "Serafini")],
        collections=[consensus],
    )
    k["simple"] = b.add_item(
        "journalArticle",
        title="Paxos made simple",
        date="2001",
        creators=[("Leslie", "Lamport")],
        collections=[theory],
    )
    db = guard_database(b.build())
    settings = library_settings(db.parent, root)
    ctx = AppContext(settings, home=root / "home")
    try:
        summary = update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
    finally:
        ctx.close()
    assert summary.graph is not None and summary.graph["external_works"] >= 3, summary.graph
    return settings, k


async def _ask(settings: Settings, query: str, **arguments: Any) -> Any:
    return await call_tool(settings, "zot_explore_graph", query=query, **arguments)


@pytest.mark.slow
async def test_a_cited_work_the_library_lacks_is_found_by_its_title_with_the_citing_sentences(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    settings, k = cited
    database = Path(settings.zotero_data_dir) / "zotero.sqlite"
    before = fingerprint(database)
    result = await _ask(settings, "which of my papers cite Paxos Made Live?")
    text, data = result.content[0].text, result.structured_content
    # Not the library's Paxos Made Simple, which shares two of the three words.
    assert data["resolved"]["papers"] == [] and data["resolved"]["work"]["in_library"] is False
    assert data["work"]["title"].casefold().startswith("paxos made live")
    assert data["work"]["year"] == 2007 and data["work"]["authors"][:2] == ["Chandra", "Griesemer"]
    assert text.startswith("Chandra et al. (2007) Paxos made live") and "is not in your library" in text
    citing = {row["item_key"]: row for row in data["cited_by"]}
    assert set(citing) == {k["raft"], k["zab"]}
    assert citing[k["raft"]]["page"] == 1
    assert "engineering lessons of running consensus in production [1]" in citing[k["raft"]]["sentence"]
    assert "careful engineering [2, 3]" in citing[k["zab"]]["sentence"]  # [3] inside a list
    assert "DOI 10.1145/1281100.1281103" in text
    assert data["resolved"]["direction"] == "in"
    assert fingerprint(database) == before


@pytest.mark.parametrize(
    ("query", "title", "citer"),
    [
        ("does anything in my library cite Rowstron and Druschel?", "pastry", "raft"),
        ("who in my collection references the Pastry paper by Rowstron and Druschel?", "pastry", "raft"),
        ("which of my papers cite The Part-Time Parliament?", "the part-time parliament", "zab"),
        ("which papers cite Lamport 1998?", "the part-time parliament", "zab"),
        ("who cites 10.1145/1281100.1281103?", "paxos made live", "raft"),
    ],
)
@pytest.mark.slow
async def test_a_cited_work_is_named_as_people_name_it(
    cited: tuple[Settings, dict[str, str]], query: str, title: str, citer: str
) -> None:
    settings, k = cited
    result = await _ask(settings, query)
    data = result.structured_content
    assert data and "work" in data, result.content[0].text
    assert data["work"]["title"].casefold().startswith(title), data
    assert k[citer] in {row["item_key"] for row in data["cited_by"]}


@pytest.mark.slow
async def test_the_library_paper_is_reached_when_the_library_holds_it(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    settings, k = cited
    data = (await _ask(settings, "who cites Paxos Made Simple?")).structured_content
    assert [p["key"] for p in data["resolved"]["papers"]] == [k["simple"]] and "work" not in data


@pytest.mark.slow
async def test_a_work_nobody_cites_is_not_guessed(cited: tuple[Settings, dict[str, str]]) -> None:
    settings, _ = cited
    result = await _ask(settings, "does anything in my library cite HotStuff?")
    assert result.is_error and "No paper in the library matches" in result.content[0].text


@pytest.mark.slow
async def test_what_it_cites_is_said_to_be_unknown(cited: tuple[Settings, dict[str, str]]) -> None:
    settings, _ = cited
    text = (await _ask(settings, "what does Paxos Made Live cite?")).content[0].text
    assert "is not in your library" in text and "What it cites is not known" in text


@pytest.mark.slow
async def test_the_reading_gap_ranks_missing_works_by_their_citing_papers(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    settings, k = cited
    result = await _ask(settings, "what do my papers cite most that I don't have?")
    data, text = result.structured_content, result.content[0].text
    first = data["missing"][0]
    assert first["title"].casefold().startswith("paxos made live") and first["cited_by"] == 2
    assert first["citing_keys"] == sorted([k["raft"], k["zab"]]) and first["doi"] == "10.1145/1281100.1281103"
    assert data["cited_twice_or_more"] == 1 and data["papers_with_references"] == 3
    assert "doi:10.1145/1281100.1281103 — cited by 2" in text
    # Only what is cited twice is listed when something is: Pastry (once) is not.
    assert all(row["cited_by"] >= 2 for row in data["missing"])


@pytest.mark.slow
async def test_a_reading_gap_with_nothing_cited_twice_says_so(cited: tuple[Settings, dict[str, str]]) -> None:
    settings, _ = cited
    result = await _ask(settings, "which works cited by my Consensus collection am I missing?")
    data = result.structured_content
    assert data["field"] == "collection 'Consensus'"
    assert data["cited_twice_or_more"] == 1  # both Consensus papers cite Paxos Made Live
    none = await _ask(settings, "what do papers in my Theory collection cite that I don't have?")
    text = none.content[0].text
    assert none.structured_content["missing"] == []
    assert none.structured_content["field"] == "collection 'Theory'"
    # Paxos Made Simple, alone in Theory, has no PDF: no reference list was read, and the answer says so
    assert none.structured_content["papers_with_references"] == 0
    assert "No reference list was read" in text and "collection 'Theory'" in text


@pytest.mark.slow
async def test_a_work_whose_reference_lists_print_no_title_is_found_by_its_authors_and_year(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    settings, k = cited
    result = await _ask(settings, "does any paper in my library cite Ma and Bertschinger 1995?")
    data, text = result.structured_content, result.content[0].text
    assert data["work"]["authors"] == ["Ma", "Bertschinger"] and data["work"]["untitled"] is True
    assert text.startswith("Ma and Bertschinger (1995)") and "give no title" in text
    [row] = data["cited_by"]
    assert row["item_key"] == k["transits"] and "Ma and Bertschinger (1995)" in row["sentence"]
    # with a title the lists never printed beside the authors and year: those cannot be checked
    named = await _ask(
        settings, "who cites the linear perturbation theory paper of Ma and Bertschinger (1995)?"
    )
    assert named.structured_content.get("work", {}).get("authors") == ["Ma", "Bertschinger"], named.content[
        0
    ].text


@pytest.mark.slow
async def test_the_reading_gap_is_reached_however_it_is_asked(cited: tuple[Settings, dict[str, str]]) -> None:
    settings, _ = cited
    for query in (
        "which works do my papers keep citing that aren't in my library?",
        "show me the reading gaps: highly cited references I'm missing",
        "top cited refs not in my libary",
        "suggest references to add: cited by my papers, absent from my library",
        "Give me a ranked list of references that my own papers lean on but which never made it into my library.",
        "which papers do my Consensus papers keep referencing that i never added to zotero?",
    ):
        result = await _ask(settings, query)
        assert result.structured_content["route"]["mode"] == "influence", query
        assert result.structured_content["missing"][0]["title"].casefold().startswith("paxos made live")
        if "Consensus" in query:  # a collection named by its whole name, without the word "collection"
            assert result.structured_content["field"] == "collection 'Consensus'"
    # a topic, not a lack: "missing data" is what the paper is about
    topic = await _ask(settings, "who cites the missing data imputation paper?")
    assert "No paper in the library matches" in topic.content[0].text  # asked as a paper, not as the gap


@pytest.mark.slow
def test_a_graph_an_older_version_built_is_rebuilt_at_the_next_update(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    settings, _ = cited
    ctx = AppContext(settings)
    try:
        state = ctx.index_resources().state
        made_by = f"{GRAPH_BUILD}.{FACTS_VERSION}"  # the assembly's and the facts' versions
        assert state.get_meta("graph_build") == made_by
        unchanged = update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
        assert unchanged.graph is None  # nothing changed: no rebuild
        state.set_meta("graph_build", "1")  # as an older agent-zot left it
        rebuilt = update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
        assert rebuilt.graph is not None and rebuilt.graph["external_works"] >= 5
        assert state.get_meta("graph_build") == made_by
        state.set_meta("graph_build", f"{GRAPH_BUILD}.{FACTS_VERSION - 1}")  # facts an older parser made
        again = update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
        assert again.graph is not None and "patched_papers" not in again.graph
    finally:
        ctx.close()


@pytest.mark.slow
async def test_a_paper_described_by_what_its_text_says_is_found_and_a_citation_is_not_guessed(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    settings, k = cited
    ctx = AppContext(settings)
    try:
        async with Client(build_server(ctx)) as client:
            described = await client.call_tool(
                "zot_summarize", {"query": "summarize the paper about the matter power spectrum"}
            )
            assert described.structured_content["item_key"] == k["transits"]
            assert described.structured_content["resolved_by"].startswith("what the request describes")
            # An author and a year name one paper: not in the library, so none is guessed from the text.
            for query in (
                "summarize Smith 2015 on the matter power spectrum",
                'summarize "The linear theory of the matter power spectrum"',
            ):
                result = await client.call_tool("zot_summarize", {"query": query}, raise_on_error=False)
                assert result.is_error and "No paper in the library matches" in result.content[0].text
    finally:
        ctx.close()


@pytest.mark.slow
def test_the_cited_works_tables_are_made_once_per_graph_state(cited: tuple[Settings, dict[str, str]]) -> None:
    """Made once and reused while the graph is unchanged (a store hands out new node objects on every
    read); a changed work makes them again, and the change is what they then find."""
    settings, _ = cited
    ctx = AppContext(settings)
    try:
        store, library = ctx.graph().store, ctx.library()
        first = works_index(store, library)
        assert first is not None and works_index(store, library) is first
        pastry = next(n for n in first.nodes.values() if "pastry" in n.name.lower())
        with_doi = Node(pastry.id, NodeKind.EXTERNAL_WORK, {**pastry.props, "doi": "10.1/pastry"})
        store.upsert(GraphData(nodes=[with_doi]))
        try:
            changed = works_index(store, library)
            assert changed is not None and changed is not first
            assert changed.library.items[pastry.id].fields["DOI"] == "10.1/pastry"
        finally:
            store.upsert(GraphData(nodes=[pastry]))
    finally:
        ctx.close()


def test_a_chinese_title_given_whole_beside_an_english_gloss_names_the_cited_work(tmp_path: Path) -> None:
    """Chinese reference lists name their works in Chinese; a request may gloss the title in English and
    give the Chinese as written, with the authors romanised: the Chinese title, given whole, names the work."""
    from agent_zot.graph.cited_works import work_node
    from agent_zot.graph.model import Edge, EdgeKind
    from agent_zot.graph.references import parse_reference
    from agent_zot.graph.store_sqlite import SqliteGraphStore
    from agent_zot.services.resolve.papers import PaperRequest
    from agent_zot.services.resolve.works import WorkMatch, resolve_cited
    from agent_zot.zotero.reader import load_library

    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=43)
    robot = b.add_item("thesis", title="轮腿式平衡机器人控制", date="2023", creators=[("阳", "陈")])
    library = load_library(guard_database(b.build()))
    nodes: dict[str, Node] = {}
    reference = parse_reference(
        "[8] 于红英, 唐德威, 王建宇. 平面五杆机构运动学和动力学特性分析[J]. 哈尔滨工业大学学报, 2007, 39(6): 940-943."
    )
    wid = work_node(nodes, reference, {})
    assert wid is not None
    store = SqliteGraphStore(tmp_path / "state.sqlite")
    try:
        paper = Node(f"paper:{robot}", NodeKind.PAPER, {"title": "轮腿式平衡机器人控制"})
        store.replace_all(GraphData([paper, *nodes.values()], [Edge(paper.id, wid, EdgeKind.CITES, {})]))
        request = "which papers cite Yu, Tang and Wang 2007 on the dynamics of a planar five-bar mechanism (平面五杆机构运动学和动力学特性分析)?"
        found = resolve_cited(library, store, PaperRequest(text=request))
        assert isinstance(found, WorkMatch) and found.title == "平面五杆机构运动学和动力学特性分析"
        assert found.citing == (robot,)
    finally:
        store.close()


def test_an_authors_only_paper_is_what_a_description_naming_the_author_means(tmp_path: Path) -> None:
    """ "Max Wolf's old German catalogue of high proper motion stars": the title is German, the description's
    words name other papers' titles, so the tables find none; the library holds one paper by Wolf, which
    they rank first: that is the paper. An author the library does not hold is still no paper of it."""
    from agent_zot.errors import NotFoundError
    from agent_zot.services.resolve.described import described_paper
    from agent_zot.services.resolve.papers import PaperRequest, resolve_papers

    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=44)
    wolf = b.add_item(
        "journalArticle", title="Katalog von 1053 staerker bewegten Fixsternen", date="1919",
        creators=[("Max", "Wolf")],
    )  # fmt: skip
    for n, (title, who) in enumerate(
        [
            ("A catalogue of high proper motion stars in the northern sky", "Lepine"),
            ("Lowell proper motions: a survey of old high velocity stars", "Giclas"),
            ("German astronomy and the motion of nearby stars", "Luyten"),
        ]
    ):
        b.add_item("journalArticle", title=title, date=str(1960 + n), creators=[("A.", who)])
    db = guard_database(b.build())
    ctx = AppContext(Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state"))
    try:
        request = PaperRequest(text="Max Wolf's old German catalogue of high proper motion stars")
        with pytest.raises(NotFoundError) as missing:
            resolve_papers(ctx.library(), request)
        found = described_paper(ctx, request, missing.value)
        assert found.item.key == wolf and "no other paper" in found.how
        unknown = PaperRequest(text="Max Planck's old German catalogue of high proper motion stars")
        with pytest.raises(NotFoundError):
            described_paper(ctx, unknown, NotFoundError("No paper in the library matches it."))
    finally:
        ctx.close()


@pytest.mark.slow
def test_a_long_description_that_fits_two_papers_asks_back_with_both_best_first(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    """Raft and ZAB both keep replicas consistent: a sentence that could be either asks back with both,
    best first, instead of saying that nothing matches."""
    from agent_zot.errors import AmbiguousNameError, NotFoundError
    from agent_zot.services.resolve.described import described_paper
    from agent_zot.services.resolve.papers import PaperRequest

    settings, k = cited
    ctx = AppContext(settings)
    try:
        text = "the one where servers agree on the order of updates so every replica applies the same log in production"
        request = PaperRequest(text=text)
        with pytest.raises(AmbiguousNameError) as asked:
            described_paper(ctx, request, NotFoundError("No paper in the library matches it."))
        assert sorted(c.split(":")[0] for c in asked.value.candidates) == sorted([k["raft"], k["zab"]])
        # each with the description's words its text holds, for the assistant to choose by
        reasons = {c.split(":")[0]: c.split(" — its text holds: ")[1] for c in asked.value.candidates}
        assert reasons == {k["raft"]: "servers, production", k["zab"]: "updates, production"}
    finally:
        ctx.close()


def test_close_papers_are_told_apart_by_the_abstract_that_retells_the_description(tmp_path: Path) -> None:
    from agent_zot.services.resolve.described import _told_by_abstract
    from agent_zot.services.resolve.paper_index import words
    from agent_zot.zotero.reader import load_library

    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=48)
    nice = b.add_item(
        "journalArticle",
        title="Origin of the orbital architecture of the giant planets",
        abstractNote="Jupiter and Saturn cross their 2:1 mean-motion resonance while migrating in a disk; "
        "the encounter reproduces their eccentricities and inclinations.",
    )
    other = b.add_item(
        "journalArticle", title="Sustainable use of the geosynchronous region", abstractNote="Orbits."
    )
    items = load_library(guard_database(b.build())).items
    said = words(
        "Jupiter and Saturn passing through their 2:1 resonance while migrating reproduces eccentricities"
    )
    openings = {key: items[key].abstract for key in (nice, other)}
    found = _told_by_abstract([items[other], items[nice]], said, openings)
    assert found is not None and found.key == nice
    too_few = words("giant planets disk")
    assert _told_by_abstract([items[other], items[nice]], too_few, openings) is None
    assert _told_by_abstract([items[other], items[nice]], said, {other: "", nice: ""}) is None


@pytest.mark.slow
def test_a_record_without_an_abstract_is_read_from_its_first_page(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    from agent_zot.services.resolve.described import _opening

    settings, k = cited
    ctx = AppContext(settings)
    try:
        raft = ctx.library().items[k["raft"]]
        assert not raft.abstract
        assert "Consensus keeps replicated logs identical across servers" in _opening(
            ctx.index_resources().state, raft
        )
    finally:
        ctx.close()


@pytest.mark.slow
async def test_a_reading_gap_in_words_no_rule_knows_is_read_from_the_labelled_requests(
    cited: tuple[Settings, dict[str, str]],
) -> None:
    """ "What am I missing from the bibliographies of my papers?" matches no reading-gap wording and routes
    to citations, where it names no paper: it reads like the labelled reading-gap requests, so that is the
    answer, and it says how it was read. A citation request naming a paper is still answered for it."""
    from agent_zot.services.routing.examples import reads_like_gap

    settings, k = cited
    query = "what am I missing from the bibliographies of my papers?"
    assert reads_like_gap(query)[0] and not reads_like_gap("which papers build on the Raft paper?")[0]
    result = await _ask(settings, query)
    data, text = result.structured_content, result.content[0].text
    assert data["read_as"] == "reading gap" and text.startswith("(No paper of your library is named")
    assert data["missing"][0]["title"].casefold().startswith("paxos made live")
    raft = await _ask(settings, "which papers build on the Raft paper, understandable consensus?")
    assert "read_as" not in raft.structured_content
    assert [p["key"] for p in raft.structured_content["resolved"]["papers"]] == [k["raft"]]
