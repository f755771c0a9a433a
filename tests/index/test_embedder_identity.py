"""Which embedder built an index: recorded with it, kept by every update, and said plainly by update-db.

Torch and the model's fp32 ONNX export make the same vectors and share one identity; the int8 ONNX model's
vectors differ, so an index is never filled with both."""

from __future__ import annotations

from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.index.embed import make_embedder
from agent_zot.index.store import IndexMismatchError
from agent_zot.index.store_choice import open_store
from tests.factories import FullLibrary


def test_torch_and_its_export_share_an_identity_that_int8_does_not(tmp_path: Path) -> None:
    torch_only = make_embedder("minilm-st").name
    with_export = make_embedder("minilm", query_cache=tmp_path / "query-onnx").name
    int8 = make_embedder("minilm-onnx").name
    assert torch_only == with_export != int8


def test_an_index_refuses_another_precision_of_its_model_and_says_the_fix(tmp_path: Path) -> None:
    built_with, asked = make_embedder("minilm").name, make_embedder("minilm-onnx").name
    store = open_store("edge", path=tmp_path / "vectors")
    store.open_or_create(model=built_with, dense_dim=384, sparse="bm25")
    store.close()
    again = open_store("edge", path=tmp_path / "vectors")
    with pytest.raises(IndexMismatchError) as refused:
        again.open_or_create(model=asked, dense_dim=384, sparse="bm25")
    message, hint = str(refused.value), refused.value.hint or ""
    assert "fp32" in message and "int8" in message and "not mixed" in message
    assert 'embedder = "minilm"' in hint and "--force-rebuild" in hint
    # the index it refused is untouched: the first embedder still opens it
    assert again.open_or_create(model=built_with, dense_dim=384, sparse="bm25").model == built_with
    again.close()


@pytest.mark.slow
def test_update_db_says_once_why_a_small_update_runs_on_onnx(
    full_lib: FullLibrary, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(tmp_path / "state"))
    runner = CliRunner()

    def update(*args: str) -> str:
        result = runner.invoke(
            cli, ["--library", str(full_lib.data_dir), "update-db", "--no-fulltext", *args]
        )
        assert result.exit_code == 0, result.output
        return result.output

    first = update("--limit", "2")  # no export yet: torch loads, and exports the model for later runs
    assert "on torch" in first and "same vectors" not in first
    second = update()  # the rest: a small update, embedded by the export
    assert "on onnx" in second
    assert second.count("same vectors as torch") == 1, second
    assert "under 500 chunks" in second

    monkeypatch.setenv("AGENT_ZOT_EMBEDDER", "minilm-onnx")  # int8: other vectors
    refused = runner.invoke(cli, ["--library", str(full_lib.data_dir), "update-db", "--no-fulltext"])
    assert refused.exit_code != 0 and "not mixed" in refused.output, refused.output
    assert 'embedder = "minilm"' in refused.output
