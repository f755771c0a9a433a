"""Topic searches while the first full-text build runs: answered from titles, abstracts and tags, saying
how far the build is, instead of "the index is empty". The build is stood for by its real OS lock on the
index folder, held here as update-db holds it."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.index.integrity import UPDATE_LOCK
from agent_zot.locks import open_lock_file, try_lock, unlock
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

QUERY = "how is the vocabulary built for scientific text"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("building")
    db = guard_database(ensure_demo_library(root / "library"))
    return Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")


@contextmanager
def building(settings: Settings) -> Iterator[None]:
    folder = settings.data_dir / "index"
    folder.mkdir(parents=True, exist_ok=True)
    with open_lock_file(folder / UPDATE_LOCK) as handle:
        assert try_lock(handle)
        try:
            yield
        finally:
            unlock(handle)


async def search(settings: Settings, home: Path) -> Any:
    ctx = AppContext(settings, home=home)
    try:
        async with Client(build_server(ctx)) as client:
            return await client.call_tool("zot_search", {"query": QUERY}, raise_on_error=False)
    finally:
        ctx.close()


async def test_before_the_first_batch_a_search_answers_from_titles_abstracts_and_tags(
    demo: Settings, tmp_path: Path
) -> None:
    idle = await search(demo, tmp_path)
    assert idle.is_error and "The full-text index is empty" in idle.content[0].text  # no build: as before
    with building(demo):
        result = await search(demo, tmp_path)
    text = result.content[0].text
    assert not result.is_error
    assert "The full-text index is being built: 0 of 7 papers have full text so far." in text
    assert "SciBERT" in result.structured_content["papers"][0]["title"]
    assert result.structured_content["building"] == {"indexed": 0, "total": 7}


@pytest.mark.slow
async def test_midway_a_search_answers_from_what_is_indexed_and_says_how_much_that_is(
    demo: Settings, tmp_path: Path
) -> None:
    index_library(demo, tmp_path / "home")
    state = demo.data_dir / "index" / "state.sqlite"
    with sqlite3.connect(state) as conn:  # a first build not finished yet has not recorded its end
        conn.execute("DELETE FROM meta WHERE key = 'updated_at'")
    with building(demo):
        result = await search(demo, tmp_path)
    text = result.content[0].text
    assert text.startswith("[Note: The full-text index is being built: 7 of 7 papers have full text so far.")
    assert "[p. 1" in text  # page-cited passages from the index
    with sqlite3.connect(state) as conn:
        conn.execute("INSERT INTO meta VALUES ('updated_at', '2026-11-25 12:00:00')")
    with building(demo):  # a later, incremental update: the index answers without the note
        later = await search(demo, tmp_path)
    assert "being built" not in later.content[0].text


def test_the_readme_says_so() -> None:
    readme = " ".join((Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8").split())
    assert "The full-text index is being built: 312 of 5,183 papers have full text so far." in readme
