"""`zot_summarize` through a real MCP client: the demo library and a paginated test paper indexed with the
real embedded stack, the every-case library with no index, and (when present) the shared real PDFs."""

from __future__ import annotations

import csv
import json
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client

from agent_zot.config import Settings
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import SHARED_DATA, connect, guard_database, index_library, library_settings
from tests.factories import FullLibrary
from tests.pdf_factory import marker, write_paper

SHARED_PDFS = SHARED_DATA / "pdfs"
S2ORC_KEY_RE = re.compile(r"^[A-Z0-9]{8}$")
PAGED_TITLE = "Page-Aware Parsing of Scientific Documents"
BODY_PAGES = 8  # plus a references page: 9 pages labelled 101-109


@pytest.fixture(scope="module")
def demo_settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("summarize-demo")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = library_settings(db.parent, root)
    index_library(settings, root / "home")
    return settings


@dataclass
class Paged:
    settings: Settings
    keys: dict[str, str]


@pytest.fixture(scope="module")
def paged(tmp_path_factory: pytest.TempPathFactory) -> Paged:
    """A 9-page paper with page labels 101-109, two papers with nearly the same title, and one item added
    after the index was built."""
    root = tmp_path_factory.mktemp("summarize-paged")
    folder = root / "library"
    b = ZoteroLibraryBuilder(folder, shape="z7", seed=11)
    keys = {
        "paged": b.add_item(
            "journalArticle",
            title=PAGED_TITLE,
            publicationTitle="Journal of Synthetic Test Documents",
            date="2024-00-00 2024",
            abstractNote="A pipeline that extracts text page by page and keeps the page numbers.",
            creators=[("Ada", "Parser"), ("Bo", "Pager")],
        ),
        "ncr": b.add_item(
            "journalArticle",
            title="Neural Citation Recommendation",
            date="2019-00-00 2019",
            creators=[("Cy", "Recommender")],
        ),
        "ncr2": b.add_item(
            "journalArticle",
            title="Neural Citation Recommendation Revisited",
            date="2021-00-00 2021",
            creators=[("Di", "Revisor")],
        ),
    }
    pdf = write_paper(root / "paged.pdf", body_pages=BODY_PAGES, page_labels=True)
    b.add_attachment(keys["paged"], filename="paged.pdf", content=pdf.path.read_bytes())
    b.build()
    settings = library_settings(folder, root)
    index_library(settings, root / "home")
    keys["late"] = b.add_item(
        "journalArticle",
        title="A Paper Added After Indexing",
        date="2025-00-00 2025",
        abstractNote="Added to Zotero after the last update-db.",
        creators=[("Ed", "Late")],
    )
    guard_database(b.build())
    return Paged(settings, keys)


@pytest.fixture
async def demo(demo_settings: Settings, tmp_path: Path) -> AsyncIterator[Client]:
    async with connect(demo_settings, home=tmp_path / "home") as client:
        yield client


@pytest.fixture
async def paged_client(paged: Paged, tmp_path: Path) -> AsyncIterator[Client]:
    async with connect(paged.settings, home=tmp_path / "home") as client:
        yield client


@pytest.fixture
async def bare(settings: Settings, tmp_path: Path) -> AsyncIterator[Client]:
    """The every-case library and no index at all."""
    async with connect(settings, home=tmp_path / "home") as client:
        yield client


async def call(client: Client, **arguments: Any) -> Any:
    return await client.call_tool("zot_summarize", arguments, raise_on_error=False)


async def ok(client: Client, **arguments: Any) -> dict[str, Any]:
    return (await answer(client, **arguments))[0]


async def answer(client: Client, **arguments: Any) -> tuple[dict[str, Any], str]:
    """The structured content and the text of a successful call. The words of passages and pages are in
    the text only: the structured content says where they are, so the answer costs its tokens once."""
    result = await call(client, **arguments)
    text = result.content[0].text
    assert not result.is_error, text
    data = result.structured_content
    assert data["route"]["tool"] == "zot_summarize"
    assert data["tokens"] == (len(text) + 3) // 4  # the estimate covers the text sent
    assert '"text"' not in json.dumps(data)  # no passage or page text repeated in the structured form
    return data, text


async def error(client: Client, **arguments: Any) -> tuple[str, dict[str, Any]]:
    result = await call(client, **arguments)
    assert result.is_error
    return result.content[0].text, result.structured_content["error"]


# -- finding the paper ------------------------------------------------------------------------------


@pytest.mark.slow
async def test_quick_overview_from_title_words(demo: Client) -> None:
    result = await call(demo, query="the S2ORC paper")
    data = result.structured_content
    assert data["route"]["mode"] == "quick"
    assert data["title"].startswith("S2ORC") and data["resolved_by"] == "title words"
    assert data["citation"].startswith("Lo, K., Wang, L. L., Neumann, M., Kinney, R., & Weld, D. (2020).")
    assert "https://doi.org/10.18653/v1/2020.acl-main.447" in data["citation"]
    assert data["counts"] == {"notes": 1, "annotations": 2, "attachments": 1}
    assert data["collections"] == ["Thesis/Background"] and "corpus" in data["tags"]
    assert data["full_text"]["status"] == "indexed" and data["full_text"]["pages"] == 2
    text = result.content[0].text
    assert "Abstract: A large corpus" in text
    assert 100 < data["tokens"] < 600  # "a few hundred tokens"


@pytest.mark.parametrize(
    ("arguments", "how"),
    [
        ({"query": "give me an overview", "item_key": "{key}"}, "item key"),
        ({"query": "summarize 10.18653/v1/2020.acl-main.447"}, "DOI"),
        ({"query": "summarize lo2020s2orc"}, "citation key"),
        ({"query": "Lo et al. 2020"}, "author and year"),
        ({"query": "in-depth breakdown of the S2ORC paper"}, "title words"),
    ],
)
@pytest.mark.slow
async def test_every_way_of_naming_the_paper_finds_it(
    demo: Client, arguments: dict[str, str], how: str
) -> None:
    wanted = (await ok(demo, query="the S2ORC paper"))["item_key"]
    filled = {k: v.replace("{key}", wanted.lower()) for k, v in arguments.items()}
    data = await ok(demo, **filled)
    assert (data["item_key"], data["resolved_by"]) == (wanted, how)


@pytest.mark.slow
async def test_two_papers_by_the_same_author_return_candidates(demo: Client) -> None:
    text, err = await error(demo, query="summarize the paper by Kyle Lo")
    assert err["type"] == "AmbiguousNameError"
    titles = sorted(c.split(": ", 1)[1] for c in err["candidates"])
    assert titles == [  # each with what in the request it fits
        "S2ORC: The Semantic Scholar Open Research Corpus (2020, Lo et al.) — fits: Kyle, Lo",
        "SciBERT: A Pretrained Language Model for Scientific Text (2019, Beltagy et al.) — fits: Kyle, Lo",
    ]
    assert all(S2ORC_KEY_RE.match(c.split(":")[0]) for c in err["candidates"])
    assert "item_key" in text  # says how to pick one
    assert all(c in text for c in err["candidates"])  # the assistant reads the candidates in the text too


@pytest.mark.slow
async def test_titles_that_both_hold_every_word_are_ambiguous(paged_client: Client, paged: Paged) -> None:
    _, err = await error(paged_client, query="the neural citation paper")
    assert {c.split(":")[0] for c in err["candidates"]} == {paged.keys["ncr"], paged.keys["ncr2"]}
    for title, key in (
        ("neural citation recommendation", "ncr"),
        ("neural citation recommendation revisited", "ncr2"),
    ):
        exact = await ok(paged_client, query=f"the {title} paper")  # a whole title names one paper
        assert exact["item_key"] == paged.keys[key]


@pytest.mark.slow
async def test_bad_input_gets_actionable_errors(demo: Client) -> None:
    text, err = await error(demo, query="summarize ZZZZ9999")
    assert err["type"] == "NotFoundError" and "ZZZZ9999" in text
    text, _ = await error(demo, query="", item_key="QQQQ1111")
    assert "QQQQ1111" in text
    text, _ = await error(demo, query="summarize 10.9999/not.in.library")
    assert "10.9999/not.in.library" in text and "DOI" in text
    text, err = await error(demo, query="")
    assert err["type"] == "InvalidArgumentError" and "item_key" in text
    text, _ = await error(demo, query="the S2ORC paper", force_mode="full", max_tokens=5)
    assert "max_tokens" in text
    text, _ = await error(demo, query="the S2ORC paper", force_mode="full", pages="1", offset=2)
    assert "not both" in text


@pytest.mark.parametrize(
    ("pages", "says"),
    [("3-2", "starts after it ends"), ("0", "numbered from 1"), ("99", "9 pages"), ("three", "not a page")],
)
@pytest.mark.slow
async def test_bad_page_ranges_say_how_to_fix_them(paged_client: Client, pages: str, says: str) -> None:
    text, err = await error(paged_client, query="full text of the page-aware parsing paper", pages=pages)
    assert err["type"] == "InvalidArgumentError"
    assert says in text and err["hint"]


# -- the modes -------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_targeted_returns_page_cited_passages_of_that_paper(demo: Client) -> None:
    data, text = await answer(demo, query="how are citation links resolved in the S2ORC paper?")
    assert data["route"]["mode"] == "targeted" and data["title"].startswith("S2ORC")
    passages = data["passages"]
    assert passages and all(p["kind"] == "chunk" and p["page_start"] == 1 for p in passages)
    # the sentence that answers is returned, as one of the best sentences of the paper
    assert "resolve citation links" in text
    assert all(p["chars"] < 700 for p in passages)  # sentence windows, not whole chunks


@pytest.mark.slow
async def test_targeted_passages_carry_page_labels(paged_client: Client, paged: Paged) -> None:
    result = await call(paged_client, query=marker(6), item_key=paged.keys["paged"], force_mode="targeted")
    passages = result.structured_content["passages"]
    assert passages
    for passage in passages:  # the labels of the pages each passage spans, as the parser stored them
        span = range(passage["page_start"], passage["page_end"] + 1)
        assert passage["page_labels"] == [str(100 + n) for n in span]
    first = passages[0]["page_start"]
    assert f"p. {first} [{100 + first}]" in result.content[0].text


@pytest.mark.slow
async def test_comprehensive_gives_each_aspect_its_own_passages(paged_client: Client, paged: Paged) -> None:
    data = await ok(paged_client, query="comprehensive summary", item_key=paged.keys["paged"])
    assert data["route"]["mode"] == "comprehensive"
    aspects = data["aspects"]
    assert [a["aspect"] for a in aspects] == [
        "research question",
        "method",
        "findings",
        "conclusions",
        "limitations",
    ]
    seen = [(p["attachment_key"], p["page_start"], p["chars"]) for a in aspects for p in a["passages"]]
    assert len(seen) >= len(aspects) and len(seen) == len(set(seen))  # no passage under two aspects
    # a passage from the item's abstract field (the pages print none) has no page
    assert all(1 <= page <= BODY_PAGES + 1 for _, page, _ in seen if page is not None)


@pytest.mark.slow
async def test_full_text_of_the_demo_paper(demo: Client) -> None:
    data, text = await answer(demo, query="give me the full text of S2ORC")
    assert data["route"]["mode"] == "full" and data["total_pages"] == 2
    assert "2 Building the corpus" in text and data["pages"][0]["chars"] > 100
    assert data["next"] is None
    text = (await call(demo, query="give me the full text of S2ORC")).content[0].text
    assert "reference list" in text and "End of the paper." in text


@pytest.mark.slow
async def test_full_pages_line_up_with_the_pdf_and_its_labels(paged_client: Client, paged: Paged) -> None:
    data, text = await answer(
        paged_client, query="the page-aware parsing paper", force_mode="full", pages="3-4"
    )
    assert [(p["number"], p["label"]) for p in data["pages"]] == [(3, "103"), (4, "104")]
    assert -1 < text.find(marker(3)) < text.find(marker(4))
    assert data["total_pages"] == BODY_PAGES + 1
    assert data["next"]["offset"] == 5


@pytest.mark.slow
async def test_full_pages_named_in_the_query_or_implied_by_arguments(paged_client: Client) -> None:
    data = await ok(paged_client, query="read page 5 of the page-aware parsing paper")
    assert data["route"]["mode"] == "full"
    assert [p["number"] for p in data["pages"]] == [5]
    implied = await ok(paged_client, query="the page-aware parsing paper", pages="2")  # pages means full text
    assert implied["route"]["mode"] == "full" and [p["number"] for p in implied["pages"]] == [2]


@pytest.mark.slow
async def test_offset_and_budget_walk_the_whole_paper(paged_client: Client, paged: Paged) -> None:
    read: list[int] = []
    offset: int | None = 1
    while offset is not None:
        data = await ok(
            paged_client, item_key=paged.keys["paged"], force_mode="full", offset=offset, max_tokens=600
        )
        numbers = [p["number"] for p in data["pages"]]
        assert 1 <= len(numbers) < BODY_PAGES  # the budget splits the paper into several answers
        assert data["tokens"] <= 600 + 150  # the pages fit the budget; the header is extra
        read += numbers
        offset = data["next"]["offset"] if data["next"] else None
    assert read == list(range(1, BODY_PAGES + 2))


@pytest.mark.slow
async def test_one_page_over_the_budget_is_cut_and_says_so(paged_client: Client, paged: Paged) -> None:
    result = await call(
        paged_client, item_key=paged.keys["paged"], force_mode="full", pages="2", max_tokens=100
    )
    assert result.structured_content["truncated"] is True
    assert "larger max_tokens" in result.content[0].text


# -- what exists without full text ---------------------------------------------------------------


@pytest.mark.slow
async def test_item_without_a_file_falls_back_to_metadata(demo: Client) -> None:
    data = await ok(demo, query="comprehensive summary of the BERT paper")
    assert data["title"].startswith("BERT") and data["full_text"]["status"] == "no_text"
    assert "no PDF or other file attached" in data["full_text"]["message"]


@pytest.mark.slow
async def test_item_added_after_indexing_says_to_update(paged_client: Client, paged: Paged) -> None:
    result = await call(paged_client, item_key=paged.keys["late"], query="what does it find?")
    data = result.structured_content
    assert data["full_text"]["status"] == "not_indexed"
    assert "agent-zot update-db" in result.content[0].text
    assert "Added to Zotero after the last update-db." in result.content[0].text


async def test_without_an_index_every_mode_returns_what_zotero_has(
    bare: Client, full_lib: FullLibrary, tmp_path: Path
) -> None:
    key = full_lib.keys["s2orc"]
    quick = await ok(bare, item_key=key, force_mode="quick")
    assert quick["full_text"]["status"] == "no_index" and quick["counts"]["notes"] == 1
    for mode in ("targeted", "comprehensive"):
        result = await call(bare, item_key=key, query="what is the corpus size?", force_mode=mode)
        text = result.content[0].text
        assert not result.is_error and "agent-zot update-db" in text
        assert "(p. 4969)" in text and "81.1M English-language academic papers" in text  # annotation
        assert "Key ideas" in text  # the child note
    full = await call(bare, item_key=key, force_mode="full")
    assert "Zotero's full-text cache" in full.content[0].text and "Kyle Lo" in full.content[0].text
    assert full.structured_content["total_pages"] is None
    assert not (tmp_path / "state" / "index" / "state.sqlite").exists()  # reading never creates an index


# -- the shared real PDFs --------------------------------------------------------------------------

SHARED_CHOICE = ("papermage__2020.acl-main.447.pdf", "grobid__Wang-paperAVE2008.pdf", "grobid__sample1.pdf")


@pytest.fixture(scope="module")
def shared_pdfs(tmp_path_factory: pytest.TempPathFactory) -> tuple[Settings, dict[str, str]]:
    root = tmp_path_factory.mktemp("summarize-shared")
    b = ZoteroLibraryBuilder(root / "library", shape="z7", seed=5)
    keys: dict[str, str] = {}
    with (SHARED_PDFS / "metadata.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if row["file"] not in SHARED_CHOICE:
                continue
            creators = [
                tuple(reversed([p.strip() for p in n.split(",", 1)])) for n in row["authors"].split(";")
            ]
            fields = {
                "title": row["title"],
                "publicationTitle": row["venue"],
                "date": f"{row['year']}-00-00 {row['year']}",
            }
            if row["doi"]:
                fields["DOI"] = row["doi"]
            keys[row["file"]] = b.add_item("journalArticle", creators=creators, **fields)
            b.add_attachment(
                keys[row["file"]], filename=row["file"], content=(SHARED_PDFS / row["file"]).read_bytes()
            )
    settings = library_settings(guard_database(b.build()).parent, root)
    index_library(settings, root / "home")
    return settings, keys


def _pdfium_page(path: Path, number: int) -> str:
    import pypdfium2

    document = pypdfium2.PdfDocument(path)
    try:
        text = document[number - 1].get_textpage().get_text_range()
        return text.replace("\ufffe", "").replace("\u00ad", "")  # pdfium's marks for soft hyphens
    finally:
        document.close()


def _words(text: str) -> str:
    return " ".join(re.findall(r"\w+", text.lower()))


@pytest.mark.shared_data(SHARED_PDFS / "metadata.csv")
@pytest.mark.slow
async def test_shared_pdfs_full_text_pages_match_pdfium(
    shared_pdfs: tuple[Settings, dict[str, str]], tmp_path: Path
) -> None:
    settings, keys = shared_pdfs
    name = "papermage__2020.acl-main.447.pdf"
    async with connect(settings, home=tmp_path / "home") as client:
        for page in (3, 7):
            data, text = await answer(client, item_key=keys[name], force_mode="full", pages=str(page))
            assert data["total_pages"] == 15 and [p["number"] for p in data["pages"]] == [page]
            lines = [ln for ln in _pdfium_page(SHARED_PDFS / name, page).splitlines() if len(ln.split()) >= 8]
            distinctive = _words(" ".join(lines[len(lines) // 2].split()[1:7]))  # a body line's inner words
            assert distinctive in _words(text)
        quick = await ok(client, query="the S2ORC paper")
        assert quick["item_key"] == keys[name] and quick["citation"].startswith("Lo, K.")
        deep = await ok(client, query="comprehensive summary of the S2ORC paper")
        passages = [p for a in deep["aspects"] for p in a["passages"]]
        assert len(passages) >= 5 and all(1 <= p["page_start"] <= 15 for p in passages)
        assert 500 < deep["tokens"] <= 4000 + 200
