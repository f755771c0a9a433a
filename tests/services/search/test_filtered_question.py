"""A question whose words also name a filter ("according to the 2013 study ...") is still a question: the
year narrows the papers, and the question's own words rank that paper's passages and set its depth. Asked
as its topic alone ("... study that unites ...") it had lost the words it asks and read as a topic (eight
passages, no answer kind). Through a real MCP client on real indexed PDFs."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_zot.config import Settings
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import call_tool, guard_database, index_library, library_settings, text_of
from tests.pdf_factory import write_sectioned_paper

# Sixteen sections about the wrist band's night recordings, each in words of its own: more passages than a
# topic's first paper shows (8), fewer than a question's (14 or more).
NIGHT_SECTIONS = [
    f"Night {n + 1} of the wrist band study logged {40 + n} heart rate episodes above the resting band, "
    f"and cohort {chr(65 + n)} wore the wrist band for {5 + n} hours of sleep."
    for n in range(16)
]
QUESTION = "What did the 2013 wrist band study find about heart rate episodes at night in each cohort?"
WITHOUT_YEAR = "What did the wrist band study find about heart rate episodes at night in each cohort?"
_PASSAGE = re.compile(r"^\s+\[p\. ", re.MULTILINE)


@pytest.fixture(scope="module")
def year_library(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Settings]:
    root = tmp_path_factory.mktemp("filtered_question")
    builder = ZoteroLibraryBuilder(root / "library", shape="z7", seed=11)
    papers = [
        ("night.pdf", "Wrist band heart rate at night", "2013-00-00 2013", NIGHT_SECTIONS),
        ("day.pdf", "Daytime pulse wave velocity", "2019-00-00 2019", ["Pulse wave velocity by day."] * 4),
    ]
    for name, title, date, texts in papers:
        item = builder.add_item("journalArticle", title=title, date=date)
        sections: list[tuple[str | None, str]] = [(f"{n + 1} Results", t) for n, t in enumerate(texts)]
        builder.add_attachment(
            item, filename=name, content=write_sectioned_paper(root / name, sections, title)
        )
    db = guard_database(builder.build())
    settings = library_settings(db.parent, root, chunk_tokens=48, chunk_overlap_tokens=8)
    return root, index_library(settings, root / "home")


async def _first_paper_passages(year_library: tuple[Path, Settings], query: str) -> tuple[str, int]:
    root, settings = year_library
    result = await call_tool(settings, "zot_search", home=root / "home", query=query)
    assert not result.is_error, text_of(result)
    text = text_of(result)
    first = text.split("\n2. [")[0]
    return text, len(_PASSAGE.findall(first))


@pytest.mark.slow
async def test_a_question_naming_a_year_is_read_as_the_same_question(
    year_library: tuple[Path, Settings],
) -> None:
    text, shown = await _first_paper_passages(year_library, QUESTION)
    assert "within items from 2013" in text  # the year is a filter...
    assert "Daytime pulse wave velocity" not in text
    assert "Wrist band heart rate at night" in text.split("\n")[1]
    _, without = await _first_paper_passages(year_library, WITHOUT_YEAR)
    # ...and the question is still a question: its first paper read as deep as without the year
    assert shown > 8
    assert shown == without
