"""One client for an Ollama server, shared by everything that calls one (embeddings, concept extraction,
the stance judge): the official `ollama` client connected on first use, its schema-constrained chat and its
embeddings, and one translation of its failures into messages a user can act on."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from agent_zot.errors import AgentZotError


class OllamaClient:
    """One model on one Ollama server; every call's failures come out as ``error`` (ollama_errors)."""

    def __init__(self, url: str, model: str, timeout: float, error: type[AgentZotError]) -> None:
        self.url, self.model, self.timeout, self.error = url.rstrip("/"), model, timeout, error
        self._client: Any = None
        self._lock = threading.Lock()

    @property
    def client(self) -> Any:
        with self._lock:
            if self._client is None:
                import ollama  # the official client; imported on first use

                self._client = ollama.Client(host=self.url, timeout=self.timeout)
        return self._client

    def chat_json(self, system: str, prompt: str, schema: dict[str, Any]) -> str:
        """The model's answer to ``prompt`` as JSON text in ``schema``, at temperature 0 (deterministic)."""
        messages = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
        with ollama_errors(self.url, self.model, self.timeout, self.error):
            reply = self.client.chat(
                model=self.model, messages=messages, format=schema, options={"temperature": 0}, stream=False
            )
        return str(reply.message.content or "")

    def embed(self, texts: Sequence[str]) -> Any:
        """The server's embeddings of ``texts``, one list of floats each, as the client returns them."""
        with ollama_errors(self.url, self.model, self.timeout, self.error):
            return self.client.embed(model=self.model, input=list(texts)).embeddings

    def close(self) -> None:
        with self._lock:
            if self._client is not None:
                self._client.close()
                self._client = None


@contextmanager
def ollama_errors(url: str, model: str, timeout: float, error: type[AgentZotError]) -> Iterator[None]:
    """Run an `ollama` client call; its failures come out as ``error`` with what to do about them."""
    import httpx
    import ollama

    try:
        yield
    except ollama.ResponseError as err:
        raise _response_error(err, model, url, error) from err
    except ConnectionError as err:  # the client's translation of a refused connection
        raise error(
            f"Cannot reach Ollama at {url}.",
            hint=f"Start it with `ollama serve` (and `ollama pull {model}`), or set the right URL.",
        ) from err
    except httpx.TimeoutException as err:
        raise error(
            f"Ollama at {url} did not answer within {timeout:.0f} s.",
            hint="The model may still be loading: try again, or raise the timeout.",
        ) from err
    except httpx.HTTPError as err:
        raise error(f"Request to Ollama at {url} failed: {err}") from err


def _response_error(err: Any, model: str, url: str, error: type[AgentZotError]) -> AgentZotError:
    message = str(getattr(err, "error", "") or err)
    if getattr(err, "status_code", None) == 404 or "not found" in message.lower():
        return error(
            f"Ollama has no model {model!r} ({message}).", hint=f"Download it with `ollama pull {model}`."
        )
    return error(f"Ollama at {url} answered HTTP {getattr(err, 'status_code', '?')}: {message[:200]}")
