"""A paper read in depth (an answer's first paper, 8 passages or more) is searched further for its own
passages than the papers shown beside it: its answer may sit in a chunk whose words the question barely
shares ("why at night?" asked, "that schedule was chosen to avoid motion artefacts" written), ranked past the
first 16 of the paper's own query. Through a real MCP client on a real indexed PDF of many small chunks."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.index import retrieval
from agent_zot.index.query_vectors import DEEP_CANDIDATES, PAPER_CANDIDATES
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, guard_database, index_library, library_settings, text_of

# Many sections whose sentences say the question's words over and over (the same few sentences: a passage
# shows each once), and one whose sentence answers it in words of its own.
FILLER = (
    "The wrist band recorded the heart rate of every participant at night. "
    "Heart rate at night was recorded by the wrist band for the whole study. "
    "The study kept the wrist band heart rate recordings of each night."
)
ANSWER = "That schedule was chosen to avoid motion artefacts in the optical signal."
# The rest of its section, in words the question does not use either: its chunk holds none of them.
AROUND = (
    "Daytime movement of the arm blurs the pulse waveform and shifts its baseline. Walking, typing and "
    "cooking each add swings larger than the pulse itself. Lying still, the optical signal stays clean "
    "for hours on end."
)
QUESTION = "In the wrist band study, why was the heart rate recorded at night?"


# Papers beside it that share the question's words but for the night: their chunks fill the library-wide
# candidates, so the first paper's own query is where its weaker chunks come from.
BESIDE = (
    "The wrist band recorded the heart rate of every participant during the day. "
    "Heart rate was recorded by the wrist band in the daytime sessions of the study."
)


def _paper(
    builder: ZoteroLibraryBuilder, root: Path, name: str, title: str, sections: list[tuple[str | None, str]]
) -> None:
    from tests.pdf_factory import write_sectioned_paper

    item = builder.add_item("journalArticle", title=title, date="2021-00-00 2021")
    content = write_sectioned_paper(root / name, sections, title)
    builder.add_attachment(item, filename=name, content=content)


@pytest.fixture(scope="module")
def deep_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Settings]:
    root = tmp_path_factory.mktemp("deep")
    builder = ZoteroLibraryBuilder(root / "library", shape="z7", seed=5)
    sections: list[tuple[str | None, str]] = [(f"{n + 1} Recording", FILLER) for n in range(16)]
    sections.insert(12, ("13 Protocol", f"{AROUND} {ANSWER} {AROUND}"))
    _paper(builder, root, "night.pdf", "Nightly wrist band heart rate", sections)
    for n in range(3):
        beside = [(f"{k + 1} Sessions", BESIDE) for k in range(20)]
        _paper(builder, root, f"day{n}.pdf", f"Daytime wrist band heart rate {n + 1}", beside)
    db = guard_database(builder.build())
    settings = library_settings(db.parent, root, chunk_tokens=48, chunk_overlap_tokens=8)
    return root, index_library(settings, root / "home")


async def _answer(deep_library: tuple[Path, Settings]) -> str:
    root, settings = deep_library
    result = await call_tool(settings, "zot_search", home=root / "home", query=QUESTION)
    assert not result.is_error, text_of(result)
    return text_of(result)


@pytest.mark.slow
async def test_the_first_paper_is_searched_past_its_first_chunks(deep_library: tuple[Path, Settings]) -> None:
    assert DEEP_CANDIDATES > PAPER_CANDIDATES
    text = await _answer(deep_library)
    assert ANSWER in " ".join(text.split()), text


@pytest.mark.slow
async def test_without_the_deeper_search_the_answer_is_not_reached(
    deep_library: tuple[Path, Settings], monkeypatch: pytest.MonkeyPatch
) -> None:
    # the fixture is one where the answer's chunk ranks past PAPER_CANDIDATES in the paper's own query
    monkeypatch.setattr(retrieval, "DEEP_CANDIDATES", PAPER_CANDIDATES)
    text = await _answer(deep_library)
    assert "Heart rate at night was recorded" in text
    assert ANSWER not in " ".join(text.split()), text


@pytest.mark.slow
async def test_a_question_asked_again_reads_the_kept_chunks_and_answers_the_same(
    deep_library: tuple[Path, Settings],
) -> None:
    root, settings = deep_library
    ctx = AppContext(settings, home=root / "home")
    try:
        async with Client(build_server(ctx)) as client:
            first = await client.call_tool("zot_search", {"query": QUESTION})
            kept = len(ctx.index().read_chunks)
            assert kept > PAPER_CANDIDATES  # the first paper's deeper query read more than 16 chunks
            again = await client.call_tool("zot_search", {"query": QUESTION})
            assert len(ctx.index().read_chunks) == kept  # nothing read afresh
    finally:
        ctx.close()
    assert text_of(again) == text_of(first)
