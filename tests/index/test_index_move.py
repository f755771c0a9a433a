"""`agent-zot index move`: the real embedded index of the demo library copied, vectors and all, into
qdrant-client's local mode (the Qdrant server stand-in that runs here) and back, resumed after an
interruption, verified, and then used by update-db without re-embedding."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.index.store import Point, VectorStore
from agent_zot.index.store_choice import open_store
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.index_move import MoveError, move_index, target_store
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

pytestmark = pytest.mark.slow


@pytest.fixture
def demo(tmp_path: Path) -> Settings:
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    settings = Settings(
        zotero_data_dir=db.parent, data_dir=tmp_path / "state", export_dir=tmp_path / "exports"
    )
    return index_library(settings, tmp_path / "home")


def _ids_and_payloads(store: VectorStore) -> dict[str, dict]:
    found, offset = {}, None
    while True:
        page, offset = store.points(offset=offset, limit=100)
        found |= {p.id: p.payload for p in page}
        if offset is None:
            return found


def test_cli_moves_the_index_to_qdrant_and_update_db_has_nothing_to_do(
    demo: Settings, tmp_path: Path
) -> None:
    target = tmp_path / "qdrant-local"
    result = CliRunner().invoke(
        cli,
        ["index", "move", "--to", "qdrant", "--qdrant-path", str(target), "--json"],
        env={
            "AGENT_ZOT_ZOTERO_DATA_DIR": str(demo.zotero_data_dir),
            "AGENT_ZOT_DATA_DIR": str(demo.data_dir),
        },
    )
    assert result.exit_code == 0, result.output
    moved = json.loads(result.output)
    assert moved["points"] > 10 and moved["copied"] == moved["points"] and moved["checked"] > 0

    ctx = AppContext(demo)
    try:
        resources = ctx.index()
        info = resources.open()
        source = _ids_and_payloads(resources.store)
        copy = open_store("qdrant", path=target, collection="agent_zot")
        copy.open_or_create(model=info.model, dense_dim=info.dense_dim, sparse=info.sparse)
        assert _ids_and_payloads(copy) == source
        # the index now read from the copy: update-db re-embeds nothing
        resources.__dict__["store"] = copy
        summary = update_index(ctx.library(), resources, UpdateOptions())
        assert summary.indexed == 0 and summary.unchanged > 0
        copy.close()
    finally:
        ctx.close()


def test_an_interrupted_move_resumes_where_it_stopped(demo: Settings, tmp_path: Path) -> None:
    ctx = AppContext(demo)
    try:
        store, where = target_store(ctx, "qdrant", qdrant_path=tmp_path / "q")
        calls = 0

        def stop_after_two_pages(done: int, total: int) -> None:
            nonlocal calls
            calls += 1
            if calls == 2:
                raise KeyboardInterrupt  # the user pressed Ctrl-C

        with pytest.raises(KeyboardInterrupt):
            move_index(ctx, store, where, page=5, progress=stop_after_two_pages)
        result = move_index(ctx, store, where, page=5)
        assert result.resumed and result.copied == result.points - 10
        assert store.count() == result.points
        store.close()
    finally:
        ctx.close()


def test_moving_to_the_store_in_use_or_without_a_server_is_refused(demo: Settings, tmp_path: Path) -> None:
    env = {"AGENT_ZOT_ZOTERO_DATA_DIR": str(demo.zotero_data_dir), "AGENT_ZOT_DATA_DIR": str(demo.data_dir)}
    same = CliRunner().invoke(cli, ["index", "move", "--to", "edge"], env=env)
    assert same.exit_code == 2 and "already in the edge store" in same.output
    nowhere = CliRunner().invoke(cli, ["index", "move", "--to", "qdrant"], env=env)
    assert nowhere.exit_code == 2 and "--qdrant-url" in nowhere.output
    # the README's command, with no server listening there: a clear error, not a traceback
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    down = CliRunner().invoke(
        cli, ["index", "move", "--to", "qdrant", "--qdrant-url", f"http://127.0.0.1:{port}"], env=env
    )
    assert down.exit_code == 2 and f"Cannot reach the Qdrant server at http://127.0.0.1:{port}" in down.output


def test_a_target_holding_other_points_is_refused_and_the_index_kept(demo: Settings, tmp_path: Path) -> None:
    ctx = AppContext(demo)
    try:
        store, where = target_store(ctx, "qdrant", qdrant_path=tmp_path / "q")
        info = ctx.index().open()
        store.open_or_create(model=info.model, dense_dim=info.dense_dim, sparse=info.sparse)
        stray = Point(
            "00000000-0000-4000-8000-000000000001",
            [1.0] + [0.0] * (info.dense_dim - 1),
            None,
            {"item_key": "OTHER"},
        )
        store.upsert([stray])
        with pytest.raises(MoveError, match="already held other points"):
            move_index(ctx, store, where)
        store.close()
        assert ctx.index().store.count() > 0  # the index itself is untouched
    finally:
        ctx.close()
