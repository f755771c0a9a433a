"""Stance from the client's own model (``stance = "client"``, opt-in): one batched request per claim.

MCP 2026-07-28 gives a server no channel of its own to the client while a tool runs: a tool that wants a
completion answers the call with a request for input (SEP-2322, multi round-trip requests), the client
fulfils it with its model and repeats the call with the answer attached. Sampling itself is deprecated in
that version (SEP-2577), and the clients most people use (Claude Desktop, Claude Code, VS Code) never offer
it: there the judge is the assistant, reading the worksheet the claim check answers with (worksheet.py).

The front end (mcp/sampling.py) carries the round trip; this module knows no MCP: what to ask (the claim
and its numbered passages), how to read the answer (strictly, one JSON object per passage), and when an
answer does not count (the passages changed, it came too late, or it is out of form). A client that
declines or fails never repeats the call, so the server gets no turn to answer it: `AskLedger` remembers
each question whose answer has not come back, and the next call for the same claim and passages answers
at once with the unjudged passages and the worksheet, saying why, instead of asking again.

`CLIENT` holds, for the request being served, what the client declared and its reply if there is one; the
front end sets it, `make_judge` (judges.py) reads it.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
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
# A question whose answer never came back (the client declined, failed or gave up) is not asked again for
# this long: the next calls answer at once with the worksheet.
UNANSWERED_MEMORY_S = 600.0
_REMEMBERED = 256
_SYSTEM = (
    "You judge scientific evidence. For each numbered passage, decide from that passage alone whether it "
    "supports the claim, contradicts it, or is unrelated to it (on another question, or taking no side). "
    "Answer with one JSON object per line and nothing else, one line per passage, in order: "
    '{"n": <passage number>, "stance": "supports" | "contradicts" | "unrelated", "confidence": <0 to 1>, '
    '"reason": "<one short line>"}'
)
_LABELS = {"supports": "supports", "contradicts": "contradicts", "unrelated": "related", "related": "related"}
_JSON_OBJECT = re.compile(r"\{[^{}]*\}")
_EXCERPT = 80


@dataclass(frozen=True, slots=True)
class ClientReply:
    """What the client's model answered, by which model, and how long the round trip took."""

    text: str
    model: str | None
    seconds: float
    digest: str  # of the passages that were asked about


class AskLedger:
    """The questions put to a client's model whose answers have not come back, per server process."""

    def __init__(self, memory_s: float = UNANSWERED_MEMORY_S) -> None:
        self.memory_s = memory_s
        self._asked: dict[str, float] = {}
        self._lock = threading.Lock()

    def asked(self, digest: str, at: float) -> None:
        with self._lock:
            self._asked[digest] = at
            while len(self._asked) > _REMEMBERED:
                self._asked.pop(next(iter(self._asked)))

    def answered(self, digest: str) -> None:
        with self._lock:
            self._asked.pop(digest, None)

    def unanswered_for(self, digest: str, now: float) -> float | None:
        """Seconds since this question was asked without an answer coming back, or None."""
        with self._lock:
            at = self._asked.get(digest)
            if at is None or now - at > self.memory_s:
                self._asked.pop(digest, None)
                return None
            return now - at


@dataclass(frozen=True, slots=True)
class ClientSampling:
    """The client of the request being served: did it declare sampling, can its protocol carry a request
    for input (2026-07-28 and later), and has it answered."""

    declared: bool
    protocol: str | None
    carries_requests: bool
    reply: ClientReply | None = None
    ledger: AskLedger | None = None


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
    and ``request`` says what to ask); with one it reads the reply for the passages it was about.
    ``status`` and ``note`` say how it went, for the answer's "who judged" line."""

    reply: ClientReply | None
    timeout: float
    max_tokens: int
    ledger: AskLedger | None = None
    name: str = "client"
    decisive: bool = True
    request: SamplingRequest | None = None
    status: str = "asking"
    note: str = ""
    judged: int = field(default=0)
    asked: int = field(default=0)

    def __post_init__(self) -> None:
        if self.reply is not None and self.reply.model:
            self.name = f"client:{self.reply.model}"

    def judge(self, claim: str, passages: Sequence[str]) -> list[Stance]:
        if not passages:
            return []
        asked, rest = list(passages[:MAX_PASSAGES]), [UNJUDGED] * max(0, len(passages) - MAX_PASSAGES)
        self.asked = len(asked)
        digest = passages_digest(claim, asked)
        unjudged = [UNJUDGED for _ in passages]
        now = time.time()
        if self.reply is None:
            waited = self.ledger.unanswered_for(digest, now) if self.ledger else None
            if waited is not None:
                self.status = "no_answer"
                self.note = (
                    f"the client's model was asked about these passages {waited:.0f} s ago and no answer came "
                    "back (the client declined, failed or gave up; it does not tell the server which)"
                )
                return unjudged
            self.request = self._ask(claim, asked, digest, now)
            if self.ledger is not None:
                self.ledger.asked(digest, now)
            return unjudged
        if self.ledger is not None:
            self.ledger.answered(self.reply.digest)
        return self._read(self.reply, digest, asked, rest, unjudged)

    def _read(
        self, reply: ClientReply, digest: str, asked: list[str], rest: list[Stance], unjudged: list[Stance]
    ) -> list[Stance]:
        who = f"the client's model ({reply.model})" if reply.model else "the client's model"
        if reply.digest != digest:
            self.status, self.note = "stale", "the passages changed since the client's model was asked"
            return unjudged
        if reply.seconds > self.timeout:
            self.status = "late"
            self.note = f"{who} answered after {reply.seconds:.0f} s (stance_timeout_s = {self.timeout:g})"
            return unjudged
        if not reply.text.strip():
            self.status, self.note = "no_text", f"{who} answered with no text"
            return unjudged
        stances = parse_reply(reply.text, len(asked))
        self.judged = sum(s.label != "unjudged" for s in stances)
        if not any(s is not UNJUDGED for s in stances):
            self.status = "out_of_form"
            self.note = f"{who} answered out of the asked form ({_excerpt(reply.text)})"
            return unjudged
        if not self.judged:
            self.status = "unsure"
            self.note = f"{who} was unsure of every passage (confidence below one half)"
            return unjudged
        self.status = "judged"
        return stances + rest

    def _ask(self, claim: str, passages: Sequence[str], digest: str, now: float) -> SamplingRequest:
        numbered = "\n\n".join(f"[{n}] {_clip(p)}" for n, p in enumerate(passages, 1))
        prompt = f"Claim: {claim}\n\nPassages:\n\n{numbered}"
        tokens = min(self.max_tokens, 40 + TOKENS_PER_PASSAGE * len(passages))
        return SamplingRequest(_SYSTEM, prompt, tokens, digest, now)


def _clip(text: str) -> str:
    flat = " ".join(text.split())
    return flat if len(flat) <= PASSAGE_CHARS else flat[: PASSAGE_CHARS - 1].rsplit(" ", 1)[0] + "…"


def _excerpt(text: str) -> str:
    flat = " ".join(text.split())
    return "“" + (flat if len(flat) <= _EXCERPT else flat[: _EXCERPT - 1].rsplit(" ", 1)[0] + "…") + "”"


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
