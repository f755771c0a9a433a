"""`agent-zot doctor`, the server stack's part: each configured service is reached the way agent-zot will
reach it (Qdrant's readiness endpoint, a Bolt login to Neo4j, Ollama's model list), with the HTTP
server's safety settings; a service not configured is reported as the embedded default in use."""

from __future__ import annotations

import httpx

from agent_zot.config import Settings, is_loopback
from agent_zot.services.upkeep.doctor_report import Check

TIMEOUT_S = 3.0


def stack_checks(settings: Settings) -> list[Check]:
    return [_qdrant(settings), _neo4j(settings), _ollama(settings), _http(settings)]


def _qdrant(settings: Settings) -> Check:
    if settings.vector_store != "qdrant":
        return Check("vector store", "ok", "embedded Qdrant engine (vector_store = edge)")
    url = settings.qdrant_url
    if not url:
        return Check(
            "vector store",
            "warn",
            "vector_store = qdrant without qdrant_url: an in-memory collection, lost on exit",
            "Set qdrant_url (AGENT_ZOT_QDRANT_URL), e.g. http://qdrant:6333 in the compose stack.",
        )
    key = settings.qdrant_api_key.get_secret_value() if settings.qdrant_api_key else None
    try:
        response = httpx.get(
            f"{url.rstrip('/')}/readyz", headers={"api-key": key} if key else {}, timeout=TIMEOUT_S
        )
    except httpx.HTTPError as exc:
        return Check("vector store", "fail", f"Qdrant at {url} does not answer: {exc}", _QDRANT_FIX)
    if response.status_code in (401, 403):
        return Check("vector store", "fail", f"Qdrant at {url} refused the API key", "Check qdrant_api_key.")
    if response.status_code != 200:
        return Check(
            "vector store", "fail", f"Qdrant at {url} is not ready (HTTP {response.status_code})", _QDRANT_FIX
        )
    return Check("vector store", "ok", f"Qdrant server at {url} is ready")


_QDRANT_FIX = "Start it (`docker compose up -d qdrant`) or fix qdrant_url (AGENT_ZOT_QDRANT_URL)."


def _neo4j(settings: Settings) -> Check:
    if settings.graph_store != "neo4j":
        return Check("graph store", "ok", "in-process graph (graph_store = networkx)")
    try:
        from neo4j import GraphDatabase
        from neo4j.exceptions import AuthError, Neo4jError, ServiceUnavailable
    except ImportError:
        return Check("graph store", "fail", "graph_store = neo4j but the neo4j driver is not installed",
                     "pip install 'agent-zot[neo4j]'")  # fmt: skip
    password = settings.neo4j_password.get_secret_value() if settings.neo4j_password else ""
    driver = GraphDatabase.driver(
        settings.neo4j_url, auth=(settings.neo4j_user, password), connection_timeout=TIMEOUT_S
    )
    try:
        driver.verify_connectivity()
    except AuthError:
        return Check("graph store", "fail", f"Neo4j at {settings.neo4j_url} refused the login",
                     "Check neo4j_user and neo4j_password (NEO4J_PASSWORD in the stack's .env).")  # fmt: skip
    except (ServiceUnavailable, Neo4jError, OSError) as exc:
        return Check("graph store", "fail", f"Neo4j at {settings.neo4j_url} does not answer: {exc}",
                     "Start it (`docker compose up -d neo4j`) or fix neo4j_url.")  # fmt: skip
    finally:
        driver.close()
    return Check("graph store", "ok", f"Neo4j at {settings.neo4j_url} answers")


def _ollama(settings: Settings) -> Check:
    wanted = sorted(_ollama_models(settings))
    if not wanted:
        return Check("ollama", "ok", "not used (no setting names an Ollama model)")
    try:
        response = httpx.get(f"{settings.ollama_url.rstrip('/')}/api/tags", timeout=TIMEOUT_S)
        response.raise_for_status()
        present = {m.get("name", "") for m in response.json().get("models", [])}
    except (httpx.HTTPError, ValueError) as exc:
        return Check("ollama", "fail", f"Ollama at {settings.ollama_url} does not answer: {exc}",
                     "Start it (`ollama serve`, or the stack's ollama profile) or fix ollama_url.")  # fmt: skip
    missing = [m for m in wanted if m not in present and f"{m}:latest" not in present]
    if missing:
        return Check("ollama", "fail", f"Ollama lacks {', '.join(missing)}",
                     "Pull them: `ollama pull NAME` (the stack's ollama-pull service pulls OLLAMA_MODELS_TO_PULL).")  # fmt: skip
    return Check("ollama", "ok", f"Ollama at {settings.ollama_url} has {', '.join(wanted)}")


def _ollama_models(settings: Settings) -> set[str]:
    models = set()
    if settings.embedder == "ollama" and settings.embedder_model:
        models.add(settings.embedder_model)
    if settings.concept_extractor == "ollama":
        models.add(settings.concept_model)
    if settings.stance == "ollama":
        models.add(settings.stance_model)
    return models


def _http(settings: Settings) -> Check:
    token = bool(settings.http_token and settings.http_token.get_secret_value())
    if not is_loopback(settings.http_host) and not token:
        return Check("http", "fail", f"http_host = {settings.http_host} without http_token: serve would refuse",
                     "Set http_token (AGENT_ZOT_HTTP_TOKEN) to a long random secret.")  # fmt: skip
    detail = f"serve --transport http on {settings.http_host}:{settings.http_port}, "
    detail += "bearer token required" if token else "no token (loopback only; write modes refused over HTTP)"
    return Check("http", "ok", detail)
