"""Stance from the client's own model: one batched request per claim, asked through MCP.

MCP (2026-07-28) gives a server no channel to call its client while a tool runs; a tool asks for a completion
by answering the call with a request for input (SEP-2322), which the client fulfils with its model and sends
back with the same call repeated. The front end (mcp/server.py) carries that round trip; this module is the
part that knows no MCP: what to ask (the claim and its numbered passages), how to read the answer (strictly,
one JSON object per passage), and when an answer no longer counts (the passages changed, or it came too late).

`CLIENT` holds, for the request being served, whether the client can sample and its reply if there is one;
the front end sets it, `make_judge` (stance.py) reads it.
"""

from __future__ import annotations

import hashlib
import json
import re
import time
from collections.abc import Sequence
from contextvars import ContextVar
from dataclasses import dataclass, field

from agent_zot.services.evidence.stance import UNJUDGED, Stance, stated

# Words per passage sent to the client's model: enough to judge, bounded so the request stays small.
PASSAGE_CHARS = 700
TOKENS_PER_PASSAGE = 60
# Passages per request: each paper's best passage first (breadth-first, in fused order), then second ones;
# later ones stay unjudged, so one request stays a few thousand tokens.
MAX_PASSAGES = 16
_SYSTEM = (
    "You judge scientific evidence. For each numbered passage, decide from that passage alone whether it "
    "supports the claim, contradicts it, or is unrelated to it (on another question, or taking no side). "
    "Answer with one JSON object per line and nothing else, one line per passage, in order: "
    '{"n": <passage number>, "stance": "supports" | "contradicts" | "unrelated", "confidence": <0 to 1>, '
    '"reason": "<one short line>"}'
)
_LABELS = {"supports": "supports", "contradicts": "contradicts", "unrelated": "related", "related": "related"}
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")


@dataclass(frozen=True, slots=True)
class ClientReply:
    """What the client's model answered, by which model, and how long the round trip took."""

    text: str
    model: str | None
    seconds: float
    digest: str  # of the passages that were asked about


@dataclass(frozen=True, slots=True)
class ClientSampling:
    """The client of the request being served: can it sample, and has it answered."""

    can_sample: bool
    reply: ClientReply | None = None


CLIENT: ContextVar[ClientSampling | None] = ContextVar("agent_zot_client_sampling", default=None)


@dataclass(frozen=True, slots=True)
class SamplingRequest:
    """What to ask the client's model: a system prompt, the claim and passages, and a token bound."""

    system: str
    prompt: str
    max_tokens: int
    digest: str
    asked_at: float


def passages_digest(claim: str, passages: Sequence[str]) -> str:
    """Identifies the exact claim and passages a reply is about (the call is repeated to deliver it)."""
    return hashlib.sha256(json.dumps([claim, *passages]).encode()).hexdigest()[:16]


@dataclass(slots=True)
class ClientJudge:
    """A stance judge that asks the client's model. Without a reply it asks (every passage stays unjudged
    and ``request`` says what to ask); with one it reads the reply for the passages it was about."""

    reply: ClientReply | None
    timeout: float
    max_tokens: int
    name: str = "client"
    decisive: bool = True
    request: SamplingRequest | None = None
    note: str | None = None  # why the reply was not used, when it was not
    judged: int = field(default=0)

    def __post_init__(self) -> None:
        if self.reply is not None and self.reply.model:
            self.name = f"client:{self.reply.model}"

    def judge(self, claim: str, passages: Sequence[str]) -> list[Stance]:
        if not passages:
            return []
        asked, rest = list(passages[:MAX_PASSAGES]), [UNJUDGED] * max(0, len(passages) - MAX_PASSAGES)
        digest = passages_digest(claim, asked)
        if self.reply is None:
            self.request = self._ask(claim, asked, digest)
            return [UNJUDGED for _ in passages]
        if self.reply.digest != digest:
            self.note = "the passages changed since the client was asked (the index was updated)"
            return [UNJUDGED for _ in passages]
        if self.reply.seconds > self.timeout:
            self.note = (
                f"the client's model answered after {self.reply.seconds:.0f} s (limit {self.timeout:.0f} s)"
            )
            return [UNJUDGED for _ in passages]
        stances = parse_reply(self.reply.text, len(asked))
        self.judged = sum(s.label != "unjudged" for s in stances)
        if not self.judged:
            self.note = "the client's model gave no answer in the asked form"
        return stances + rest

    def _ask(self, claim: str, passages: Sequence[str], digest: str) -> SamplingRequest:
        numbered = "\n\n".join(f"[{n}] {_clip(p)}" for n, p in enumerate(passages, 1))
        prompt = f"Claim: {claim}\n\nPassages:\n\n{numbered}"
        tokens = min(self.max_tokens, 40 + TOKENS_PER_PASSAGE * len(passages))
        return SamplingRequest(_SYSTEM, prompt, tokens, digest, time.time())


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PASSAGE_CHARS else flat[: PASSAGE_CHARS - 1].rsplit(" ", 1)[0] + "…"


def parse_reply(text: str, count: int) -> list[Stance]:
    """One stance per passage from the model's lines; anything not in the asked form leaves that passage
    unjudged (a passage judged twice keeps its first answer)."""
    stances = [UNJUDGED] * count
    seen: set[int] = set()
    for match in _JSON_OBJECT.finditer(text):
        try:
            data = json.loads(match.group(0))
            number = int(data["n"])
            label = _LABELS[str(data["stance"]).strip().lower()]
            confidence = float(data.get("confidence", 0.8))
        except (ValueError, KeyError, TypeError):
            continue
        if not 1 <= number <= count or number in seen or not 0.0 <= confidence <= 1.0:
            continue
        seen.add(number)
        reason = str(data.get("reason") or "")[:200]
        stances[number - 1] = stated(label, confidence, reason)
    return stances
