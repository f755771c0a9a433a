"""The command line through click's CliRunner."""

from __future__ import annotations

import json
from pathlib import Path

import bibtexparser
import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from tests.factories import FullLibrary


@pytest.fixture
def run(full_lib: FullLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("AGENT_ZOT_EXPORT_DIR", str(tmp_path / "exports"))
    monkeypatch.setenv("AGENT_ZOT_LINKED_ATTACHMENT_BASE_DIR", str(full_lib.linked_base))
    runner = CliRunner()

    def invoke(*args: str, library: bool = True):
        prefix = ["--library", str(full_lib.data_dir)] if library else []
        return runner.invoke(cli, [*prefix, *args], catch_exceptions=False)

    return invoke


def test_status_text_and_json(run, full_lib: FullLibrary) -> None:
    text = run("status")
    assert text.exit_code == 0 and "userdata 123" in text.output and "Lab group" in text.output
    data = json.loads(run("status", "--json").output)
    assert data["counts"] == {
        "items": 9 + 1,  # a PDF without a parent item is an item of its own
        "attachments": 7,
        "attachment_files_present": 5,
        "attachment_files_missing": 1,
        "pdfs": 5,
        "notes": 3,
        "annotations": 3,
        "collections": 5,
        "tags": 8,
        "in_trash": 1,
    }
    assert data["library"]["path"] == str(full_lib.db_path) and not data["library"]["demo"]


def test_library_and_config_may_follow_the_command(run, full_lib: FullLibrary, tmp_path: Path) -> None:
    """The README's `update-db --library PATH`: the group's options are taken after any command too, and
    there they win over the ones before it."""
    after = json.loads(run("status", "--json", "--library", str(full_lib.data_dir), library=False).output)
    assert after["library"]["path"] == str(full_lib.db_path)
    nowhere = str(tmp_path / "nowhere")
    assert (
        run("--library", nowhere, "status", "--library", str(full_lib.data_dir), library=False).exit_code == 0
    )
    missing = run("doctor", "--library", nowhere, library=False)
    assert missing.exit_code == 1 and "✗ library" in missing.output
    built = run("update-db", "--no-fulltext", "--library", str(full_lib.data_dir), library=False)
    assert built.exit_code == 0 and "No such option" not in built.output, built.output
    config = tmp_path / "agent-zot.toml"
    config.write_text(f'zotero_data_dir = "{full_lib.data_dir}"\n', encoding="utf-8")
    shown = run("config", "show", "--config", str(config), library=False)
    assert str(full_lib.data_dir) in shown.output, shown.output


def test_doctor_reports_and_explains(run, tmp_path: Path) -> None:
    result = run("doctor", "--json")
    checks = {c["name"]: c for c in json.loads(result.output)["checks"]}
    assert result.exit_code == 0
    assert checks["library"]["status"] == "ok" and checks["read"]["status"] == "ok"
    assert checks["attachments"]["status"] == "warn" and "missing" in checks["attachments"]["detail"]
    missing = CliRunner().invoke(cli, ["--library", str(tmp_path / "nowhere"), "doctor"])
    assert missing.exit_code == 1 and "✗ library" in missing.output and "fix:" in missing.output


def test_route_prints_the_decision(run) -> None:
    data = json.loads(
        run("route", "zot_manage_tags", "papers tagged ml || nlp -review", "--json", library=False).output
    )
    assert data["tool"] == "zot_manage_tags" and data["mode"] == "search"
    assert set(data) >= {"intent", "confidence", "compound", "subqueries", "backends", "escalated", "reason"}
    short = run("route", "export", "save my Thesis collection as thesis.md", library=False)  # short name
    assert "zot_export → markdown" in short.output
    bad = CliRunner().invoke(cli, ["route", "zot_nope", "x"])
    assert bad.exit_code == 2 and "zot_manage_tags" in bad.output


def test_export_bibtex_parses_back(run, tmp_path: Path) -> None:
    result = run("export", "refs/all.bib", "--json")
    data = json.loads(result.output)
    library = bibtexparser.parse_string(Path(data["path"]).read_text(encoding="utf-8"))
    assert len(library.entries) == data["count"] == 9 and not library.failed_blocks
    again = run("export", "refs/all.bib")
    assert again.exit_code == 2 and "already exists" in again.output and "overwrite" in again.output
    assert run("export", "refs/all.bib", "--overwrite").exit_code == 0
    outside = run("export", str(tmp_path / "elsewhere.bib"))
    assert outside.exit_code == 2 and "outside the export folder" in outside.output


def test_export_collection_as_csl_json(run) -> None:
    data = json.loads(run("export", "ch2.json", "--collection", "chapter 2", "--json").output)
    items = json.loads(Path(data["path"]).read_text(encoding="utf-8"))
    assert {i["title"] for i in items} == {
        "S2ORC: The Semantic Scholar Open Research Corpus",
        "SciBERT: A Pretrained Language Model for Scientific Text",
    }


def test_config_show_masks_secrets(run, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_ZOT_ZOTERO_API_KEY", "very-secret-value")
    text = run("config", "show").output
    assert "very-secret-value" not in text and "zotero_api_key" in text and "********" in text
    data = json.loads(run("config", "show", "--json").output)
    assert data["settings"]["zotero_api_key"] == "********"


def test_config_show_describes_every_setting_and_stays_valid_toml(run) -> None:
    import tomllib

    from agent_zot.config import Settings

    text = run("config", "show").output
    assert "# Exports are written under this folder" in text  # each setting under its description
    shown = tomllib.loads(text)
    assert set(shown) <= set(Settings.model_fields) and "export_dir" in shown


def test_bad_config_is_a_clear_error(tmp_path: Path) -> None:
    config = tmp_path / "c.toml"
    config.write_text("http_port = 'eighty'\n")
    result = CliRunner().invoke(cli, ["--config", str(config), "status"])
    assert result.exit_code == 2 and "http_port" in result.output and "Traceback" not in result.output


def test_status_uses_demo_library_when_no_zotero(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(tmp_path / "state"))
    result = CliRunner().invoke(cli, ["status"])
    assert result.exit_code == 0 and "DEMO" in result.output


@pytest.mark.slow
def test_demo_builds_indexes_and_answers(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(tmp_path / "state"))
    result = CliRunner().invoke(cli, ["demo"], catch_exceptions=False)
    assert result.exit_code == 0
    out = result.output
    assert "Indexed 7 items" in out and "Thesis" in out and "to-read" in out and "(p. 4969)" in out
    search = out.split("== zot_search")[1].split("==")[0]
    assert "S2ORC" in search.splitlines()[2]  # the corpus paper answers the corpus question first
    assert "p. " in search  # with a page-cited passage
    assert "No Zotero library found" in out  # and it says how to point agent-zot at a real library


def test_doctor_on_a_truncated_database_reports_it_without_a_traceback(
    tmp_path: Path, full_lib: FullLibrary
) -> None:
    folder = tmp_path / "Zotero"
    folder.mkdir()
    data = full_lib.db_path.read_bytes()
    (folder / "zotero.sqlite").write_bytes(data[: len(data) // 3])
    result = CliRunner().invoke(
        cli, ["--library", str(folder), "doctor"], env={"AGENT_ZOT_DATA_DIR": str(tmp_path / "s")}
    )
    assert "Traceback" not in result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)  # an exit code, not a crash
    assert "cannot be read as a database" in result.output


def test_update_db_with_an_unknown_item_key_says_so(run) -> None:
    result = run("update-db", "--item", "ZZZZ9999", "--no-fulltext")
    assert result.exit_code != 0 and "No item with key ZZZZ9999" in result.output


@pytest.mark.slow
async def test_an_index_built_for_another_library_is_refused_until_rebuilt(
    full_lib: FullLibrary, tmp_path: Path
) -> None:
    from fastmcp import Client

    from agent_zot.config import Settings
    from agent_zot.mcp.server import build_server
    from agent_zot.services.context import AppContext
    from agent_zot.zotero.demo import ensure_demo_library

    other = ensure_demo_library(tmp_path / "other")
    env = {"AGENT_ZOT_DATA_DIR": str(tmp_path / "state")}
    runner = CliRunner()
    built = runner.invoke(cli, ["--library", str(full_lib.data_dir), "update-db", "--no-fulltext"], env=env)
    assert built.exit_code == 0, built.output

    ctx = AppContext(Settings(zotero_data_dir=other.parent, data_dir=tmp_path / "state"), home=tmp_path)
    async with Client(build_server(ctx)) as client:
        for tool, arguments in (
            ("zot_search", {"query": "citation graphs of papers"}),
            ("zot_explore_graph", {"query": "most influential papers"}),
        ):
            refused = await client.call_tool(tool, arguments, raise_on_error=False)
            assert refused.is_error and "built from another Zotero library" in refused.content[0].text
            assert "--force-rebuild" in refused.structured_content["error"]["hint"]
    ctx.close()
    status = runner.invoke(cli, ["--library", str(other.parent), "status"], env=env)
    assert "built from another library" in status.output
    again = runner.invoke(cli, ["--library", str(other.parent), "update-db", "--no-fulltext"], env=env)
    assert again.exit_code != 0 and "built from another Zotero library" in again.output
    rebuilt = runner.invoke(
        cli, ["--library", str(other.parent), "update-db", "--no-fulltext", "--force-rebuild"], env=env
    )
    assert rebuilt.exit_code == 0, rebuilt.output
    assert (
        "built from another"
        not in runner.invoke(cli, ["--library", str(other.parent), "status"], env=env).output
    )
