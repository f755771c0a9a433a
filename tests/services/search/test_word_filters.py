"""Filters `zot_search` read from a request's words never empty an answer silently: when they leave a
full-text search with no papers, it searches again without them and says so in one line; the caller's
explicit arguments always decide and are never dropped. Through a real MCP client on an indexed library."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from tests.conftest import SectionedPaper, connect, sectioned_library, text_of

EXPERT = SectionedPaper(
    "Knowledge acquisition for rule-based expert systems",
    [
        (
            "1 Introduction",
            "Knowledge-based expert systems were all the rage in artificial intelligence. A group of "
            "visionaries pointed out their weak spot: where was the knowledge to come from? Knowledge "
            "acquisition from human experts became the bottleneck of every rule-based expert system.",
        ),
    ],
    "expert.pdf",
    date="2017-00-00 2017",
)
GLACIERS = SectionedPaper(
    "Glacier mass balance in the Alps",
    [
        (
            "1 Introduction",
            "Alpine glaciers lost mass in every summer of the record. Mass balance was measured with stakes "
            "drilled into the ice and with repeated airborne laser scans of the glacier surface.",
        ),
    ],
    "glaciers.pdf",
    date="2021-00-00 2021",
)


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("word_filters")
    return sectioned_library(root, [EXPERT, GLACIERS], seed=28, collection="Reading")


@pytest.fixture
async def client(indexed: Settings, tmp_path: Path):
    async with connect(indexed, home=tmp_path / "home") as connected:
        yield connected


async def search(client: Client, **arguments: Any) -> Any:
    result = await client.call_tool("zot_search", arguments, raise_on_error=False)
    assert not result.is_error, text_of(result)
    return result


def titles(result: Any) -> list[str]:
    return [p["title"] for p in result.structured_content["papers"]]


@pytest.mark.slow
async def test_a_decade_describing_the_content_is_searched_not_filtered(client: Client) -> None:
    result = await search(
        client, query="What weak spot of the 1970s knowledge-based systems did the visionaries point out?"
    )
    assert titles(result)[0] == EXPERT.title
    assert "years" not in result.structured_content["route"]["params"]
    assert "dropped_filters" not in result.structured_content


@pytest.mark.slow
async def test_a_year_filter_read_from_the_words_that_empties_the_answer_is_dropped_and_said(
    client: Client,
) -> None:
    result = await search(client, query="knowledge acquisition bottleneck of expert systems in the 1970s")
    assert result.structured_content["route"]["params"]["years"] == {"start": 1970, "end": 1979}
    assert titles(result)[0] == EXPERT.title
    text = text_of(result)
    note = "[Note: nothing within items from 1970 to 1979 matched; searched the whole library instead.]"
    assert text.startswith(note), text
    assert text.count("1970") == 1  # one short line, no scope repeated in the head
    assert result.structured_content["dropped_filters"] == {"years": {"start": 1970, "end": 1979}}


@pytest.mark.slow
async def test_explicit_arguments_are_never_dropped(client: Client) -> None:
    explicit = await search(
        client, query="knowledge acquisition bottleneck of expert systems", year_min=1970, year_max=1979
    )
    assert text_of(explicit).startswith(
        "No papers found for 'knowledge acquisition bottleneck of expert systems' within items from 1970 "
        "to 1979."
    )
    assert "dropped_filters" not in explicit.structured_content
    # the words' years are dropped, the caller's collection is kept (and named)
    mixed = await search(client, query="glacier mass balance in the 1970s", collection="Reading")
    assert titles(mixed)[0] == GLACIERS.title
    assert text_of(mixed).startswith(
        "[Note: nothing within items from 1970 to 1979 matched; searched within collection 'Reading' (and below) "
        "instead.]"
    )
    assert mixed.structured_content["dropped_filters"] == {"years": {"start": 1970, "end": 1979}}
