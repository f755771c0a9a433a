"""The assistant as the judge: the claim check's worksheet (numbered passages cited [KEY p. N], the labels,
the verdicts' form) and its verdicts handed back to the review package (`zot_export` format `review`,
argument `verdicts`), each checked against a real indexed library built here (real PDFs, one sentence per
page, a real Zotero database), through a real MCP client and click's runner."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner
from fastmcp import Client

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, guard_database, index_library
from tests.paper_texts import LANES, REEF
from tests.pdf_factory import write_paper

CORALS = "Bleached corals recover within a few years when the water stays cool"
CYCLING = "Protected bicycle lanes make cycling safer"
FILLER = "The remaining paragraphs of this page describe the study sites and the data collection."


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("worksheet")
    b = ZoteroLibraryBuilder(root / "Zotero", shape="z7", seed=29)
    keys: dict[str, str] = {}
    for name, pages, title in (
        ("reef", REEF, "Coral reef bleaching after marine heatwaves"),
        ("lanes", LANES, "Protected bicycle lanes and urban safety"),
    ):
        keys[name] = b.add_item(
            "journalArticle", title=title, date="2021-00-00 2021", creators=[("Ana", "Moreau")]
        )
        pdf = write_paper(root / f"{name}.pdf", page_bodies=[f"{page} {FILLER}" for page in pages]).path
        b.add_attachment(keys[name], filename=f"{name}.pdf", content=pdf.read_bytes())
    db = guard_database(b.build())
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home"), keys


def verdict(key: str, page: int | None, quote: str, stance: str, **more: Any) -> dict[str, Any]:
    return {"item_key": key, "page": page, "quote": quote, "stance": stance, "reason": f"{stance} it"} | more


async def review(settings: Settings, **arguments: Any) -> tuple[Any, str]:
    result = await call_tool(settings, "zot_export", force_mode="review", overwrite=True, **arguments)
    assert not result.is_error, result.content[0].text
    return result, Path(result.structured_content["path"]).read_text(encoding="utf-8")


def section(body: str, number: int) -> str:
    """One claim's part of the package."""
    return body.split(f"## Claim {number}")[1].split("\n## ")[0]


# -- the worksheet ---------------------------------------------------------------------------------------

PASSAGE_LINE = re.compile(r"^   \[(\d+)\] \[([A-Z0-9]{8}) pp?\. (\d+)[^\]]*\] (.+)$", re.MULTILINE)


@pytest.mark.slow
async def test_the_worksheet_asks_the_assistant_and_its_verdicts_come_back_checked(
    library: tuple[Settings, dict[str, str]],
) -> None:
    settings, keys = library
    found = await call_tool(settings, "zot_search", query=f"is there evidence that {CORALS}?")
    text, data = found.content[0].text, found.structured_content
    assert data["route"]["mode"] == "evidence" and data["judge_status"] == "worksheet"
    passages = PASSAGE_LINE.findall(text)
    numbers = [int(n) for n, *_ in passages]
    assert numbers == list(range(1, len(numbers) + 1)) == data["to_judge"]
    assert [p["n"] for paper in data["papers"] for p in paper["passages"]] == numbers
    assert "Not judged by agent-zot (stance = auto, no nli_model): you judge." in text
    assert (
        "Judge each passage: supports (backs the claim) | contradicts (finds or argues against it) | " in text
    )
    assert "unrelated (another question, or no side); a one-line reason each." in text
    assert (
        'verdicts=[{"item_key": "KEY", "page": <PDF page of the quote>, "quote": "<3+ words of the passage, as printed>"'
        in text
    )
    # The assistant fills it: a verdict on every passage, quoting its first words, in the form asked.
    verdicts = [
        verdict(
            key, int(page), " ".join(words.split()[:6]), "supports" if key == keys["reef"] else "unrelated"
        )
        for _, key, page, words in passages
    ]
    result, body = await review(settings, draft=CORALS, verdicts=verdicts, path="corals.md")
    n = len(verdicts)
    assert result.structured_content["verdicts"] == {
        "given": n,
        "verified": n,
        "unverified": 0,
        "unplaced": 0,
    }
    assert f"Judged by the assistant: {n} verdicts, {n} verified, 0 unverified." in result.content[0].text
    assert "**Supports (the assistant's verdicts, checked):**" in body and "Unverified verdicts" not in body


@pytest.mark.slow
async def test_verdicts_say_who_judged_them(library: tuple[Settings, dict[str, str]]) -> None:
    # A view sends what the person in it chose (judge="person"); the package names them, not the assistant.
    settings, keys = library
    found = await call_tool(settings, "zot_search", query=f"is there evidence that {CORALS}?")
    passages = PASSAGE_LINE.findall(found.content[0].text)
    _, key, page, words = next(p for p in passages if p[1] == keys["reef"])
    quote = " ".join(words.split()[:6])
    person = verdict(key, int(page), quote, "supports", judge="person")
    result, body = await review(settings, draft=CORALS, verdicts=[person], path="person.md")
    text = result.content[0].text
    assert "Judged by the person in the view: 1 verdict, 1 verified, 0 unverified." in text
    assert "**Supports (the person's verdicts, checked):**" in body and "the assistant's verdicts" not in body
    wrong = verdict(key, int(page), "words printed nowhere at all", "contradicts", judge="person")
    both = [verdict(key, int(page), quote, "supports"), wrong]
    result, body = await review(settings, draft=CORALS, verdicts=both, path="both.md")
    assert "Judged by the assistant and the person in the view: 2 verdicts, 1 verified, 1 unverified." in (
        result.content[0].text
    )
    assert "1 of the verdicts by the person in the view did not check out" in body
    bad = await call_tool(
        settings,
        "zot_export",
        force_mode="review",
        draft=CORALS,
        verdicts=[verdict(key, 1, quote, "supports", judge="x")],
    )
    assert bad.is_error


# -- verdicts in the review package --------------------------------------------------------------------


@pytest.mark.slow
async def test_each_verdict_is_checked_and_only_the_verified_ones_are_stated(
    library: tuple[Settings, dict[str, str]],
) -> None:
    settings, keys = library
    reef, lanes = keys["reef"], keys["lanes"]
    verdicts = [
        verdict(reef, 2, "Bleached corals recovered within four years", "supports", claim=CORALS),
        verdict(reef, 3, "Bleached corals recovered within four years", "contradicts", claim=CORALS.lower()),
        verdict(lanes, 1, "reduced cyclist injuries by forty percent", "supports", claim=CYCLING + "."),
        verdict(lanes, 3, "Retail revenue along the redesigned corridors", "unrelated", claim=CYCLING),
        verdict("ZZZZ2345", 1, "marine heatwaves caused mass bleaching", "supports", claim=CORALS),
        verdict(
            reef, 1, "Marine heatwaves caused mass coral bleaching", "supports", claim="Volcanic ash grounds"
        ),
        verdict(lanes, 2, "the results", "supports", claim=CYCLING),
        verdict(lanes, 2, "bicycle lanes are dangerous for everyone", "contradicts", claim=CYCLING),
    ]
    result, body = await review(
        settings, draft=f"{CORALS}\n{CYCLING}\n", verdicts=verdicts, path="checked.md"
    )
    data, text = result.structured_content, result.content[0].text
    assert data["verdicts"] == {"given": 8, "verified": 3, "unverified": 4, "unplaced": 1}
    assert "Judged by the assistant: 7 verdicts, 3 verified, 4 unverified; 1 on no packaged claim." in text
    checks = {c["n"]: c for c in data["verdict_checks"]}
    assert [checks[n]["status"] for n in range(1, 9)] == [
        "verified",
        "unverified",
        "verified",
        "verified",
        "unverified",
        "unplaced",
        "unverified",
        "unverified",
    ]
    assert checks[2]["reason"] == "the quoted words are on p. 2, not p. 3"
    assert checks[5]["reason"] == "no item 'ZZZZ2345' in the library"
    assert checks[7]["reason"].startswith("quote at least 3 words")
    assert checks[8]["reason"].startswith("the quoted words are not in the paper")
    assert "is not one of the package's claims" in checks[6]["reason"]
    assert (
        f"- verdict 2 [{reef} p. 3]: the quoted words are on p. 2, not p. 3" in text
    )  # the assistant can fix it

    corals = section(body, 1)
    assert corals.index("**Supports (the assistant's verdicts, checked):**") < corals.index(f"[{reef}]")
    assert "p. 2: “Bleached corals recovered within four years” (supports it)" in corals
    assert "**Contradicts" not in corals  # its only contradicting verdict failed: never stated as fact
    assert f"- Verdict 2: [{reef}] p. 3, said *contradicts*" in corals
    assert "Not checked out: the quoted words are on p. 2, not p. 3." in corals
    assert "2 of the verdicts by the assistant did not check out (see Unverified verdicts)" in corals
    assert "*Judged by the assistant: 3 verdicts, 1 verified, 2 unverified." in corals
    cycling = section(body, 2)
    assert "**Supports (the assistant's verdicts, checked):**" in cycling
    assert "**Unrelated to the claim (the assistant's verdicts, checked):**" in cycling
    assert "p. 3: “Retail revenue along the redesigned corridors”" in cycling
    assert "No passage was judged to support" not in body
    unplaced = body.split("## Verdicts on no packaged claim")[1]
    assert "Verdict 6:" in unplaced and "Volcanic ash grounds" in unplaced


@pytest.mark.slow
async def test_a_verdict_without_its_claim_goes_to_the_claim_whose_evidence_holds_it(
    library: tuple[Settings, dict[str, str]],
) -> None:
    settings, keys = library
    verdicts = [verdict(keys["lanes"], 1, "reduced cyclist injuries by forty percent", "supports")]
    _, body = await review(settings, draft=f"{CORALS}\n{CYCLING}\n", verdicts=verdicts, path="placed.md")
    assert "“reduced cyclist injuries by forty percent”" not in section(body, 1)
    assert "p. 1: “reduced cyclist injuries by forty percent”" in section(body, 2)


@pytest.mark.slow
async def test_verdicts_alone_name_the_claims(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    verdicts = [
        verdict(
            keys["reef"], 3, "Reef fish diversity declined by thirty percent", "contradicts", claim=CORALS
        ),
    ]
    result, body = await review(settings, verdicts=verdicts, path="alone.md")
    assert result.structured_content["claims"] == 1 and f"## Claim 1\n\n> {CORALS}" in body
    assert "**Contradicts (the assistant's verdicts, checked):**" in body
    # someone judged, and nothing they found supports it: that is worth saying
    assert "No passage was judged to support the claim (judged by the assistant)." in body


@pytest.mark.slow
async def test_when_nobody_judged_the_package_says_so(library: tuple[Settings, dict[str, str]]) -> None:
    settings, _ = library
    result, body = await review(settings, draft=CORALS, path="unjudged.md")
    text = result.content[0].text
    assert "Not judged (stance = auto and no nli_model is set); no verdicts were given" in text
    assert "*Not judged (stance = auto and no nli_model is set).*" in body
    assert "Nobody judged these passages (stance = auto and no nli_model is set)" in body
    assert "No passage was judged to support" not in body


@pytest.mark.slow
async def test_the_review_package_never_asks_the_clients_model(
    library: tuple[Settings, dict[str, str]], tmp_path: Path
) -> None:
    asked: list[str] = []

    async def model(messages: Any, params: Any, context: Any) -> str:
        asked.append(messages[0].content.text)
        return ""

    settings = library[0].model_copy(update={"stance": "client"})
    ctx = AppContext(settings, home=tmp_path)
    try:
        async with Client(build_server(ctx), sampling_handler=model) as client:
            result = await client.call_tool(
                "zot_export", {"draft": CORALS, "path": "client.md", "overwrite": True}, raise_on_error=False
            )
    finally:
        ctx.close()
    assert asked == [] and not result.is_error
    assert "the review package does not ask the client's model" in result.content[0].text


@pytest.mark.slow
async def test_bad_verdicts_get_an_actionable_error(library: tuple[Settings, dict[str, str]]) -> None:
    settings, keys = library
    wrong = await call_tool(
        settings,
        "zot_export",
        draft=CORALS,
        verdicts=[verdict(keys["reef"], 2, "Bleached corals recovered", "maybe")],
    )
    assert wrong.is_error and "stance" in wrong.content[0].text and "supports" in wrong.content[0].text
    typo = await call_tool(
        settings,
        "zot_export",
        draft=CORALS,
        verdicts=[{**verdict(keys["reef"], 2, "a b c", "supports"), "key": "X"}],
    )
    assert typo.is_error and "key" in typo.content[0].text
    nothing = await call_tool(
        settings, "zot_export", verdicts=[verdict(keys["reef"], 2, "a b c", "supports")]
    )
    assert nothing.is_error and "needs the draft" in nothing.content[0].text
    assert "name each verdict's claim" in nothing.content[0].text


@pytest.mark.slow
def test_the_command_line_takes_verdicts_from_a_file(
    library: tuple[Settings, dict[str, str]], tmp_path: Path
) -> None:
    settings, keys = library
    claims, verdicts = tmp_path / "claims.txt", tmp_path / "verdicts.json"
    claims.write_text(CORALS + "\n", encoding="utf-8")
    verdicts.write_text(
        json.dumps([verdict(keys["reef"], 2, "Bleached corals recovered within four years", "supports")]),
        encoding="utf-8",
    )
    args = ["--library", str(settings.zotero_data_dir), "export", "cli-review.md", "--draft", str(claims)]
    env = {"AGENT_ZOT_DATA_DIR": str(settings.data_dir), "AGENT_ZOT_EXPORT_DIR": str(settings.export_dir)}
    result = CliRunner().invoke(cli, [*args, "--verdicts", str(verdicts)], env=env)
    assert result.exit_code == 0, result.output
    assert "Judged by the assistant: 1 verdict, 1 verified, 0 unverified." in result.output
    verdicts.write_text("{not json", encoding="utf-8")
    broken = CliRunner().invoke(cli, [*args, "--overwrite", "--verdicts", str(verdicts)], env=env)
    assert broken.exit_code != 0 and "is not JSON" in broken.output


def test_a_partly_judged_answer_asks_only_for_the_rest() -> None:
    from agent_zot.services.evidence.stance import NoJudge
    from agent_zot.services.evidence.worksheet import judged_by, worksheet

    lines = worksheet([2, 3, 4, 7], total=8)
    assert lines[0].startswith("Judge passages [2]–[4], [7]: supports (backs the claim) | contradicts")
    assert worksheet([], total=8) == []

    class Nli:
        name, decisive = "nli:tiny", False

    assert judged_by(Nli(), 4, 8) == (
        "partly_judged",
        "Judged by nli:tiny: 4 of 8 passages; the rest are yours.",
    )
    assert judged_by(Nli(), 8, 8) == ("judged", "Judged by nli:tiny.")
    assert judged_by(NoJudge("off", "stance = none"), 0, 8) == ("off", "Not judged: stance = none.")
