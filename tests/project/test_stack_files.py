"""The server stack's files (docker-compose.yml, Dockerfile, .env.example), checked without Docker (not
available here): the compose file is interpolated the way Compose does with the values of .env.example and
parsed by compose-spec (bindings of the Rust `compose_spec` library, which rejects anything the Compose
specification does not allow); then its services, healthchecks, volumes and read-only Zotero mount are
checked, and every agent-zot setting the stack sets is a real setting with a valid value."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from click.testing import CliRunner
from compose_spec import PyCompose

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.errors import ConfigError
from agent_zot.index.store_qdrant import QdrantStore
from agent_zot.mcp.http import http_plan

ROOT = Path(__file__).resolve().parents[2]
COMPOSE = ROOT / "docker-compose.yml"
DOCKERFILE = ROOT / "Dockerfile"
ENV_EXAMPLE = ROOT / ".env.example"
_VARIABLE = re.compile(r"\$\$|\$\{([A-Za-z_]\w*)(?:(:?[-?])([^}]*))?\}|\$([A-Za-z_]\w*)")


def env_file(path: Path) -> dict[str, str]:
    values = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.lstrip().startswith("#"):
            name, _, value = line.partition("=")
            values[name.strip()] = value.strip()
    return values


def interpolate(value: Any, env: dict[str, str]) -> Any:
    """Compose's variable substitution: $VAR, ${VAR}, ${VAR:-default}, ${VAR-default}, ${VAR:?error},
    ${VAR?error}; $$ is a literal $."""
    if isinstance(value, dict):
        return {k: interpolate(v, env) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, env) for v in value]
    if not isinstance(value, str):
        return value

    def replace(match: re.Match[str]) -> str:
        if match.group() == "$$":
            return "$"
        name = match.group(1) or match.group(4)
        operator, argument = match.group(2), match.group(3)
        current = env.get(name)
        unset = current is None or (operator is not None and operator.startswith(":") and current == "")
        if operator in (":-", "-") and unset:
            return argument
        if operator in (":?", "?") and unset:
            raise ValueError(f"{name}: {argument}")
        return current or ""

    return _VARIABLE.sub(replace, value)


def compose(env: dict[str, str]) -> dict[str, Any]:
    return interpolate(yaml.safe_load(COMPOSE.read_text(encoding="utf-8")), env)


@pytest.fixture(scope="module")
def stack() -> dict[str, Any]:
    return compose(env_file(ENV_EXAMPLE))


def test_the_compose_file_follows_the_specification(stack: dict[str, Any]) -> None:
    parsed = PyCompose.from_json(json.dumps(stack))
    assert set(parsed.service_names()) == {"agent-zot", "update", "qdrant", "neo4j", "ollama", "ollama-pull"}
    with pytest.raises(ValueError, match="imagee"):  # the validator does reject what the spec does not allow
        PyCompose.from_json(json.dumps({"services": {"x": {"imagee": "nginx:1"}}}))


def test_required_values_are_named_when_missing() -> None:
    for missing in ("ZOTERO_DATA_DIR", "AGENT_ZOT_HTTP_TOKEN", "NEO4J_PASSWORD"):
        env = {k: v for k, v in env_file(ENV_EXAMPLE).items() if k != missing}
        with pytest.raises(ValueError, match=f"{missing}: set {missing} in .env"):
            compose(env)


def test_services_images_healthchecks_profiles_and_volumes(stack: dict[str, Any]) -> None:
    services = stack["services"]
    for name in ("agent-zot", "qdrant", "neo4j", "ollama"):
        assert services[name]["healthcheck"]["test"], name
        assert services[name]["restart"] == "unless-stopped"
    for name in ("qdrant", "neo4j", "ollama", "ollama-pull"):
        image = services[name]["image"]
        tag = image.rsplit(":", 1)[1]
        assert tag != "latest" and re.search(r"\d", tag), f"{name} image not pinned: {image}"
    assert "profiles" not in services["agent-zot"]  # always starts
    assert {tuple(services[n]["profiles"]) for n in ("qdrant", "neo4j", "ollama", "update")} == {
        ("qdrant",),
        ("neo4j",),
        ("ollama",),
        ("schedule",),
    }
    assert services["ollama-pull"]["restart"] == "no"
    assert services["ollama-pull"]["depends_on"]["ollama"]["condition"] == "service_healthy"
    for backend in ("qdrant", "neo4j", "ollama"):  # agent-zot waits for what runs, and runs without it
        assert services["agent-zot"]["depends_on"][backend] == {
            "condition": "service_healthy",
            "required": False,
        }
    declared = set(stack["volumes"])
    for service in services.values():
        for volume in service.get("volumes", []):
            source = volume.split(":")[0]
            if not source.startswith(("/", ".")):
                assert source in declared, source
    mounts = services["agent-zot"]["volumes"]
    assert "/home/you/Zotero:/zotero:ro" in mounts  # never written
    assert "agent-zot-data:/data" in mounts and services["agent-zot"]["user"] == "10001:10001"
    # pointed at the laptop's data folder, the stack keeps the index built there
    shared = compose(env_file(ENV_EXAMPLE) | {"HOST_DATA_DIR": "/home/you/.local/share/agent-zot"})
    assert "/home/you/.local/share/agent-zot:/data" in shared["services"]["agent-zot"]["volumes"]
    assert all(port.startswith("127.0.0.1:") for s in services.values() for port in s.get("ports", []))


def test_every_setting_the_stack_sets_is_real_and_valid(stack: dict[str, Any]) -> None:
    names = set()
    for path in (COMPOSE, ENV_EXAMPLE, DOCKERFILE):
        names |= set(re.findall(r"\bAGENT_ZOT_([A-Z0-9_]+)", path.read_text(encoding="utf-8")))
    assert names, "no settings found"
    unknown = sorted(n for n in names if n.lower() not in Settings.model_fields)
    assert not unknown, unknown
    environment = stack["services"]["agent-zot"]["environment"]
    values = {k.removeprefix("AGENT_ZOT_").lower(): v for k, v in environment.items()}
    settings = Settings(**values)  # types and choices validated
    assert settings.vector_store == "qdrant" and settings.graph_store == "neo4j"
    assert str(settings.zotero_data_dir) == "/zotero" and settings.http_host == "0.0.0.0"
    assert http_plan(settings).auth is not None  # the stack's server starts: it has a token
    without = Settings(**{k: v for k, v in values.items() if k != "http_token"})
    with pytest.raises(ConfigError, match="without a bearer token"):
        http_plan(without)


def test_the_commands_the_stack_runs_exist() -> None:
    runner = CliRunner()
    for command in (
        ["serve", "--transport", "http", "--help"],
        ["update-db", "--help"],
        ["doctor", "--help"],
    ):
        assert runner.invoke(cli, command).exit_code == 0, command


def test_the_dockerfile_runs_as_a_user_and_caches_dependencies() -> None:
    lines = [line.strip() for line in DOCKERFILE.read_text(encoding="utf-8").splitlines()]
    assert re.fullmatch(r"FROM python:3\.\d+-slim", next(line for line in lines if line.startswith("FROM")))
    assert any(line.startswith("USER ") and line != "USER root" for line in lines)
    copies = [line for line in lines if line.startswith("COPY")]
    # the dependency layer (pyproject.toml) before the code, so a code change reuses it
    assert copies[0].startswith("COPY pyproject.toml") and copies[1].startswith("COPY agent_zot")
    assert 'ENTRYPOINT ["agent-zot"]' in lines and "EXPOSE 8765" in lines
    assert any(line.startswith("HEALTHCHECK") for line in lines)


def test_new_collections_take_the_cluster_layout() -> None:
    """Shards and replicas go to a Qdrant server; local mode (one process) has neither."""
    server = QdrantStore("http://qdrant:6333", shard_number=6, replication_factor=2)
    assert server._cluster_options() == {"shard_number": 6, "replication_factor": 2}
    assert QdrantStore("http://qdrant:6333")._cluster_options() == {}
    assert QdrantStore(path=Path("/tmp/x"), shard_number=6)._cluster_options() == {}
