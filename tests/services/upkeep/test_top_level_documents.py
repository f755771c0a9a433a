"""A PDF dropped into Zotero without a parent item is listed by Zotero as an item of its own. It is one in
every tool too: indexed, found by a question, named by its file name, in a review matrix, counted once."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, guard_database
from tests.pdf_factory import write_paper

pytestmark = pytest.mark.slow

GLACIER = (
    "We surveyed the debris cover on the valley floor of the Miage glacier. The debris was 40 cm thick on "
    "average and thinned towards the ice divide. Thick debris slows the melt of the ice beneath it."
)
SORTING = "Merge sort splits the list in halves, sorts each half and merges them in linear time."


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("top-level")
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=40)
    keys = {"paper": b.add_item("journalArticle", title="Sorting in linear passes", date="2019")}
    sorting = write_paper(root / "sorting.pdf", body_pages=2, body=SORTING).path
    b.add_attachment(keys["paper"], filename="sorting.pdf", content=sorting.read_bytes())
    glacier = write_paper(root / "miage-debris-survey.pdf", body_pages=2, body=GLACIER).path
    keys["loose"] = b.add_attachment(
        None,
        filename="miage-debris-survey.pdf",
        content=glacier.read_bytes(),
        title="miage-debris-survey.pdf",
    )
    db = guard_database(b.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    ctx = AppContext(settings)
    try:
        summary = update_index(ctx.library(), ctx.index_resources(), UpdateOptions(), graph=ctx.graph())
    finally:
        ctx.close()
    assert summary.indexed == 2 and not summary.failed and not summary.skipped
    return settings, keys


async def test_a_question_finds_the_top_level_pdf(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    result = await call_tool(
        settings, "zot_search", query="How thick was the debris on the glacier's valley floor?"
    )
    papers = result.structured_content["papers"]
    assert papers[0]["key"] == keys["loose"] and papers[0]["passages"]
    assert "40 cm" in result.content[0].text


async def test_it_is_named_by_its_file_name_and_summarized(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    result = await call_tool(settings, "zot_summarize", query="summarize miage-debris-survey.pdf")
    assert not result.is_error, result.content[0].text
    assert result.structured_content["item_key"] == keys["loose"]


async def test_it_has_a_row_in_a_review_matrix(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    result = await call_tool(
        settings,
        "zot_summarize",
        questions=["how thick was the debris"],
        item_keys=[keys["loose"], keys["paper"]],
    )
    assert not result.is_error, result.content[0].text
    rows = {row["item_key"]: row for row in result.structured_content["rows"]}
    assert set(rows) == {keys["loose"], keys["paper"]}
    cell = rows[keys["loose"]]["cells"][0]
    assert cell["found"] and cell["source"] == "full text" and cell["candidates"][0]["pages"] == "p. 1"
    assert "debris cover on the valley floor" in result.content[0].text


def test_it_is_counted_once(library: tuple[Settings, dict[str, str]]) -> None:
    settings, _ = library
    ctx = AppContext(settings)
    try:
        from agent_zot.services.upkeep.status import library_status

        data = library_status(ctx)
    finally:
        ctx.close()
    assert data["counts"]["items"] == 2 and data["counts"]["attachments"] == 2 and data["counts"]["pdfs"] == 2
    assert data["index"]["items_indexed"] == 2 and data["index"]["files_unread"] == []


async def test_it_exports_as_a_document(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    result = await call_tool(
        settings, "zot_export", item_keys=[keys["loose"]], path="loose.bib", overwrite=True
    )
    assert not result.is_error, result.content[0].text
    text = Path(result.structured_content["path"]).read_text(encoding="utf-8")
    assert text.startswith("@misc{") and "title = {miage-debris-survey.pdf}" in text
    # the whole library's references leave out a file without a record, as Zotero's own exports do
    whole = await call_tool(settings, "zot_export", path="all.bib", overwrite=True)
    everything = Path(whole.structured_content["path"]).read_text(encoding="utf-8")
    assert "Sorting in linear passes" in everything and "miage" not in everything
