"""The claim check's stance judged by the client's own model (``stance = "client"``, opt-in), through the
official Python `mcp` client (2.3) on both protocol eras and through fastmcp's client, each with a sampling
callback scripted here: a model that judges, refuses, fails, rambles, answers late or with no text. The
default (``auto``) never asks the client's model. Every answer says who judged, and every case that is not
a judgement still answers with the unjudged passages and the worksheet, saying why."""

from __future__ import annotations

import asyncio
import json
import os
import re
import sys
from pathlib import Path
from typing import Any

import mcp.types as mcp_types
import pytest
from fastmcp import Client as FastClient
from mcp import Client as McpClient
from mcp import StdioServerParameters

from agent_zot.config import Settings
from agent_zot.index.passages import Passage
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.client_judge import (
    MAX_PASSAGES,
    AskLedger,
    ClientJudge,
    ClientReply,
    parse_reply,
    passages_digest,
)
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

CLAIM = "pretraining on scientific text improves results on scientific NLP tasks"
QUERY = f"is there evidence that {CLAIM}?"
MODERN, LEGACY = "2026-07-28", "legacy"  # the mcp client's pin of 2026-07-28, and its handshake (2025-11-25)
_PASSAGE = re.compile(r"^\[(\d+)\] ", re.MULTILINE)
VERDICT_FORM = 'zot_export(force_mode="review", draft="<the claim>", verdicts=[{"item_key": "KEY"'


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("client-judge")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home")


def judged_lines(prompt: str) -> str:
    """Odd passages support, even ones contradict, each with a reason: the asked form."""
    numbers = [int(n) for n in _PASSAGE.findall(prompt)]
    return "\n".join(
        json.dumps(
            {
                "n": n,
                "stance": "supports" if n % 2 else "contradicts",
                "confidence": 0.9,
                "reason": f"passage {n}",
            }
        )
        for n in numbers
    )


class ScriptedModel:
    """The client's model, as an `mcp` sampling callback: ``behaviour`` is "judge", "refuse" (the user
    declines: an MCP error), "fail" (the callback raises), "ramble" (prose, not the asked form), "empty"
    (no text); ``delay`` seconds before answering. Records what it was asked."""

    def __init__(self, behaviour: str = "judge", delay: float = 0.0) -> None:
        self.behaviour, self.delay = behaviour, delay
        self.asked: list[dict[str, Any]] = []

    async def __call__(
        self, context: Any, params: mcp_types.CreateMessageRequestParams
    ) -> mcp_types.CreateMessageResult | mcp_types.ErrorData:
        content = params.messages[0].content
        prompt = content.text if isinstance(content, mcp_types.TextContent) else ""
        self.asked.append({"prompt": prompt, "system": params.system_prompt, "max_tokens": params.max_tokens})
        await asyncio.sleep(self.delay)
        if self.behaviour == "refuse":
            return mcp_types.ErrorData(code=-1, message="User rejected sampling request")
        if self.behaviour == "fail":
            raise RuntimeError("the model crashed")
        text = {"judge": judged_lines(prompt), "ramble": "Mostly they support it, I think.", "empty": ""}
        return mcp_types.CreateMessageResult(
            role="assistant",
            model="scripted-model",
            content=mcp_types.TextContent(type="text", text=text[self.behaviour]),
        )


async def ask(client: McpClient) -> dict[str, Any]:
    result = await client.call_tool("zot_search", {"query": QUERY})
    data = dict(result.structured_content or {})
    first = result.content[0]
    data["_text"] = first.text if isinstance(first, mcp_types.TextContent) else ""
    return data


async def check(
    settings: Settings, home: Path, model: ScriptedModel | None, mode: str = MODERN
) -> dict[str, Any]:
    """One claim check through the official `mcp` client on a fresh server."""
    ctx = AppContext(settings, home=home)
    try:
        server = build_server(ctx)._mcp_server  # the lowlevel server, as fastmcp's own memory transport uses
        async with McpClient(server, mode=mode, sampling_callback=model) as client:
            assert client.protocol_version == (MODERN if mode == MODERN else "2025-11-25")
            return await ask(client)
    finally:
        ctx.close()


def client_stance(settings: Settings, **more: Any) -> Settings:
    return settings.model_copy(update={"stance": "client", **more})


def assert_worksheet(data: dict[str, Any]) -> None:
    """The unjudged passages with the worksheet: every passage numbered, the labels, the verdicts' form."""
    text = data["_text"]
    numbers = [n for paper in data["papers"] for n in (p["n"] for p in paper["passages"])]
    assert numbers == list(range(1, len(numbers) + 1)) and data["to_judge"] == numbers
    assert all(f"[{n}] [" in text for n in numbers)
    assert "supports (backs the claim) | contradicts" in text and "| unrelated (" in text
    assert VERDICT_FORM in text
    assert data["counts"]["supports"] == data["counts"]["contradicts"] == 0
    assert "cannot sample" not in text


# -- the default never asks ---------------------------------------------------------------------------


@pytest.mark.parametrize("mode", [MODERN, LEGACY])
@pytest.mark.slow
async def test_auto_never_asks_the_clients_model(demo: Settings, tmp_path: Path, mode: str) -> None:
    model = ScriptedModel("judge")
    data = await check(demo, tmp_path, model, mode)
    assert model.asked == [] and demo.stance == "auto"
    assert data["judge_status"] == "worksheet" and data["stance_judge"] == "none"
    assert data["judged_by"] == "Not judged by agent-zot (stance = auto, no nli_model): you judge."
    assert_worksheet(data)


# -- stance = client, official mcp client ---------------------------------------------------------------


@pytest.mark.slow
async def test_the_clients_model_judges_every_passage_in_one_request(demo: Settings, tmp_path: Path) -> None:
    model = ScriptedModel("judge")
    data = await check(client_stance(demo), tmp_path, model)
    assert len(model.asked) == 1  # one batched request for the claim and all its passages
    asked = model.asked[0]
    assert asked["prompt"].startswith(f"Claim: {CLAIM}") and "one JSON object per line" in asked["system"]
    numbers = [int(n) for n in _PASSAGE.findall(asked["prompt"])]
    assert numbers == list(range(1, len(numbers) + 1)) and 2 <= len(numbers) <= MAX_PASSAGES
    assert asked["max_tokens"] <= demo.stance_max_tokens
    passages = [p for paper in data["papers"] for p in paper["passages"]]
    assert {p["stance"] for p in passages} == {"supports", "contradicts"}
    assert all(p["stance_reason"].startswith("passage ") for p in passages)
    assert data["stance_judge"] == "client:scripted-model" and data["judge_status"] == "judged"
    assert data["judged_by"] == "Judged by the client's model (scripted-model)."
    assert "to_judge" not in data and "Judge each passage" not in data["_text"]


@pytest.mark.slow
async def test_a_client_on_the_older_protocol_is_not_asked_and_told_why(
    demo: Settings, tmp_path: Path
) -> None:
    model = ScriptedModel("judge")
    data = await check(client_stance(demo), tmp_path, model, LEGACY)
    assert model.asked == []  # it declared sampling, but 2025-11-25 has no request for input
    assert data["judge_status"] == "old_protocol"
    assert data["judged_by"].startswith("Not asked: this client speaks MCP 2025-11-25;")
    assert "multi round-trip request (SEP-2322)" in data["judged_by"]
    assert_worksheet(data)


@pytest.mark.slow
async def test_a_client_without_sampling_is_not_asked(demo: Settings, tmp_path: Path) -> None:
    for mode in (MODERN, LEGACY):
        data = await check(client_stance(demo), tmp_path, None, mode)
        assert data["judged_by"] == "Not asked: the client declared no sampling (stance = client)."
        assert_worksheet(data)


@pytest.mark.parametrize("behaviour", ["refuse", "fail"])
@pytest.mark.slow
async def test_a_declined_or_failed_request_is_answered_with_the_worksheet_next(
    demo: Settings, tmp_path: Path, behaviour: str
) -> None:
    """A client that declines (or whose model fails) raises its own error to its caller and never repeats
    the call, so that call gets no answer from the server; the next one for the claim answers at once."""
    ctx = AppContext(client_stance(demo), home=tmp_path)
    model = ScriptedModel(behaviour)
    try:
        server = build_server(ctx)._mcp_server
        async with McpClient(server, mode=MODERN, sampling_callback=model) as client:
            with pytest.raises(BaseException) as raised:  # an ExceptionGroup from the client's task group
                await ask(client)
            assert (
                "User rejected sampling request" if behaviour == "refuse" else "the model crashed"
            ) in repr(raised.value)
        async with McpClient(server, mode=MODERN, sampling_callback=model) as client:
            data = await ask(client)
    finally:
        ctx.close()
    assert len(model.asked) == 1  # not asked again
    assert data["judge_status"] == "no_answer"
    assert "no answer came back (the client declined, failed or gave up" in data["judged_by"]
    assert_worksheet(data)


@pytest.mark.parametrize(
    ("behaviour", "status", "why"),
    [
        ("ramble", "out_of_form", "answered out of the asked form (“Mostly they support it, I think.”)"),
        ("empty", "no_text", "the client's model (scripted-model) answered with no text"),
    ],
)
@pytest.mark.slow
async def test_an_answer_not_in_the_asked_form_gets_the_worksheet(
    demo: Settings, tmp_path: Path, behaviour: str, status: str, why: str
) -> None:
    data = await check(client_stance(demo), tmp_path, ScriptedModel(behaviour))
    assert data["judge_status"] == status and why in data["judged_by"]
    assert data["judged_by"].startswith("Not judged: ")
    assert_worksheet(data)


@pytest.mark.slow
async def test_a_late_answer_is_not_used(demo: Settings, tmp_path: Path) -> None:
    data = await check(client_stance(demo, stance_timeout_s=0.2), tmp_path, ScriptedModel("judge", delay=0.6))
    assert data["judge_status"] == "late" and "answered after" in data["judged_by"]
    assert "(stance_timeout_s = 0.2)" in data["judged_by"]
    assert_worksheet(data)


@pytest.mark.slow
async def test_over_stdio_a_decline_then_the_worksheet(demo: Settings, tmp_path: Path) -> None:
    """The installed server as a subprocess, the official client pinned to 2026-07-28 over stdio: the
    model judges; a declined request ends that call; the next call answers with the worksheet."""
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path / "home"),
        "AGENT_ZOT_DATA_DIR": str(demo.data_dir),
        "AGENT_ZOT_EXPORT_DIR": str(tmp_path / "exports"),
        "AGENT_ZOT_STANCE": "client",
        "PYTHONPATH": str(Path(__file__).resolve().parents[3]),
    }
    params = StdioServerParameters(
        command=sys.executable,
        args=["-m", "agent_zot", "--library", str(demo.zotero_data_dir), "serve"],
        env=env,
    )
    judge, refuse = ScriptedModel("judge"), ScriptedModel("refuse")
    async with McpClient(params, mode=MODERN, sampling_callback=judge) as client:
        judged = await ask(client)
    assert judged.get("judge_status") == "judged", judged["_text"][:600]
    assert len(judge.asked) == 1
    async with McpClient(params, mode=MODERN, sampling_callback=refuse) as client:
        with pytest.raises(BaseException) as raised:
            await ask(client)
        assert "User rejected sampling request" in repr(raised.value)
        data = await ask(client)
    assert len(refuse.asked) == 1 and data["judge_status"] == "no_answer"
    assert_worksheet(data)


# -- stance = client, fastmcp's client --------------------------------------------------------------


async def fast_check(settings: Settings, home: Path, handler: Any) -> dict[str, Any]:
    ctx = AppContext(settings, home=home)
    try:
        async with FastClient(build_server(ctx), sampling_handler=handler) as client:
            result = await client.call_tool("zot_search", {"query": QUERY})
            data = dict(result.structured_content)
            data["_text"] = result.content[0].text
            return data
    finally:
        ctx.close()


@pytest.mark.slow
async def test_fastmcps_client_is_asked_too(demo: Settings, tmp_path: Path) -> None:
    asked: list[str] = []

    async def model(messages: Any, params: Any, context: Any) -> str:
        asked.append(messages[0].content.text)
        return judged_lines(messages[0].content.text)

    data = await fast_check(client_stance(demo), tmp_path, model)
    assert len(asked) == 1 and data["judge_status"] == "judged"
    assert data["judged_by"] == "Judged by the client's model (fastmcp-slim)."
    off = await fast_check(demo.model_copy(update={"stance": "none"}), tmp_path, model)
    assert len(asked) == 1 and off["judged_by"] == "Not judged: stance = none."


# -- the parts ------------------------------------------------------------------------------------------


def test_the_reply_is_read_strictly() -> None:
    stances = parse_reply(
        'Here you go:\n{"n": 2, "stance": "contradicts", "confidence": 0.7, "reason": "opposite effect"}\n'
        '{"n": 1, "stance": "Unrelated", "reason": "another question"}\n'
        '{"n": 2, "stance": "supports"}\n{"n": 3, "stance": "supports", "confidence": 0.2}',
        3,
    )
    assert [s.label for s in stances] == ["related", "contradicts", "unjudged"]  # low confidence: unjudged
    assert stances[1].reason == "opposite effect" and stances[1].score == 0.7


def test_a_reply_of_unsure_lines_is_not_called_out_of_form() -> None:
    digest = passages_digest("a claim", ["p one", "p two"])
    reply = (
        '{"n": 1, "stance": "supports", "confidence": 0.3}\n{"n": 2, "stance": "supports", "confidence": 0.1}'
    )
    judge = ClientJudge(ClientReply(reply, "m", 1.0, digest), timeout=60, max_tokens=1200)
    assert [s.label for s in judge.judge("a claim", ["p one", "p two"])] == ["unjudged", "unjudged"]
    assert judge.status == "unsure" and "unsure of every passage" in judge.note


def test_an_unanswered_question_is_not_asked_again_until_answered_or_forgotten() -> None:
    ledger = AskLedger(memory_s=600)
    first = ClientJudge(None, timeout=60, max_tokens=1200, ledger=ledger)
    first.judge("a claim", ["p one"])
    assert first.request is not None
    again = ClientJudge(None, timeout=60, max_tokens=1200, ledger=ledger)
    again.judge("a claim", ["p one"])
    assert again.request is None and again.status == "no_answer"
    other = ClientJudge(None, timeout=60, max_tokens=1200, ledger=ledger)
    other.judge("another claim", ["p one"])
    assert other.request is not None  # only that question
    reply = ClientReply('{"n": 1, "stance": "supports"}', "m", 1.0, first.request.digest)
    ClientJudge(reply, timeout=60, max_tokens=1200, ledger=ledger).judge("a claim", ["p one"])
    asked = ClientJudge(None, timeout=60, max_tokens=1200, ledger=ledger)
    asked.judge("a claim", ["p one"])
    assert asked.request is not None  # answered, so it may be asked again
    forgetful = AskLedger(memory_s=0)
    ClientJudge(None, timeout=60, max_tokens=1200, ledger=forgetful).judge("a claim", ["p one"])
    assert forgetful.unanswered_for(first.request.digest, first.request.asked_at + 1) is None


def test_a_long_pool_asks_about_its_best_passages_only() -> None:
    passages = [f"passage number {n} about the claim" for n in range(1, 31)]
    asking = ClientJudge(None, timeout=60, max_tokens=1200)
    assert all(s.label == "unjudged" for s in asking.judge("a claim", passages))
    assert asking.request is not None and asking.request.prompt.count("\n[") == MAX_PASSAGES
    reply = "\n".join(f'{{"n": {n}, "stance": "supports"}}' for n in range(1, MAX_PASSAGES + 1))
    digest = passages_digest("a claim", passages[:MAX_PASSAGES])
    answered = ClientJudge(ClientReply(reply, "m", 1.0, digest), timeout=60, max_tokens=1200)
    labels = [s.label for s in answered.judge("a claim", passages)]
    assert labels == ["supports"] * MAX_PASSAGES + ["unjudged"] * (30 - MAX_PASSAGES)


def last_passage_supports(prompt: str) -> str:
    """Only the last passage asked about takes a side; every other is unrelated."""
    numbers = [int(n) for n in _PASSAGE.findall(prompt)]
    return "\n".join(
        json.dumps({"n": n, "stance": "supports" if n == numbers[-1] else "unrelated", "confidence": 0.9})
        for n in numbers
    )


@pytest.mark.slow
async def test_the_clients_verdict_lifts_a_paper_retrieval_ranked_low(demo: Settings, tmp_path: Path) -> None:
    """The pool is judged a few papers deeper than the answer shows, every paper's best passage first; a
    paper the client's model finds taking a side comes before those it calls unrelated."""
    prompts: list[str] = []

    def scripted(reply: Any) -> Any:
        async def model(messages: Any, params: Any, context: Any) -> str:
            prompts.append(messages[0].content.text)
            return str(reply(messages[0].content.text))

        return model

    unrelated = scripted(
        lambda prompt: judged_lines(prompt).replace("supports", "x").replace("contradicts", "x")
    )
    plain = await fast_check(client_stance(demo), tmp_path, unrelated)
    lifted = await fast_check(client_stance(demo), tmp_path, scripted(last_passage_supports))
    shown = len(lifted["papers"])
    asked = [int(n) for n in _PASSAGE.findall(prompts[-1])]
    assert len(asked) > shown  # judged deeper than shown
    assert [p["stance"] for p in lifted["papers"][0]["passages"]].count("supports") == 1
    assert all(p["stance"] != "supports" for paper in lifted["papers"][1:] for p in paper["passages"])
    assert [p["key"] for p in plain["papers"]] != [p["key"] for p in lifted["papers"]]


def test_every_paper_is_asked_about_before_any_second_passage() -> None:
    from agent_zot.services.evidence.claim_check import EvidencePassage, breadth_first

    def passages(paper: str, count: int) -> list[EvidencePassage]:
        return [EvidencePassage(passage_of(f"{paper}{n}"), ["claim"]) for n in range(count)]

    order = breadth_first([passages("a", 3), passages("b", 1), passages("c", 2)])
    assert [p.passage.text for p in order] == ["a0", "b0", "c0", "a1", "c1", "a2"]


def test_a_decisive_judge_outranks_retrieval_and_a_small_one_only_nudges() -> None:
    from agent_zot.services.evidence.claim_check import EvidencePaper, EvidencePassage, by_bearing
    from agent_zot.services.evidence.stance import Stance

    def paper(key: str, bearing: float) -> EvidencePaper:
        found = EvidencePaper(key, 0.0, [EvidencePassage(passage_of(key), ["claim"])])
        found.passages[0].stance = Stance("supports" if bearing >= 0.5 else "related", 0.9, bearing)
        return found

    pool = [paper(key, 0.1) for key in "abcdefg"] + [paper("h", 0.95)]
    assert [p.item_key for p in by_bearing(pool, decisive=True)][:2] == ["h", "a"]
    nudged = [p.item_key for p in by_bearing(pool, decisive=False)]
    assert nudged[0] == "a" and nudged.index("h") < 7  # lifted, not put first


def passage_of(text: str) -> Passage:
    return Passage(text, "chunk", "ATT1", 1, 1, None, 1.0)
