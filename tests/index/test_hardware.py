"""CPU and device sizing for update-db: the usable CPUs, parse workers and the embedding device."""

from __future__ import annotations

import os

import pytest
import torch

from agent_zot.config import Settings
from agent_zot.hardware import DeviceError, available_cpus, torch_device, worker_count
from agent_zot.index.embed_local import SentenceTransformerEmbedder
from agent_zot.index.resources import IndexResources


def test_usable_cpus_follow_the_affinity_mask() -> None:
    expected = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    assert available_cpus() == expected


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"), reason="no CPU affinity on this OS")
def test_a_narrower_affinity_mask_narrows_workers_and_threads(tmp_path) -> None:  # type: ignore[no-untyped-def]
    """As in a container limited to one CPU: nothing may size itself to the host's CPU count."""
    before = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {min(before)})
    try:
        assert available_cpus() == 1
        assert worker_count(None) == 1
        embedder = IndexResources(Settings(data_dir=tmp_path)).embedder
        assert isinstance(embedder, SentenceTransformerEmbedder) and embedder.threads == 1
    finally:
        os.sched_setaffinity(0, before)


def test_workers_and_threads_take_the_settings_when_given(tmp_path) -> None:  # type: ignore[no-untyped-def]
    assert worker_count(3) == 3
    assert worker_count(None) == min(available_cpus(), 4)
    embedder = IndexResources(Settings(data_dir=tmp_path, embed_threads=1, embed_device="cpu")).embedder
    assert isinstance(embedder, SentenceTransformerEmbedder)
    assert (embedder.threads, embedder.device_preference) == (1, "cpu")


def test_auto_takes_the_accelerator_torch_sees() -> None:
    expected = "cuda" if torch.cuda.is_available() else "mps" if torch.backends.mps.is_available() else "cpu"
    assert torch_device("auto") == expected
    assert torch_device("cpu") == "cpu"


@pytest.mark.parametrize("device", ["cuda", "mps"])
def test_a_named_device_that_is_missing_is_a_clear_error(device: str) -> None:
    present = torch.cuda.is_available() if device == "cuda" else torch.backends.mps.is_available()
    if present:
        assert torch_device(device) == device  # type: ignore[arg-type]
        return
    with pytest.raises(DeviceError, match=f"no {device.upper()} device") as err:
        torch_device(device)  # type: ignore[arg-type]
    assert "auto" in (err.value.hint or "")


@pytest.mark.slow
def test_update_db_names_a_missing_device_and_says_what_ran_otherwise(tmp_path) -> None:  # type: ignore[no-untyped-def]
    from click.testing import CliRunner

    from agent_zot.cli.main import cli
    from agent_zot.zotero.demo import ensure_demo_library
    from tests.conftest import guard_database

    library = guard_database(ensure_demo_library(tmp_path / "library")).parent
    run = ["--library", str(library), "update-db", "--no-fulltext"]
    env = {"AGENT_ZOT_DATA_DIR": str(tmp_path / "state")}
    if not torch.cuda.is_available():
        refused = CliRunner().invoke(cli, run, env={**env, "AGENT_ZOT_EMBED_DEVICE": "cuda"})
        assert refused.exit_code == 2  # a usage problem, as for every setting the CLI refuses
        assert "embed_device is 'cuda'" in refused.output and "Traceback" not in refused.output
    result = CliRunner().invoke(cli, run, env=env)
    assert result.exit_code == 0, result.output
    assert f"on torch ({torch_device('auto')})" in result.output
