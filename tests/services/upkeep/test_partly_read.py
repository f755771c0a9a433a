"""Files read in part (issue 58, item 3): a scan whose OCR'd page ran over its budget is indexed without that
page and with the reason; `status` and `doctor` count it as partly read and name the setting, a plain
update leaves it be, and `update-db --retry-failed` with the budget raised reads it whole."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.state.index import AttachmentRecord
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database
from tests.services.upkeep.test_long_work import _text_then_scan


def _mixed_library(root: Path) -> Path:
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=59)
    key = b.add_item("journalArticle", title="Debris cover of a valley glacier", date="1991-00-00 1991")
    b.add_attachment(key, filename="mixed.pdf", content=_text_then_scan(root).read_bytes())
    return guard_database(b.build()).parent


def _run(data_dir: Path, state: Path, *args: str, page_budget: str) -> tuple[int, str, str]:
    env = {"AGENT_ZOT_DATA_DIR": str(state), "AGENT_ZOT_OCR_PAGE_TIMEOUT_S": page_budget}
    result = CliRunner().invoke(cli, ["--library", str(data_dir), *args], env=env)
    return result.exit_code, result.stdout, result.stderr


@pytest.mark.slow
def test_a_partly_read_file_is_counted_named_and_read_whole_by_a_retry(tmp_path: Path) -> None:
    data_dir, state = _mixed_library(tmp_path), tmp_path / "state"
    code, out, err = _run(data_dir, state, "update-db", "--json", page_budget="0.01")
    assert code == 0, err
    first = json.loads(out)
    (skipped,) = first["skipped"]
    assert first["ocr_pages"] == 0 and skipped["reason"].startswith("OCR took over"), first

    code, out, err = _run(data_dir, state, "status", page_budget="0.01")
    assert code == 0, err
    assert "1 file partly read" in out and "ocr_page_timeout_s" in out and "--retry-failed" in out, out
    code, out, err = _run(data_dir, state, "status", "--json", page_budget="0.01")
    partial = json.loads(out)["index"]["files_partly_read"]
    assert [p["reason"][:13] for p in partial] == ["OCR took over"]
    code, out, err = _run(data_dir, state, "doctor", "--json", page_budget="0.01")
    (files,) = [c for c in json.loads(out)["checks"] if c["name"] == "files"]
    assert files["status"] == "warn" and "1 partly read" in files["detail"], files
    assert "ocr_page_timeout_s" in files["detail"] and "--retry-failed" in files["fix"]

    # A plain update does not read it again; a retry with a budget the page fits in reads it whole
    code, out, err = _run(data_dir, state, "update-db", "--json", page_budget="600")
    assert code == 0 and json.loads(out)["indexed"] == 0, out + err
    code, out, err = _run(data_dir, state, "update-db", "--retry-failed", "--json", page_budget="600")
    assert code == 0, err
    again = json.loads(out)
    assert again["indexed"] == 1 and again["ocr_pages"] == 1 and again["skipped"] == [], again
    code, out, err = _run(data_dir, state, "status", "--json", page_budget="600")
    assert json.loads(out)["index"]["files_partly_read"] == []


def _indexed(reason: str | None) -> AttachmentRecord:
    return AttachmentRecord("ATTACHKEY", "ITEMKEY1", "f", "pdfium", 2, 3, "indexed", reason)


def test_partly_read_means_a_limit_a_setting_raises_cut_the_file_short() -> None:
    from agent_zot.services.upkeep.unread import partly_read

    cut = [
        _indexed("OCR took over 300 s on page 4, not read"),
        _indexed("timed out after 120 s"),  # Zotero's cached text stood in for the file
        _indexed("exceeded memory limit (2048 MB)"),
    ]
    whole = [
        _indexed(None),
        _indexed("docling: no text"),  # the next parser in the chain read it
        _indexed("no file (a link to a web page)"),
    ]
    assert partly_read([*cut, *whole]) == cut
