"""Asking the client's model, the MCP side: whether this request's client can sample, its reply when the call
comes back with one, and the question turned into MCP's request for input (SEP-2322: the tool answers with
the question, the client fulfils it with its model and repeats the call with the answer attached).

What to ask and how to read the answer live in services/evidence/client_judge.py; this module only carries
them. Connections on a protocol older than 2026-07-28 cannot take a request for input, so they are treated
as clients that cannot sample (the claim check then falls back to the configured judge, and says so).
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

from agent_zot.services.evidence.client_judge import CLIENT, ClientReply, ClientSampling, SamplingRequest

_KEY = "stance"  # the one request for input a claim check makes


@contextmanager
def client_sampling() -> Iterator[None]:
    """For the duration of a tool call: what the services may ask of this request's client."""
    token = CLIENT.set(_current())
    try:
        yield
    finally:
        CLIENT.reset(token)


def _current() -> ClientSampling | None:
    try:
        ctx = get_context()
    except RuntimeError:  # called outside an MCP request (the CLI, a test calling services directly)
        return None
    request = ctx.request_context
    if request is None or request.protocol_version not in MODERN_PROTOCOL_VERSIONS:
        return ClientSampling(can_sample=False)
    params = ctx.session.client_params
    capabilities = params.capabilities if params is not None else None
    can_sample = capabilities is not None and capabilities.sampling is not None
    return ClientSampling(can_sample=can_sample, reply=_reply(ctx.input_responses, ctx.request_state))


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
