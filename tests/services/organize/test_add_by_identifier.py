"""Adding papers by identifier (DOI, arXiv id, PMID, ISBN): through the MCP client and the CLI, with the
registries' fakes (tests/services/organize/fake_registries.py) and the fake Zotero web API; nothing leaves loopback and
zotero.sqlite keeps its bytes."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.errors import InvalidArgumentError
from agent_zot.identifiers import parse_identifiers
from agent_zot.services.organize.add.zotero_json import ITEM_FIELDS, zotero_item
from agent_zot.services.routing import route
from agent_zot.zotero.models import ReadOptions
from agent_zot.zotero.reader import load_library
from tests.conftest import call_tool, guard_database, make_settings, text_of
from tests.factories import FullLibrary
from tests.services.organize.fake_registries import (
    ARXIV_NEW,
    ARXIV_OLD,
    CSL_JSON,
    ISBN_10,
    ISBN_13,
    MAPREDUCE_DOI,
    OPEN_DOI,
    PMID,
    PMID_DOI,
    PMID_OF_S2ORC,
    S2ORC_DOI,
    FakeRegistries,
)
from tests.services.organize.fake_zotero_api import FakeZoteroApi

API_KEY = "fake-write-key"
META = {"key", "version", "itemType", "creators", "tags", "collections", "relations"}
ATTACHMENT = {"parentItem", "linkMode", "contentType", "title", "url", "charset", "note", "path"}


@pytest.fixture
def fake(full_lib: FullLibrary) -> Iterator[FakeZoteroApi]:
    library = load_library(full_lib.db_path, options=ReadOptions(base_attachment_dir=full_lib.linked_base))
    with FakeZoteroApi(library) as api:
        key = api.new_key()  # created in Zotero since the last sync: only the API knows it
        api.collections[key] = {
            "key": key,
            "version": 6,
            "name": "Distributed Systems",
            "parentCollection": False,
        }
        yield api


@pytest.fixture
def registries() -> Iterator[FakeRegistries]:
    with FakeRegistries() as fakes:
        yield fakes


@pytest.fixture
def db_bytes(full_lib: FullLibrary) -> Iterator[bytes]:
    before = guard_database(full_lib.db_path).read_bytes()
    yield before
    assert full_lib.db_path.read_bytes() == before


@pytest.fixture
def web(
    full_lib: FullLibrary, tmp_path: Path, fake: FakeZoteroApi, registries: FakeRegistries, db_bytes: bytes
) -> Settings:
    return make_settings(
        full_lib,
        tmp_path,
        writes_enabled=True,
        zotero_api_key=API_KEY,
        zotero_library_id="1234567",
        zotero_api_url=fake.url,
        **registries.settings(),
    )


def created(fake: FakeZoteroApi, before: set[str]) -> dict[str, dict[str, Any]]:
    return {k: v for k, v in fake.items.items() if k not in before}


def parents(items: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
    return [i for i in items.values() if i["itemType"] != "attachment"]


def assert_valid_fields(item: dict[str, Any]) -> None:
    """Only fields Zotero's schema has for the item's type: others would land in Extra silently."""
    allowed = META | (ATTACHMENT if item["itemType"] == "attachment" else set(ITEM_FIELDS[item["itemType"]]))
    assert set(item) <= allowed, set(item) - allowed


# -- identifiers in text --------------------------------------------------------------------------


def test_identifiers_are_found_and_normalised() -> None:
    text = (
        "add doi:10.1145/1327452.1327492, https://doi.org/10.9999/FAKE.open.2021.7. and arXiv:2101.00001v2, "
        "hep-th/9901001v1, PMID 31452104, ISBN 978-0-262-03384-8 and ISBN: 0-262-03384-4 to Thesis"
    )
    found = [(i.kind, i.value) for i in parse_identifiers(text)]
    assert found == [
        ("doi", MAPREDUCE_DOI),
        ("doi", OPEN_DOI),
        ("arxiv", ARXIV_NEW),
        ("arxiv", ARXIV_OLD),
        ("pmid", PMID),
        ("isbn", ISBN_13),  # the ISBN-10 is the same book: one entry
    ]
    assert [i.kind for i in parse_identifiers("PMID: 123, pubmed.ncbi.nlm.nih.gov/456/")] == ["pmid", "pmid"]
    assert [(i.kind, i.value) for i in parse_identifiers("9780262033848")] == [("isbn", ISBN_13)]
    assert parse_identifiers("add the paper from 2019 to Thesis, 12 pages") == []
    with pytest.raises(InvalidArgumentError, match="978-0-262-03384-9"):
        parse_identifiers("ISBN 978-0-262-03384-9")  # wrong check digit: named, not guessed


def test_csl_maps_to_fields_valid_for_the_type() -> None:
    csl = {
        "type": "chapter",
        "title": "A chapter",
        "container-title": "The book",
        "author": [{"given": "A", "family": "B"}, {"literal": "The Consortium"}],
        "container-author": [{"given": "C", "family": "D"}],
        "issued": {"date-parts": [[2020, 3]]},
        "page": "1-9",
        "ISSN": ["1111-2222"],
        "PMID": "123",
        "number-of-pages": "9",
        "journalAbbreviation": "TB",
    }
    item = zotero_item(csl, library_catalog="Crossref")
    assert item["itemType"] == "bookSection" and item["bookTitle"] == "The book" and item["date"] == "2020-03"
    assert item["creators"] == [
        {"creatorType": "author", "firstName": "A", "lastName": "B"},
        {"creatorType": "author", "name": "The Consortium"},
        {"creatorType": "bookAuthor", "firstName": "C", "lastName": "D"},
    ]
    assert item["ISSN"] == "1111-2222"
    assert "PMID: 123" in item["extra"].splitlines()  # an identifier without a field here: kept in Extra
    assert_valid_fields(item)
    for kind in (
        "article-journal",
        "article",
        "paper-conference",
        "book",
        "report",
        "thesis",
        "dataset",
        "odd",
    ):
        assert_valid_fields(zotero_item({**csl, "type": kind}, library_catalog="x"))
    assert (
        zotero_item({**csl, "type": "journal-article"}, library_catalog="x")["itemType"] == "journalArticle"
    )


def test_routing_sends_identifiers_to_the_import_mode() -> None:
    tool = "zot_manage_collections"
    decision = route(tool, f"add {MAPREDUCE_DOI} to my Distributed Systems collection")
    assert decision.mode == "import" and decision.params["collection"] == "Distributed Systems"
    assert route(tool, "add arXiv:2101.00001 and PMID 31452104 to Thesis, tag to-read").mode == "import"
    assert route(tool, "import ISBN 978-0-262-03384-8").mode == "import"
    assert route(tool, "add ABCD2345 to Thesis").mode == "add"


# -- through the MCP client -----------------------------------------------------------------------


README_REQUEST = f"add {MAPREDUCE_DOI} to my Distributed Systems collection, tag to-read"


def test_the_request_is_the_readmes() -> None:
    readme = " ".join((Path(__file__).resolve().parents[3] / "README.md").read_text(encoding="utf-8").split())
    assert f'"{README_REQUEST}"' in readme


async def test_paper_added_by_doi_into_a_collection_with_a_tag(
    web: Settings, fake: FakeZoteroApi, registries: FakeRegistries
) -> None:
    before = set(fake.items)
    result = await call_tool(web, "zot_manage_collections", query=README_REQUEST)
    assert not result.is_error, text_of(result)
    assert result.structured_content["route"]["mode"] == "import"
    [item] = created(fake, before).values()
    [collection] = [k for k, c in fake.collections.items() if c["name"] == "Distributed Systems"]
    assert item["itemType"] == "journalArticle" and item["DOI"] == MAPREDUCE_DOI
    assert item["title"].startswith("MapReduce") and item["publicationTitle"] == "Communications of the ACM"
    assert item["date"] == "2008-01" and item["pages"] == "107-113" and item["ISSN"] == "0001-0782"
    assert item["creators"][0] == {"creatorType": "author", "firstName": "Jeffrey", "lastName": "Dean"}
    assert item["collections"] == [collection] and item["tags"] == [{"tag": "to-read"}]
    assert_valid_fields(item)
    text = text_of(result)
    assert item["key"] in text and "MapReduce" in text and "Distributed Systems" in text
    # the publisher's PDF link carries no open licence: no attachment
    assert "PDF" not in text or "no open-access PDF" in text
    [asked] = registries.asked("doi")
    assert (
        CSL_JSON in asked.headers["Accept"] and "mailto:librarian@example.org" in asked.headers["User-Agent"]
    )
    posts = [r for r in fake.writes() if r.path.endswith("/items")]
    assert len(posts) == 1  # the collection and tag go in the same write


async def test_three_kinds_in_one_request(
    web: Settings, fake: FakeZoteroApi, registries: FakeRegistries
) -> None:
    before = set(fake.items)
    result = await call_tool(
        web,
        "zot_manage_collections",
        identifiers=[f"arXiv:{ARXIV_NEW}v2", f"PMID {PMID}", ISBN_10],
        collection="Thesis",
        tags=["to-read", "import"],
    )
    assert not result.is_error, text_of(result)
    new = created(fake, before)
    by_type = {i["itemType"]: i for i in parents(new)}
    assert set(by_type) == {"preprint", "journalArticle", "book"}
    preprint, article, book = by_type["preprint"], by_type["journalArticle"], by_type["book"]
    assert preprint["archiveID"] == f"arXiv:{ARXIV_NEW}" and preprint["repository"] == "arXiv"
    assert preprint["title"] == "A fake preprint on sparse attention" and preprint["date"] == "2021-01-01"
    assert preprint["creators"][1] == {"creatorType": "author", "firstName": "Alan M.", "lastName": "Turing"}
    assert article["PMID"] == PMID and article["PMCID"] == "PMC6700001" and article["DOI"] == PMID_DOI
    assert article["date"] == "2019-08-26" and article["creators"][0]["lastName"] == "Curie"
    assert book["ISBN"] == ISBN_13 and book["publisher"] == "MIT Press" and book["numPages"] == "1292"
    assert book["title"] == "Introduction to fake algorithms: third edition"
    thesis = next(k for k, c in fake.collections.items() if c["name"] == "Thesis")
    for item in (preprint, article, book):
        assert item["collections"] == [thesis]
        assert item["tags"] == [{"tag": "to-read"}, {"tag": "import"}]
        assert_valid_fields(item)
    # arXiv links its PDF: attached as a link, not downloaded
    [pdf] = [i for i in new.values() if i["itemType"] == "attachment"]
    assert pdf["parentItem"] == preprint["key"] and pdf["linkMode"] == "linked_url"
    assert (
        pdf["url"].startswith("http://arxiv.org/pdf/2101.00001") and pdf["contentType"] == "application/pdf"
    )
    assert_valid_fields(pdf)
    assert "linked" in text_of(result) and result.structured_content["status"] == "ok"
    [pubmed] = registries.asked("eutils")
    assert pubmed.query["email"] == "librarian@example.org" and pubmed.query["tool"] == "agent-zot"


async def test_unknown_doi_is_named_while_the_others_are_added(
    web: Settings, fake: FakeZoteroApi, registries: FakeRegistries
) -> None:
    before = set(fake.items)
    result = await call_tool(
        web, "zot_manage_collections", identifiers=["10.9999/no.such.doi", OPEN_DOI, "arXiv:2107.99999"]
    )
    data = result.structured_content
    assert not result.is_error and data["status"] == "partial", text_of(result)
    [paper] = parents(created(fake, before))
    assert paper["DOI"] == OPEN_DOI and paper["itemType"] == "conferencePaper"
    assert paper["abstractNote"] == "We show that consensus is reachable."
    assert {u["identifier"] for u in data["unknown"]} == {"10.9999/no.such.doi", "2107.99999"}
    text = text_of(result)
    assert "10.9999/no.such.doi" in text and "not found" in text.lower()
    # Crossref links an open-licensed PDF: attached as a link
    [pdf] = [i for i in created(fake, before).values() if i["itemType"] == "attachment"]
    assert pdf["url"] == "https://fake.example/open.pdf" and pdf["parentItem"] == paper["key"]


async def test_duplicates_are_named_not_added(
    web: Settings, fake: FakeZoteroApi, registries: FakeRegistries, full_lib: FullLibrary
) -> None:
    before = set(fake.items)
    result = await call_tool(
        web,
        "zot_manage_collections",
        identifiers=[
            S2ORC_DOI.upper(),
            "arXiv:1903.10676v3",
            f"PMID {PMID_OF_S2ORC}",
            "ISBN 978-0-387-30303-1",
        ],
        collection="Thesis",
    )
    assert not result.is_error, text_of(result)
    assert created(fake, before) == {} and fake.writes() == []
    held = {d["identifier"]: d["item_keys"] for d in result.structured_content["already_held"]}
    assert held[S2ORC_DOI] == [full_lib.keys["s2orc"]]
    assert held["1903.10676"][0] == full_lib.keys["scibert"]  # copies included
    assert held[PMID_OF_S2ORC] == [full_lib.keys["s2orc"]]  # found by the DOI PubMed gave
    assert held["9780387303031"] == [full_lib.keys["book"]]
    assert registries.asked("doi") == [] and registries.asked("arxiv") == []  # known before asking
    text = text_of(result)
    assert full_lib.keys["s2orc"] in text and "already" in text and "nothing was added" in text.lower()


async def test_registry_down_writes_nothing(
    web: Settings, fake: FakeZoteroApi, registries: FakeRegistries
) -> None:
    registries.down.add("arxiv")
    result = await call_tool(
        web, "zot_manage_collections", identifiers=[MAPREDUCE_DOI, ARXIV_NEW], collection="Thesis"
    )
    assert result.is_error
    text = text_of(result)
    assert "arXiv" in text and "503" in text and "nothing was added" in text.lower()
    assert fake.writes() == []


async def test_doi_org_down_falls_back_to_crossref(
    web: Settings, fake: FakeZoteroApi, registries: FakeRegistries
) -> None:
    registries.down.add("doi")
    before = set(fake.items)
    result = await call_tool(web, "zot_manage_collections", identifiers=[f"https://doi.org/{MAPREDUCE_DOI}"])
    assert not result.is_error, text_of(result)
    [item] = parents(created(fake, before))
    assert item["title"].startswith("MapReduce") and item["libraryCatalog"] == "Crossref"
    assert registries.asked("crossref")[0].path == "/crossref/works/10.1145%2F1327452.1327492" or (
        registries.asked("crossref")[0].path == f"/crossref/works/{MAPREDUCE_DOI}"
    )
    registries.down.add("crossref")
    failed = await call_tool(web, "zot_manage_collections", identifiers=[OPEN_DOI])
    assert failed.is_error and "Crossref" in text_of(failed)


async def test_writes_off_asks_no_registry(
    full_lib: FullLibrary, tmp_path: Path, fake: FakeZoteroApi, registries: FakeRegistries, db_bytes: bytes
) -> None:
    settings = make_settings(full_lib, tmp_path, zotero_api_url=fake.url, **registries.settings())
    result = await call_tool(settings, "zot_manage_collections", query=f"add {MAPREDUCE_DOI} to Thesis")
    assert result.is_error and result.structured_content["status"] == "not_enabled"
    assert registries.requests == [] and fake.requests == []


async def test_no_identifier_is_a_clear_error(web: Settings, registries: FakeRegistries) -> None:
    result = await call_tool(
        web, "zot_manage_collections", force_mode="import", query="add that paper to Thesis"
    )
    assert result.is_error and "DOI" in text_of(result) and registries.requests == []


def test_cli_add(
    web: Settings,
    fake: FakeZoteroApi,
    registries: FakeRegistries,
    full_lib: FullLibrary,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for name, value in {
        "writes_enabled": "true",
        "zotero_api_key": API_KEY,
        "zotero_library_id": "1234567",
        "zotero_api_url": fake.url,
        "data_dir": str(web.data_dir),
        **registries.settings(),
    }.items():
        monkeypatch.setenv(f"AGENT_ZOT_{name.upper()}", value)
    before = set(fake.items)
    result = CliRunner().invoke(
        cli,
        [
            "--library",
            str(full_lib.data_dir),
            "add",
            MAPREDUCE_DOI,
            f"arXiv:{ARXIV_OLD}",
            "--collection",
            "Thesis",
            "--tag",
            "to-read",
        ],
    )
    assert result.exit_code == 0, result.output
    new = parents(created(fake, before))
    assert {i["itemType"] for i in new} == {"journalArticle", "preprint"}
    assert all(i["tags"] == [{"tag": "to-read"}] for i in new)
    assert "MapReduce" in result.output


@pytest.mark.slow
def test_items_zotero_already_shows_are_indexed_at_once(full_lib: FullLibrary, tmp_path: Path) -> None:
    # an index built before the item came (limit=1: only the newest item), as when Zotero has just saved it
    from agent_zot.services.context import AppContext
    from agent_zot.services.organize.add.service import index_now
    from agent_zot.services.upkeep.update_db import UpdateOptions, update_index

    settings = make_settings(full_lib, tmp_path, embed_device="cpu")
    ctx = AppContext(settings, home=tmp_path / "home")
    try:
        library = ctx.library()
        update_index(library, ctx.index_resources(), UpdateOptions(fulltext=False, limit=1))
        indexed = set(ctx.index_resources().state.item_keys())
        newcomer = next(k for k in sorted(library.items) if k not in indexed)
        assert "does not show" in index_now(ctx, ["ZZZZ2345"])
        assert index_now(ctx, [newcomer]).startswith("Indexed 1 new item")
        assert newcomer in set(ctx.index_resources().state.item_keys())
    finally:
        ctx.close()


async def test_a_paper_added_by_doi_through_zotero_10s_local_api(
    full_lib: FullLibrary, tmp_path: Path, registries: FakeRegistries, db_bytes: bytes
) -> None:
    """The same request through the running Zotero (its local API, with a key from the dialog) instead of
    the web API: the item lands in Zotero with its collection and tag, and the database is untouched."""
    from tests.services.organize.fake_zotero_local_api import FakeZoteroLocalApi

    library = load_library(full_lib.db_path, options=ReadOptions(base_attachment_dir=full_lib.linked_base))
    with FakeZoteroLocalApi(library) as zotero:
        zotero.answer_dialog("always")
        settings = make_settings(
            full_lib,
            tmp_path,
            writes_enabled=True,
            zotero_local_api=True,
            zotero_local_api_url=zotero.url,
            zotero_local_authorize_timeout_s=10,
            **registries.settings(),
        )
        before = set(zotero.items)
        result = await call_tool(
            settings,
            "zot_manage_collections",
            query=README_REQUEST.replace("Distributed Systems", "Chapter 2"),
        )
        assert not result.is_error, text_of(result)
        [item] = [i for k, i in zotero.items.items() if k not in before and i["itemType"] != "attachment"]
        assert item["DOI"] == MAPREDUCE_DOI and item["tags"] == [{"tag": "to-read"}]
        chapter = [k for k, c in zotero.collections.items() if c["name"] == "Chapter 2"]
        assert item["collections"] == chapter
        writes = [r for r in zotero.requests if r.method == "POST" and r.path.endswith("/items")]
        assert writes and all(r.headers["Zotero-Server-ID"] == zotero.server_id for r in writes)
        assert all(r.headers.get("Zotero-API-Key") in zotero.keys for r in writes)
