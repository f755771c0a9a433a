"""Explicit arguments beat what the query's words imply, in every tool (issue 54.3): an argument that
implies a mode gets that mode whatever mode the words name (unless the words name a mode that takes the
argument too), and its value is the one the route shows and the tool runs with. Only force_mode beats it.

Each table row is checked twice: the query alone must route elsewhere (or read another value), so the row
really tests precedence; then the tool, called through fastmcp's in-memory client, must follow the argument.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.services import tools
from agent_zot.services.catalog import SPECS
from agent_zot.services.routing import route
from tests.conftest import connect, index_library, make_settings, text_of
from tests.factories import FullLibrary

# (tool, query, arguments, the mode the arguments pick, route params that must show the arguments).
# "{s2orc}" stands for that paper's key. The query's words name another mode (checked below).
MODE_ROWS: list[tuple[str, str, dict[str, Any], str, dict[str, Any]]] = [
    ("zot_manage_collections", "list my collections", {"days": 7}, "recent", {"days": 7}),
    ("zot_manage_collections", "list my collections", {"collection": "Thesis"}, "show_items", {}),
    ("zot_manage_collections", "list my collections", {"identifiers": ["10.1145/1327452.1327492"], "collection": "Thesis"}, "import", {"identifiers": ["10.1145/1327452.1327492"]}),
    ("zot_manage_tags", "list all my tags", {"tags": "nlp, -to-read"}, "search", {}),
    ("zot_manage_notes", "create a note on this paper", {"note": "Check it.", "item_key": "{s2orc}"}, "create", {}),
    ("zot_manage_notes", "search my notes about corpora", {"note": "Check it.", "item_key": "{s2orc}"}, "create", {}),
    ("zot_manage_notes", "list my notes on {s2orc}", {"color": "#ff6666"}, "list_annotations", {"color": "#ff6666"}),
    ("zot_summarize", "give me a quick overview of the S2ORC paper", {"pages": "1"}, "full", {}),
    ("zot_summarize", "give me a quick overview of the S2ORC paper", {"offset": 1}, "full", {}),
    ("zot_summarize", "give me a quick overview of the S2ORC paper", {"figure": "page 1"}, "figures", {}),
    ("zot_summarize", "what are the main findings of the S2ORC paper", {"draft": "S2ORC is big [@lo2020s2orc]."}, "audit", {}),
    ("zot_summarize", "give me a quick overview of the S2ORC paper", {"questions": ["What data?"], "search": "corpus"}, "matrix", {}),
    ("zot_summarize", "give me a quick overview of the S2ORC paper", {"collection": "Thesis"}, "matrix", {"collection": "Thesis"}),
    ("zot_summarize", "give me a quick overview of the S2ORC paper", {"tags": ["nlp"]}, "matrix", {"tags": ["nlp"]}),
    ("zot_summarize", "give me a quick overview of the S2ORC paper", {"item_keys": ["{s2orc}"]}, "matrix", {}),
    ("zot_summarize", "give me a quick overview of the S2ORC paper", {"search": "corpus"}, "matrix", {}),
    ("zot_explore_graph", "what cites the S2ORC paper", {"author": "Kyle Lo"}, "collaboration", {}),
    ("zot_explore_graph", "who collaborates with Kyle Lo", {"concept": "research corpus"}, "concept", {}),
    ("zot_explore_graph", "papers related to the S2ORC paper", {"direction": "in"}, "citation", {"direction": "in"}),
    ("zot_explore_graph", "who collaborates with Kyle Lo", {"year_min": 2019, "concept": "research corpus"}, "temporal", {}),
    ("zot_explore_graph", "who collaborates with Kyle Lo", {"year_max": 2021, "concept": "research corpus"}, "temporal", {}),
    ("zot_export", "export the Thesis collection as BibTeX", {"draft": "S2ORC is big.", "overwrite": True}, "review", {}),
    ("zot_export", "export the Thesis collection as BibTeX", {"verdicts": [{"claim": "S2ORC is big.", "item_key": "{s2orc}", "quote": "a large corpus", "stance": "supports", "reason": "says so"}], "overwrite": True}, "review", {}),
    ("zot_export", "export the Thesis collection as BibTeX", {"questions": ["What data?"], "overwrite": True}, "matrix", {}),
    ("zot_export", "export the Thesis collection as BibTeX", {"cells": [{"item_key": "{s2orc}", "question": 1, "answer": "text", "quote": "a large corpus"}], "overwrite": True}, "matrix", {}),
    ("zot_export", "export the Thesis collection as Markdown", {"path": "thesis.bib", "overwrite": True}, "bibtex", {"path": "thesis.bib"}),
    ("zot_export", "export the Thesis collection as BibTeX", {"path": "thesis.md", "overwrite": True}, "markdown", {"path": "thesis.md"}),
    ("zot_export", "export the Thesis collection as BibTeX", {"path": "thesis.json", "overwrite": True}, "csljson", {"path": "thesis.json"}),
]  # fmt: skip

# The query's words name the same parameter with another value: the argument's value is the one shown.
VALUE_ROWS: list[tuple[str, str, dict[str, Any], str, dict[str, Any]]] = [
    ("zot_manage_collections", "items from the last 10000 days", {"days": 7}, "recent", {"days": 7}),
    ("zot_manage_collections", "show the papers in my Reading list collection", {"collection": "Chapter 2"}, "show_items", {"collection": "Chapter 2"}),
    ("zot_manage_collections", "show me the top 3 items in Thesis", {"limit": 1}, "show_items", {"limit": 1}),
    ("zot_manage_tags", "papers tagged control", {"tags": "nlp"}, "search", {"tags": "nlp"}),
    ("zot_manage_notes", "my notes in the Reading list collection", {"collection": "Thesis"}, "list_notes", {"collection": "Thesis"}),
    ("zot_export", "export the Thesis collection to thesis.bib", {"collection": "Reading list"}, "bibtex", {"collection": "Reading list"}),
    ("zot_export", "export the Thesis collection to thesis.bib", {"path": "mine.bib"}, "bibtex", {"path": "mine.bib"}),
    ("zot_summarize", "read pages 2-3 of the S2ORC paper", {"pages": "1"}, "full", {"pages": "1"}),
    ("zot_search", "papers by Lo about corpora", {"authors": ["Beltagy"]}, "metadata", {"authors": ["Beltagy"]}),
    ("zot_search", "papers in my Reading list collection", {"collection": "Thesis"}, "metadata", {"collection": "Thesis"}),
    ("zot_search", "papers tagged control about corpora", {"tags": ["nlp"]}, "metadata", {"tags": ["nlp"]}),
    ("zot_search", "top 3 papers about corpora", {"limit": 1}, "fast", {"limit": 1}),
    ("zot_explore_graph", "papers citing the S2ORC paper", {"direction": "out"}, "citation", {"direction": "out"}),
]  # fmt: skip

# The query's words name a mode that takes the argument too: that mode stands, with the argument's value.
SHARED_ROWS: list[tuple[str, str, dict[str, Any], str, dict[str, Any]]] = [
    ("zot_manage_collections", "what did I add recently?", {"collection": "Thesis"}, "recent", {"collection": "Thesis"}),
    ("zot_manage_collections", "add {s2orc} to a collection", {"collection": "Reading list", "item_keys": ["{s2orc}"]}, "add", {"collection": "Reading list"}),
    ("zot_manage_tags", "add the tag to-read to {s2orc}", {"tags": ["ml"], "item_keys": ["{s2orc}"]}, "add", {}),
    ("zot_manage_tags", "remove the tag nlp from {s2orc}", {"tags": ["corpus"]}, "remove", {"tags": ["corpus"]}),
    ("zot_export", "export my annotations of {s2orc} as JSON", {"path": "notes.json", "overwrite": True}, "annotations", {"path": "notes.json"}),
]  # fmt: skip

# Rows whose tool answers from the library alone; the others need the index (and graph), built once below.
_LIBRARY_ONLY = {"zot_manage_collections", "zot_manage_tags", "zot_manage_notes"}


def _filled(value: Any, keys: dict[str, str]) -> Any:
    if isinstance(value, str):
        return value.format(s2orc=keys["s2orc"])
    if isinstance(value, list):
        return [_filled(v, keys) for v in value]
    if isinstance(value, dict):
        return {k: _filled(v, keys) for k, v in value.items()}
    return value


def _row_id(row: tuple[str, str, dict[str, Any], str, dict[str, Any]]) -> str:
    return f"{row[0].removeprefix('zot_')}:{'+'.join(row[2])}→{row[3]}"


def _params(table: list[Any]) -> list[Any]:
    return [pytest.param(*row, id=_row_id(row)) for row in table]


def _rows(table: list[Any], *, library_only: bool) -> list[Any]:
    return _params([r for r in table if (r[0] in _LIBRARY_ONLY or _runs_without_index(r)) == library_only])


def _runs_without_index(row: tuple[str, str, dict[str, Any], str, dict[str, Any]]) -> bool:
    """Bibliographic exports read the library alone, no index."""
    tool, _, _, mode, _ = row
    return tool == "zot_export" and mode in ("bibtex", "markdown", "csljson")


ALL_ROWS = MODE_ROWS + VALUE_ROWS + SHARED_ROWS


def test_every_mode_implying_argument_has_a_row() -> None:
    # the tables cover the class: every argument a spec says implies a mode is tested against other words
    declared = {(spec.name, rule.field) for spec in SPECS for rule in spec.implies}
    covered = {(tool, name) for tool, _, arguments, mode, _ in MODE_ROWS for name in arguments}
    assert declared <= covered, declared - covered


@pytest.mark.parametrize(("tool", "query", "arguments", "mode", "shown"), _params(MODE_ROWS))
def test_the_query_alone_names_another_mode(
    tool: str, query: str, arguments: dict[str, Any], mode: str, shown: dict[str, Any]
) -> None:
    alone = route(tool, query.format(s2orc="ABCD2345"))
    assert alone.cued and alone.mode != mode, alone.reason


@pytest.mark.parametrize(("tool", "query", "arguments", "mode", "shown"), _params(VALUE_ROWS))
def test_the_query_alone_reads_another_value(
    tool: str, query: str, arguments: dict[str, Any], mode: str, shown: dict[str, Any]
) -> None:
    params = route(tool, query.format(s2orc="ABCD2345")).params
    assert any(params.get(name) not in (None, value) for name, value in shown.items()), params


@pytest.mark.parametrize(("tool", "query", "arguments", "mode", "shown"), _params(ALL_ROWS))
def test_prepare_follows_the_arguments(
    tool: str, query: str, arguments: dict[str, Any], mode: str, shown: dict[str, Any]
) -> None:
    # the one place precedence is decided; the MCP tools and `agent-zot route --arg` both go through it
    spec = tools.spec_for(tool)
    keys = {"s2orc": "ABCD2345"}
    request = spec.request.model_validate({"query": _filled(query, keys), **_filled(arguments, keys)})
    decision, merged = tools.prepare(spec, request)
    assert decision.mode == mode and not decision.forced, decision.reason
    assert {k: decision.params.get(k) for k in shown} == shown
    given = spec.request.model_validate(_filled(arguments, keys)).model_dump(include=set(arguments))
    assert merged.model_dump(include=set(arguments)) == given  # the arguments' values, none replaced
    forced = spec.request.model_validate({**dict(request), "force_mode": spec.mode_names[0]})
    assert tools.prepare(spec, forced)[0].mode == spec.mode_names[0]  # force_mode beats every argument


async def _route_of(
    client: Client, tool: str, query: str, arguments: dict[str, Any], keys: dict[str, str]
) -> Any:
    result = await client.call_tool(
        tool, {"query": _filled(query, keys), **_filled(arguments, keys)}, raise_on_error=False
    )
    data = result.structured_content or {}
    assert "route" in data, text_of(result)  # a write mode answers "not enabled", with its route
    return data["route"]


@pytest.mark.parametrize(("tool", "query", "arguments", "mode", "shown"), _rows(ALL_ROWS, library_only=True))
async def test_the_tools_follow_the_arguments(
    settings: Settings,
    full_lib: FullLibrary,
    tool: str,
    query: str,
    arguments: dict[str, Any],
    mode: str,
    shown: dict[str, Any],
) -> None:
    async with connect(settings) as client:
        decision = await _route_of(client, tool, query, arguments, full_lib.keys)
    assert decision["mode"] == mode and not decision["forced"], decision["reason"]
    assert {k: decision["params"].get(k) for k in shown} == _filled(shown, full_lib.keys)


@pytest.fixture(scope="module")
def indexed(full_lib: FullLibrary, tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("precedence")
    return index_library(make_settings(full_lib, root), root / "home", graph=True)


@pytest.mark.slow
@pytest.mark.parametrize(("tool", "query", "arguments", "mode", "shown"), _rows(ALL_ROWS, library_only=False))
async def test_the_indexed_tools_follow_the_arguments(
    indexed: Settings,
    full_lib: FullLibrary,
    tmp_path: Path,
    tool: str,
    query: str,
    arguments: dict[str, Any],
    mode: str,
    shown: dict[str, Any],
) -> None:
    async with connect(indexed, home=tmp_path / "home") as client:
        decision = await _route_of(client, tool, query, arguments, full_lib.keys)
    # a search with weak results escalates (route.escalated); the argument's mode is where it started
    assert (decision["mode"] == mode or decision["escalated"]) and not decision["forced"], decision["reason"]
    assert {k: decision["params"].get(k) for k in shown} == _filled(shown, full_lib.keys)


def test_the_route_command_shows_what_the_arguments_pick() -> None:
    from click.testing import CliRunner

    from agent_zot.cli.main import cli

    shown = CliRunner().invoke(
        cli, ["route", "collections", "items from the last 10000 days", "--arg", "days=7", "--json"]
    )
    data = json.loads(shown.output)
    assert data["mode"] == "recent" and data["params"]["days"] == 7 and "collection" not in data["params"]
    text = CliRunner().invoke(cli, ["route", "tags", "list all my tags", "--arg", "tags=nlp || ml"])
    assert "zot_manage_tags → search" in text.output and "argument tags" in text.output
    bad = CliRunner().invoke(cli, ["route", "tags", "list my tags", "--arg", "limit"])
    assert bad.exit_code == 2 and "NAME=VALUE" in bad.output
