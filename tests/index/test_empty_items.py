"""An item with nothing to read (no title, no abstract, no full text, or only boilerplate like
"Untitled") is never evidence and never fills the top of a search: a real library holding such items and
one real paper, searched through fastmcp's in-memory client."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.index.chunking import metadata_chunk
from agent_zot.services.context import AppContext
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, guard_database, index_library
from tests.paper_texts import GFS
from tests.pdf_factory import write_paper

CLAIM = "MapReduce runs on commodity machines"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("empty_items")
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=31)
    keys = {
        "paper": b.add_item(
            "journalArticle",
            title="MapReduce: simplified data processing on large clusters",
            date="2004-00-00 2004",
            creators=[("Jeffrey", "Dean")],
        ),
        "blank": b.add_item("journalArticle"),
        "untitled": b.add_item("journalArticle", title="Untitled", creators=[("Ana", "Moreau")]),
    }
    pdf = write_paper(root / "paper.pdf", page_bodies=list(GFS)).path
    b.add_attachment(keys["paper"], filename="paper.pdf", content=pdf.read_bytes())
    db = guard_database(b.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home"), keys


def test_an_item_with_no_words_of_its_own_has_no_metadata_point(
    library: tuple[Settings, dict[str, str]],
) -> None:
    settings, keys = library
    ctx = AppContext(settings)
    try:
        items = ctx.library().items
        assert metadata_chunk(items.get(keys["blank"])) is None
        assert metadata_chunk(items.get(keys["untitled"])) is None
        assert metadata_chunk(items.get(keys["paper"])) is not None
    finally:
        ctx.close()


@pytest.mark.slow
@pytest.mark.parametrize("mode", ["evidence", "fast"])
async def test_an_empty_item_is_never_a_passage_nor_a_hit(
    library: tuple[Settings, dict[str, str]], tmp_path: Path, mode: str
) -> None:
    settings, keys = library
    result = await call_tool(settings, "zot_search", home=tmp_path / "home", query=CLAIM, force_mode=mode)
    assert not result.is_error, result.content[0].text
    text = result.content[0].text
    assert keys["paper"] in text
    for empty in ("blank", "untitled"):
        assert keys[empty] not in text and keys[empty] not in str(result.structured_content)
    assert "Untitled journalArticle" not in text
