"""The index notices when its parts disagree, says so instead of answering from what is left, and a plain
update-db mends it. Each test damages a copy of a real index (the demo library, indexed with the real
embedded stack) the way sync tools, bad copies and crashes do, then checks the message from search and
`agent-zot index check`, and that update-db brings back the same answers."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastmcp import Client

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.index.integrity import check_index
from agent_zot.index.resources import IndexResources
from agent_zot.index.store import Point
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

pytestmark = pytest.mark.slow

QUERY = "how is the vocabulary built for scientific text"


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("integrity")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home")


@pytest.fixture
def index_copy(built: Settings, tmp_path: Path) -> Settings:
    """A private copy of the built index, to damage."""
    shutil.copytree(built.data_dir, tmp_path / "state", ignore=shutil.ignore_patterns("*.lock", "owner.json"))
    return built.model_copy(update={"data_dir": tmp_path / "state"})


def index_folder(settings: Settings) -> Path:
    return IndexResources(settings).folder


async def search(settings: Settings, home: Path) -> Any:
    ctx = AppContext(settings, home=home)
    try:
        async with Client(build_server(ctx)) as client:
            return await client.call_tool("zot_search", {"query": QUERY, "limit": 3}, raise_on_error=False)
    finally:
        ctx.close()


def keys_of(result: Any) -> list[str]:
    return [paper["key"] for paper in result.structured_content["papers"]]


def repair(settings: Settings, home: Path) -> dict[str, Any]:
    ctx = AppContext(settings, home=home)
    try:
        return update_index(ctx.library(), ctx.index_resources(), UpdateOptions()).to_dict()
    finally:
        ctx.close()


def check(settings: Settings) -> Any:
    resources = IndexResources(settings)
    try:
        return check_index(resources, thorough=True)
    finally:
        resources.close()


def cli_check(settings: Settings) -> Any:
    return CliRunner().invoke(
        cli,
        ["--library", str(settings.zotero_data_dir), "index", "check", "--json"],
        env={"AGENT_ZOT_DATA_DIR": str(settings.data_dir)},
    )


async def test_an_intact_index_passes_every_check(index_copy: Settings, tmp_path: Path) -> None:
    report = check(index_copy)
    assert report.ok and report.checked == ["state database", "vector store", "query model"]
    result = cli_check(index_copy)
    assert result.exit_code == 0 and '"ok": true' in result.output
    assert keys_of(await search(index_copy, tmp_path))


async def test_lost_vector_files_are_reported_and_a_plain_update_db_restores_the_answers(
    index_copy: Settings, tmp_path: Path
) -> None:
    before = keys_of(await search(index_copy, tmp_path))
    shutil.rmtree(index_folder(index_copy) / "vectors")
    damaged = await search(index_copy, tmp_path)
    text = damaged.content[0].text
    assert damaged.is_error and "The full-text index is damaged: all the passages" in text
    assert "agent-zot update-db" in text
    result = cli_check(index_copy)
    assert result.exit_code == 1 and '"part": "vectors"' in result.output
    summary = repair(index_copy, tmp_path)
    assert summary["repaired"] and "re-embedding" in summary["repaired"]
    assert check(index_copy).ok
    assert keys_of(await search(index_copy, tmp_path)) == before


async def test_one_items_missing_points_are_embedded_again_and_only_its(
    index_copy: Settings, tmp_path: Path
) -> None:
    before = keys_of(await search(index_copy, tmp_path))
    resources = IndexResources(index_copy)
    resources.open()
    resources.store.delete_items([before[0]])
    resources.close()
    report = check(index_copy)
    assert not report.ok and report.missing_items == [before[0]]
    summary = repair(index_copy, tmp_path)
    assert summary["indexed"] == 1 and summary["unchanged"] >= 1
    assert keys_of(await search(index_copy, tmp_path)) == before


async def test_points_nobody_recorded_are_dropped(index_copy: Settings, tmp_path: Path) -> None:
    before = keys_of(await search(index_copy, tmp_path))
    resources = IndexResources(index_copy)
    resources.open()
    stray, _ = resources.store.points(limit=1)
    ghost = Point(
        "00000000-0000-4000-8000-000000000001",
        stray[0].dense,
        stray[0].sparse,
        {**stray[0].payload, "item_key": "GHOST234"},
    )
    resources.store.upsert([ghost])
    resources.close()
    report = check(index_copy)
    assert not report.ok and report.orphan_keys == ["GHOST234"]
    assert "passages the state database does not know" in report.describe()
    summary = repair(index_copy, tmp_path)
    assert "dropped the points of 1 unknown keys" in summary["repaired"] and summary["indexed"] == 0
    assert check(index_copy).ok and keys_of(await search(index_copy, tmp_path)) == before


@pytest.mark.parametrize("damage", ["garbled", "truncated"])
async def test_a_damaged_state_database_is_rebuilt_by_a_plain_update_db(
    index_copy: Settings, tmp_path: Path, damage: str
) -> None:
    before = keys_of(await search(index_copy, tmp_path))
    state = index_folder(index_copy) / "state.sqlite"
    for sidecar in ("state.sqlite-wal", "state.sqlite-shm"):
        (state.parent / sidecar).unlink(missing_ok=True)
    data = state.read_bytes()
    state.write_bytes(b"\x00garbage" * 512 + data[4096:] if damage == "garbled" else data[:1024])
    report = check(index_copy)
    assert not report.ok and report.state_unreadable and report.damage[0].part == "state"
    damaged = await search(index_copy, tmp_path)
    assert damaged.is_error and "cannot be read" in damaged.content[0].text
    summary = repair(index_copy, tmp_path)
    assert "the index was rebuilt" in summary["repaired"] and summary["indexed"] >= len(before)
    assert check(index_copy).ok and keys_of(await search(index_copy, tmp_path)) == before


def test_status_and_doctor_name_the_damage(index_copy: Settings, tmp_path: Path) -> None:
    from agent_zot.services.upkeep.doctor import run_checks
    from agent_zot.services.upkeep.status import library_status

    shutil.rmtree(index_folder(index_copy) / "vectors")
    ctx = AppContext(index_copy, home=tmp_path)
    try:
        index = library_status(ctx)["index"]
        assert index["state"] == "damaged" and "missing from the vector store" in index["detail"]
        [check] = [c for c in run_checks(ctx) if c.name == "index"]
        assert check.status == "fail" and "update-db" in check.fix
    finally:
        ctx.close()


def test_update_db_on_the_command_line_says_what_it_repaired(index_copy: Settings) -> None:
    resources = IndexResources(index_copy)
    resources.open()
    points, _ = resources.store.points(limit=1000)
    # a paper without full text: its one metadata passage goes missing
    lone = next(
        k for k in sorted({p.payload["item_key"] for p in points}) if len(resources.store.get_by_item(k)) == 1
    )
    resources.store.delete_items([lone])
    resources.close()
    result = CliRunner().invoke(
        cli,
        ["--library", str(index_copy.zotero_data_dir), "update-db"],
        env={"AGENT_ZOT_DATA_DIR": str(index_copy.data_dir)},
    )
    assert result.exit_code == 0, result.output
    assert (
        "Repaired the index: 1 of the " in result.output
        and " passages it recorded are missing" in result.output
    )
    assert "re-embedding 1 items and notes" in result.output
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert '"Repaired the index: …"' in readme and "`agent-zot index check [--json]`" in readme


@pytest.mark.parametrize("pointer", ['{"generation": "20250101-000000-gone00"}', "{not json"])
async def test_a_damaged_pointer_falls_back_to_the_index_there_is_and_update_db_mends_it(
    index_copy: Settings, tmp_path: Path, pointer: str
) -> None:
    before = keys_of(await search(index_copy, tmp_path))
    root = index_copy.data_dir / "index"
    (root / "current.json").write_text(pointer, encoding="utf-8")
    assert keys_of(await search(index_copy, tmp_path)) == before  # answers from the index that is there
    summary = repair(index_copy, tmp_path)
    assert "the index pointer was damaged" in summary["repaired"] and summary["indexed"] == 0
    assert (root / "state.sqlite").is_file()  # the sweeper did not take the real index for debris
    assert keys_of(await search(index_copy, tmp_path)) == before


async def test_a_damaged_query_model_is_found_and_exported_again(
    index_copy: Settings, tmp_path: Path
) -> None:
    [model_file] = (index_copy.data_dir / "models").rglob("model.onnx")
    assert model_file.with_name("model.onnx.sha256").is_file()
    data = bytearray(model_file.read_bytes())
    middle = len(data) // 2
    data[middle : middle + 64] = bytes(64)  # bit rot inside the weights: the file still loads
    model_file.write_bytes(bytes(data))
    report = check(index_copy)
    assert [d.part for d in report.damage] == ["query model"] and "checksum" in report.describe()
    summary = repair(index_copy, tmp_path)
    assert "exporting the query model again" in summary["repaired"]
    assert check(index_copy).ok and model_file.read_bytes() != bytes(data)


async def test_a_state_database_lost_beside_its_wal_is_built_again(
    index_copy: Settings, tmp_path: Path
) -> None:
    before = keys_of(await search(index_copy, tmp_path))
    folder = index_folder(index_copy)
    (folder / "state.sqlite-wal").write_bytes(
        b"\x37\x7f\x06\x82" + bytes(60)
    )  # a WAL left without its database
    (folder / "state.sqlite").unlink()
    summary = repair(index_copy, tmp_path)
    assert summary["indexed"] >= len(before)
    assert check(index_copy).ok and keys_of(await search(index_copy, tmp_path)) == before
