"""A scanned paper through update-db: OCR'd in the parse workers (under the memory cap), counted in the
update summary, its chunks marked, and found by a question through a real MCP client with a page-cited
"(OCR)" passage. The ``ocr`` setting turns it off."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.cli.update_report import update_report
from agent_zot.config import Settings, load_settings
from agent_zot.ingest import ParseJob, parse_many
from agent_zot.ingest.ocr import OcrConfig
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, UpdateSummary, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database
from tests.ingest.test_ingest_extract import attachment
from tests.ocr_factory import SENTENCE, recall, write_scanned_paper, write_text_paper

pytestmark = pytest.mark.slow

QUESTION = "How thick was the debris cover on the valley floor of the glacier?"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, str]]:
    root = tmp_path_factory.mktemp("ocr-library")
    scan = write_scanned_paper(root / "scan.pdf", blank_page=True)
    other = root / "other.pdf"
    write_text_paper(other)  # a text-layer paper: parsed as before, never OCR'd
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=25)
    keys = {
        "scan": b.add_item("journalArticle", title="Field report 12", date="1987-00-00 1987"),
        "other": b.add_item("journalArticle", title="A text layer paper", date="2020-00-00 2020"),
    }
    b.add_attachment(keys["scan"], filename="scan.pdf", content=scan.read_bytes())
    b.add_attachment(keys["other"], filename="other.pdf", content=other.read_bytes())
    return guard_database(b.build()), keys


def _update(settings: Settings, home: Path) -> UpdateSummary:
    ctx = AppContext(settings, home=home)
    try:
        return update_index(ctx.library(), ctx.index_resources(), UpdateOptions())
    finally:
        ctx.close()


@pytest.fixture(scope="module")
def indexed(
    library: tuple[Path, dict[str, str]], tmp_path_factory: pytest.TempPathFactory
) -> tuple[Settings, UpdateSummary]:
    root = tmp_path_factory.mktemp("ocr-index")
    settings = Settings(
        zotero_data_dir=library[0].parent, data_dir=root / "state", export_dir=root / "exports"
    )
    return settings, _update(settings, root / "home")


@pytest.mark.parametrize(
    "engine", ["rapidocr", pytest.param("tesseract", marks=pytest.mark.system("tesseract"))]
)
def test_workers_ocr_under_the_default_memory_cap(tmp_path: Path, engine: str) -> None:
    scan = write_scanned_paper(tmp_path / "scan.pdf")
    jobs = [ParseJob(attachment(scan))]
    (outcome,) = parse_many(
        jobs, workers=1, timeout_s=120, memory_mb=Settings().parse_memory_mb, ocr=OcrConfig(engine, 1)
    )
    assert outcome.error is None, outcome.error
    document = outcome.document
    assert document is not None and document.ocr_pages == [1] and document.ocr_engine == engine
    assert recall(SENTENCE, document.pages[0].text) >= 0.8


def test_a_worker_asked_for_no_ocr_reads_no_scan(tmp_path: Path) -> None:
    jobs = [ParseJob(attachment(write_scanned_paper(tmp_path / "scan.pdf")))]
    (outcome,) = parse_many(jobs, workers=1, timeout_s=120, memory_mb=1024)  # no OCR asked for
    assert outcome.document is not None and outcome.document.source == "none"


def test_update_summary_counts_ocr_pages(indexed: tuple[Settings, UpdateSummary]) -> None:
    _settings, summary = indexed
    assert summary.indexed == 2 and summary.ocr_pages == 1 and summary.ocr_seconds > 0
    data = summary.to_dict()
    assert data["ocr_pages"] == 1 and data["ocr_seconds"] > 0
    assert "OCR: 1 page without a text layer read in" in update_report(data)
    assert not summary.failed and not summary.skipped


async def test_a_question_finds_the_scanned_paper_with_an_ocr_passage(
    indexed: tuple[Settings, UpdateSummary], library: tuple[Path, dict[str, str]], tmp_path: Path
) -> None:
    settings, _summary = indexed
    keys = library[1]
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        async with Client(build_server(ctx)) as client:
            result = await client.call_tool("zot_search", {"query": QUESTION})
            # the summarize tool's passages carry the same mark wherever they are shown
            asked = await client.call_tool(
                "zot_summarize", {"item_key": keys["scan"], "query": QUESTION, "force_mode": "targeted"}
            )
            read = await client.call_tool("zot_summarize", {"item_key": keys["scan"], "force_mode": "full"})
    finally:
        ctx.close()
    assert "--- p. 1 (OCR) ---" in read.content[0].text and "debris cover" in read.content[0].text
    passages = asked.structured_content["passages"]
    assert passages and all(p["pages"].endswith("(OCR)") for p in passages)
    assert "[p. 1 (OCR)]" in asked.content[0].text
    text = result.content[0].text
    papers = result.structured_content["papers"]
    scanned = next(p for p in papers if p["key"] == keys["scan"])
    assert scanned["passages"] and all(p["page_start"] == 1 and p.get("ocr") for p in scanned["passages"])
    assert "[p. 1 (OCR)" in text and "debris cover" in text
    other = next((p for p in papers if p["key"] == keys["other"]), None)
    assert other is None or not any(p.get("ocr") for p in other["passages"])


def test_ocr_off_setting(
    library: tuple[Path, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_ZOT_OCR", "off")
    settings = load_settings(
        zotero_data_dir=library[0].parent, data_dir=tmp_path / "state", export_dir=tmp_path / "exports"
    )
    assert settings.ocr == "off"
    summary = _update(settings, tmp_path / "home")
    assert summary.indexed == 2 and summary.ocr_pages == 0
    (problem,) = summary.failed + summary.skipped
    assert problem["item_key"] == library[1]["scan"] and "no text layer" in problem["reason"]


@pytest.mark.parametrize("again", [("--retry-failed",), ("--item", "scan"), ("after an upgrade",)])
def test_a_file_not_read_is_reported_and_read_again_on_request(
    library: tuple[Path, dict[str, str]],
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    again: tuple[str, ...],
) -> None:
    """Indexed with OCR off, the scan is searchable by metadata only. `status` and `doctor` say so, with
    the reason; a plain update-db leaves it (nothing changed); --retry-failed, or naming the item, reads it
    again, now with OCR, and it is no longer reported. So does the first plain update-db of a release
    whose reader reads more than the one that tried the file."""
    import json

    from click.testing import CliRunner

    from agent_zot.cli.main import cli

    db, keys = library
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("AGENT_ZOT_OCR", "off")
    base = ["--library", str(db.parent)]

    def run(*args: str) -> str:
        result = CliRunner().invoke(cli, [*base, *args])
        assert result.exit_code == 0, result.output
        return result.stdout

    run("update-db")
    status = json.loads(run("status", "--json"))
    (unread,) = status["index"]["files_unread"]
    assert unread["item_key"] == keys["scan"] and unread["status"] == "metadata only"
    assert "no text layer" in unread["reason"]
    assert "1 file not read" in run("status") and "update-db --retry-failed" in run("status")
    doctor = run("doctor")
    assert f"of {keys['scan']}: " in doctor and "no text layer" in doctor
    monkeypatch.setenv("AGENT_ZOT_OCR", "auto")
    plain = json.loads(run("update-db", "--json"))
    assert plain["indexed"] == 0  # the file did not change: a plain update does not read it again
    args = [keys["scan"] if a == "scan" else a for a in again]
    if again == ("after an upgrade",):
        import sqlite3

        from agent_zot.ingest import READER_VERSION

        (state,) = (tmp_path / "state").rglob("state.sqlite")
        with sqlite3.connect(state) as conn:  # the index as the release before this one left it
            conn.execute("UPDATE meta SET value = ? WHERE key = 'reader_version'", (str(READER_VERSION - 1),))
        conn.close()
        args = []
    retried = json.loads(run("update-db", "--json", *args))
    assert retried["indexed"] == 1 and retried["ocr_pages"] == 1
    assert json.loads(run("status", "--json"))["index"]["files_unread"] == []
