"""update-db with concept_extractor = "ollama": the graph's concepts come from the LLM (a fake Ollama chat
server implementing the documented /api/chat endpoint), and a dead server leaves the index intact."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.graph.model import NodeKind
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.bolt_server import free_port
from tests.conftest import guard_database
from tests.fake_ollama_chat import FakeOllamaChat

pytestmark = pytest.mark.slow

MODEL = "tiny-llm"


def small_library(root: Path) -> Path:
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=5)
    b.add_item(
        "journalArticle",
        title="Contrastive pretraining for citation recommendation",
        abstractNote="We pretrain an encoder contrastively on the S2ORC corpus and evaluate on SciDocs.",
        date="2021-00-00 2021",
        creators=[("Ada", "Lovelace")],
    )
    return guard_database(b.build()).parent


def test_llm_concepts_become_typed_graph_nodes(tmp_path: Path) -> None:
    reply = {
        "concepts": [{"name": "contrastive learning", "type": "Method"}, {"name": "S2ORC", "type": "Dataset"}]
    }
    with FakeOllamaChat({MODEL}, reply) as server:
        settings = Settings(
            zotero_data_dir=small_library(tmp_path),
            data_dir=tmp_path / "state",
            concept_extractor="ollama",
            concept_model=MODEL,
            ollama_url=server.url,
        )
        ctx = AppContext(settings, home=tmp_path / "home")
        summary = update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
        concepts = {n.name: n.props["type"] for n in ctx.graph().store.find_nodes(NodeKind.CONCEPT)}
        ctx.close()
    assert summary.graph_error is None and summary.indexed == 1
    assert server.requests and server.requests[0]["model"] == MODEL and server.requests[0]["format"]
    assert concepts == {"contrastive learning": "Method", "s2orc": "Dataset"}


def test_dead_ollama_server_keeps_the_index_and_says_why(tmp_path: Path) -> None:
    settings = Settings(
        zotero_data_dir=small_library(tmp_path),
        data_dir=tmp_path / "state",
        concept_extractor="ollama",
        concept_model=MODEL,
        ollama_url=f"http://127.0.0.1:{free_port()}",
    )
    ctx = AppContext(settings, home=tmp_path / "home")
    summary = update_index(ctx.library(), ctx.index(), UpdateOptions(), graph=ctx.graph())
    ctx.close()
    assert summary.indexed == 1 and summary.chunks >= 1
    assert summary.graph_error is not None and "Ollama" in summary.graph_error
