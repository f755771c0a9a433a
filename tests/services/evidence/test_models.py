"""`agent-zot models`: the optional models listed with what they improve and their size, and one installed
from a FAKE hub (tests/fake_hub.py, loopback only) serving a tiny NLI checkpoint trained in the tests: the
fetch resumes after a dropped connection, refuses a damaged file, writes the setting into the config file
(comments kept), and the installed model then judges stance. Nothing is downloaded from the internet."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import load_settings
from agent_zot.services.evidence.judges import make_judge
from agent_zot.services.evidence.stance import NliJudge
from tests.fake_hub import FakeHub
from tests.services.evidence.test_evidence import CONTRADICTING, NLI_CLAIM, SUPPORTING, _tiny_nli

NLI_ID = "cross-encoder/nli-deberta-v3-xsmall"


@pytest.fixture(scope="module")
def tiny_nli(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return _tiny_nli(tmp_path_factory.mktemp("hub-nli"))


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, list(args))
    return result.exit_code, result.output


def test_models_lists_what_each_improves_and_its_size(tmp_path: Path) -> None:
    code, out = run("models", "--json")
    assert code == 0
    rows = {r["name"]: r for r in json.loads(out)["models"]}
    assert set(rows) == {"bge-m3", "reranker", "nli"}
    assert (
        rows["nli"]["hub_id"] == NLI_ID
        and rows["reranker"]["hub_id"] == "cross-encoder/ms-marco-MiniLM-L6-v2"
    )
    assert all(r["size_mb"] > 0 and r["improves"] and not r["installed"] for r in rows.values())
    code, text = run("models")
    assert "not installed" in text and "agent-zot models install NAME" in text
    code, doctor = run("doctor")
    assert "optional models: none installed; `agent-zot models` lists them" in doctor


@pytest.mark.slow
def test_installing_a_model_resumes_checks_and_sets_it(tmp_path: Path, tiny_nli: Path) -> None:
    config = tmp_path / "config.toml"
    config.write_text(
        '# my settings\nlog_level = "INFO"  # keep\nnli_model = "/old/place"\n', encoding="utf-8"
    )
    with FakeHub(NLI_ID, tiny_nli) as hub:
        config.write_text(config.read_text() + f'model_hub_url = "{hub.url}"\n', encoding="utf-8")
        base = ["--config", str(config)]
        hub.damaged.add("model.safetensors")
        code, out = run(*base, "models", "install", "nli")
        assert code == 2 and "arrived damaged" in out and "Run the command again" in out
        hub.fail_once.add("model.safetensors")  # the next try drops midway, the one after completes
        code, out = run(*base, "models", "install", "nli")
        assert code == 2 and "Run the command again to resume" in out
        code, out = run(*base, "models", "install", "nli")
        assert code == 0, out
        assert all(not r.startswith("/api/") or "revision" in r for r in hub.requests)
    settings = load_settings(config)
    assert settings.nli_model is not None and (settings.nli_model / "config.json").is_file()
    text = config.read_text(encoding="utf-8")
    assert text.startswith("# my settings\n") and 'log_level = "INFO"  # keep' in text  # the rest untouched
    assert "/old/place" not in text and text.count("nli_model") == 1
    code, out = run("--config", str(config), "models", "--json")
    assert {r["name"]: r["in_use"] for r in json.loads(out)["models"]}["nli"] is True
    judge = make_judge(settings)  # stance = auto: the installed NLI model judges
    assert isinstance(judge, NliJudge)
    assert [s.label for s in judge.judge(NLI_CLAIM, [SUPPORTING, CONTRADICTING])] == [
        "supports",
        "contradicts",
    ]


def test_an_unknown_model_names_the_ones_there_are() -> None:
    code, out = run("models", "install", "gpt-5")
    assert code == 2 and "bge-m3, reranker, nli" in out


@pytest.mark.parametrize(("name", "setting"), [("reranker", "reranker_model"), ("nli", "nli_model")])
def test_an_unreachable_hub_names_the_setting_that_model_uses(
    tmp_path: Path, name: str, setting: str
) -> None:
    """Offline, the fix is to download the model elsewhere and point its own setting at the folder: the
    reranker's or the NLI model's, not the embedder's. (A closed loopback port: nothing leaves the machine.)"""
    import socket

    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    config = tmp_path / "config.toml"
    config.write_text(f'model_hub_url = "http://127.0.0.1:{port}"\n', encoding="utf-8")
    code, out = run("--config", str(config), "models", "install", name)
    assert code == 2 and "Cannot reach" in out
    assert f"set {setting} to its folder" in out and "embedder_model" not in out
