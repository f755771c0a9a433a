"""The claim check's stance judged by the client's own model, through a real fastmcp client whose sampling
handler is scripted here: one batched request per claim, parsed strictly, bounded in tokens and time, and
off when the client cannot sample or the user turns it off. Every answer says who judged."""

from __future__ import annotations

import asyncio
import json
import re
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.evidence.client_judge import (
    MAX_PASSAGES,
    ClientJudge,
    ClientReply,
    parse_reply,
    passages_digest,
)
from agent_zot.services.passages import Passage
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

CLAIM = "pretraining on scientific text improves results on scientific NLP tasks"
_PASSAGE = re.compile(r"^\[(\d+)\] ", re.MULTILINE)


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("client-judge")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home")


class ScriptedModel:
    """A client's model: answers each request with ``reply(prompt)`` after ``delay`` seconds; records what
    it was asked."""

    def __init__(self, reply: Any, delay: float = 0.0) -> None:
        self.reply, self.delay = reply, delay
        self.asked: list[dict[str, Any]] = []

    async def __call__(self, messages: Any, params: Any, context: Any) -> str:
        prompt = messages[0].content.text
        self.asked.append({"prompt": prompt, "system": params.system_prompt, "max_tokens": params.max_tokens})
        await asyncio.sleep(self.delay)
        return self.reply(prompt)


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


async def check(settings: Settings, home: Path, model: ScriptedModel | None) -> dict[str, Any]:
    ctx = AppContext(settings, home=home)
    try:
        async with Client(build_server(ctx), sampling_handler=model) as client:
            result = await client.call_tool("zot_search", {"query": f"is there evidence that {CLAIM}?"})
            data = result.structured_content
            data["_text"] = result.content[0].text
            return data
    finally:
        ctx.close()


async def test_the_clients_model_judges_every_passage_in_one_request(demo: Settings, tmp_path: Path) -> None:
    model = ScriptedModel(judged_lines)
    data = await check(demo, tmp_path, model)
    assert len(model.asked) == 1  # one batched request for the claim and all its passages
    asked = model.asked[0]
    assert asked["prompt"].startswith(f"Claim: {CLAIM}") and "one JSON object per line" in asked["system"]
    numbers = [int(n) for n in _PASSAGE.findall(asked["prompt"])]
    assert numbers == list(range(1, len(numbers) + 1)) and 2 <= len(numbers) <= MAX_PASSAGES
    assert asked["max_tokens"] <= demo.stance_max_tokens
    passages = [p for paper in data["papers"] for p in paper["passages"]]
    assert {p["stance"] for p in passages} == {"supports", "contradicts"}
    assert all(p["stance_reason"].startswith("passage ") for p in passages)
    assert data["stance_judge"].startswith("client") and "client's model" in data["judged_by"]
    assert data["counts"]["unjudged"] == 0 and data["counts"]["supports"] >= 1
    assert "Stances judged by the client's model" in data["_text"]


@pytest.mark.parametrize(
    ("reply", "why"),
    [
        (lambda prompt: "Mostly they support it, I think.", "no answer in the asked form"),  # malformed
        (
            lambda prompt: "I can't help with judging these passages.",
            "no answer in the asked form",
        ),  # refusal
        (
            lambda prompt: '{"n": 99, "stance": "supports"}\n{"n": 1, "stance": "maybe"}',
            "no answer in the asked form",
        ),
    ],
)
async def test_a_reply_not_in_the_asked_form_leaves_the_passages_unjudged(
    demo: Settings, tmp_path: Path, reply: Any, why: str
) -> None:
    data = await check(demo, tmp_path, ScriptedModel(reply))
    assert data["counts"]["supports"] == data["counts"]["contradicts"] == 0
    assert why in data["judged_by"] and "judge yourself" in data["judged_by"]


async def test_a_slow_client_is_not_waited_for(demo: Settings, tmp_path: Path) -> None:
    settings = demo.model_copy(update={"stance_timeout_s": 0.2})
    data = await check(settings, tmp_path, ScriptedModel(judged_lines, delay=0.6))
    assert data["counts"]["supports"] == 0 and "answered after" in data["judged_by"]


async def test_a_client_without_sampling_gets_unjudged_passages_and_says_why(
    demo: Settings, tmp_path: Path
) -> None:
    data = await check(demo, tmp_path, None)
    assert data["stance_judge"] == "none" and "client cannot sample" in data["judged_by"]
    forced = await check(demo.model_copy(update={"stance": "client"}), tmp_path, None)
    assert "no sampling" in forced["judged_by"]


async def test_the_user_can_turn_the_clients_judgement_off(demo: Settings, tmp_path: Path) -> None:
    model = ScriptedModel(judged_lines)
    data = await check(demo.model_copy(update={"stance": "none"}), tmp_path, model)
    assert model.asked == [] and data["stance_judge"] == "none"


def test_the_reply_is_read_strictly() -> None:
    stances = parse_reply(
        'Here you go:\n{"n": 2, "stance": "contradicts", "confidence": 0.7, "reason": "opposite effect"}\n'
        '{"n": 1, "stance": "Unrelated", "reason": "another question"}\n'
        '{"n": 2, "stance": "supports"}\n{"n": 3, "stance": "supports", "confidence": 0.2}',
        3,
    )
    assert [s.label for s in stances] == ["related", "contradicts", "unjudged"]  # low confidence: unjudged
    assert stances[1].reason == "opposite effect" and stances[1].score == 0.7


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


async def test_the_clients_verdict_lifts_a_paper_retrieval_ranked_low(demo: Settings, tmp_path: Path) -> None:
    """The pool is judged a few papers deeper than the answer shows, every paper's best passage first; a
    paper the client's model finds taking a side comes before those it calls unrelated."""
    unrelated = ScriptedModel(
        lambda prompt: judged_lines(prompt).replace("supports", "x").replace("contradicts", "x")
    )
    plain = await check(demo, tmp_path, unrelated)
    lifted_model = ScriptedModel(last_passage_supports)
    lifted = await check(demo, tmp_path, lifted_model)
    shown = len(lifted["papers"])
    asked = [int(n) for n in _PASSAGE.findall(lifted_model.asked[0]["prompt"])]
    assert len(asked) > shown  # judged deeper than shown
    assert [p["stance"] for p in lifted["papers"][0]["passages"]].count("supports") == 1
    assert all(p["stance"] != "supports" for paper in lifted["papers"][1:] for p in paper["passages"])
    assert [p["key"] for p in plain["papers"]] != [p["key"] for p in lifted["papers"]]


def test_every_paper_is_asked_about_before_any_second_passage() -> None:
    from agent_zot.services.evidence import EvidencePassage, breadth_first

    def passages(paper: str, count: int) -> list[EvidencePassage]:
        return [EvidencePassage(passage_of(f"{paper}{n}"), ["claim"]) for n in range(count)]

    order = breadth_first([passages("a", 3), passages("b", 1), passages("c", 2)])
    assert [p.passage.text for p in order] == ["a0", "b0", "c0", "a1", "c1", "a2"]


def test_a_decisive_judge_outranks_retrieval_and_a_small_one_only_nudges() -> None:
    from agent_zot.services.evidence import EvidencePaper, EvidencePassage, by_bearing
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
