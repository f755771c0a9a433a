"""Retracted papers, read from Zotero's own `retractedItems` rows (built here in Zotero's format: the
retraction API's JSON in `data`, the user's choice in `flag`) and flagged wherever an item appears: search,
summaries, exports, the citation audit and the view. Schemas without the table read as before."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.reader import load_library
from tests.conftest import SHARED_ZOTERO, call_tool, guard_database, index_library, shared_libraries

REASONS = ["Concerns/Issues About Data", "Investigation by Journal/Publisher"]


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("retractions")
    builder = ZoteroLibraryBuilder(root / "zotero")
    keys = {
        "retracted": builder.add_item(
            "journalArticle",
            title="Vaccines and developmental disorders in children",
            creators=[("Andrew", "Fabler")],
            date="1998",
            DOI="10.1016/s0140-6736(97)11096-0",
        ),
        "hidden": builder.add_item("journalArticle", title="A hidden retraction", date="2001"),
        "quiet": builder.add_item(
            "journalArticle",
            title="Cited knowingly despite retraction",
            creators=[("Q", "Quill")],
            date="2005",
        ),
        "garbled": builder.add_item("journalArticle", title="A record Zotero could not parse", date="2010"),
        "sound": builder.add_item(
            "journalArticle",
            title="Developmental disorders in a large cohort",
            creators=[("Sam", "Sound")],
            date="2019",
        ),
    }
    builder.add_retraction(
        keys["retracted"],
        date="2010-02-02",
        reasons=REASONS,
        notice_doi="10.1016/s0140-6736(10)60175-4",
        urls=["http://retractionwatch.com/example"],
    )
    builder.add_retraction(keys["hidden"], date="2012-01-01", flag=1)
    builder.add_retraction(keys["quiet"], date="2015-05-05", flag=2)
    builder.add_retraction(keys["garbled"])
    db = guard_database(builder.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home"), keys


@pytest.mark.slow
def test_the_reader_takes_zoteros_rows_as_they_are(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    items = load_library(settings.zotero_data_dir / "zotero.sqlite", settings.zotero_data_dir).items
    found = items[keys["retracted"]].retraction
    assert found is not None and found.date == "2010-02-02" and list(found.reasons) == REASONS
    assert found.notice == "https://doi.org/10.1016/s0140-6736(10)60175-4" and found.citation_warning
    assert items[keys["hidden"]].retraction is None  # the user hid it in Zotero
    assert (
        items[keys["quiet"]].retraction is not None and not items[keys["quiet"]].retraction.citation_warning
    )
    garbled = items[keys["garbled"]].retraction
    assert garbled is not None and garbled.flag() == "RETRACTED" and garbled.reasons == ()
    assert items[keys["sound"]].retraction is None


def test_schemas_without_the_table_read_as_before(tmp_path: Path) -> None:
    builder = ZoteroLibraryBuilder(tmp_path, shape="z5")
    key = builder.add_item("journalArticle", title="Before retractions existed")
    with pytest.raises(ValueError, match="no retractedItems"):
        builder.add_retraction(key)
    db = guard_database(builder.build())
    assert load_library(db, tmp_path).items[key].retraction is None


@pytest.mark.shared_data(SHARED_ZOTERO)
def test_the_shared_real_libraries_read_with_or_without_the_table() -> None:
    for folder in shared_libraries():
        library = load_library(folder / "zotero.sqlite", folder)
        assert all(item.retraction is None for item in library.items.values())  # none flagged in them


@pytest.mark.slow
async def test_search_results_flag_the_retracted_paper_with_its_details(
    library: tuple[Settings, dict[str, str]],
) -> None:
    settings, keys = library
    result = await call_tool(settings, "zot_search", query="developmental disorders", force_mode="fast")
    text = result.content[0].text
    assert f"[{keys['retracted']}] [RETRACTED 2010-02-02]" in text
    assert f"[{keys['sound']}] [RETRACTED" not in text and f"[{keys['sound']}]" in text
    record = result.structured_content["retracted"][keys["retracted"]]
    assert record["reasons"] == REASONS and record["notice"].startswith("https://doi.org/10.1016/")
    flagged = set(result.structured_content["retracted"])
    assert keys["sound"] not in flagged and keys["hidden"] not in flagged  # hidden in Zotero: not flagged
    assert flagged <= {keys["retracted"], keys["quiet"], keys["garbled"]}


@pytest.mark.slow
async def test_a_summary_warns_with_date_reasons_and_notice(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    result = await call_tool(settings, "zot_summarize", item_key=keys["retracted"], force_mode="quick")
    text = result.content[0].text
    assert (
        "Warning: this paper was retracted — RETRACTED 2010-02-02 — reasons: Concerns/Issues About Data"
        in text
    )
    assert "notice: https://doi.org/10.1016/s0140-6736(10)60175-4" in text
    assert result.structured_content["retraction"]["date"] == "2010-02-02"


@pytest.mark.slow
async def test_exports_carry_the_flag(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    chosen = [keys["retracted"], keys["sound"]]
    bib = await call_tool(settings, "zot_export", path="refs.bib", item_keys=chosen, overwrite=True)
    written = Path(bib.structured_content["path"]).read_text(encoding="utf-8")
    assert written.count("% RETRACTED 2010-02-02") == 1 and "@article{" in written
    notes = await call_tool(settings, "zot_export", force_mode="markdown", path="notes/", item_keys=chosen)
    pages = {Path(p).read_text(encoding="utf-8") for p in notes.structured_content["files"]}
    assert sum("> **Retracted.** RETRACTED 2010-02-02" in page for page in pages) == 1
    assert sum('retracted: "2010-02-02"' in page for page in pages) == 1  # front matter


@pytest.mark.slow
async def test_the_audit_says_a_draft_cites_a_retracted_paper(
    library: tuple[Settings, dict[str, str]],
) -> None:
    settings, _ = library
    draft = (
        "An early report linked vaccination to developmental disorders (Fabler, 1998). "
        "A later cohort found no such link (Sound, 2019). Some still cite it (Quill, 2005)."
    )
    result = await call_tool(
        settings, "zot_summarize", query="check the citations in this draft", draft=draft
    )
    text = result.content[0].text
    assert (
        "cites a retracted paper `Fabler 1998`: [" in text and "[RETRACTED 2010-02-02] Vaccines and" in text
    )
    assert "(reasons: Concerns/Issues About Data" in text
    assert "`Sound 2019`" not in text  # checked and fine
    assert "`Quill 2005`" not in text  # the user told Zotero not to warn when citing it


@pytest.mark.slow
def test_the_view_shows_it(library: tuple[Settings, dict[str, str]]) -> None:
    from agent_zot.graph.model import Node, NodeKind
    from agent_zot.services.explore.view_data import _paper

    settings, keys = library
    lib = load_library(settings.zotero_data_dir / "zotero.sqlite", settings.zotero_data_dir)
    node = Node(f"paper:{keys['retracted']}", NodeKind.PAPER, {"title": "Vaccines"})
    panel = _paper(node, lib.items[keys["retracted"]], lib)
    assert panel["retracted"].startswith("RETRACTED 2010-02-02 — reasons:")
    assert json.dumps(panel)  # JSON-ready for the page


def test_the_readme_says_what_the_user_sees() -> None:
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert "`[KEY] [RETRACTED 2010-02-02] …`" in readme and '"cites a retracted paper"' in readme
