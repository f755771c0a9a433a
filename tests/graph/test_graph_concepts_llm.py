"""The Ollama concept extractor against a fake /api/chat server (tests/fake_ollama_chat.py)."""

from __future__ import annotations

import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent_zot.errors import AgentZotError
from agent_zot.graph.concepts_llm import (
    CONCEPT_SCHEMA,
    ConceptExtractorError,
    LlmConcept,
    OllamaConceptExtractor,
    parse_concepts,
)
from agent_zot.graph.model import ConceptType
from tests.fake_ollama_chat import FakeOllamaChat

REPO_ROOT = Path(__file__).resolve().parents[2]
MODEL = "fake-chat"
TITLE = "Attention Is All You Need"
ABSTRACT = "We propose the Transformer, based solely on attention mechanisms, evaluated on WMT 2014."


@pytest.fixture()
def fake() -> Iterator[FakeOllamaChat]:
    with FakeOllamaChat({MODEL}) as server:
        yield server


def test_sends_schema_temperature_zero_and_the_paper(fake: FakeOllamaChat) -> None:
    fake.reply = {"concepts": [{"name": "Transformer", "type": "Method"}]}
    extractor = OllamaConceptExtractor(fake.url, MODEL, timeout=10)
    extractor.extract(TITLE, ABSTRACT, "Body text about self-attention.")
    (request,) = fake.requests
    assert request["model"] == MODEL
    assert request["format"] == CONCEPT_SCHEMA
    assert request["options"] == {"temperature": 0}
    assert request["stream"] is False
    roles = [m["role"] for m in request["messages"]]
    assert roles == ["system", "user"]
    user = request["messages"][1]["content"]
    assert TITLE in user and ABSTRACT in user and "self-attention" in user
    enum = request["format"]["properties"]["concepts"]["items"]["properties"]["type"]["enum"]
    assert set(enum) == {"Method", "Dataset", "Theory", "Concept"}
    extractor.close()


def test_valid_entries_kept_invalid_dropped_duplicates_merged(fake: FakeOllamaChat) -> None:
    fake.reply = {
        "concepts": [
            {"name": "Transformer", "type": "Method"},
            {"name": "WMT 2014", "type": "dataset"},  # type in another case: accepted
            {"name": "attention mechanisms", "type": "Concept"},
            {"name": "Attention mechanism", "type": "Concept"},  # same normalised key: dropped
            {"name": "", "type": "Method"},  # empty name
            {"name": "BLEU", "type": "Metric"},  # not a valid type
            {"type": "Theory"},  # no name
            "just a string",
            {"name": "x" * 200, "type": "Concept"},  # overlong
            {"name": "universal approximation theorem", "type": "Theory"},
        ]
    }
    concepts = OllamaConceptExtractor(fake.url, MODEL).extract(TITLE, ABSTRACT)
    assert [(c.name, c.type) for c in concepts] == [
        ("Transformer", ConceptType.METHOD),
        ("WMT 2014", ConceptType.DATASET),
        ("attention mechanisms", ConceptType.CONCEPT),
        ("universal approximation theorem", ConceptType.THEORY),
    ]


def test_keyphrases_shape_matches_yake_output(fake: FakeOllamaChat) -> None:
    fake.reply = {
        "concepts": [{"name": "Neural Networks", "type": "Method"}, {"name": "BLEU", "type": "Concept"}]
    }
    phrases = OllamaConceptExtractor(fake.url, MODEL).keyphrases(TITLE, ABSTRACT)
    assert phrases == [("neural network", 1.0), ("bleu", 0.75)]


def test_limit_is_applied(fake: FakeOllamaChat) -> None:
    fake.reply = {"concepts": [{"name": f"concept number {w}", "type": "Concept"} for w in "abcdefgh"]}
    concepts = OllamaConceptExtractor(fake.url, MODEL).extract(TITLE, ABSTRACT, limit=3)
    assert len(concepts) == 3
    assert "at most 3" in fake.requests[-1]["messages"][1]["content"]


def test_bare_list_reply_is_accepted() -> None:
    assert parse_concepts('[{"name": "LSTM", "type": "Method"}]') == [
        LlmConcept(name="LSTM", type=ConceptType.METHOD)
    ]


@pytest.mark.parametrize("reply", ["not json at all", '{"answer": 42}', "42"])
def test_unusable_reply_is_a_clear_error(fake: FakeOllamaChat, reply: str) -> None:
    fake.reply = reply
    with pytest.raises(ConceptExtractorError, match="concept model's reply"):
        OllamaConceptExtractor(fake.url, MODEL).extract(TITLE, ABSTRACT)


def test_unknown_model_says_how_to_pull_it(fake: FakeOllamaChat) -> None:
    with pytest.raises(ConceptExtractorError) as err:
        OllamaConceptExtractor(fake.url, "llama-missing").extract(TITLE, ABSTRACT)
    message = str(err.value)
    assert "ollama pull llama-missing" in message and "not found" in message
    assert isinstance(err.value, AgentZotError)


def test_server_error_is_reported_with_status(fake: FakeOllamaChat) -> None:
    fake.status_override = 500
    with pytest.raises(ConceptExtractorError, match="HTTP 500"):
        OllamaConceptExtractor(fake.url, MODEL).extract(TITLE, ABSTRACT)


def test_unreachable_server_says_how_to_start_it() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    with pytest.raises(ConceptExtractorError) as err:
        OllamaConceptExtractor(f"http://127.0.0.1:{port}", MODEL).extract(TITLE, ABSTRACT)
    message = str(err.value)
    assert f"127.0.0.1:{port}" in message and "ollama serve" in message


def test_timeout_is_reported(fake: FakeOllamaChat) -> None:
    fake.delay_s = 1.0
    with pytest.raises(ConceptExtractorError, match="did not answer within"):
        OllamaConceptExtractor(fake.url, MODEL, timeout=0.2).extract(TITLE, ABSTRACT)


def test_empty_model_name_is_refused() -> None:
    with pytest.raises(ConceptExtractorError, match="No Ollama model"):
        OllamaConceptExtractor("http://127.0.0.1:1", "  ")


def test_constructing_imports_no_ollama_client() -> None:
    code = (
        "import sys\n"
        "from agent_zot.graph.concepts_llm import OllamaConceptExtractor\n"
        "OllamaConceptExtractor('http://127.0.0.1:1', 'm')\n"
        "print('ollama' in sys.modules, 'httpx' in sys.modules)\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert out.stdout.split() == ["False", "False"]
