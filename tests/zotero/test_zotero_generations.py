"""Zotero 8, 9 and 10 libraries read fully: their tables as the published schema facts lay them out
(docs/research/zotero-10-local-api.md §2), PMID/PMCID and citation keys read and resolved, "what was I
reading" answered from Zotero 9's lastRead, the generation and journal mode named by `doctor`, and a
Zotero 10 database held open the way Zotero holds it (exclusive lock, WAL) while agent-zot reads it."""

from __future__ import annotations

import json
import sqlite3
import subprocess
import sys
import textwrap
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.index.changes import plan_update
from agent_zot.services.audit.citations import find_citations
from agent_zot.services.audit.keys import KeyIndex
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.reader import load_library
from tests.conftest import call_tool, fingerprint, guard_database, library_settings, text_of
from tests.factories import build_full_library

NEW_SHAPES = ("z8", "z9", "z10")


def _columns(db: Path, table: str) -> set[str]:
    uri = db.resolve().as_uri() + "?immutable=1"
    with sqlite3.connect(uri, uri=True) as conn:
        return {row[1] for row in conn.execute(f"PRAGMA table_info({table})")}


def _ago(days: float) -> str:
    return (datetime.now(UTC) - timedelta(days=days)).strftime("%Y-%m-%d %H:%M:%S")


@pytest.mark.parametrize("shape", NEW_SHAPES)
def test_each_generation_is_laid_out_as_its_schema_says(shape: str, tmp_path: Path) -> None:
    lib = build_full_library(tmp_path / "Zotero", shape)
    db = lib.db_path
    attachments, libraries = _columns(db, "itemAttachments"), _columns(db, "libraries")
    zotero9, zotero10 = shape in ("z9", "z10"), shape == "z10"
    assert ("lastRead" in attachments) is zotero9 and ("isAdmin" in libraries) is zotero9
    assert ("valueNormalized" in _columns(db, "itemDataValues")) is zotero10
    assert ("nameNormalized" in _columns(db, "tags")) is zotero10
    assert {"firstNameNormalized", "lastNameNormalized"} <= _columns(db, "creators") or not zotero10
    assert ("clientVersion" in _columns(db, "items")) is zotero10
    assert all(("clientVersion" in _columns(db, t)) is zotero10 for t in ("collections", "savedSearches"))
    assert bool(_columns(db, "fulltextWords")) is not zotero10
    assert bool(_columns(db, "fulltextItemWords")) is not zotero10
    assert ("required" in _columns(db, "savedSearchConditions")) is not zotero10
    assert _columns(db, "fulltextItems")  # stays in zotero.sqlite in every generation
    header = db.read_bytes()[:100]
    assert (header[18], header[19]) == ((2, 2) if zotero10 else (1, 1))  # WAL mode marks Zotero 10
    assert not Path(f"{db}-wal").exists() and not Path(f"{db}-shm").exists()
    fulltext = lib.data_dir / "fulltext.sqlite"
    assert fulltext.exists() is zotero10
    uri = db.resolve().as_uri() + "?immutable=1"
    with sqlite3.connect(uri, uri=True) as conn:
        versions = dict(conn.execute("SELECT schema, version FROM version"))
        server_id = conn.execute("SELECT value FROM settings WHERE setting = 'localAPI' AND key = 'serverID'")
        server_id = server_id.fetchone()
    assert versions["userdata"] == {"z8": 123, "z9": 125, "z10": 129}[shape]
    assert versions["globalSchema"] >= 41
    assert (server_id is not None and len(server_id[0]) == 12) is zotero10
    if zotero10:
        with sqlite3.connect(fulltext.resolve().as_uri() + "?immutable=1", uri=True) as conn:
            tables = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
            assert conn.execute("PRAGMA user_version").fetchone()[0] == 2
        assert {"fulltextContent", "fulltextContentCJK", "fulltextNotes", "fulltextNotesCJK"} <= tables
        assert {"fulltextIndexState", "fulltextNoteIndexState", "noteText", "fulltextIndexMeta"} <= tables
    library = load_library(guard_database(db))
    assert library.schema_version == versions["userdata"] and not library.warnings
    assert library.items[lib.keys["s2orc"]].citation_key == "lo2020s2orc"


def _medical_library(root: Path, shape: str) -> tuple[Path, dict[str, str]]:
    """Two journal articles with PubMed ids (as fields from Zotero 8 on, as Extra lines before) and
    citation keys, and an article with neither."""
    b = ZoteroLibraryBuilder(root / "Zotero", shape=shape, seed=5)
    fields8 = shape not in ("z5-early", "z5", "z6", "z7")
    keys = {}
    for name, title, pmid, pmcid, cite in (
        ("sepsis", "Early antibiotics in sepsis", "31452104", "PMC6712345", "rhodes2019sepsis"),
        ("asthma", "Inhaled steroids in childhood asthma", "28790001", "PMC5550001", "lee2017asthma"),
    ):
        ids = (
            {"PMID": pmid, "PMCID": pmcid, "citationKey": cite}
            if fields8
            else {"extra": f"PMID: {pmid}\nPMCID: {pmcid}\nCitation Key: {cite}"}
        )
        keys[name] = b.add_item(
            "journalArticle",
            title=title,
            publicationTitle="The Lancet",
            date="2019-00-00 2019",
            creators=[("Andrew", "Rhodes" if name == "sepsis" else "Lee")],
            **ids,
        )
    keys["other"] = b.add_item("journalArticle", title="Malaria vaccines", creators=[("Kim", "Osei")])
    guard_database(b.build())
    return root / "Zotero", keys


@pytest.mark.parametrize("shape", ["z7", "z10"])
async def test_a_pmid_names_its_paper(shape: str, tmp_path: Path) -> None:
    folder, keys = _medical_library(tmp_path, shape)
    settings = library_settings(folder, tmp_path)
    result = await call_tool(settings, "zot_summarize", query="summarize PMID 31452104", force_mode="quick")
    text = text_of(result)
    assert not result.is_error, text
    assert "Early antibiotics in sepsis" in text and "childhood asthma" not in text
    by_pmcid = text_of(
        await call_tool(settings, "zot_summarize", query="summarize PMC5550001", force_mode="quick")
    )
    assert "childhood asthma" in by_pmcid and "sepsis" not in by_pmcid
    missing = await call_tool(settings, "zot_summarize", query="summarize PMID 11111111", force_mode="quick")
    assert missing.is_error and "PMID 11111111" in text_of(missing)
    library = load_library(folder / "zotero.sqlite")
    item = library.items[keys["sepsis"]].to_dict()
    assert (item["pmid"], item["pmcid"], item["citation_key"]) == (
        "31452104",
        "PMC6712345",
        "rhodes2019sepsis",
    )


@pytest.mark.parametrize("shape", ["z7", "z10"])
def test_the_audit_matches_zotero_citation_keys_of_every_item_type(shape: str, tmp_path: Path) -> None:
    folder, keys = _medical_library(tmp_path, shape)
    index = KeyIndex(load_library(folder / "zotero.sqlite"))
    draft = "Antibiotics within an hour help [@rhodes2019sepsis]; steroids too [@lee2017asthma]."
    found = [
        index.resolve(ref) for c in find_citations(draft, "markdown", lambda a, b: False) for ref in c.refs
    ]
    assert [(r.status, r.item.key, r.how) for r in found] == [
        ("resolved", keys["sepsis"], "citation key"),
        ("resolved", keys["asthma"], "citation key"),
    ]


def _reading_library(root: Path, shape: str, *, guard: bool = True) -> tuple[Path, dict[str, str]]:
    """Papers added and read at different times: the newest addition was never opened. ``guard``: the
    session fails if anything changes the database (not for one that a stand-in of Zotero writes to)."""
    b = ZoteroLibraryBuilder(root / "Zotero", shape=shape, seed=9)
    keys = {}
    for name, added, read in (
        ("fresh", 0.5, None),  # added this morning, never opened
        ("opened", 300, 2),  # added long ago, read two days ago
        ("earlier", 200, 5),
        ("month", 100, 20),  # read, but not last week
    ):
        keys[name] = b.add_item(
            "journalArticle", title=f"The {name} paper on glaciers", date_added=_ago(added)
        )
        last_read = {"last_read": _ago(read)} if read is not None and b.shape.last_read else {}
        b.add_attachment(keys[name], filename=f"{name}.pdf", content=None, **last_read)
    db = b.build()
    if guard:
        guard_database(db)
    return root / "Zotero", keys


async def test_what_was_i_reading_answers_from_last_read(tmp_path: Path) -> None:
    folder, _ = _reading_library(tmp_path, "z10")
    settings = library_settings(folder, tmp_path)
    result = await call_tool(settings, "zot_manage_collections", query="what was I reading last week")
    text = text_of(result)
    assert not result.is_error, text
    assert text.index("The opened paper") < text.index("The earlier paper")  # most recently read first
    assert "fresh" not in text and "month" not in text
    assert "read" in text.splitlines()[0].lower()
    none = text_of(await call_tool(settings, "zot_manage_collections", query="what was I reading", days=1))
    assert none.startswith("Nothing was opened in Zotero in the last 1 days") and "The fresh paper" in none
    added = text_of(await call_tool(settings, "zot_manage_collections", query="what did I add last week"))
    assert "The fresh paper" in added and "opened" not in added


async def test_reading_on_an_older_zotero_says_what_it_shows_instead(tmp_path: Path) -> None:
    folder, _ = _reading_library(tmp_path, "z7")
    settings = library_settings(folder, tmp_path)
    text = text_of(
        await call_tool(settings, "zot_manage_collections", query="what have I been reading lately")
    )
    assert "Zotero 9" in text and "added" in text.lower()
    assert "The fresh paper" in text  # the fallback: recently added, newest first


def test_a_first_build_indexes_recently_read_papers_first(tmp_path: Path) -> None:
    folder, keys = _reading_library(tmp_path, "z9")
    plan = plan_update(load_library(folder / "zotero.sqlite"), {}, {}, {})
    order = [w.item.key for w in plan.work]
    assert order == [keys["opened"], keys["earlier"], keys["month"], keys["fresh"]]


@pytest.mark.parametrize(
    ("shape", "generation", "journal"),
    [
        ("z5", "Zotero 5", "rollback"),
        ("z7", "Zotero 7", "rollback"),
        ("z8", "Zotero 8", "rollback"),
        ("z9", "Zotero 9", "rollback"),
        ("z10", "Zotero 10", "WAL"),
    ],
)
def test_doctor_names_the_zotero_generation_and_journal_mode(
    shape: str, generation: str, journal: str, tmp_path: Path
) -> None:
    lib = build_full_library(tmp_path / "Zotero", shape)
    guard_database(lib.db_path)
    result = CliRunner().invoke(
        cli,
        ["--library", str(lib.data_dir), "doctor", "--json"],
        env={"AGENT_ZOT_DATA_DIR": str(tmp_path / "state"), "AGENT_ZOT_EXPORT_DIR": str(tmp_path / "ex")},
        catch_exceptions=False,
    )
    checks = {c["name"]: c for c in json.loads(result.output)["checks"]}
    detail = checks["zotero"]["detail"]
    assert checks["zotero"]["status"] == "ok" and generation + " " in detail + " " and journal in detail


# Zotero 10 holds its database this way: exclusive locking, WAL journal, commits kept in the -wal until a
# checkpoint (none here). Each line on stdin is one statement committed; an empty line ends it.
WAL_HOLDER = textwrap.dedent(
    """
    import sqlite3, sys
    conn = sqlite3.connect(sys.argv[1], isolation_level=None)
    conn.execute("PRAGMA locking_mode=EXCLUSIVE")
    assert conn.execute("PRAGMA journal_mode=WAL").fetchone()[0] == "wal"
    conn.execute("PRAGMA wal_autocheckpoint=0")
    conn.execute("INSERT OR REPLACE INTO settings VALUES ('client', 'lastVersion', '10.0.0')")
    print("held", flush=True)
    for line in sys.stdin:
        if not line.strip():
            break
        conn.execute(line)
        print("committed", flush=True)
    """
)


@pytest.mark.slow
async def test_a_zotero_10_database_held_open_is_read_updated_and_followed(tmp_path: Path) -> None:
    folder, keys = _reading_library(tmp_path, "z10", guard=False)  # the holder, as Zotero, writes to it
    db = folder / "zotero.sqlite"
    settings = library_settings(folder, tmp_path)
    env = {"AGENT_ZOT_DATA_DIR": str(settings.data_dir), "AGENT_ZOT_EXPORT_DIR": str(settings.export_dir)}
    holder = subprocess.Popen(
        [sys.executable, "-c", WAL_HOLDER, str(db)], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    try:
        assert holder.stdout.readline().strip() == "held"
        wal = Path(f"{db}-wal")
        assert wal.stat().st_size > 0 and not Path(f"{db}-shm").exists()  # WAL index in Zotero's heap

        def unchanged() -> tuple[object, bytes]:
            return fingerprint(db), wal.read_bytes()

        before = unchanged()
        reading = text_of(await call_tool(settings, "zot_manage_collections", query="what was I reading"))
        assert "The opened paper" in reading
        built = CliRunner().invoke(cli, ["--library", str(folder), "update-db", "--no-fulltext"], env=env)
        assert built.exit_code == 0, built.output
        assert unchanged() == before

        fresh_attachment = load_library(db).items[keys["fresh"]].attachments[0].key
        stamp = int((datetime.now(UTC) - timedelta(hours=1)).timestamp())
        holder.stdin.write(
            f"UPDATE itemAttachments SET lastRead = {stamp} WHERE itemID = "
            f"(SELECT itemID FROM items WHERE key = '{fresh_attachment}')\n"
            "UPDATE itemDataValues SET value = 'The fresh paper on ice sheets' "
            "WHERE value = 'The fresh paper on glaciers'\n"
        )
        holder.stdin.flush()
        assert [holder.stdout.readline().strip() for _ in range(2)] == ["committed", "committed"]
        before = unchanged()
        updated = CliRunner().invoke(cli, ["--library", str(folder), "update-db", "--no-fulltext"], env=env)
        assert updated.exit_code == 0 and "1 updated in place" in updated.output, updated.output
        found = text_of(await call_tool(settings, "zot_search", query="ice sheets"))
        assert "The fresh paper on ice sheets" in found, found
        reading = text_of(await call_tool(settings, "zot_manage_collections", query="what was I reading"))
        assert reading.index("The fresh paper on ice sheets") < reading.index("The opened paper")
        assert unchanged() == before
    finally:
        holder.stdin.write("\n")
        holder.stdin.close()
        holder.wait(timeout=30)
