"""One translation of the official `ollama` client's failures into messages a user can act on, shared by
everything that calls an Ollama server (embeddings, concept extraction)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from agent_zot.errors import AgentZotError


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
