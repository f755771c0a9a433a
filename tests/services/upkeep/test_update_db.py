"""`update-db` end to end on a built library with real PDFs, the real embedder and the embedded store."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.index.embed import make_embedder
from agent_zot.index.resources import IndexResources
from agent_zot.index.store import SearchFilter
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.reader import load_library
from tests.conftest import guard_database
from tests.pdf_factory import marker, write_garbage, write_paper

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def embedder():
    return make_embedder("minilm")


@pytest.fixture(scope="module")
def source_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("update-db")
    pdfs = root / "pdfs"
    pdfs.mkdir()
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=11)
    k: dict[str, str] = {}
    k["a"] = b.add_item(
        "journalArticle",
        title="Page-aware parsing of scientific documents",
        publicationTitle="Journal of Synthetic Test Documents",
        date="2024-00-00 2024",
        creators=[("Ada", "Author")],
        tags=["parsing"],
    )
    k["a_pdf"] = b.add_attachment(
        k["a"], filename="a.pdf", content=write_paper(pdfs / "a.pdf", body_pages=3).path.read_bytes()
    )
    k["b"] = b.add_item(
        "conferencePaper",
        title="Two-column layouts with page labels",
        proceedingsTitle="Proceedings of Tests",
        date="2023-00-00 2023",
        creators=[("Bo", "Writer")],
    )
    k["b_pdf"] = b.add_attachment(
        k["b"],
        filename="b.pdf",
        content=write_paper(
            pdfs / "b.pdf", body_pages=2, two_columns=True, page_labels=True
        ).path.read_bytes(),
    )
    k["c"] = b.add_item("journalArticle", title="An encrypted article", date="2022-00-00 2022")
    k["c_pdf"] = b.add_attachment(
        k["c"],
        filename="c.pdf",
        fulltext="Zotero cached the quokka census text.",
        content=write_paper(pdfs / "c.pdf", password="secret").path.read_bytes(),
    )
    k["d"] = b.add_item("journalArticle", title="A paper whose file was never synced", date="2021-00-00 2021")
    k["d_pdf"] = b.add_attachment(k["d"], filename="d.pdf", content=None)
    k["e"] = b.add_item(
        "book", title="Metadata only: a treatise on axolotl husbandry", date="1999-00-00 1999"
    )
    k["f"] = b.add_item("journalArticle", title="A damaged download", date="2020-00-00 2020")
    k["f_pdf"] = b.add_attachment(
        k["f"], filename="f.pdf", content=write_garbage(pdfs / "f.pdf").read_bytes()
    )
    k["g"] = b.add_item("webpage", title="A saved web page", websiteTitle="Example")
    k["g_html"] = b.add_attachment(
        k["g"],
        filename="g.html",
        content_type="text/html",
        link_mode="imported_url",
        content=b"<html><body><p>Narwhals migrate along the fjord.</p></body></html>",
    )
    db = b.build()
    guard_database(db)
    return root / "Zotero", k


@pytest.fixture
def library_copy(source_library, tmp_path: Path) -> tuple[Path, dict[str, str]]:
    folder, keys = source_library
    shutil.copytree(folder, tmp_path / "Zotero")
    return tmp_path / "Zotero", keys


@pytest.fixture
def resources(tmp_path: Path, embedder) -> IndexResources:
    res = IndexResources(Settings(data_dir=tmp_path / "state", index_workers=2, parse_timeout_s=60))
    res.__dict__["embedder"] = embedder  # one loaded model for the module
    yield res
    res.close()


def _search(res: IndexResources, text: str, **filters: object):
    return res.store.search(
        res.embedder.embed_query(text),
        res.sparse_query(text),
        limit=3,
        filter=SearchFilter(**filters) if filters else None,
    )


def _points_match_state(res: IndexResources, library) -> None:
    """No duplicate or orphan points: each item's points are exactly the chunks the state recorded."""
    recorded = dict(res.state._conn.execute("SELECT item_key, chunks FROM items").fetchall())
    assert res.store.count() == sum(recorded.values())
    for key, chunks in recorded.items():
        assert len(res.store.get_by_item(key)) == chunks, key
        assert key in library.items


def test_first_run_indexes_everything_and_reports_why(library_copy, resources) -> None:
    folder, k = library_copy
    library = load_library(folder / "zotero.sqlite")
    summary = update_index(library, resources, UpdateOptions())
    assert summary.indexed == 7 and summary.unchanged == 0
    reasons = {e["attachment_key"]: e["reason"] for e in summary.skipped + summary.failed}
    assert set(reasons) == {k["c_pdf"], k["d_pdf"], k["f_pdf"]}
    assert "missing" in reasons[k["d_pdf"]]
    # page-cited passages come back for text only found on one page
    top = _search(resources, marker(2), item_keys=(k["a"],))[0]
    assert top.payload["item_key"] == k["a"] and top.payload["page_start"] <= 2 <= top.payload["page_end"]
    # the encrypted PDF is searchable through Zotero's own full-text cache; HTML snapshots too
    assert _search(resources, "quokka census")[0].payload["item_key"] == k["c"]
    assert _search(resources, "narwhals fjord migration")[0].payload["item_key"] == k["g"]
    # items without files are searchable by their metadata point
    assert _search(resources, "axolotl husbandry")[0].payload["item_key"] == k["e"]
    # page texts are kept for reading by pages; references are kept aside
    pages = resources.state.pages_of(k["a_pdf"])
    assert [p.number for p in pages] == [1, 2, 3, 4] and marker(3) in pages[2].text
    assert pages[3].text == ""  # the references page: its text is kept aside, numbering stays the PDF's
    record = resources.state.attachments_of(k["a"])[0]
    assert record.references_page == 4 and "[1]" in record.references_text
    assert all("[2] C. Scholar" not in p.text for p in pages)
    _points_match_state(resources, library)
    # where the time went, stage by stage, within the run's own time
    # (every stage that ran is reported; a fast one may round to 0.000 s, so only presence is asserted)
    for stage in ("parse (waiting for the workers)", "chunk", "embed (dense)", "embed (sparse)",
                  "free memory returned", "vector store writes", "state writes"):  # fmt: skip
        assert summary.stages[stage] >= 0, stage
    assert summary.stages["embed (dense)"] > 0  # the model's work is never under a millisecond
    assert sum(summary.stages.values()) <= summary.seconds


def test_rerun_is_incremental_and_exact(library_copy, resources) -> None:
    folder, k = library_copy
    db = folder / "zotero.sqlite"
    update_index(load_library(db), resources, UpdateOptions())
    before = resources.store.count()
    again = update_index(load_library(db), resources, UpdateOptions())
    assert (again.indexed, again.unchanged) == (0, 7) and resources.store.count() == before

    # a changed PDF: only that item again, no duplicates
    pdf = folder / "storage" / k["a_pdf"] / "a.pdf"
    write_paper(pdf, body_pages=5)
    changed = update_index(load_library(db), resources, UpdateOptions())
    assert changed.indexed == 1 and len(resources.state.pages_of(k["a_pdf"])) == 6

    # an item moved to the trash leaves the index
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO deletedItems (itemID) SELECT itemID FROM items WHERE key = ?", (k["b"],))
    conn.commit()
    conn.close()
    library = load_library(db)
    removed = update_index(library, resources, UpdateOptions())
    assert removed.removed == 1 and resources.store.get_by_item(k["b"]) == []
    _points_match_state(resources, library)


def test_metadata_only_then_full_text(library_copy, resources) -> None:
    folder, _ = library_copy
    db = folder / "zotero.sqlite"
    quick = update_index(load_library(db), resources, UpdateOptions(fulltext=False))
    assert quick.indexed == 7 and quick.pages == 0 and resources.store.count() == 7
    assert update_index(load_library(db), resources, UpdateOptions(fulltext=False)).indexed == 0
    full = update_index(load_library(db), resources, UpdateOptions())
    assert full.indexed == 6 and full.pages > 0  # the six items with files are parsed now


def test_limit_item_and_force_rebuild(library_copy, resources) -> None:
    folder, k = library_copy
    db = folder / "zotero.sqlite"
    one = update_index(load_library(db), resources, UpdateOptions(item_keys=(k["e"],)))
    assert one.indexed == 1 and resources.store.count() == 1
    two = update_index(load_library(db), resources, UpdateOptions(limit=2))
    assert two.indexed == 2
    rebuilt = update_index(load_library(db), resources, UpdateOptions(force_rebuild=True))
    assert rebuilt.indexed == 7
    # the rebuild went into a new generation, now live; the old one is deleted (no process uses it)
    live = IndexResources(resources.settings, models_from=resources)
    try:
        assert live.generation != resources.generation
        live.open()
        assert not (resources.folder / "state.sqlite").exists()
        assert [p.name for p in (resources.folder / "generations").iterdir()] == [live.generation.name]
        _points_match_state(live, load_library(db))
    finally:
        live.close()


def test_an_index_built_by_another_model_is_refused(library_copy, resources, tmp_path: Path) -> None:
    from agent_zot.index.store import IndexMismatchError

    folder, _ = library_copy
    update_index(load_library(folder / "zotero.sqlite"), resources, UpdateOptions(fulltext=False))
    resources.close()
    other = IndexResources(Settings(data_dir=tmp_path / "state"))
    other.__dict__["embedder"] = resources.embedder
    try:
        with pytest.raises(Exception, match="force-rebuild") as err:
            other.store.open_or_create(model="another-model", dense_dim=768, sparse="bm25")
        assert isinstance(err.value, IndexMismatchError) or "another-model" in str(err.value)
    finally:
        other.close()


def test_the_report_says_where_each_unread_file_was_indexed_from(library_copy, tmp_path: Path) -> None:
    from click.testing import CliRunner

    from agent_zot.cli.main import cli

    folder, k = library_copy
    result = CliRunner().invoke(
        cli, ["--library", str(folder), "update-db"], env={"AGENT_ZOT_DATA_DIR": str(tmp_path / "cli-state")}
    )
    assert result.exit_code == 0, result.output
    lines = {line.split(":")[0].strip(): line for line in result.output.splitlines() if " / " in line}
    assert "indexed from Zotero's full-text cache" in lines[f"{k['c']} / {k['c_pdf']}"]  # the encrypted PDF
    assert "indexed from metadata only" in lines[f"{k['d']} / {k['d_pdf']}"]  # the file was never synced
