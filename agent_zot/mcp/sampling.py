"""Asking the client's model, the MCP side (``stance = "client"`` only): what this request's client declared,
its reply when the call comes back with one, and the question turned into MCP's request for input (SEP-2322,
multi round-trip requests: the tool answers with the question, the client fulfils it with its model and
repeats the call with the answer attached). Sampling is deprecated in MCP 2026-07-28 (SEP-2577).

What to ask and how to read the answer live in services/evidence/client_judge.py; this module
only carries them. A request for input exists only from protocol 2026-07-28 on: a client on an older protocol that
declared sampling is not asked, and the answer says so. A client that declines or fails never repeats the
call (the official `mcp` client and fastmcp's raise the client's error to their caller), so the server
remembers the question (`AskLedger`) and answers the next call for it with the worksheet, saying why.
"""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import mcp.types as mcp_types
from fastmcp.server.dependencies import get_context
from fastmcp.tools.base import InputRequiredToolResult
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent_zot.services.evidence.client_judge import (
    CLIENT,
    AskLedger,
    ClientReply,
    ClientSampling,
    SamplingRequest,
)

_KEY = "stance"  # the one request for input a claim check makes


@contextmanager
def client_sampling(ledger: AskLedger) -> Iterator[None]:
    """For the duration of a tool call: what the services may ask of this request's client."""
    token = CLIENT.set(_current(ledger))
    try:
        yield
    finally:
        CLIENT.reset(token)


def _current(ledger: AskLedger) -> ClientSampling | None:
    try:
        ctx = get_context()
    except RuntimeError:  # called outside an MCP request (the CLI, a test calling services directly)
        return None
    request = ctx.request_context
    version = request.protocol_version if request is not None else None
    params = ctx.session.client_params
    capabilities = params.capabilities if params is not None else None
    declared = capabilities is not None and capabilities.sampling is not None
    modern = version in MODERN_PROTOCOL_VERSIONS
    reply = _reply(ctx.input_responses, ctx.request_state) if modern and declared else None
    return ClientSampling(declared, version, modern, reply, ledger)


def _reply(responses: Any, state: str | None) -> ClientReply | None:
    answer = (responses or {}).get(_KEY)
    if answer is None or state is None:
        return None
    try:
        asked = json.loads(state)
        asked_at, digest = float(asked["asked_at"]), str(asked["digest"])
    except (ValueError, KeyError, TypeError):
        return None  # not our state: ask again
    content = getattr(answer, "content", None)
    text = content.text if isinstance(content, mcp_types.TextContent) else ""
    return ClientReply(text, getattr(answer, "model", None), time.time() - asked_at, digest)


def input_required(ask: SamplingRequest) -> InputRequiredToolResult:
    """The tool's answer that asks the client's model ``ask`` and brings the reply back with the call."""
    message = mcp_types.SamplingMessage(
        role="user", content=mcp_types.TextContent(type="text", text=ask.prompt)
    )
    request = mcp_types.CreateMessageRequest(
        params=mcp_types.CreateMessageRequestParams(
            messages=[message], system_prompt=ask.system, max_tokens=ask.max_tokens, temperature=0.0
        )
    )
    state = json.dumps({"asked_at": ask.asked_at, "digest": ask.digest})
    return InputRequiredToolResult(
        mcp_types.InputRequiredResult(input_requests={_KEY: request}, request_state=state)
    )
