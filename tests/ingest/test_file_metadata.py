"""A PDF Zotero holds without a parent item has no metadata but its file's: update-db reads its title,
authors and year from the PDF (document info when plausible, else the first page's title block), and every
answer shows them, marked as read from the PDF, instead of the file name."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.ingest.front_matter import read_front_matter
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import connect, guard_database, index_library, library_settings, text_of
from tests.pdf_factory import write_front_page, write_paper

PAXOS = "Paxos Made Simple"
PAXOS_ABSTRACT = (
    "The Paxos algorithm, when presented in plain English, is very simple. It lets a set of processes "
    "agree on a single value even when some of them fail, and is the basis of replicated state machines."
)


def _paxos(path: Path, **info: str) -> Path:
    return write_front_page(
        path,
        title=PAXOS,
        authors="Leslie Lamport",
        affiliations=[
            "Microsoft Research, 1065 La Avenida, Mountain View, CA 94043",
            "lamport@microsoft.com",
        ],
        abstract=PAXOS_ABSTRACT,
        venue="ACM SIGACT News 32(4), 01 Nov 2001",
        **info,
    )


def test_good_document_info_gives_title_and_authors(tmp_path: Path) -> None:
    pdf = _paxos(tmp_path / "a.pdf", info_title=PAXOS, info_author="Lamport, Leslie")
    found = read_front_matter(pdf)
    assert found is not None
    assert (found.title, found.authors, found.year, found.source) == (
        PAXOS,
        ("Leslie Lamport",),
        2001,
        "document info",
    )


def test_junk_document_info_falls_back_to_the_title_block(tmp_path: Path) -> None:
    """A word processor's title and a user name are no metadata: the first page's title block is read
    instead, with the names under it (footnote marks and "and" split them; affiliations, addresses and
    e-mails are not names)."""
    pdf = write_front_page(
        tmp_path / "draft3.pdf",
        title="Consensus in the Presence of Partial Synchrony for Replicated Services",
        authors="Cynthia Dwork*, Nancy Lynch and Larry Stockmeyer",
        affiliations=[
            "IBM Almaden Research Center, San Jose, CA 95120",
            "Laboratory for Computer Science, Massachusetts Institute of Technology",
            "dwork@almaden.ibm.com",
        ],
        venue="Journal of the ACM, Vol. 35, No. 2. Copyright 1988 ACM",
        info_title="Microsoft Word - draft3.docx",
        info_author="jsmith",
    )
    found = read_front_matter(pdf)
    assert found is not None
    assert found.title == "Consensus in the Presence of Partial Synchrony for Replicated Services"
    assert found.authors == ("Cynthia Dwork", "Nancy Lynch", "Larry Stockmeyer")
    assert (found.year, found.source) == (1988, "first page")


def test_a_page_without_a_title_block_gives_nothing(tmp_path: Path) -> None:
    """No document info and no large type at the top (a larger section heading is not a title): nothing
    is guessed, and the item keeps its file name."""
    spec = write_paper(tmp_path / "plain.pdf")
    assert read_front_matter(spec.path) is None


@pytest.fixture(scope="module")
def paxos_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str, Path]:
    root = tmp_path_factory.mktemp("file-metadata")
    pdf = _paxos(root / "source.pdf", info_title="Microsoft Word - paxos.doc")
    builder = ZoteroLibraryBuilder(root / "zotero")
    builder.add_item(
        "journalArticle",
        title="Impossibility of Distributed Consensus with One Faulty Process",
        date="1985",
        creators=[("Michael J.", "Fischer"), ("Nancy A.", "Lynch"), ("Michael S.", "Paterson")],
    )
    key = builder.add_attachment(
        None, filename="paxos-made-simple.pdf", content=pdf.read_bytes(), title="paxos-made-simple.pdf"
    )
    db = guard_database(builder.build())
    settings = library_settings(db.parent, root)
    index_library(settings, root / "home", graph=True)
    return db.parent, key, root


@pytest.mark.slow
async def test_papers_by_the_author_find_the_pdf_under_its_real_title(
    paxos_library: tuple[Path, str, Path],
) -> None:
    data_dir, key, root = paxos_library
    settings = library_settings(data_dir, root)
    async with connect(settings, home=root / "home") as client:
        found = await client.call_tool("zot_search", {"query": "papers by Lamport"})
        text = text_of(found)
        papers = found.structured_content["papers"]
        assert [(p["key"], p["title"]) for p in papers] == [(key, PAXOS)], text
        assert "paxos-made-simple.pdf" not in text and "read from the PDF" in text
        filtered = await client.call_tool(
            "zot_search", {"query": "agreement among processes", "authors": ["Lamport"]}
        )
        assert [p["key"] for p in filtered.structured_content["papers"]] == [key]
        summary = text_of(
            await client.call_tool(
                "zot_summarize", {"query": "what is it about", "item_key": key, "force_mode": "quick"}
            )
        )
        assert f"Title: {PAXOS}" in summary and "Retrieve Metadata for PDF" in summary
        assert "Leslie Lamport" in summary and "2001" in summary
        graph = text_of(
            await client.call_tool("zot_explore_graph", {"query": "who did Lamport collaborate with"})
        )
        assert "Lamport" in graph


@pytest.mark.slow
def test_the_next_update_finds_nothing_to_do(paxos_library: tuple[Path, str, Path]) -> None:
    """The fingerprint recorded is that of the item as the PDF completes it, which every later read of the
    library gives again: nothing is re-indexed or rewritten."""
    data_dir, key, root = paxos_library
    ctx = AppContext(library_settings(data_dir, root), home=root / "home")
    try:
        assert ctx.library().items[key].from_pdf == ("title", "authors", "year")
        summary = update_index(ctx.library(), ctx.index_resources(), UpdateOptions())
    finally:
        ctx.close()
    assert (summary.indexed, summary.updated_in_place) == (0, 0)
