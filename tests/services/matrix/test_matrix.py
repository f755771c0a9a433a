"""The review matrix (`zot_summarize` mode `matrix`, `zot_export` mode `matrix`, `agent-zot matrix`) through a
real fastmcp client on a library of real text PDFs (fpdf2) indexed with the embedded stack: one row per
paper of a collection, each cell the right sentence and page, "not found" cells, numbers with units,
abstract-only rows, the row cap with the next call, every argument, CSV and Markdown files, the CLI and
the README's example."""

from __future__ import annotations

import csv
import io
import re
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.services.context import AppContext
from agent_zot.services.matrix.quantities import answer_quantity
from agent_zot.services.matrix.scope import split_questions
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import call_tool, guard_database, index_library
from tests.matrix_library import build_trials_library

REQUEST = "for each paper in my Trials collection, what was the sample size and the primary outcome"


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return build_trials_library(tmp_path_factory.mktemp("matrix"))


def cell_lines(text: str) -> dict[str, list[str]]:
    """The text's cells per paper title: each cell's first line ('   Q1 [p. 2]: ...', its best candidate)
    under '1. [KEY] ... Title'; the other candidates ('   or [p. 3]: ...') are left out."""
    rows: dict[str, list[str]] = {}
    current = ""
    for line in text.splitlines():
        if re.match(r"^\d+\. \[", line):
            current = line
            rows[current] = []
        elif current and line.startswith("   ") and not line.startswith("   or "):
            rows[current].append(line.strip())
    return rows


def row_of(rows: dict[str, list[str]], title: str) -> list[str]:
    return next(cells for head, cells in rows.items() if title in head)


@pytest.mark.slow
async def test_the_request_routes_to_a_matrix_of_the_collection_with_page_cited_cells(
    library: Settings,
) -> None:
    result = await call_tool(library, "zot_summarize", query=REQUEST)
    data, text = result.structured_content, result.content[0].text
    assert data["route"]["mode"] == "matrix"
    assert data["questions"] == ["what was the sample size", "what was the primary outcome"]
    assert data["scope"] == {"collection": "Trials"} and data["total"] == 3 and data["next"] is None
    rows = cell_lines(text)
    adams = row_of(rows, "Metformin and glycaemic control")
    assert adams[0].startswith("Q1 [p. 2]:") and "We enrolled 120 patients" in adams[0]
    assert adams[0].endswith("→ 120 patients")
    assert adams[1].startswith("Q2 [p. 3]:") and "The primary outcome was the change in HbA1c" in adams[1]
    brown = row_of(rows, "Walking and blood pressure")
    assert "48 participants" in brown[0] and brown[0].startswith("Q1 [p. 2]:")
    assert "systolic blood pressure" in brown[1]
    clark = row_of(rows, "A walking programme for adults")
    assert "answered from the abstract" in clark[0]
    assert clark[1].startswith("Q1 [abstract]:") and "64 adults" in clark[1]
    by_key = {row["title"]: row for row in data["rows"]}
    first = by_key["Metformin and glycaemic control"]["cells"][0]
    assert first["candidates"][0]["page"] == 2
    assert first["quantity"] == {"value": 120, "unit": "patients", "text": "120 patients"}
    assert by_key["A walking programme for adults with diabetes"]["source"] == "abstract"
    assert "Statins" not in text  # not in the collection
    assert data["tokens"] == (len(text) + 3) // 4


@pytest.mark.slow
async def test_a_question_a_paper_never_answers_is_not_found_with_what_was_searched(
    library: Settings,
) -> None:
    result = await call_tool(
        library, "zot_summarize", questions=["funding agency"], collection="Trials", force_mode="matrix"
    )
    rows = cell_lines(result.content[0].text)
    assert "National Diabetes Agency" in row_of(rows, "Metformin")[0]
    assert row_of(rows, "Walking and blood pressure")[0] == "Q1: not found (searched: full text, 2 pages)"
    cells = {row["title"]: row["cells"][0] for row in result.structured_content["rows"]}
    assert cells["Walking and blood pressure"] == {"found": False, "searched": "full text, 2 pages"}


@pytest.mark.slow
async def test_quantities_come_with_their_units(library: Settings) -> None:
    key = await _key(library, "Metformin and glycaemic control")
    result = await call_tool(
        library, "zot_summarize", questions=["what dose of metformin", "how many patients"], item_keys=[key]
    )
    cells = result.structured_content["rows"][0]["cells"]
    assert cells[0]["quantity"]["value"] == 500 and cells[0]["quantity"]["unit"] == "milligram"
    assert cells[1]["quantity"]["value"] == 120 and cells[1]["quantity"]["unit"] == "patients"
    assert result.structured_content["route"]["mode"] == "matrix"  # item_keys picks the mode
    assert "→ 500 milligram" in result.content[0].text


def test_the_quantity_parser_reads_counts_ranges_and_percentages() -> None:
    assert answer_quantity("sample size", "Participants (n=368) aged 65-75 years").value == 368
    dose = answer_quantity("what lethal dose", "The lethal dose ranged from 30 to 60 mg/kg body weight.")
    assert (dose.value, dose.value_max, dose.unit) == (30, 60, "milligram per kilogram")
    share = answer_quantity("what percentage survived", "only 24% of men survived 5 years.")
    assert (share.value, share.unit) == (24, "percent")
    weeks = answer_quantity("how long was the treatment", "We gave 500 mg of metformin daily for 12 weeks.")
    assert (weeks.value, weeks.unit) == (12, "week")
    tokens = answer_quantity("how many tokens", "S2ORC has 25B tokens of body text.")
    assert (tokens.value, tokens.unit) == (25e9, "tokens")


@pytest.mark.slow
async def test_rows_are_capped_and_the_answer_gives_the_next_call(library: Settings) -> None:
    first = await call_tool(library, "zot_summarize", questions=["how many adults"], collection="Cohort")
    data = first.structured_content
    assert data["total"] == 12 and len(data["rows"]) == 10 and data["offset"] == 1
    following = data["next"]
    assert following == {
        "force_mode": "matrix",
        "questions": ["how many adults"],
        "collection": "Cohort",
        "offset": 11,
    }
    assert (
        'Next rows: zot_summarize(force_mode="matrix", questions=["how many adults"], '
        in first.content[0].text
    )
    second = await call_tool(library, "zot_summarize", **following)
    rest = second.structured_content
    assert [r["title"] for r in rest["rows"]] == ["Cohort study number 11", "Cohort study number 12"]
    assert rest["next"] is None and "(rows 11–12 of 12)" in second.content[0].text
    assert rest["rows"][0]["cells"][0]["quantity"]["value"] == 110


@pytest.mark.slow
async def test_tags_search_and_max_tokens_take_effect(library: Settings) -> None:
    tagged = await call_tool(
        library, "zot_summarize", questions=["how many adults or patients"], tags=["rct"]
    )
    assert sorted(r["title"] for r in tagged.structured_content["rows"]) == [
        "Metformin and glycaemic control",
        "Statins in older adults",
    ]
    found = await call_tool(
        library, "zot_summarize", questions=["primary outcome"], search="blood pressure walking"
    )
    titles = [r["title"] for r in found.structured_content["rows"]]
    assert titles[0] == "Walking and blood pressure" and "Statins in older adults" not in titles[:1]
    small = await call_tool(
        library, "zot_summarize", questions=["sample size", "primary outcome"], collection="Trials"
    )
    big = await call_tool(
        library,
        "zot_summarize",
        questions=["sample size", "primary outcome"],
        collection="Trials",
        max_tokens=200,
    )
    assert "Candidates cut to 110 characters" in big.content[0].text and "…" in big.content[0].text
    assert "Candidates cut" not in small.content[0].text and "…" not in small.content[0].text


@pytest.mark.slow
async def test_bad_requests_say_what_to_do(library: Settings) -> None:
    none = await call_tool(library, "zot_summarize", questions=["sample size"], force_mode="matrix")
    assert none.is_error and "collection='Trials'" in none.content[0].text
    past = await call_tool(library, "zot_summarize", questions=["sample size"], collection="Trials", offset=9)
    assert past.is_error and "offset=1" in past.content[0].text
    many = await call_tool(
        library, "zot_summarize", questions=[f"q{n}" for n in range(9)], collection="Trials"
    )
    assert many.is_error and "at most 8" in many.content[0].text


@pytest.mark.slow
async def test_export_writes_csv_and_markdown(library: Settings) -> None:
    result = await call_tool(
        library,
        "zot_export",
        questions=["sample size", "primary outcome"],
        collection="Trials",
        path="trials.csv",
    )
    assert result.structured_content["route"]["mode"] == "matrix"
    rows = list(csv.DictReader(io.StringIO(Path(result.structured_content["path"]).read_text())))
    adams = next(r for r in rows if r["title"] == "Metformin and glycaemic control")
    assert "We enrolled 120 patients" in adams["Q1 sample size"] and adams["Q1 page"] == "p. 2"
    assert (adams["Q1 value"], adams["Q1 unit"]) == ("120", "patients")
    assert adams["Q2 page"] == "p. 3" and adams["source"] == "full text"
    assert next(r for r in rows if r["title"].startswith("A walking"))["source"] == "abstract"
    routed = await call_tool(
        library,
        "zot_export",
        query="export a review matrix of my Trials collection with sample size and primary outcome to trials.md",
    )
    text = Path(routed.structured_content["path"]).read_text()
    assert routed.structured_content["questions"] == ["sample size", "primary outcome"]
    assert text.startswith("# Review matrix: collection 'Trials'")
    assert "| Paper | Q1 | Q2 |" in text and "(p. 2) → **120 patients**" in text
    wrong = await call_tool(library, "zot_export", questions=["x"], collection="Trials", path="t.bib")
    assert wrong.is_error and ".csv or .md" in wrong.content[0].text


@pytest.mark.slow
def test_the_cli_prints_a_page_and_writes_a_file(library: Settings, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(library.data_dir))
    monkeypatch.setenv("AGENT_ZOT_EXPORT_DIR", str(library.export_dir))
    base = [
        "--library",
        str(library.zotero_data_dir),
        "matrix",
        "-q",
        "sample size",
        "--collection",
        "Trials",
    ]
    shown = CliRunner().invoke(cli, base, catch_exceptions=False)
    assert (
        shown.exit_code == 0
        and "We enrolled 120 patients" in shown.output
        and "→ 120 patients" in shown.output
    )
    written = CliRunner().invoke(cli, [*base, "--out", "cli.md"], catch_exceptions=False)
    assert written.exit_code == 0 and (library.export_dir / "cli.md").is_file()
    assert "1 question" in written.output


def test_questions_are_read_from_the_request() -> None:
    assert split_questions(REQUEST, {"collection": "Trials"}) == [
        "what was the sample size",
        "what was the primary outcome",
    ]
    assert split_questions(
        "for every paper tagged rct: sample size, dose and follow-up", {"tags": ["rct"]}
    ) == [
        "sample size",
        "dose",
        "follow-up",
    ]


README = Path(__file__).resolve().parents[3] / "README.md"
README_REQUEST = (
    "for each paper in my Thesis collection: which fields does it cover, and how are duplicates handled?"
)


@pytest.mark.slow
async def test_the_readme_example(tmp_path_factory: pytest.TempPathFactory) -> None:
    assert README_REQUEST in " ".join(README.read_text(encoding="utf-8").split())
    root = tmp_path_factory.mktemp("readme-matrix")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    index_library(settings, root / "home")
    result = await call_tool(settings, "zot_summarize", query=README_REQUEST)
    data, text = result.structured_content, result.content[0].text
    assert data["route"]["mode"] == "matrix" and data["scope"] == {"collection": "Thesis"}
    assert data["questions"] == ["which fields does it cover", "how are duplicates handled"]
    rows = cell_lines(text)
    s2orc = row_of(rows, "S2ORC")
    assert s2orc[0].startswith("Q1 [p. 1]:") and "Coverage is uneven across fields" in s2orc[0]
    assert s2orc[1].startswith("Q2 [p. 1]:") and "Duplicates are merged using identifiers" in s2orc[1]
    assert row_of(rows, "SciBERT")[1] == "Q2: not found (searched: full text, 2 pages)"
    assert "(no full text, no readable file attached; no abstract either)" in row_of(rows, "Attention Is All")


async def _key(settings: Settings, title: str) -> str:
    ctx = AppContext(settings)
    try:
        return next(i.key for i in ctx.library().items.values() if i.title == title)
    finally:
        ctx.close()


@pytest.mark.slow
async def test_a_key_the_matrix_cannot_use_is_said_in_its_row_and_the_others_are_answered(
    library: Settings,
) -> None:
    key = await _key(library, "Metformin and glycaemic control")
    result = await call_tool(
        library, "zot_summarize", questions=["how many patients"], item_keys=[key, "BADKEY99"]
    )
    assert not result.is_error
    text, data = result.content[0].text, result.structured_content
    assert "We enrolled 120 patients" in text
    assert "2. [BADKEY99]" in text and "No item with key 'BADKEY99' in this library" in text
    bad = data["rows"][1]
    assert bad["item_key"] == "BADKEY99" and bad["cells"] == [] and "No item with key" in bad["error"]


@pytest.mark.slow
async def test_a_matrix_with_no_questions_is_a_clear_error(library: Settings) -> None:
    result = await call_tool(
        library, "zot_summarize", query="review matrix", collection="Trials", force_mode="matrix"
    )
    assert result.is_error and "Which questions?" in result.content[0].text


@pytest.mark.slow
async def test_the_answer_asks_the_assistant_to_fill_the_cells_with_checked_citations(
    library: Settings,
) -> None:
    result = await call_tool(library, "zot_summarize", query=REQUEST)
    text = result.content[0].text
    assert "Fill each cell" in text and "[KEY p. N]" in text and "cells=[{item_key, question: N" in text


@pytest.mark.slow
async def test_filled_cells_are_written_only_after_each_citation_is_checked(library: Settings) -> None:
    metformin = await _key(library, "Metformin and glycaemic control")
    walking = await _key(library, "Walking and blood pressure")
    cells = [
        {"item_key": metformin, "question": 1, "answer": "120 patients", "value": 120, "page": 2,
         "quote": "We enrolled 120 patients with type 2 diabetes"},  # right
        {"item_key": metformin, "question": 2, "answer": "change in HbA1c", "page": 2,
         "quote": "The primary outcome was the change in HbA1c"},  # on p. 3, not p. 2
        {"item_key": walking, "question": 1, "answer": "48 people", "value": 84, "page": 2,
         "quote": "A total of 48 participants took part"},  # the value is not in the quote
        {"item_key": walking, "question": 2, "answer": "diastolic pressure", "page": 2,
         "quote": "The primary outcome was diastolic pressure at one year"},  # words not in the paper
        {"item_key": "NOSUCH99", "question": 1, "answer": "12", "page": 1, "quote": "twelve of them took part"},
    ]  # fmt: skip
    result = await call_tool(
        library,
        "zot_export",
        questions=["sample size", "primary outcome"],
        collection="Trials",
        cells=cells,
        path="filled.csv",
    )
    data, text = result.structured_content, result.content[0].text
    assert data["route"]["mode"] == "matrix" and data["verified"] == 1
    reasons = {(u["item_key"], u["question"]): u["reason"] for u in data["unverified"]}
    assert reasons[(metformin, 2)] == "the quoted words are on p. 3, not p. 2"
    assert reasons[(walking, 1)] == "the value 84 is not among the quoted words"
    assert reasons[(walking, 2)].startswith("the quoted words are not in the paper")
    assert "not a row of this matrix" in reasons[("NOSUCH99", 1)]
    assert "1 cells verified, 4 unverified, 2 not filled" in text and "on p. 3, not p. 2" in text
    rows = {r["item_key"]: r for r in csv.DictReader(io.StringIO(Path(data["path"]).read_text("utf-8-sig")))}
    adams = rows[metformin]
    assert (adams["Q1 sample size"], adams["Q1 value"], adams["Q1 check"]) == (
        "120 patients",
        "120",
        "verified",
    )
    assert adams["Q1 citation"] == f"[{metformin} p. 2]"
    assert adams["Q2 primary outcome"] == "" and adams["Q2 check"].startswith(
        "unverified: the quoted words are on p. 3"
    )
    assert rows[walking]["Q1 sample size"] == "" and "answer given: 48 people" in rows[walking]["Q1 check"]
    clark = next(r for r in rows.values() if r["title"].startswith("A walking"))
    assert clark["Q1 check"] == "not filled"
    fixed = await call_tool(
        library,
        "zot_export",
        questions=["sample size", "primary outcome"],
        collection="Trials",
        cells=[cells[0], {**cells[1], "page": 3}],
        path="filled.md",
    )
    markdown = Path(fixed.structured_content["path"]).read_text()
    assert fixed.structured_content["verified"] == 2 and fixed.structured_content["unverified"] == []
    assert "Cells filled by the assistant" in markdown and f"change in HbA1c [{metformin} p. 3] ✓" in markdown


@pytest.mark.slow
async def test_a_targeted_review_question_reads_the_whole_paper_for_its_kind_of_answer(
    library: Settings,
) -> None:
    key = await _key(library, "Metformin and glycaemic control")
    result = await call_tool(
        library, "zot_summarize", query="how many patients took part", item_key=key, force_mode="targeted"
    )
    first = next(line for line in result.content[0].text.splitlines() if line.startswith("1. "))
    assert first.startswith("1. [p. 2]") and "We enrolled 120 patients" in first
