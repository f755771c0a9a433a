"""`zot_explore_graph` names what the user names (issue 53): a library paper whose acronym fits beats works the
library only cites, and `agent-zot route` shows the paper the tool then answers about; a cited-by answer
counts a reference list that prints the paper's exact title even where the matcher left that entry outside
the library, and an empty answer's advice fits the direction asked; a request about the whole library
scopes to the whole library instead of reading its words as a topic. Through fastmcp's in-memory client
and the CLI over a library whose PDFs have numbered reference lists."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastmcp import Client

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import connect, guard_database, index_library, library_settings, text_of
from tests.pdf_factory import write_paper

BODY = "Storage systems keep data across many machines; {} is described and evaluated here."
GFS = (
    "[{n}] S. Ghemawat, H. Gobioff and S. Leung. The Google file system. In Proc. of SOSP, pages 29-43, 2003."
)
# Works the library cites but does not hold, whose titles GFS abbreviates too.
GLOBAL = (
    "[{n}] S. Soltis, T. Ruwart and M. O'Keefe. The Global File System. In Proc. of the Fifth NASA Goddard "
    "Conference on Mass Storage Systems, pages 319-342, 1996."
)
HARVEY = (
    "[{n}] V. Wustholz and M. Christakis. Harvey: a greybox fuzzer for smart contracts. In Proc. of "
    "ESEC/FSE, pages 1398-1409, 2020."
)
# A list that prints the title exactly but no year the matcher can weigh (as a web page's list may): the
# entry stays outside the library's papers in the graph.
SIMPLE = "[{n}] L AMPORT, L. Paxos made simple. ACM SIGACT News 32, 4, 18-25."
FILLERS = (
    "[{n}] U. Writer and V. Author. Notes on indexing large document collections. Information Retrieval, 5:10-20, 2008.",
    "[{n}] W. Scholar. Statistical methods for text, second edition. Springer, Berlin, 2011.",
)


def refs(*entries: str) -> list[str]:
    return [entry.format(n=i) for i, entry in enumerate((*entries, *FILLERS), 1)]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    """GFS (the Google File System) is held and cited by Bigtable; GFS, Bigtable and a fuzzing paper cite
    the Global File System, the last two Harvey too, both of which the library lacks; Chubby cites Paxos Made Simple, held without
    a file, by an entry the matcher cannot tie to it; nothing cites Bigtable."""
    root = tmp_path_factory.mktemp("explore-scope")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=53)
    k: dict[str, str] = {}

    def add(
        name: str, title: str, year: int, authors: list[tuple[str, str]], references: list[str] | None
    ) -> None:
        k[name] = b.add_item("conferencePaper", title=title, date=f"{year}-00-00 {year}", creators=authors)
        if references is not None:
            path = write_paper(
                pdfs / f"{name}.pdf", body_pages=1, body=BODY.format(name), references=references
            )
            b.add_attachment(k[name], filename=f"{name}.pdf", content=path.path.read_bytes())

    add("gfs", "The Google File System", 2003, [("Sanjay", "Ghemawat"), ("Howard", "Gobioff")], refs(GLOBAL))
    add(
        "bigtable",
        "Bigtable: A Distributed Storage System for Structured Data",
        2006,
        [("Fay", "Chang"), ("Jeffrey", "Dean")],
        refs(GFS, GLOBAL, HARVEY),
    )
    add(
        "fuzz",
        "Fuzzing distributed storage in practice",
        2021,
        [("Ana", "Tester"), ("Bo", "Prober")],
        refs(HARVEY, GLOBAL),
    )
    add(
        "chubby",
        "The Chubby lock service for loosely-coupled distributed systems",
        2006,
        [("Mike", "Burrows")],
        refs(SIMPLE, GFS),
    )
    add("simple", "Paxos made simple", 2001, [("Leslie", "Lamport")], None)
    db = guard_database(b.build())
    return index_library(library_settings(db.parent, root), root / "home", graph=True), k


def route_cli(settings: Settings, query: str) -> str:
    """`agent-zot route explore QUERY --json` over the fixture's library and state."""
    config = Path(settings.data_dir).parent / "agent-zot.toml"
    config.write_text(
        f'zotero_data_dir = "{settings.zotero_data_dir}"\ndata_dir = "{settings.data_dir}"\n',
        encoding="utf-8",
    )
    shown = CliRunner().invoke(cli, ["--config", str(config), "route", "explore", query, "--json"])
    assert shown.exit_code == 0, shown.output
    return shown.output


@pytest.fixture
async def client(library: tuple[Settings, dict[str, str]], tmp_path: Path):
    async with connect(library[0], home=tmp_path / "home") as connected:
        yield connected


async def ask(client: Client, query: str, **arguments: Any) -> dict[str, Any]:
    result = await client.call_tool("zot_explore_graph", {"query": query, **arguments}, raise_on_error=False)
    assert not result.is_error, text_of(result)
    data = result.structured_content
    data["_text"] = text_of(result)
    return data


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "section"),
    [("what does the GFS paper cite?", "cites"), ("which papers cite the GFS paper?", "cited_by")],
)
async def test_a_library_paper_whose_acronym_fits_beats_works_it_only_cites(
    client: Client, library: tuple[Settings, dict[str, str]], query: str, section: str
) -> None:
    settings, k = library
    data = await ask(client, query)
    assert data["resolved"]["papers"][0]["key"] == k["gfs"]
    assert section in data
    # `agent-zot route` shows the paper the tool answered about
    assert json.loads(route_cli(settings, query))["resolved"]["papers"][0]["key"] == k["gfs"]


@pytest.mark.slow
async def test_route_shows_the_work_the_tool_answers_about(
    client: Client, library: tuple[Settings, dict[str, str]]
) -> None:
    settings = library[0]
    query = "which of my papers cite the Global File System?"
    data = await ask(client, query)
    assert data["work"]["title"] == "The Global File System"
    resolved = json.loads(route_cli(settings, query))["resolved"]
    assert resolved["papers"] == [] and resolved["work"]["title"] == "The Global File System"


@pytest.mark.slow
async def test_cited_by_counts_a_reference_list_that_prints_the_papers_title(
    client: Client, library: tuple[Settings, dict[str, str]]
) -> None:
    k = library[1]
    data = await ask(client, "which papers cite Paxos Made Simple?")
    assert data["resolved"]["papers"][0]["key"] == k["simple"]
    assert [p["item_key"] for p in data["cited_by"]] == [k["chubby"]]


@pytest.mark.slow
async def test_an_empty_answer_advises_for_the_direction_asked(
    client: Client, library: tuple[Settings, dict[str, str]]
) -> None:
    cited_by = await ask(client, "which papers cite the Bigtable paper?")
    assert cited_by["cited_by"] == []
    text = cited_by["_text"]
    # about the other papers' reference lists, not the paper's own
    assert "does it have one" not in text and "reference lists of 3 papers" in text, text
    cites = await ask(client, "what does Paxos Made Simple cite?")
    assert cites["cites"] == [] and "no file in Zotero" in cites["_text"], cites["_text"]


@pytest.mark.slow
@pytest.mark.parametrize(
    ("query", "force_mode"),
    [
        ("the whole citation graph of my library", "comprehensive"),
        ("the whole citation graph of my library", None),
        ("the whole citation graph of my library", "citation"),  # a one-paper mode, no paper named
        ("most influential papers in my entire library", None),
        ("influence across all my papers", None),
    ],
)
async def test_a_request_about_the_whole_library_is_not_a_topic(
    client: Client, query: str, force_mode: str | None
) -> None:
    data = await ask(client, query, **({"force_mode": force_mode} if force_mode else {}))
    influence = data.get("influence", data)
    assert influence["field"] is None and influence["papers"], data["_text"]
    assert "matching" not in data["_text"]
