"""What a search's filters read grows with the library: the tag spellings and the authors' surnames are
made once per library snapshot, not walked from every item on each request (about 30 ms a request at
20,000 items, issue 57), and an edit is seen by the next request. Real libraries, read from zotero.sqlite."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.errors import NotFoundError
from agent_zot.services.context import AppContext
from agent_zot.services.resolve.library import author_surnames
from agent_zot.services.resolve.match import match_items
from agent_zot.services.resolve.scope import resolve_tags, tag_spellings
from agent_zot.zotero.builder import ZoteroLibraryBuilder


def _library(folder: Path, extra: int = 0) -> ZoteroLibraryBuilder:
    builder = ZoteroLibraryBuilder(folder, shape="z7", seed=3)
    builder.add_item(
        "journalArticle", title="Glacier mass balance", creators=[("Ada", "van der Berg")], tags=["RCT"]
    )
    builder.add_item(
        "journalArticle", title="Ice sheet models", creators=[("Bo", "Smith")], tags=["rct", "ice"]
    )
    for n in range(extra):
        builder.add_item(
            "journalArticle", title=f"Later paper {n}", creators=[("Cy", "Okafor")], tags=["later"]
        )
    return builder


def test_tags_and_surnames_are_read_once_per_library_snapshot(tmp_path: Path) -> None:
    folder = tmp_path / "Zotero"
    _library(folder).build()
    ctx = AppContext(Settings(zotero_data_dir=folder, data_dir=tmp_path / "state"))
    try:
        library = ctx.library()
        assert tag_spellings(library) is tag_spellings(library)  # kept, not walked again
        assert sorted(tag_spellings(library)["rct"]) == ["RCT", "rct"]
        assert resolve_tags(library, ["Rct"], whole=True).names == ("RCT", "rct")
        assert author_surnames(library, "A. van der Berg") == ["van der Berg"]
        assert author_surnames(library, "Smith") == ["Smith"]
        with pytest.raises(NotFoundError, match="Okafor"):
            author_surnames(library, "Okafor")
        _library(folder, extra=2).build()  # the library changes: the next snapshot has the new names
        later = AppContext(Settings(zotero_data_dir=folder, data_dir=tmp_path / "state2")).library()
        assert later is not library
        assert "later" in tag_spellings(later)
        assert author_surnames(later, "Cy Okafor") == ["Okafor"]
    finally:
        ctx.close()


def test_metadata_matching_finds_every_word_with_the_longest_first(tmp_path: Path) -> None:
    folder = tmp_path / "Zotero"
    _library(folder).build()
    ctx = AppContext(Settings(zotero_data_dir=folder, data_dir=tmp_path / "state"))
    try:
        library = ctx.library()
        items = list(library.items.values())
        assert [i.title for i in match_items(items, "glacier balance", library=library)] == [
            "Glacier mass balance"
        ]
        assert [i.title for i in match_items(items, "models ice", library=library)] == ["Ice sheet models"]
        assert match_items(items, "glacier models", library=library) == []
        assert match_items(items, "ice", library=library)[0].title == "Ice sheet models"
    finally:
        ctx.close()
