"""Writes through Zotero 10's local API: keys asked for and kept, the server ID sent, refusals explained.

A real MCP client and CliRunner over the real writer, against tests/services/organize/fake_zotero_local_api.py (a fake that
follows the documented protocol, with scripted answers to Zotero's authorization dialog). zotero.sqlite
is compared byte for byte: every change goes to the API.
"""

from __future__ import annotations

import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.services.writes.local_keys import authorize, key_file
from agent_zot.services.writes.probe import describe_writes
from agent_zot.zotero.models import ReadOptions
from agent_zot.zotero.reader import load_library
from tests.conftest import call_tool, guard_database, make_settings, text_of
from tests.factories import FullLibrary
from tests.services.organize.fake_zotero_api import FakeZoteroApi
from tests.services.organize.fake_zotero_local_api import FakeZoteroLocalApi


def _library(full_lib: FullLibrary) -> Any:
    return load_library(full_lib.db_path, options=ReadOptions(base_attachment_dir=full_lib.linked_base))


@pytest.fixture
def db_bytes(full_lib: FullLibrary) -> Iterator[bytes]:
    before = guard_database(full_lib.db_path).read_bytes()
    yield before
    assert full_lib.db_path.read_bytes() == before


@pytest.fixture
def zotero(full_lib: FullLibrary, db_bytes: bytes) -> Iterator[FakeZoteroLocalApi]:
    with FakeZoteroLocalApi(_library(full_lib)) as api:
        yield api


def local_settings(full_lib: FullLibrary, tmp_path: Path, url: str, **extra: Any) -> Settings:
    values: dict[str, Any] = {
        "writes_enabled": True,
        "zotero_local_api": True,
        "zotero_local_api_url": url,
        "zotero_local_authorize_timeout_s": 10,  # a test that leaves the dialog unanswered sets less
    }
    return make_settings(full_lib, tmp_path, **{**values, **extra})


@pytest.fixture
def local(full_lib: FullLibrary, tmp_path: Path, zotero: FakeZoteroLocalApi) -> Settings:
    return local_settings(full_lib, tmp_path, zotero.url)


async def add_tag(settings: Settings, tag: str, *keys: str) -> Any:
    return await call_tool(settings, "zot_manage_tags", force_mode="add", tags=[tag], item_keys=list(keys))


def posts(api: FakeZoteroApi) -> list[Any]:
    return [r for r in api.requests if r.method == "POST" and not r.path.endswith("/authorize")]


# -- the whole path ---------------------------------------------------------------------------------


async def test_first_write_asks_for_a_key_and_tags_collections_notes_go_through(
    local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    k = full_lib.keys
    zotero.answer_dialog("always")
    tagged = await add_tag(local, "local-tag", k["book"])
    assert not tagged.is_error, text_of(tagged)
    assert "local-tag" in zotero.tags_of(k["book"])
    assert tagged.structured_content["write_route"] == {
        "kind": "local",
        "base_url": zotero.url,
        "library": "users/0",
        "reason": "zotero_local_api is on: the running Zotero app is asked first",
    }
    assert tagged.structured_content["local_reads_lag"] is False
    assert "Always Allow" in text_of(tagged)  # the answer says a key was asked for and kept

    created = await call_tool(local, "zot_manage_collections", force_mode="create", collection="Local/Sub")
    assert not created.is_error, text_of(created)
    names = {c["name"] for c in zotero.collections.values()}
    assert {"Local", "Sub"} <= names
    added = await call_tool(
        local, "zot_manage_collections", force_mode="add", collection="Chapter 2", item_keys=[k["book"]]
    )
    assert added.structured_content["changed"] == [k["book"]], text_of(added)
    note = await call_tool(
        local, "zot_manage_notes", force_mode="create", item_key=k["book"], note="local **note**"
    )
    assert not note.is_error, text_of(note)
    assert zotero.items[note.structured_content["key"]]["note"] == "<p>local <strong>note</strong></p>"

    assert len(zotero.prompts) == 1  # one Always Allow served every later write
    [key] = zotero.keys
    writes = posts(zotero)
    assert len(writes) == 5 and all(r.headers["Zotero-API-Key"] == key for r in writes)
    assert all(r.headers["Zotero-Server-ID"] == zotero.server_id for r in writes)
    for request in zotero.requests:
        assert not request.headers.get("User-Agent", "").startswith("Mozilla/")
        assert request.headers.get("Zotero-Allowed-Request") == "1"
    assert zotero.dropped == []
    stored = key_file(local)
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600 and key in stored.read_text()


async def test_allow_once_key_serves_one_write_and_the_next_write_asks_again(
    local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    zotero.answer_dialog("allow", "allow")
    first = await add_tag(local, "once-1", book)
    assert not first.is_error and "once-1" in zotero.tags_of(book), text_of(first)
    assert len(zotero.consumed) == 1 and zotero.keys == {}
    assert not key_file(local).exists()  # a single-use key is never written down
    second = await add_tag(local, "once-2", book)
    assert not second.is_error and "once-2" in zotero.tags_of(book), text_of(second)
    assert len(zotero.prompts) == 2 and len(zotero.consumed) == 2
    assert "Always Allow" in text_of(second)  # says how to stop being asked
    zotero.answer_dialog("deny")
    third = await add_tag(local, "once-3", book)  # one dialog per refused write, never a loop
    assert third.is_error and "once-3" not in zotero.tags_of(book)
    assert len(zotero.prompts) == 3


async def test_denied_authorization_is_answered_clearly_and_nothing_is_lost(
    local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    before = zotero.tags_of(book)
    zotero.answer_dialog("deny")
    result = await add_tag(local, "denied", book)
    assert result.is_error
    text = text_of(result)
    assert "Deny" in text and "agent-zot authorize" in text and "Always Allow" in text
    assert "not sent" in text and "nothing was lost" in text
    assert zotero.tags_of(book) == before and posts(zotero) == [] and len(zotero.prompts) == 1


async def test_an_unanswered_dialog_times_out_with_what_to_do(
    full_lib: FullLibrary, tmp_path: Path, zotero: FakeZoteroLocalApi
) -> None:
    settings = local_settings(full_lib, tmp_path, zotero.url, zotero_local_authorize_timeout_s=1)
    zotero.answer_dialog(None)
    result = await add_tag(settings, "late", full_lib.keys["book"])
    assert result.is_error and "1 s" in text_of(result) and "agent-zot authorize" in text_of(result)
    assert posts(zotero) == []


async def test_fifty_one_items_go_in_two_batches(
    local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    keys = [full_lib.keys["book"]]
    for _ in range(50):
        key = zotero.new_key()
        zotero.items[key] = {
            "key": key,
            "version": 5,
            "itemType": "book",
            "title": key,
            "tags": [],
            "collections": [],
        }
        keys.append(key)
    zotero.answer_dialog("always")
    result = await add_tag(local, "bulk", *keys)
    assert not result.is_error, text_of(result)
    assert len(result.structured_content["changed"]) == 51
    assert [len(r.body) for r in posts(zotero)] == [50, 1]
    assert all("bulk" in zotero.tags_of(k) for k in keys)


async def test_an_edit_made_in_zotero_meanwhile_is_kept(
    local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    zotero.answer_dialog("allow", "allow")  # the retry is a second write: a single-use key per write
    zotero.edit_concurrently(book)
    result = await add_tag(local, "mine", book)
    assert not result.is_error and result.structured_content["retried_after_conflict"] == [book], text_of(
        result
    )
    tags = zotero.tags_of(book)
    assert "mine" in tags and any(t.startswith("edited-elsewhere") for t in tags)
    [first, retry] = posts(zotero)
    assert first.body[0]["version"] == 5 and retry.body[0]["version"] > 5  # never sent without a version


async def test_a_changed_server_id_between_two_writes_is_named_then_followed(
    local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    zotero.answer_dialog("always")
    assert not (await add_tag(local, "before", book)).is_error
    zotero.server_id = "SRVbbbb22222"  # another profile (or a reinstalled Zotero) now answers
    zotero.clear_authorizations()
    changed = await add_tag(local, "after", book)
    assert changed.is_error and "after" not in zotero.tags_of(book)
    text = text_of(changed)
    assert "SRVaaaa11111" in text and "SRVbbbb22222" in text and "reinstalled" in text
    zotero.answer_dialog("always")
    again = await add_tag(local, "after", book)
    assert not again.is_error and "after" in zotero.tags_of(book), text_of(again)
    assert posts(zotero)[-1].headers["Zotero-Server-ID"] == "SRVbbbb22222"


async def test_a_cleared_key_is_replaced_once(
    local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    zotero.answer_dialog("always")
    assert not (await add_tag(local, "a", book)).is_error
    zotero.clear_authorizations()  # Settings › Advanced › Clear Write Authorizations
    zotero.answer_dialog("always")
    result = await add_tag(local, "b", book)
    assert not result.is_error and "b" in zotero.tags_of(book), text_of(result)
    assert len(zotero.prompts) == 2
    [key] = zotero.keys
    assert key in key_file(local).read_text()


async def test_missing_server_id_is_fetched_and_retried_once(
    local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    book = full_lib.keys["book"]
    zotero.answer_dialog("always")
    zotero.inject("POST", "/items", 428, {}, body="Zotero-Server-ID not provided")
    result = await add_tag(local, "x", book)
    assert not result.is_error and "x" in zotero.tags_of(book), text_of(result)
    zotero.inject("POST", "/items", 428, {}, times=2, body="Zotero-Server-ID not provided")
    stuck = await add_tag(local, "y", book)
    assert stuck.is_error and "428" in text_of(stuck) and "y" not in zotero.tags_of(book)


# -- refusals -------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("options", "expected"),
    [
        ({"enabled": False}, "Allow other applications on this computer to communicate with Zotero"),
        ({"editable": False}, "Write access denied"),
        ({"generation": 9}, "Zotero 10"),
    ],
)
async def test_refusals_say_what_to_do(
    full_lib: FullLibrary, tmp_path: Path, db_bytes: bytes, options: dict[str, Any], expected: str
) -> None:
    with FakeZoteroLocalApi(_library(full_lib), **options) as api:
        api.answer_dialog("always")
        settings = local_settings(full_lib, tmp_path, api.url)
        result = await add_tag(settings, "x", full_lib.keys["book"])
    assert result.is_error and expected in text_of(result)
    assert "x" not in api.tags_of(full_lib.keys["book"])


async def test_zotero_9_falls_back_to_the_web_api(
    full_lib: FullLibrary, tmp_path: Path, db_bytes: bytes
) -> None:
    library = _library(full_lib)
    with FakeZoteroLocalApi(library, generation=9) as old, FakeZoteroApi(library) as web:
        settings = local_settings(
            full_lib,
            tmp_path,
            old.url,
            zotero_api_key="fake-write-key",
            zotero_library_id="1234567",
            zotero_api_url=web.url,
        )
        result = await add_tag(settings, "t", full_lib.keys["book"])
    assert not result.is_error and result.structured_content["write_route"]["kind"] == "web", text_of(result)
    assert "Zotero 10" in result.structured_content["skipped_routes"][0]
    assert "t" in web.tags_of(full_lib.keys["book"]) and posts(old) == []


# -- agent-zot authorize and doctor -------------------------------------------------------------------


@pytest.fixture
def run_cli(
    full_lib: FullLibrary, tmp_path: Path, zotero: FakeZoteroLocalApi, monkeypatch: pytest.MonkeyPatch
):
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("AGENT_ZOT_EXPORT_DIR", str(tmp_path / "exports"))
    monkeypatch.setenv("AGENT_ZOT_ZOTERO_LOCAL_API_URL", zotero.url)
    monkeypatch.setenv("AGENT_ZOT_ZOTERO_LOCAL_AUTHORIZE_TIMEOUT_S", "5")

    def invoke(*args: str) -> Any:
        return CliRunner().invoke(cli, ["--library", str(full_lib.data_dir), *args], catch_exceptions=False)

    return invoke


async def test_authorize_waits_for_always_allow_and_keeps_the_key(
    run_cli: Any, local: Settings, zotero: FakeZoteroLocalApi, full_lib: FullLibrary
) -> None:
    zotero.answer_dialog("always", after_s=1.0)  # the person takes a moment to answer
    done = run_cli("authorize")
    assert done.exit_code == 0, done.output
    assert "Always Allow" in done.output and "Local API Authorization" in done.output
    [key] = zotero.keys
    stored = key_file(local)
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600 and key in stored.read_text()
    assert zotero.requests[-1].body == {"appName": "agent-zot"}

    result = await add_tag(local, "no-prompt", full_lib.keys["book"])  # the stored key is used
    assert not result.is_error and len(zotero.prompts) == 1, text_of(result)


def test_authorize_allow_once_deny_and_rate_limit(
    run_cli: Any, local: Settings, zotero: FakeZoteroLocalApi
) -> None:
    zotero.answer_dialog("allow")
    once = run_cli("authorize")
    assert once.exit_code == 0 and "single-use" in once.output and "Always Allow" in once.output
    assert not key_file(local).exists()
    zotero.answer_dialog("deny", "deny", "deny", "deny")
    for _ in range(4):
        denied = run_cli("authorize")
        assert denied.exit_code == 2 and "Deny" in denied.output
    limited = run_cli("authorize")
    assert limited.exit_code == 2 and "429" in limited.output and "try again in" in limited.output
    assert len(zotero.prompts) == 5  # the sixth request was refused before any dialog


def test_doctor_names_the_generation_and_the_key(
    full_lib: FullLibrary, tmp_path: Path, local: Settings, zotero: FakeZoteroLocalApi
) -> None:
    before = describe_writes(local)
    assert before.status == "warn" and "Zotero 10" in before.detail and "no key" in before.detail
    assert "agent-zot authorize" in before.fix
    zotero.answer_dialog("always")
    authorize(local)
    after = describe_writes(local)
    assert after.status == "ok" and "key stored" in after.detail
    with FakeZoteroLocalApi(_library(full_lib), generation=9) as old:
        nine = describe_writes(local_settings(full_lib, tmp_path, old.url))
    assert nine.status == "fail" and "Zotero 10" in nine.detail
