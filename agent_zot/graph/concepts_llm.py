"""Optional concept extraction with a local LLM served by Ollama (``POST /api/chat`` with a JSON schema).

Used only when configured; YAKE (``concepts.extract_keyphrases``) is the offline default. The reply is
validated entry by entry: a malformed entry is dropped, a reply that is not JSON at all is an error.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, ValidationError, field_validator

from agent_zot.errors import AgentZotError
from agent_zot.graph.concepts import normalise_concept
from agent_zot.graph.model import ConceptType
from agent_zot.ollama_client import OllamaClient

PROMPT_CHARS = 6000  # title + abstract + start of the body: enough for the paper's terms, small for the model
MAX_NAME_CHARS = 80

CONCEPT_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "concepts": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "name": {"type": "string"},
                    "type": {"type": "string", "enum": [t.value for t in ConceptType]},
                },
                "required": ["name", "type"],
            },
        }
    },
    "required": ["concepts"],
}

SYSTEM_PROMPT = (
    "You extract the key scientific concepts of a research paper. Return JSON only, matching the schema. "
    "Each concept is a short noun phrase (1-5 words) as the paper names it, with a type: Method (an "
    "algorithm, model, technique or procedure), Dataset (a named dataset, corpus or benchmark), Theory "
    "(a theory, theorem, law, principle or hypothesis) or Concept (anything else). List the most "
    "important first. No authors, venues, numbers or generic words such as 'results' or 'paper'."
)


class ConceptExtractorError(AgentZotError):
    """The LLM concept extractor could not get an answer (server down, model missing, bad reply)."""


class LlmConcept(BaseModel):
    """One concept the model named; ``type`` accepts any letter case ("method" -> Method)."""

    model_config = ConfigDict(frozen=True)

    name: str
    type: ConceptType

    @field_validator("name")
    @classmethod
    def _clean_name(cls, value: str) -> str:
        name = " ".join(value.split())
        if not name or len(name) > MAX_NAME_CHARS:
            raise ValueError("empty or overlong concept name")
        return name

    @field_validator("type", mode="before")
    @classmethod
    def _type_any_case(cls, value: object) -> object:
        if isinstance(value, str):
            for kind in ConceptType:
                if kind.value.lower() == value.strip().lower():
                    return kind
        return value


class OllamaConceptExtractor:
    """Concepts of a paper from an Ollama chat model, deterministic (temperature 0) and schema-constrained."""

    def __init__(self, url: str, model: str, timeout: float = 120.0) -> None:
        if not model.strip():
            raise ConceptExtractorError(
                "No Ollama model given for concept extraction.", hint="Pass a chat model, e.g. 'llama3.2'."
            )
        self.url = url.rstrip("/")
        self.model = model.strip()
        self.timeout = timeout
        self._ollama = OllamaClient(self.url, self.model, timeout, ConceptExtractorError)

    def extract(self, title: str, abstract: str, body: str = "", *, limit: int = 15) -> list[LlmConcept]:
        """Up to ``limit`` concepts, most important first, each name once (compared by normalised form)."""
        reply = self._chat(_user_prompt(title, abstract, body, limit))
        concepts: list[LlmConcept] = []
        seen: set[str] = set()
        for concept in parse_concepts(reply):
            key = normalise_concept(concept.name)
            if key and key not in seen:
                seen.add(key)
                concepts.append(concept)
        return concepts[:limit]

    def keyphrases(
        self, title: str, abstract: str, body: str = "", *, limit: int = 15
    ) -> list[tuple[str, float]]:
        """The same concepts in ``extract_keyphrases``' shape: (normalised phrase, weight by rank in (0, 1])."""
        concepts = self.extract(title, abstract, body, limit=limit)
        n = len(concepts)
        return [
            (normalise_concept(c.name), round(1.0 - 0.5 * i / max(n, 1), 4)) for i, c in enumerate(concepts)
        ]

    def _chat(self, prompt: str) -> str:
        return self._ollama.chat_json(SYSTEM_PROMPT, prompt, CONCEPT_SCHEMA)

    def close(self) -> None:
        self._ollama.close()


def _user_prompt(title: str, abstract: str, body: str, limit: int) -> str:
    parts = [f"Title: {title.strip()}", f"Abstract: {abstract.strip()}"]
    if body.strip():
        parts.append(f"Text: {body.strip()}")
    text = "\n\n".join(parts)[:PROMPT_CHARS]
    return f"List at most {limit} key concepts of this paper.\n\n{text}"


def parse_concepts(reply: str) -> list[LlmConcept]:
    """Validate a model reply: ``{"concepts": [...]}`` or a bare list; invalid entries are dropped."""
    try:
        data = json.loads(reply)
    except json.JSONDecodeError as err:
        raise ConceptExtractorError(
            f"The concept model's reply is not JSON: {reply[:120]!r}.",
            hint="Use a model that supports structured outputs (Ollama 0.5 or later).",
        ) from err
    entries = data.get("concepts") if isinstance(data, dict) else data
    if not isinstance(entries, list):
        raise ConceptExtractorError(f"The concept model's reply has no list of concepts: {reply[:120]!r}.")
    concepts: list[LlmConcept] = []
    for entry in entries:
        try:
            concepts.append(LlmConcept.model_validate(entry))
        except ValidationError:
            continue  # one bad entry should not cost the paper its other concepts
    return concepts
