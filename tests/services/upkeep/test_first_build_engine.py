"""A first build (an update over SMALL_UPDATE_CHUNKS) embeds on the engine that suits this CPU, chosen once
by a child process that makes the ONNX export and times it against torch; the build process imports
torch only when torch is the faster one. Real model files, a real library of metadata-only items."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from agent_zot.config import Settings
from agent_zot.index.embed_local import SentenceTransformerEmbedder
from agent_zot.index.engine_probe import MIN_SPEED_SHARE, PROBE_FILE
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.engine_choice import SMALL_UPDATE_CHUNKS
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database

ITEMS = SMALL_UPDATE_CHUNKS + 20  # one metadata point each: over the threshold
_TOPICS = ("citation graphs", "protein folding", "soil carbon", "speech recognition", "glacier melt")


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Path:
    builder = ZoteroLibraryBuilder(tmp_path_factory.mktemp("first-build") / "zotero")
    for i in range(ITEMS):
        topic = _TOPICS[i % len(_TOPICS)]
        builder.add_item(
            "journalArticle",
            title=f"Study {i} of {topic}",
            abstractNote=f"We measure {topic} in setting {i} and compare it with {i % 7} earlier reports.",
            date=f"{2000 + i % 20}-00-00 {2000 + i % 20}",
            creators=[("Ada", f"Author{i % 40}")],
        )
    return guard_database(builder.build()).parent


def _settings(library: Path, data_dir: Path) -> Settings:
    return Settings(
        zotero_data_dir=library, data_dir=data_dir, export_dir=data_dir / "out", embed_device="cpu"
    )


_BUILD = """
import json, sys
from pathlib import Path
from agent_zot.config import Settings
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index

library, data_dir = Path(sys.argv[1]), Path(sys.argv[2])
settings = Settings(zotero_data_dir=library, data_dir=data_dir, export_dir=data_dir / "out", embed_device="cpu")
ctx = AppContext(settings, home=data_dir / "home")
try:
    summary = update_index(ctx.library(), ctx.index_resources(), UpdateOptions(), graph=ctx.graph())
finally:
    ctx.close()
print(json.dumps({**summary.to_dict(), "torch_imported": "torch" in sys.modules}))
"""


@pytest.mark.slow
def test_a_first_build_embeds_without_torch_where_the_export_is_as_fast(
    library: Path, tmp_path: Path
) -> None:
    data_dir = tmp_path / "state"
    env = {k: v for k, v in os.environ.items() if not k.startswith("AGENT_ZOT_")}
    done = subprocess.run(
        [sys.executable, "-c", _BUILD, str(library), str(data_dir)],
        capture_output=True,
        text=True,
        env=env,
        cwd=Path(__file__).parents[3],
        check=False,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    summary = json.loads(done.stdout.strip().splitlines()[-1])
    assert summary["indexed"] == ITEMS and summary["graph"]["papers"] == ITEMS
    (probe_file,) = (data_dir / "models" / "query-onnx").glob(f"*/{PROBE_FILE}")
    probe = json.loads(probe_file.read_text())
    assert probe["device"] == "cpu" and probe["torch_per_s"] > 0 and probe["onnx_per_s"] > 0
    # The rule, on whichever CPU runs this: the export where it is about as fast as torch, else torch.
    if probe["onnx_per_s"] >= MIN_SPEED_SHARE * probe["torch_per_s"]:
        assert not summary["torch_imported"], "the build process imported torch"
        assert summary["engine"] == "onnx (cpu)" and "torch's speed on this CPU" in summary["engine_note"]
    else:
        assert summary["engine"] == "torch (cpu)" and "the export ran at" in summary["engine_note"]

    # Every point's vector is torch's for the same text.
    ctx = AppContext(_settings(library, data_dir), home=tmp_path / "home")
    try:
        store = ctx.index_resources().store
        points, offset = store.points(limit=1000)
        assert offset is None and len(points) == ITEMS
    finally:
        ctx.close()
    torch_vectors = SentenceTransformerEmbedder().embed_documents([p.payload["text"] for p in points])
    stored = np.asarray([p.dense for p in points], dtype=np.float32)
    assert float((stored * torch_vectors).sum(axis=1).min()) >= 0.9999


@pytest.mark.slow
def test_a_failed_export_falls_back_to_torch_and_still_indexes(
    library: Path, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    data_dir = tmp_path / "state"
    # Where the export goes cannot be made (a file is in its way; a full disk reads the same to the
    # build): the export fails, the index beside it does not.
    models = data_dir / "models"
    models.mkdir(parents=True)
    (models / "query-onnx").write_text("not a folder", encoding="utf-8")
    ctx = AppContext(_settings(library, data_dir), home=tmp_path / "home")
    try:
        with caplog.at_level(logging.WARNING):
            summary = update_index(ctx.library(), ctx.index_resources(), UpdateOptions())
        count = ctx.index_resources().store.count()
    finally:
        ctx.close()
    assert (summary.indexed, count, summary.engine) == (ITEMS, ITEMS, "torch (cpu)")
    said = [r.getMessage() for r in caplog.records if "No ONNX query model" in r.getMessage()]
    assert len(said) == 1 and "query-onnx" in said[0], caplog.text
    assert [p.name for p in models.rglob("*")] == ["query-onnx"]  # neither an export nor a probe result
