"""The shell route (`agent-zot search|summarize|explore|call`) through click's CliRunner, checked against
the MCP tools' answers through fastmcp's in-memory client on the same indexed library."""

from __future__ import annotations

import json

import pytest
from click.testing import CliRunner, Result

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.services.catalog import SPECS
from agent_zot.services.context import AppContext
from agent_zot.services.shell import SHELL_VERBS
from tests.conftest import SectionedPaper, call_tool, sectioned_library, text_of

RELAY = SectionedPaper(
    "Relay: Batch Computation on Shared Clusters",
    [
        (
            "1 Introduction",
            "Many teams run large batch computations over logs and crawled pages. The input is large and "
            "must be spread over many machines, which hides a simple computation under plumbing.",
        ),
        (
            "5 Performance",
            "All of the experiments ran on a cluster of approximately 1800 machines. Each machine had two "
            "processors, four gigabytes of memory and two disks. The sort program read one terabyte of data.",
        ),
    ],
    "relay.pdf",
)
TIDES = SectionedPaper(
    "Tidal Mixing in Shallow Estuaries",
    [
        (
            "1 Introduction",
            "Tides stir the water of shallow estuaries twice a day; we measure how salt and fresh water mix "
            "over a spring-neap cycle with moored sensors.",
        ),
        ("2 Results", "Mixing was strongest at spring tide, when the current reached two metres a second."),
    ],
    "tides.pdf",
)


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return sectioned_library(tmp_path_factory.mktemp("shell-route"), [RELAY, TIDES], seed=58)


@pytest.fixture
def run(library: Settings, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(library.data_dir))
    monkeypatch.setenv("AGENT_ZOT_EXPORT_DIR", str(library.export_dir))
    runner = CliRunner()

    def invoke(*args: str) -> Result:
        return runner.invoke(cli, ["--library", str(library.zotero_data_dir), *args])

    return invoke


def _key(settings: Settings, title: str) -> str:
    ctx = AppContext(settings)
    try:
        return next(item.key for item in ctx.library().items.values() if item.title == title)
    finally:
        ctx.close()


def test_each_tool_command_has_an_option_for_each_plain_argument_of_its_spec() -> None:
    """The options come from the specs: a field added to a request is an option the next day."""
    for name, tool in SHELL_VERBS.items():
        spec = next(s for s in SPECS if s.name == tool)
        command = cli.commands[name]
        options = {p.name for p in command.params}
        for field, info in spec.request.model_fields.items():
            if field != "query" and "BaseModel" not in str(info.annotation):
                assert field in options, (name, field)


def test_a_bad_arg_exits_2_with_the_mcp_tools_message() -> None:
    """Checked by the tool's request model before any library is read (no index needed here)."""

    def run(*args: str) -> Result:
        return CliRunner().invoke(cli, list(args))

    bad = run("search", "clusters", "--arg", "limit=0")
    assert bad.exit_code == 2
    assert "Invalid argument for zot_search: limit should be greater than or equal to 1" in bad.output
    unknown = run("call", "zot_manage_tags", "--arg", "colour=red")
    assert unknown.exit_code == 2 and "colour is not an argument of zot_manage_tags" in unknown.output
    assert "zot_manage_tags takes: query, tags, item_keys, limit, force_mode" in unknown.output
    assert run("call", "zot_nope").exit_code == 2
    assert run("call", "tags", "--arg", "nonsense").exit_code == 2  # not NAME=VALUE: click's usage error


@pytest.mark.slow
async def test_search_json_has_the_mcp_tools_keys_and_papers(run, library: Settings) -> None:
    query = "batch computation spread over many machines"
    cli_answer = run("search", query, "--json")
    assert cli_answer.exit_code == 0, cli_answer.output
    data = json.loads(cli_answer.output)
    mcp = (await call_tool(library, "zot_search", query=query)).structured_content
    assert set(data) == set(mcp) and "papers" in data and "route" in data
    assert [p["key"] for p in data["papers"]] == [p["key"] for p in mcp["papers"]]
    assert data["papers"][0]["key"] == _key(library, RELAY.title)
    assert data["route"]["mode"] == mcp["route"]["mode"]


@pytest.mark.slow
async def test_summarize_answers_a_question_from_the_paper_as_the_tool_does(run, library: Settings) -> None:
    key = _key(library, RELAY.title)
    question = "how many machines did the experiments use?"
    text = run("summarize", question, "--item-key", key)
    assert text.exit_code == 0, text.output
    assert "1800 machines" in text.output
    mcp = await call_tool(library, "zot_summarize", query=question, item_key=key)
    assert text.output.strip() == text_of(mcp).strip()
    routed = json.loads(run("summarize", question, "--item-key", key, "--json").output)["route"]
    assert routed["mode"] == mcp.structured_content["route"]["mode"] == "targeted"


@pytest.mark.slow
def test_call_reaches_every_tool_and_mode_is_force_mode(run) -> None:
    listed = run("call", "zot_manage_tags", "--arg", "mode=list", "--json")
    assert listed.exit_code in (0, 1), listed.output  # a library without tags lists none: exit 1
    assert json.loads(listed.output)["route"]["mode"] == "list"
    collections = run("call", "collections", "--arg", "mode=list")
    assert collections.exit_code in (0, 1) and "Traceback" not in collections.output
    for spec in SPECS:
        routed = run("call", spec.name, "--arg", "force_mode=" + spec.mode_names[0], "--json")
        assert "Traceback" not in routed.output, spec.name


@pytest.mark.slow
async def test_nothing_found_exits_1(run, library: Settings) -> None:
    missing = run("summarize", "what does it say?", "--item-key", "ZZZZ9999")
    assert missing.exit_code == 1 and "Error:" in missing.output
    arguments = {"tags": ["no-such-tag-anywhere"]}
    no_tag = run("call", "tags", "--arg", "tags=" + json.dumps(arguments["tags"]), "--json")
    mcp = await call_tool(library, "zot_manage_tags", **arguments)
    # --json answers an error with the MCP tool's structured error
    assert no_tag.exit_code == 1 and json.loads(no_tag.stdout) == mcp.structured_content
    assert mcp.is_error and mcp.structured_content["error"]["type"] == "NotFoundError"
    nothing = run("search", "spring tide currents", "--year-min", "1900", "--year-max", "1901", "--json")
    assert nothing.exit_code == 1 and json.loads(nothing.stdout)["total"] == 0
