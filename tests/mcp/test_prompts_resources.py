"""MCP prompts and resources through a real MCP client (fastmcp's in-memory Client): the four workflow
prompts, and the item, full-text page and collection resources on the demo library with a real index."""

from __future__ import annotations

import json
import re
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from fastmcp import Client
from fastmcp.exceptions import McpError

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services import library_resources
from agent_zot.services.catalog import BY_NAME, TOOL_MODES
from agent_zot.services.context import AppContext
from agent_zot.zotero.demo import ensure_demo_library
from agent_zot.zotero.models import Library
from tests.conftest import connect, guard_database, index_library, library_settings

PROMPT_ARGUMENTS = {
    "literature_review": {"topic": True, "collection": False},
    "check_citations": {"draft": True},
    "sceptical_review": {"claims": True},
    "what_to_read_next": {"topic": False, "collection": False},
}
CALL = re.compile(r"\b(zot_\w+)\(([^)]*)\)")


def flat(text: str) -> str:
    return " ".join(text.split())


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, Path]:
    root = tmp_path_factory.mktemp("prompts-resources")
    db = guard_database(ensure_demo_library(root / "library"))
    return index_library(library_settings(db.parent, root), root / "home", graph=True), root / "home"


@pytest.fixture
async def client(demo: tuple[Settings, Path]) -> AsyncIterator[Client]:
    async with connect(demo[0], home=demo[1]) as connected:
        yield connected


@pytest.fixture(scope="module")
def library(demo: tuple[Settings, Path]) -> Library:
    ctx = AppContext(demo[0], home=demo[1])
    try:
        return ctx.library()
    finally:
        ctx.close()


def key_of(library: Library, title_start: str) -> str:
    return next(k for k, i in library.items.items() if i.title.startswith(title_start))


async def read(client: Client, uri: str) -> tuple[str, str | None]:
    contents = await client.read_resource(uri)
    assert len(contents) == 1
    return contents[0].text, contents[0].mime_type


async def read_error(client: Client, uri: str) -> str:
    with pytest.raises(McpError) as raised:
        await client.read_resource(uri)
    message = str(raised.value)
    assert "Traceback" not in message and "Error reading resource" not in message
    return message


# -- prompts ------------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_the_four_prompts_are_listed_with_their_arguments(client: Client) -> None:
    prompts = {p.name: p for p in await client.list_prompts()}
    assert set(prompts) == set(PROMPT_ARGUMENTS)
    for name, arguments in PROMPT_ARGUMENTS.items():
        listed = prompts[name]
        assert listed.description and len(listed.description) <= 100
        assert {a.name: a.required for a in listed.arguments} == arguments
        # plain descriptions: no JSON-schema notes for the client to pay for
        assert all(a.description and "schema" not in a.description for a in listed.arguments)


def tool_calls(text: str) -> list[tuple[str, dict[str, str]]]:
    """The tool calls a prompt names, each checked against the catalog: a real tool, real arguments, a
    real mode."""
    calls = []
    for tool, argument_text in CALL.findall(text):
        arguments = dict(re.findall(r'(\w+)=("[^"]*"|<[^>]*>|\[[^\]]*\]|[^,]+)', argument_text))
        assert tool in BY_NAME, tool
        assert set(arguments) <= set(BY_NAME[tool].request.model_fields), (tool, arguments)
        if "force_mode" in arguments:
            assert arguments["force_mode"].strip('"') in TOOL_MODES[tool], (tool, arguments)
        calls.append((tool, arguments))
    return calls


async def render(client: Client, name: str, **arguments: str) -> str:
    result = await client.get_prompt(name, arguments)
    assert len(result.messages) == 1 and result.messages[0].role == "user"
    return result.messages[0].content.text


@pytest.mark.slow
async def test_literature_review_plans_search_summaries_graph_and_export(client: Client) -> None:
    text = await render(client, "literature_review", topic="citation graphs", collection="Thesis")
    calls = tool_calls(text)
    assert [tool for tool, _ in calls] == [
        "zot_search",
        "zot_summarize",
        "zot_explore_graph",
        "zot_explore_graph",
        "zot_export",
    ]
    search = calls[0][1]
    assert search["query"] == '"citation graphs"' and search["collection"] == '"Thesis"'
    assert calls[1][1]["force_mode"] == '"comprehensive"'
    assert {c[1]["force_mode"] for c in calls[2:4]} == {'"related"', '"citation"'}
    assert '"review.bib"' in text and '"review.md"' in text
    # without a collection, the search is not scoped
    plain = await render(client, "literature_review", topic="citation graphs")
    assert "collection" not in tool_calls(plain)[0][1]
    assert len(text) < 1200  # the assistant pays for every token


@pytest.mark.slow
async def test_check_citations_runs_the_audit_on_the_draft(client: Client) -> None:
    draft = "Corpora of full text help citation mining [@lo2020s2orc, p. 3]."
    text = await render(client, "check_citations", draft=draft)
    calls = tool_calls(text)
    assert calls[0] == ("zot_summarize", {"force_mode": '"audit"', "draft": "<the draft, verbatim>"})
    assert ("zot_search", {"query": "<the claim>", "force_mode": '"evidence"'}) in calls
    assert "agent-zot audit DRAFT --patch" in text and "page" in text and "keys" in text
    assert text.rstrip().endswith(f'"""\n{draft}\n"""')


@pytest.mark.slow
async def test_sceptical_review_takes_claims_one_per_line(client: Client) -> None:
    claims = "Pretraining on scientific text helps scientific NLP.\n\n  Bigger corpora are always better.  \n"
    text = await render(client, "sceptical_review", claims=claims)
    calls = tool_calls(text)
    assert calls[0] == ("zot_search", {"query": "<the claim>", "force_mode": '"evidence"'})
    assert calls[1][0] == "zot_export" and calls[1][1]["force_mode"] == '"review"' and "draft" in calls[1][1]
    assert text.endswith(
        "Claims (2):\nPretraining on scientific text helps scientific NLP.\nBigger corpora are always better."
    )


@pytest.mark.slow
async def test_what_to_read_next_uses_influence_and_related(client: Client) -> None:
    text = await render(client, "what_to_read_next", topic="language models")
    calls = tool_calls(text)
    assert calls[0] == (
        "zot_explore_graph",
        {"force_mode": '"influence"', "concept": '"language models"', "limit": "15"},
    )
    assert calls[1][1]["force_mode"] == '"related"'
    assert "do not have" in text
    anything = tool_calls(await render(client, "what_to_read_next"))
    assert anything[0] == ("zot_explore_graph", {"force_mode": '"influence"', "limit": "15"})
    scoped = tool_calls(await render(client, "what_to_read_next", collection="Reading list"))
    assert scoped[0] == (
        "zot_manage_collections",
        {"collection": '"Reading list"', "force_mode": '"show_items"'},
    )
    assert scoped[1][1]["concept"] == '"Reading list"'


@pytest.mark.slow
async def test_the_concrete_calls_a_prompt_names_run(client: Client) -> None:
    """The calls whose arguments a prompt spells out (no <placeholder> or KEY) work as written."""
    literature = await render(client, "literature_review", topic="citation graphs", collection="Thesis")
    reading = await render(client, "what_to_read_next", topic="language models")
    ran = []
    for tool, arguments in tool_calls(literature) + tool_calls(reading):
        if any(v.startswith(("<", "[")) or v == "KEY" for v in arguments.values()):
            continue
        given = {name: json.loads(value) for name, value in arguments.items()}
        result = await client.call_tool(tool, given, raise_on_error=False)
        assert not result.is_error, (tool, result.content[0].text)
        if "force_mode" in given:
            assert result.structured_content["route"]["mode"] == given["force_mode"]
        ran.append((tool, result.content[0].text))
    assert [tool for tool, _ in ran] == ["zot_search", "zot_explore_graph"]
    assert "S2ORC" in ran[0][1] and "Most influential papers within" in ran[1][1]


@pytest.mark.parametrize(
    ("name", "arguments", "missing"),
    [
        ("literature_review", {"topic": "   "}, "topic"),
        ("literature_review", {"collection": "Thesis"}, "topic"),
        ("check_citations", {"draft": "\n\n"}, "draft"),
        ("sceptical_review", {}, "claims"),
    ],
)
@pytest.mark.slow
async def test_a_blank_or_missing_required_argument_is_a_clear_error(
    client: Client, name: str, arguments: dict[str, str], missing: str
) -> None:
    with pytest.raises(McpError) as raised:
        await client.get_prompt(name, arguments)
    message = str(raised.value)
    assert f"needs '{missing}'" in message and "missing or blank" in message


# -- resources ----------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_the_resource_templates_are_listed(client: Client) -> None:
    templates = {t.uri_template: t for t in await client.list_resource_templates()}
    assert set(templates) == {
        library_resources.ITEM_URI,
        library_resources.PAGE_URI,
        library_resources.COLLECTION_URI,
        library_resources.FIGURE_URI,
        library_resources.TABLE_URI,
        library_resources.PAGE_IMAGE_URI,
    }
    assert templates["zotero://item/{key}"].mime_type == "text/markdown"
    assert templates["zotero://item/{key}/fulltext/{page}"].mime_type == "text/plain"
    assert templates["zotero://item/{key}/figure/{number}"].mime_type == "image/png"
    assert all(t.description for t in templates.values())
    # No fixed library resources (everything is by key); the only fixed ones are the app views.
    listed = sorted(str(r.uri) for r in await client.list_resources())
    assert listed == [f"ui://agent-zot/{name}.html" for name in ("graph", "search", "summarize")]


@pytest.mark.slow
async def test_item_resource_has_metadata_abstract_and_its_pages(client: Client, library: Library) -> None:
    key = key_of(library, "S2ORC")
    text, mime = await read(client, f"zotero://item/{key}")
    assert mime == "text/markdown"
    assert text.startswith("# S2ORC: The Semantic Scholar Open Research Corpus\n")
    assert f"Key: {key} · conferencePaper · 2020" in text
    assert "Authors: Kyle Lo, Lucy Lu Wang, Mark Neumann" in text and "Citation key: lo2020s2orc" in text
    assert "DOI: 10.18653/v1/2020.acl-main.447" in text and "Collections: Thesis/Background" in text
    assert "## Abstract\nA large corpus of English-language academic papers with full text" in text
    assert f"zotero://item/{key}/fulltext/1 to zotero://item/{key}/fulltext/2" in text
    # keys are case-tolerant, as the tools' are
    assert (await read(client, f"zotero://item/{key.lower()}"))[0] == text
    # an item with no file says so instead of pointing at pages
    bert = (await read(client, f"zotero://item/{key_of(library, 'BERT:')}"))[0]
    assert "Full text: No full text for this item (it has no PDF or other file attached)." in bert
    assert "## Abstract\n(none in Zotero)" in bert


@pytest.mark.slow
async def test_fulltext_page_resource_reads_one_page_of_the_index(client: Client, library: Library) -> None:
    key = key_of(library, "S2ORC")
    text, mime = await read(client, f"zotero://item/{key}/fulltext/1")
    assert mime == "text/plain"
    head, body = text.split("\n\n", 1)
    assert head.startswith(f"[{key}] Lo, Wang et al. (2020) S2ORC") and "p. 1 of 2" in head
    body = flat(body)
    assert "Duplicates are merged using identifiers such as DOIs and arXiv ids" in body
    assert "The corpus has been used to pretrain language models for scientific text" in body
    assert "[5] J. Devlin" not in body  # page 2's reference, not this page's
    # page 2 holds only the reference list, which the index keeps apart from the body text
    second = (await read(client, f"zotero://item/{key}/fulltext/2"))[0]
    assert "p. 2 of 2" in second and "(reference list, kept apart from the body text)" in second
    # the attachment's own key reads the same pages
    attachment = library.items[key].attachments[0].key
    assert (await read(client, f"zotero://item/{attachment}/fulltext/1"))[0] == text


@pytest.mark.slow
async def test_collection_resource_lists_path_children_and_items(client: Client, library: Library) -> None:
    thesis = next(c for c in library.collections.values() if c.path == "Thesis")
    text, mime = await read(client, f"zotero://collection/{thesis.key}")
    assert mime == "text/markdown"
    lines = text.splitlines()
    assert lines[0] == f"# Thesis [{thesis.key}]"
    assert "Sub-collections (2):" in lines and "Items (1):" in lines
    assert any(line.startswith("- Background [") and line.endswith(": 2 items") for line in lines)
    assert any(line.startswith("- Methods [") and line.endswith(": 3 items") for line in lines)
    assert lines[-1].startswith(f"[{key_of(library, 'Mining Citation')}] van der Berg (2022) Mining")
    methods = (await read(client, "zotero://collection/methods"))[0].splitlines()  # by name, any case
    assert methods[0].startswith("# Thesis/Methods [") and methods[1] == f"Parent: Thesis [{thesis.key}]"
    listed = {line[1:9] for line in methods if line.startswith("[")}
    assert listed == {key_of(library, t) for t in ("BERT:", "SciBERT", "Attention")}


@pytest.mark.slow
async def test_unknown_keys_are_clear_errors_with_close_matches(client: Client, library: Library) -> None:
    key = key_of(library, "S2ORC")
    typo = key[:-1] + ("2" if key[-1] != "2" else "3")
    message = await read_error(client, f"zotero://item/{typo}")
    assert f"No item with key '{typo}'" in message and f"Did you mean: [{key}]" in message
    by_words = await read_error(client, "zotero://item/s2orc")
    assert f"[{key}]" in by_words
    collection = await read_error(client, "zotero://collection/ZZZZZZZZ")
    assert "No collection matches 'ZZZZZZZZ'" in collection and "Thesis/Background" in collection


@pytest.mark.slow
async def test_bad_pages_are_clear_errors(client: Client, library: Library) -> None:
    key = key_of(library, "S2ORC")
    past = await read_error(client, f"zotero://item/{key}/fulltext/9")
    assert f"{key} has 2 pages; page 9 is past the end" in past and f"zotero://item/{key}/fulltext/2" in past
    assert "is not a page number" in await read_error(client, f"zotero://item/{key}/fulltext/0")
    assert "is not a page number" in await read_error(client, f"zotero://item/{key}/fulltext/two")
    no_file = await read_error(client, f"zotero://item/{key_of(library, 'BERT:')}/fulltext/1")
    assert "no PDF or other file attached" in no_file


async def test_without_an_index_pages_say_how_to_build_it(tmp_path: Path) -> None:
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state", export_dir=tmp_path / "x")
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        key = key_of(ctx.library(), "S2ORC")
        async with Client(build_server(ctx)) as unindexed:
            message = await read_error(unindexed, f"zotero://item/{key}/fulltext/1")
            item = (await read(unindexed, f"zotero://item/{key}"))[0]
    finally:
        ctx.close()
    assert "full-text index has not been built" in message and "agent-zot update-db" in message
    assert "Full text: not indexed (run `agent-zot update-db`)" in item


async def test_reads_from_the_demo_library_say_so(tmp_path: Path) -> None:
    ctx = AppContext(Settings(data_dir=tmp_path / "state"), home=tmp_path / "empty")  # no Zotero found
    guard_database(ctx.source().db_path)
    try:
        async with Client(build_server(ctx)) as served:
            text = (await read(served, "zotero://collection/thesis"))[0]
            missing = await read_error(served, "zotero://item/ABCD2345")
    finally:
        ctx.close()
    assert text.startswith("[Demo library: no Zotero library was found") and "\n# Thesis [" in text
    assert "No item with key 'ABCD2345'" in missing and "Demo library" in missing
