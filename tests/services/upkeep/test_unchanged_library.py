"""An update of a library that did not change since the last complete update trusts the fingerprints it
recorded instead of hashing every item again (the cost that grew with the library in every no-change
`update-db` and in the first answer's "index is behind" check), and still finds every change that can
happen: a file changed on disk, a metadata edit, another fingerprinting code."""

from __future__ import annotations

import shutil
import sqlite3
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.index.changes import LIBRARY_STAMP, indexed_as_is, library_stamp
from agent_zot.index.resources import IndexResources
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.models import ReadOptions
from agent_zot.zotero.reader import load_library
from tests.conftest import guard_database
from tests.pdf_factory import write_paper


@pytest.fixture
def library_dir(tmp_path: Path) -> tuple[Path, dict[str, str]]:
    b = ZoteroLibraryBuilder(tmp_path / "built", shape="z7", seed=12)
    keys = {
        "paper": b.add_item("journalArticle", title="Page-aware parsing of documents", date="2024"),
        "book": b.add_item("book", title="A treatise on axolotl husbandry", date="1999"),
    }
    pdf = write_paper(tmp_path / "paper.pdf", page_bodies=["Columns are found before text is read."]).path
    b.add_attachment(keys["paper"], filename="paper.pdf", content=pdf.read_bytes())
    guard_database(b.build())
    folder = tmp_path / "Zotero"
    shutil.copytree(tmp_path / "built", folder)  # the test edits its own copy
    return folder, keys


def _update(resources: IndexResources, folder: Path) -> tuple[int, list[str]]:
    summary = update_index(load_library(folder / "zotero.sqlite"), resources, UpdateOptions())
    return summary.indexed + summary.updated_in_place, summary.failed


@pytest.mark.slow
def test_an_unchanged_library_is_not_fingerprinted_again_but_changes_are_found(
    library_dir: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    folder, keys = library_dir
    resources = IndexResources(Settings(data_dir=tmp_path / "data", index_workers=1))
    try:
        assert _update(resources, folder)[0] == 2
        state = resources.state
        library = load_library(folder / "zotero.sqlite")
        assert state.get_meta(LIBRARY_STAMP) == library_stamp(library) != ""
        assert _update(resources, folder)[0] == 0

        # The recorded fingerprints stand for the metadata of the snapshot they were made from: a
        # fingerprint that no longer matches (as after a release that fingerprints differently) is
        # trusted while the stamp matches, and compared again once it does not.
        paper = keys["paper"]
        with sqlite3.connect(state.path) as conn:  # what another release's fingerprint would look like
            conn.execute("UPDATE items SET fingerprint = 'f2|v0|old|t0|p0|g0' WHERE item_key = ?", (paper,))
        assert _update(resources, folder)[0] == 0
        state.set_meta(LIBRARY_STAMP, "another release")
        assert _update(resources, folder)[0] == 1
        assert state.item_fingerprints()[paper] != "f2|v0|old|t0|p0|g0"

        # A file changed on disk while the database did not: still found
        pdf = next(a for a in library.items[paper].attachments).path
        assert pdf is not None and pdf.is_relative_to(folder)
        pdf.write_bytes(write_paper(tmp_path / "new.pdf", page_bodies=["Rows come first."]).path.read_bytes())
        assert _update(resources, folder)[0] == 1

        # A metadata edit changes the database, so the stamp: found
        conn = sqlite3.connect(folder / "zotero.sqlite")
        conn.execute("UPDATE itemDataValues SET value = 'Axolotl care' WHERE value LIKE 'A treatise%'")
        conn.commit()
        conn.close()
        assert _update(resources, folder)[0] == 1
    finally:
        resources.close()


def test_the_stamp_names_what_the_snapshot_was_read_from(library_dir: tuple[Path, dict[str, str]]) -> None:
    folder, _ = library_dir
    db = folder / "zotero.sqlite"
    plain = load_library(db)
    assert indexed_as_is(library_stamp(plain), load_library(db))
    # other read options give other snapshots of the same file
    assert not indexed_as_is(library_stamp(plain), load_library(db, options=ReadOptions(include_trash=True)))
    assert not indexed_as_is(
        library_stamp(plain), load_library(db, options=ReadOptions(library_ids=frozenset({1})))
    )
    plain.read_stamp = ""  # a library made in memory has no stamp and never matches one
    assert library_stamp(plain) == "" and not indexed_as_is("", plain)
