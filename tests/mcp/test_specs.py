"""The tool specs (services/catalog.py) are the one place a tool's modes and parameters are declared:
everything derived from them agrees, and every explicit argument takes effect."""

from __future__ import annotations

import typing

import pytest
from fastmcp import Client

from agent_zot.mcp.server import build_server
from agent_zot.services import tools
from agent_zot.services.catalog import SPECS, TOOL_MODES, WRITE_MODES
from agent_zot.services.context import AppContext
from agent_zot.services.routing import route
from agent_zot.services.routing.router import RULE_TABLES
from agent_zot.services.spec import ToolRequest
from tests.factories import FullLibrary


@pytest.fixture
async def client(app: AppContext):
    async with Client(build_server(app)) as connected:
        yield connected


async def test_the_mcp_tools_are_the_specs(client: Client) -> None:
    listed = {tool.name: tool for tool in await client.list_tools()}
    assert list(listed) == [spec.name for spec in SPECS]
    for spec in SPECS:
        schema = listed[spec.name].input_schema["properties"]
        assert set(schema) == set(spec.request.model_fields), spec.name
        modes = next(option["enum"] for option in schema["force_mode"]["anyOf"] if "enum" in option)
        assert tuple(modes) == spec.mode_names
        assert listed[spec.name].description == spec.description
        assert listed[spec.name].annotations.read_only_hint is (spec.access == "read")


async def test_each_limit_states_its_real_default(client: Client) -> None:
    listed = {tool.name: tool for tool in await client.list_tools()}
    for spec in SPECS:
        if "limit" in spec.request.model_fields:
            default = spec.request.model_fields["limit"].default
            described = listed[spec.name].input_schema["properties"]["limit"]["description"]
            assert f"(default {default})" in described, spec.name


def test_every_tool_has_its_handler_and_no_other() -> None:
    assert set(tools.HANDLERS) == {spec.name for spec in SPECS}
    assert all(callable(handle) for handle in tools.HANDLERS.values())


def test_modes_agree_everywhere() -> None:
    for spec in SPECS:
        assert TOOL_MODES[spec.name] == spec.mode_names
        assert {rule.mode for rule in RULE_TABLES[spec.name]} <= set(spec.mode_names), spec.name
        for mode in spec.mode_names:  # every mode can be forced and lands where it says
            assert route(spec.name, "anything", force_mode=mode).mode == mode
        force = typing.get_args(spec.request.model_fields["force_mode"].annotation)
        assert set(typing.get_args(force[0])) == set(spec.mode_names)
    assert WRITE_MODES == {
        "zot_manage_collections": {
            "create": "creating collections",
            "add": "adding items to collections",
            "remove": "removing items from collections",
            "import": "adding papers by identifier",
        },
        "zot_manage_tags": {"add": "adding tags", "remove": "removing tags"},
        "zot_manage_notes": {"create": "creating notes"},
    }


def test_fills_and_implied_modes_name_real_fields_and_modes() -> None:
    for spec in SPECS:
        fields = set(spec.request.model_fields)
        assert set(spec.fills) <= fields, spec.name
        for rule in spec.implies:
            assert rule.field in fields and rule.mode in spec.mode_names, (spec.name, rule)
            assert set(rule.shared) <= set(spec.mode_names) - {rule.mode}, (spec.name, rule)
        assert issubclass(spec.request, ToolRequest)


def test_explicit_arguments_beat_extracted_ones() -> None:
    spec = tools.spec_for("zot_manage_collections")
    request = spec.request.model_validate({"query": "papers in my Reading list collection", "limit": 3})
    decision, merged = tools.prepare(spec, request)
    assert decision.params["collection"] and merged.collection == decision.params["collection"]
    assert merged.limit == 3 and merged.explicit() == {"query", "limit"}  # extracted values are not explicit
    chosen = spec.request.model_validate(
        {"query": "papers in my Reading list collection", "collection": "Thesis"}
    )
    assert tools.prepare(spec, chosen)[1].collection == "Thesis"


async def test_a_tag_expression_alone_searches_by_tags(client: Client, full_lib: FullLibrary) -> None:
    result = await client.call_tool("zot_manage_tags", {"tags": "nlp, -to-read"}, raise_on_error=False)
    data = result.structured_content
    assert data["route"]["mode"] == "search" and data["route"]["forced"] is False
    assert {i["key"] for i in data["items"]} == {full_lib.keys["s2orc"], full_lib.keys["group_item"]}


async def test_a_collection_alone_shows_its_items(client: Client, full_lib: FullLibrary) -> None:
    result = await client.call_tool(
        "zot_manage_collections", {"collection": "Chapter 2"}, raise_on_error=False
    )
    data = result.structured_content
    assert data["route"]["mode"] == "show_items"
    assert {i["key"] for i in data["items"]} == {full_lib.keys["s2orc"], full_lib.keys["scibert"]}


async def test_days_alone_lists_recent_items(client: Client) -> None:
    result = await client.call_tool(
        "zot_manage_collections", {"days": 36_500, "limit": 2}, raise_on_error=False
    )
    assert result.structured_content["route"]["mode"] == "recent"
    assert len(result.structured_content["items"]) == 2
    absurd = await client.call_tool("zot_manage_collections", {"days": 1_000_000_000}, raise_on_error=False)
    assert absurd.is_error and "36500" in absurd.content[0].text  # a clear bound, not "Error calling tool"


async def test_a_query_that_names_a_mode_taking_the_argument_keeps_it(client: Client) -> None:
    # "recent" takes a collection too (recent items of that collection), so the query's mode stands;
    # "list" takes none, so the argument's own mode (show_items) wins over "list my collections".
    recent = await client.call_tool(
        "zot_manage_collections",
        {"query": "what did I add recently?", "collection": "Thesis"},
        raise_on_error=False,
    )
    assert recent.structured_content["route"]["mode"] == "recent"
    assert recent.structured_content["route"]["params"]["collection"] == "Thesis"
    listed = await client.call_tool(
        "zot_manage_collections",
        {"query": "list my collections", "collection": "Thesis"},
        raise_on_error=False,
    )
    assert listed.structured_content["route"]["mode"] == "show_items"


async def test_note_text_alone_asks_to_create_a_note(client: Client, full_lib: FullLibrary) -> None:
    result = await client.call_tool(
        "zot_manage_notes",
        {"note": "Check the sampling.", "item_key": full_lib.keys["s2orc"]},
        raise_on_error=False,
    )
    data = result.structured_content
    assert data["route"]["mode"] == "create" and data["status"] == "not_enabled"  # writes are off here


async def test_a_bad_argument_through_call_is_a_clear_error(app: AppContext) -> None:
    from agent_zot.errors import InvalidArgumentError

    with pytest.raises(InvalidArgumentError, match="limit"):
        tools.call(app, "zot_manage_tags", limit=0)
    with pytest.raises(InvalidArgumentError, match="valid tools"):
        tools.call(app, "zot_nonsense")
