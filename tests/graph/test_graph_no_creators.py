"""Issue 53 #4: a library whose items have no creators builds a graph without authors, and the build
summary and `status` say why instead of a bare "0 authors". A real database, the real CLI."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database


@pytest.mark.slow
def test_zero_authors_are_explained(tmp_path: Path) -> None:
    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=53)
    b.add_item("webpage", title="The Chubby lock service", date="2006")
    b.add_item("report", title="Paxos made simple", date="2001")
    db = guard_database(b.build())
    env = {"AGENT_ZOT_DATA_DIR": str(tmp_path / "state"), "AGENT_ZOT_EXPORT_DIR": str(tmp_path / "out")}
    runner = CliRunner()
    built = runner.invoke(cli, ["--library", str(db.parent), "update-db", "--no-fulltext"], env=env)
    assert built.exit_code == 0, built.output
    assert "Graph: 2 papers, 0 authors (none of the 2 papers has creators in Zotero)" in built.output
    status = runner.invoke(cli, ["--library", str(db.parent), "status"], env=env)
    assert "2 papers, 0 authors (none of the 2 papers has creators in Zotero)" in status.output
