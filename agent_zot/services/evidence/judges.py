"""Which stance judge answers a claim check: the configured one, made once per configuration and shared (a
model loads once per process), or none, with the reason the answer reports."""

from __future__ import annotations

import threading
from collections.abc import Callable
from functools import partial

from agent_zot.backends import Backends
from agent_zot.config import Settings
from agent_zot.services.evidence.client_judge import CLIENT, ClientJudge
from agent_zot.services.evidence.stance import (
    SETTING_HINT,
    NliJudge,
    NoJudge,
    OllamaJudge,
    StanceError,
    StanceJudge,
)

_JUDGES: dict[tuple[str, str], StanceJudge] = {}
_JUDGES_LOCK = threading.Lock()


def make_judge(settings: Settings, *, ask_client: bool = True) -> StanceJudge:
    """The configured judge, shared per configuration (a model loads once per process). ``auto`` is the
    NLI model when one is set, else no judge (the assistant judges the worksheet). ``client`` asks the
    request's client's model when it declared sampling and its protocol can carry the request (never with
    ``ask_client`` False: the review package cannot make the round trip)."""
    return JUDGES.create(settings.stance, settings, ask_client)


def _shared(key: tuple[str, str], make: Callable[[], StanceJudge]) -> StanceJudge:
    with _JUDGES_LOCK:
        if key not in _JUDGES:
            _JUDGES[key] = make()  # loaded once per model: an NLI model takes seconds
        return _JUDGES[key]


def _auto_judge(settings: Settings, ask_client: bool = True) -> StanceJudge:
    if settings.nli_model is None:
        return NoJudge("worksheet", "stance = auto and no nli_model is set")
    return _nli_judge(settings, ask_client)


def _nli_judge(settings: Settings, ask_client: bool = True) -> StanceJudge:
    model = settings.nli_model
    if model is None:
        raise StanceError("stance = nli needs a model folder.", hint=SETTING_HINT)
    return _shared(("nli", str(model)), partial(NliJudge, model))


def _ollama_judge(settings: Settings, ask_client: bool = True) -> StanceJudge:
    key = ("ollama", f"{settings.ollama_url}|{settings.stance_model}")
    return _shared(key, partial(OllamaJudge, settings.ollama_url, settings.stance_model))


def _no_judge(settings: Settings, ask_client: bool = True) -> StanceJudge:
    return NoJudge("off", "stance = none")


def _client_judge(settings: Settings, ask_client: bool = True) -> StanceJudge:
    if not ask_client:
        return NoJudge(
            "not_here",
            "the review package does not ask the client's model; stance = client works in evidence mode",
        )
    client = CLIENT.get()
    if client is None:
        return NoJudge("no_client", "stance = client, but no MCP client made this request")
    if not client.declared:
        return NoJudge("no_sampling", "the client declared no sampling (stance = client)")
    if not client.carries_requests:
        return NoJudge(
            "old_protocol",
            f"this client speaks MCP {client.protocol or 'of an older version'}; agent-zot asks a client's "
            "model only by a 2026-07-28 multi round-trip request (SEP-2322)",
        )
    return ClientJudge(client.reply, settings.stance_timeout_s, settings.stance_max_tokens, client.ledger)


# Factories, not classes: each reads its own settings, and the models load on first use.
JUDGES: Backends[StanceJudge] = Backends(
    "stance judge",
    {
        "auto": _auto_judge,
        "client": _client_judge,
        "nli": _nli_judge,
        "ollama": _ollama_judge,
        "none": _no_judge,
    },
    error=StanceError,
)
