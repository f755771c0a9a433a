"""Write modes through a real MCP client, the real writer (httpx) and a fake Zotero web API.

zotero.sqlite is guarded for the whole session (conftest.guard_database) and compared byte for byte
in the tests below: every change goes to the API, never to the database.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest

from agent_zot.config import Settings
from agent_zot.errors import InvalidArgumentError
from agent_zot.services.writes.batch import read_fates
from agent_zot.services.writes.client import RateLimitTransport
from agent_zot.services.writes.collections import split_path
from agent_zot.services.writes.errors import RateLimitedError
from agent_zot.services.writes.item_changes import membership_change, tag_change, tag_names
from agent_zot.services.writes.note_html import NOTE_HTML_LIMIT, note_html
from agent_zot.services.writes.notes import note_payload
from agent_zot.services.writes.probe import describe_writes
from agent_zot.services.writes.route import WritesNotConfiguredError, write_routes
from agent_zot.zotero.models import ReadOptions
from agent_zot.zotero.reader import load_library
from tests.conftest import call_tool, guard_database, make_settings, text_of
from tests.factories import FullLibrary
from tests.services.organize.fake_zotero_api import FakeZoteroApi

API_KEY = "fake-write-key"


@pytest.fixture
def fake(full_lib: FullLibrary) -> Iterator[FakeZoteroApi]:
    library = load_library(full_lib.db_path, options=ReadOptions(base_attachment_dir=full_lib.linked_base))
    with FakeZoteroApi(library) as api:
        yield api


@pytest.fixture
def db_bytes(full_lib: FullLibrary) -> Iterator[bytes]:
    """The database's bytes before the test; after it they must be identical."""
    before = guard_database(full_lib.db_path).read_bytes()
    yield before
    assert full_lib.db_path.read_bytes() == before


def web_settings(full_lib: FullLibrary, tmp_path: Path, fake: FakeZoteroApi, **extra: Any) -> Settings:
    values: dict[str, Any] = {
        "writes_enabled": True,
        "zotero_api_key": API_KEY,
        "zotero_library_id": "1234567",
        "zotero_api_url": fake.url,
        **extra,
    }
    return make_settings(full_lib, tmp_path, **values)


@pytest.fixture
def web(full_lib: FullLibrary, tmp_path: Path, fake: FakeZoteroApi, db_bytes: bytes) -> Settings:
    return web_settings(full_lib, tmp_path, fake)


# -- gating -------------------------------------------------------------------------------------


async def test_disabled_writes_refuse_and_say_how_to_enable(
    full_lib: FullLibrary, tmp_path: Path, fake: FakeZoteroApi, db_bytes: bytes
) -> None:
    settings = make_settings(full_lib, tmp_path, zotero_api_url=fake.url)
    result = await call_tool(
        settings, "zot_manage_tags", force_mode="add", tags=["x"], item_keys=[full_lib.keys["book"]]
    )
    assert result.is_error and result.structured_content["status"] == "not_enabled"
    text = text_of(result)
    assert "not enabled" in text and "nothing was changed" in text
    assert "AGENT_ZOT_WRITES_ENABLED" in text and "AGENT_ZOT_ZOTERO_API_KEY" in text
    assert "AGENT_ZOT_ZOTERO_LIBRARY_ID" in text
    assert fake.requests == []


async def test_enabled_without_key_or_library_names_what_is_missing(
    full_lib: FullLibrary, tmp_path: Path, fake: FakeZoteroApi, db_bytes: bytes
) -> None:
    settings = make_settings(full_lib, tmp_path, writes_enabled=True, zotero_api_key=API_KEY)
    result = await call_tool(settings, "zot_manage_collections", query="create a collection called X")
    assert result.is_error and "zotero_library_id" in text_of(result)
    assert "zotero_api_key" not in result.structured_content["error"]["message"]
    assert fake.requests == []


# -- collections --------------------------------------------------------------------------------


async def test_create_nested_collection_reuses_existing_parents(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    thesis = full_lib.keys["thesis_coll"]
    result = await call_tool(web, "zot_manage_collections", query='create collection "thesis/Chapter 3"')
    assert not result.is_error, text_of(result)
    data = result.structured_content
    assert data["route"]["mode"] == "create" and data["reused"] == [{"key": thesis, "path": "thesis"}]
    [created] = data["created"]
    assert fake.collections[created["key"]]["name"] == "Chapter 3"
    assert fake.collections[created["key"]]["parentCollection"] == thesis
    assert created["key"] in text_of(result) and data["write_route"]["kind"] == "web"
    assert data["local_reads_lag"] is True and "syncs" in text_of(result)

    deep = await call_tool(web, "zot_manage_collections", force_mode="create", collection="A/B/C")
    keys = [c["key"] for c in deep.structured_content["created"]]
    assert [fake.collections[k]["name"] for k in keys] == ["A", "B", "C"]
    assert fake.collections[keys[0]]["parentCollection"] is False
    assert [fake.collections[k]["parentCollection"] for k in keys[1:]] == keys[:2]

    posts = [r for r in fake.writes() if r.path.endswith("/collections")]
    assert len(posts) == 4 and all(r.headers.get("Zotero-Write-Token") for r in posts)
    assert {r.headers["Zotero-API-Version"] for r in posts} == {"3"}

    again = await call_tool(web, "zot_manage_collections", force_mode="create", collection="A/B/C")
    assert again.structured_content["created"] == [] and "already exists" in text_of(again)
    assert len([r for r in fake.writes() if r.path.endswith("/collections")]) == 4


async def test_parents_are_found_beyond_the_first_page_of_collections(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi
) -> None:
    for name in [f"Filler {i}" for i in range(120)] + ["Late"]:
        key = fake.new_key()
        fake.collections[key] = {"key": key, "version": 5, "name": name, "parentCollection": False}
    result = await call_tool(web, "zot_manage_collections", force_mode="create", collection="Late/Child")
    assert result.structured_content["reused"] == [{"key": key, "path": "Late"}], text_of(result)
    assert [r.query.get("start") for r in fake.requests if r.path.endswith("/collections")][:2] == [
        None,
        "100",
    ]


async def test_add_and_remove_items_in_a_collection(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    k = full_lib.keys
    added = await call_tool(
        web, "zot_manage_collections", query=f"add {k['book']} and {k['scibert']} to Chapter 2"
    )
    assert not added.is_error, text_of(added)
    data = added.structured_content
    assert data["route"]["mode"] == "add" and data["collection"]["key"] == k["ch2_coll"]
    assert data["changed"] == [k["book"]] and data["unchanged"] == [k["scibert"]]  # scibert was in it
    assert k["ch2_coll"] in fake.items[k["book"]]["collections"]
    assert k["reading_coll"] in fake.items[k["book"]]["collections"]  # other memberships kept

    removed = await call_tool(
        web,
        "zot_manage_collections",
        force_mode="remove",
        collection="Reading list",
        item_keys=[k["book"].lower()],
    )
    assert removed.structured_content["changed"] == [k["book"]], text_of(removed)
    assert fake.items[k["book"]]["collections"] == [k["ch2_coll"]]
    assert removed.structured_content["unconfirmed"] == []


async def test_ambiguous_collection_lists_candidates_and_changes_nothing(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    result = await call_tool(
        web,
        "zot_manage_collections",
        force_mode="add",
        collection="reading",
        item_keys=[full_lib.keys["book"]],
    )
    assert result.is_error
    error = result.structured_content["error"]
    assert error["type"] == "AmbiguousNameError" and len(error["candidates"]) == 2
    assert fake.writes() == []


# -- tags ---------------------------------------------------------------------------------------


@pytest.mark.slow
async def test_add_and_remove_tags_with_literal_names(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    k = full_lib.keys
    before = fake.tags_of(k["s2orc"])
    quoted = await call_tool(web, "zot_manage_tags", query=f'add tag "-draft" to {k["s2orc"]}')
    assert not quoted.is_error, text_of(quoted)
    assert quoted.structured_content["tags"] == ["-draft"]
    assert fake.tags_of(k["s2orc"]) == [*before, "-draft"]  # automatic tag kept, "-" is part of the name

    listed = await call_tool(
        web,
        "zot_manage_tags",
        force_mode="add",
        tags="a || b, -c",
        item_keys=[k["s2orc"], k["book"]],
    )
    assert listed.structured_content["tags"] == ["a || b", "-c"]
    assert {"a || b", "-c"} <= set(fake.tags_of(k["book"]))

    removed = await call_tool(
        web, "zot_manage_tags", query=f"remove tag nlp from {k['s2orc']} and {k['book']}"
    )
    data = removed.structured_content
    assert data["route"]["mode"] == "remove" and data["changed"] == [k["s2orc"]]
    assert data["unchanged"] == [k["book"]] and "did not have" in text_of(removed)
    assert "nlp" not in fake.tags_of(k["s2orc"]) and "-draft" in fake.tags_of(k["s2orc"])
    automatic = [t for t in fake.items[k["s2orc"]]["tags"] if t.get("type") == 1]
    assert automatic == [{"tag": "Computer Science - Computation and Language", "type": 1}]


async def test_unknown_and_malformed_keys_change_nothing(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    unknown = await call_tool(
        web,
        "zot_manage_tags",
        force_mode="add",
        tags=["x"],
        item_keys=[full_lib.keys["book"], "ZZZZ9999"],
    )
    assert unknown.is_error and unknown.structured_content["error"]["type"] == "NotFoundError"
    assert "ZZZZ9999" in text_of(unknown) and "Nothing was changed" in text_of(unknown)
    malformed = await call_tool(web, "zot_manage_tags", force_mode="add", tags=["x"], item_keys=["abc"])
    assert malformed.is_error and "ABC" in text_of(malformed)
    assert fake.writes() == [] and "x" not in fake.tags_of(full_lib.keys["book"])


async def test_item_of_another_library_is_named(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    result = await call_tool(
        web,
        "zot_manage_tags",
        force_mode="add",
        tags=["x"],
        item_keys=[full_lib.keys["group_item"]],
    )
    assert result.is_error and "Lab group" in text_of(result) and "users/1234567" in text_of(result)
    assert fake.requests == []


async def test_version_conflict_is_reread_and_retried_once(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    fake.edit_concurrently(book, times=1)
    result = await call_tool(web, "zot_manage_tags", force_mode="add", tags=["mine"], item_keys=[book])
    data = result.structured_content
    assert not result.is_error and data["changed"] == [book] and data["retried_after_conflict"] == [book]
    tags = fake.tags_of(book)
    assert "mine" in tags and any(t.startswith("edited-elsewhere") for t in tags)  # no lost update

    fake.edit_concurrently(book, times=2)
    stuck = await call_tool(web, "zot_manage_tags", force_mode="add", tags=["again"], item_keys=[book])
    assert stuck.is_error and stuck.structured_content["status"] == "failed"
    assert "412" in stuck.structured_content["failed"][0]["reason"] and "again" not in fake.tags_of(book)


async def test_partial_batch_failure_reports_each_item(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    k = full_lib.keys
    fake.per_object_failures[k["scibert"]] = (400, "Tag 'x' is invalid")
    result = await call_tool(
        web, "zot_manage_tags", force_mode="add", tags=["x"], item_keys=[k["s2orc"], k["scibert"]]
    )
    data = result.structured_content
    assert not result.is_error and data["status"] == "partial" and text_of(result).startswith("Partly done")
    assert data["changed"] == [k["s2orc"]]
    assert data["failed"] == [{"key": k["scibert"], "reason": "HTTP 400: Tag 'x' is invalid"}]
    assert "x" in fake.tags_of(k["s2orc"]) and "x" not in fake.tags_of(k["scibert"])


@pytest.mark.slow
async def test_rate_limit_waits_as_told_then_succeeds(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    fake.inject("POST", "/items", 429, {"Retry-After": "1"})
    result = await call_tool(
        web, "zot_manage_tags", force_mode="add", tags=["y"], item_keys=[full_lib.keys["book"]]
    )
    assert not result.is_error, text_of(result)
    assert result.structured_content["waited_s"] == 1 and "waited 1 s" in text_of(result)
    assert "y" in fake.tags_of(full_lib.keys["book"])
    assert len([r for r in fake.requests if r.method == "POST"]) == 2  # refused once, then accepted


async def test_rate_limit_longer_than_the_bound_is_reported(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    fake.inject("POST", "/items", 429, {"Retry-After": "3600"})
    result = await call_tool(
        web, "zot_manage_tags", force_mode="add", tags=["z"], item_keys=[full_lib.keys["book"]]
    )
    assert result.is_error and result.structured_content["error"]["type"] == "RateLimitedError"
    assert "3600" in text_of(result)
    assert "z" not in fake.tags_of(full_lib.keys["book"])


async def test_bad_api_key_is_a_clear_error(
    full_lib: FullLibrary, tmp_path: Path, fake: FakeZoteroApi, db_bytes: bytes
) -> None:
    settings = web_settings(full_lib, tmp_path, fake, zotero_api_key="wrong")
    result = await call_tool(
        settings, "zot_manage_tags", force_mode="add", tags=["x"], item_keys=[full_lib.keys["book"]]
    )
    assert result.is_error and "403" in text_of(result) and "zotero.org/settings/keys" in text_of(result)


# -- notes --------------------------------------------------------------------------------------


async def test_create_note_sends_sanitised_html(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    markdown = (
        "# Reading notes\n\nLine search is **robust**.\nSee [docs](https://example.org) and "
        '[bad](javascript:alert(1)).\n\n<script>alert("x")</script><a href="javascript:x" onclick="y()">z</a>'
        '<img src="x" onerror="alert(1)">'
    )
    result = await call_tool(web, "zot_manage_notes", force_mode="create", item_key=book, note=markdown)
    assert not result.is_error, text_of(result)
    key = result.structured_content["key"]
    [post] = [r for r in fake.writes() if r.path.endswith("/items")]
    [sent] = post.body
    assert sent["itemType"] == "note" and sent["parentItem"] == book
    html = sent["note"]
    assert "<h1>Reading notes</h1>" in html and "<strong>robust</strong>" in html
    assert '<a href="https://example.org"' in html
    for unsafe in ("<script", 'alert("x")', 'href="javascript', "onclick", "onerror", "<img"):
        assert unsafe not in html
    assert fake.items[key]["note"] == html and result.structured_content["confirmed"] is True


@pytest.mark.slow
async def test_note_from_the_query_and_refusals(
    web: Settings, tmp_path: Path, fake: FakeZoteroApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    routed = await call_tool(web, "zot_manage_notes", query=f"add a note to {book}: check eq. 3")
    assert not routed.is_error, text_of(routed)
    assert fake.items[routed.structured_content["key"]]["note"] == "<p>check eq. 3</p>"

    writes = len(fake.writes())
    empty = await call_tool(web, "zot_manage_notes", force_mode="create", item_key=book, note="  ")
    assert empty.is_error and "empty" in text_of(empty)
    huge = await call_tool(web, "zot_manage_notes", force_mode="create", item_key=book, note="x" * 1_000_000)
    assert huge.is_error and "256 KB" in text_of(huge)
    note_parent = await call_tool(
        web, "zot_manage_notes", force_mode="create", item_key=full_lib.keys["book_note"], note="hi"
    )
    assert note_parent.is_error and "regular items" in text_of(note_parent)
    assert len(fake.writes()) == writes


# -- routes -------------------------------------------------------------------------------------


# Zotero's local API (keys, server ID, Zotero 9 falling back to the web API): tests/services/organize/test_writes_local.py.


def test_doctor_reports_the_write_route(
    full_lib: FullLibrary, tmp_path: Path, fake: FakeZoteroApi, settings: Settings
) -> None:
    off = describe_writes(settings)
    assert off.status == "ok" and off.detail.startswith("off") and "AGENT_ZOT_WRITES_ENABLED" in off.fix
    web = describe_writes(web_settings(full_lib, tmp_path, fake))
    assert web.status == "ok" and "web API" in web.detail and "zotero_api_key" in web.detail
    wrong_user = describe_writes(web_settings(full_lib, tmp_path, fake, zotero_library_id="99"))
    assert wrong_user.status == "fail" and "belongs to user 1234567" in wrong_user.detail
    unreachable_local = describe_writes(
        web_settings(
            full_lib, tmp_path, fake, zotero_local_api=True, zotero_local_api_url="http://127.0.0.1:9/api"
        )
    )
    assert unreachable_local.status == "warn" and "through the Zotero web API" in unreachable_local.detail
    missing = describe_writes(make_settings(full_lib, tmp_path, writes_enabled=True))
    assert missing.status == "fail" and "zotero_api_key" in missing.detail


# -- request building (units) -------------------------------------------------------------------


def test_routes_follow_the_settings(full_lib: FullLibrary, tmp_path: Path) -> None:
    both = make_settings(
        full_lib,
        tmp_path,
        zotero_local_api=True,
        zotero_api_key="k",
        zotero_library_id="4242",
        zotero_library_type="group",
    )
    local, web = write_routes(both)
    assert (local.kind, local.library, local.api_key) == ("local", "groups/4242", None)
    assert (web.kind, web.library, web.base_url, web.api_key) == (
        "web",
        "groups/4242",
        "https://api.zotero.org",
        "k",
    )
    with pytest.raises(WritesNotConfiguredError):
        write_routes(make_settings(full_lib, tmp_path, zotero_api_key="k"))


def test_tag_names_are_literal_and_payloads_keep_other_fields() -> None:
    assert tag_names("a || b, -c ,, d") == ["a || b", "-c", "d"]
    assert tag_names(["x, y", "x, y", " -z "]) == ["x, y", "-z"]
    with pytest.raises(InvalidArgumentError):
        tag_names([" "])
    data = {"tags": [{"tag": "keep", "type": 1}, {"tag": "-c"}], "collections": ["AAAA2222"]}
    assert tag_change(["-c", "new"], add=True)(data) == {"tags": [*data["tags"], {"tag": "new"}]}
    assert tag_change(["-c"], add=False)(data) == {"tags": [{"tag": "keep", "type": 1}]}
    assert tag_change(["absent"], add=False)(data) is None
    assert membership_change("BBBB3333", add=True)(data) == {"collections": ["AAAA2222", "BBBB3333"]}
    assert membership_change("AAAA2222", add=True)(data) is None
    assert membership_change("AAAA2222", add=False)(data) == {"collections": []}
    assert note_payload("ABCD2345", "<p>x</p>")["parentItem"] == "ABCD2345"


def test_collection_paths_and_response_maps() -> None:
    assert split_path(" Thesis / Chapter  2 ") == ["Thesis", "Chapter 2"]
    for bad in ("", "A//B", "/A"):
        with pytest.raises(InvalidArgumentError):
            split_path(bad)
    fates = read_fates(
        {
            "successful": {"0": {"key": "AAAA2222"}},
            "success": {"0": "AAAA2222"},
            "unchanged": {"1": "BBBB3333"},
            "failed": {
                "2": {"key": "CCCC4444", "code": 412, "message": "stale"},
                "3": {"code": 400, "message": "bad"},
            },
        },
        ["AAAA2222", "BBBB3333", "CCCC4444", "DDDD5555"],
    )
    assert fates.success == ["AAAA2222"] and fates.unchanged == ["BBBB3333"]
    assert fates.failed == {"CCCC4444": (412, "stale"), "DDDD5555": (400, "bad")}


def test_note_html_limit_and_sanitising() -> None:
    assert note_html("plain\ntext") == "<p>plain<br>\ntext</p>"
    assert "<table>" in note_html("|a|b|\n|-|-|\n|1|2|")
    with pytest.raises(InvalidArgumentError, match="256 KB"):
        note_html("word " * (NOTE_HTML_LIMIT // 5 + 10))
    with pytest.raises(InvalidArgumentError, match="no text left"):
        note_html("<script>alert(1)</script>")


@pytest.mark.slow
def test_rate_limit_transport_waits_within_its_bound() -> None:
    waits: list[float] = []
    answers = iter(
        [
            httpx.Response(429, headers={"Retry-After": "2"}),
            httpx.Response(200, headers={"Backoff": "5"}, json=[]),
            httpx.Response(200, json=[]),
            httpx.Response(429, headers={"Retry-After": "120"}),
        ]
    )
    transport = RateLimitTransport(httpx.MockTransport(lambda request: next(answers)), sleep=waits.append)
    with httpx.Client(transport=transport) as client:
        first = client.post("http://127.0.0.1/users/1/items", content=json.dumps([]))
        assert first.status_code == 200 and "backoff" not in first.headers  # no second wait above
        assert client.get("http://127.0.0.1/users/1/items").status_code == 200
        with pytest.raises(RateLimitedError, match="120"):
            client.get("http://127.0.0.1/users/1/items")
    assert waits[0] == 2 and 0 < waits[1] <= 5 and len(waits) == 2
