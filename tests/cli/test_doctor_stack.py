"""`agent-zot doctor` on the server stack's services: each is reached as agent-zot will reach it. Ollama
is the FAKE server that follows its documented API; Qdrant and Neo4j cannot run here, so they are checked
against a port where nothing listens (the failure a user meets when a service is down) and against the
embedded defaults."""

from __future__ import annotations

import json
import socket
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from tests.factories import FullLibrary
from tests.fake_ollama_chat import FakeOllamaChat


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _doctor(full_lib: FullLibrary, tmp_path: Path, **env: str) -> dict[str, dict]:
    base = {"AGENT_ZOT_DATA_DIR": str(tmp_path / "state"), "AGENT_ZOT_EXPORT_DIR": str(tmp_path / "exports")}
    result = CliRunner().invoke(
        cli, ["--library", str(full_lib.data_dir), "doctor", "--json"], env=base | env
    )
    return {c["name"]: c for c in json.loads(result.output)["checks"]}


def test_the_embedded_defaults_need_no_service(full_lib: FullLibrary, tmp_path: Path) -> None:
    checks = _doctor(full_lib, tmp_path)
    assert checks["vector store"]["status"] == "ok" and "embedded" in checks["vector store"]["detail"]
    assert checks["graph store"]["status"] == "ok" and checks["ollama"]["status"] == "ok"
    assert "no token" in checks["http"]["detail"]


def test_services_that_do_not_answer_are_named_with_a_fix(full_lib: FullLibrary, tmp_path: Path) -> None:
    port = _closed_port()
    checks = _doctor(
        full_lib,
        tmp_path,
        AGENT_ZOT_VECTOR_STORE="qdrant",
        AGENT_ZOT_QDRANT_URL=f"http://127.0.0.1:{port}",
        AGENT_ZOT_GRAPH_STORE="neo4j",
        AGENT_ZOT_NEO4J_URL=f"bolt://127.0.0.1:{port}",
        AGENT_ZOT_HTTP_HOST="0.0.0.0",
    )
    assert checks["vector store"]["status"] == "fail"
    assert f"127.0.0.1:{port} does not answer" in checks["vector store"]["detail"]
    assert "docker compose up -d qdrant" in checks["vector store"]["fix"]
    assert checks["graph store"]["status"] == "fail" and "does not answer" in checks["graph store"]["detail"]
    assert checks["http"]["status"] == "fail" and "http_token" in checks["http"]["fix"]


@pytest.mark.parametrize(("models", "status"), [({"llama3.2"}, "ok"), ({"mistral"}, "fail")])
def test_ollama_models_are_checked_on_the_server(
    full_lib: FullLibrary, tmp_path: Path, models: set[str], status: str
) -> None:
    with FakeOllamaChat(models) as fake:
        checks = _doctor(
            full_lib, tmp_path, AGENT_ZOT_OLLAMA_URL=fake.url, AGENT_ZOT_CONCEPT_EXTRACTOR="ollama"
        )
    assert checks["ollama"]["status"] == status
    if status == "fail":
        assert "lacks llama3.2" in checks["ollama"]["detail"] and "ollama pull" in checks["ollama"]["fix"]
