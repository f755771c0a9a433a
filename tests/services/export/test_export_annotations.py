"""zot_export's annotations mode: annotations and notes as JSON and CSV records, through a real MCP client
and the CLI, on a library with every kind of annotation, a note, tags, a Chinese title, and text a
spreadsheet would run as a formula."""

from __future__ import annotations

import csv
import hashlib
import io
import json
from dataclasses import dataclass
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.formats.annotations import COLUMNS
from agent_zot.formats.csvtable import safe_cell
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import SHARED_ZOTERO, call_tool, guard_database, library_settings, text_of

README = Path(__file__).resolve().parents[3] / "README.md"
README_REQUEST = "export my annotations on the S2ORC paper as CSV"
ADDED, NOTE_ADDED = "2024-01-18 12:00:00", "2024-01-17 08:30:00"  # the builder's dates for these rows
REAL = SHARED_ZOTERO / "yuanluochen-z7"


@dataclass(frozen=True)
class Lib:
    data_dir: Path
    keys: dict[str, str]

    @property
    def db(self) -> Path:
        return self.data_dir / "zotero.sqlite"


@pytest.fixture(scope="module")
def lib(tmp_path_factory: pytest.TempPathFactory) -> Lib:
    b = ZoteroLibraryBuilder(tmp_path_factory.mktemp("annotations") / "Zotero", shape="z7")
    k: dict[str, str] = {}
    k["thesis"] = b.add_collection("Thesis")
    k["ch2"] = b.add_collection("Chapter 2", parent=k["thesis"])
    k["shelf"] = b.add_collection("Empty shelf")
    k["s2orc"] = b.add_item(
        "journalArticle",
        title="S2ORC: The Semantic Scholar Open Research Corpus",
        creators=[("Kyle", "Lo")],
        date="2020",
        tags=["corpus"],
        collections=[k["ch2"]],
    )
    k["robot"] = b.add_item("thesis", title="轮腿式平衡机器人控制", creators=[("晨光", "柳")], date="2019")
    k["bare"] = b.add_item("book", title="A book nobody annotated", collections=[k["shelf"]])
    k["s2orc_pdf"] = b.add_attachment(k["s2orc"], filename="lo.pdf")
    k["robot_pdf"] = b.add_attachment(k["robot"], filename="robot.pdf")
    k["loose_pdf"] = b.add_attachment(None, filename="loose.pdf", title="Loose scan")
    k["highlight"] = b.add_annotation(
        k["s2orc_pdf"],
        text="81.1M English-language academic papers",
        comment="size of the corpus",
        color="#ffd400",
        page_label="4969",
        page_index=0,
    )
    k["note_ann"] = b.add_annotation(
        k["s2orc_pdf"],
        kind="note",
        comment="check the licence",
        color="#FF6666",
        page_label="4970",
        page_index=1,
    )
    k["image"] = b.add_annotation(
        k["s2orc_pdf"], kind="image", color="#2ea8e5", page_label="4971", page_index=2
    )
    k["tagged"] = b.add_annotation(
        k["s2orc_pdf"],
        kind="underline",
        text="=SUM(A1:A9)",
        comment="+1 important",
        color="#5fb236",
        page_label="4972",
        page_index=3,
        tags=["method"],
    )
    k["robot_ann"] = b.add_annotation(
        k["robot_pdf"], text="平衡控制", color="#a28ae5", page_label="iv", page_index=0, tags=["method"]
    )
    k["loose_ann"] = b.add_annotation(k["loose_pdf"], text="a loose highlight", page_label="2", page_index=1)
    k["note"] = b.add_note(k["s2orc"], "<p>@everyone read the corpus section</p>", tags=["summary"])
    k["standalone"] = b.add_note(None, "<p>-loose idea</p>")
    b.build()
    return Lib(b.data_dir, k)


@pytest.fixture
def settings(lib: Lib, tmp_path: Path) -> Settings:
    guard_database(lib.db)
    return library_settings(lib.data_dir, tmp_path)


async def export(settings: Settings, **args: object) -> tuple[bool, str, dict]:
    result = await call_tool(settings, "zot_export", **args)
    return result.is_error, text_of(result), result.structured_content or {}


def read_csv(path: Path) -> list[dict[str, str]]:
    raw = path.read_bytes()
    assert raw.startswith(b"\xef\xbb\xbf"), "UTF-8 with a byte-order mark, for Excel"
    reader = csv.DictReader(io.StringIO(raw.decode("utf-8-sig"), newline=""))
    assert tuple(reader.fieldnames or ()) == COLUMNS
    return list(reader)


S2ORC = "S2ORC: The Semantic Scholar Open Research Corpus"


def s2orc_records(k: dict[str, str]) -> list[dict[str, object]]:
    """The S2ORC paper's annotations in reading order, then its note, as the JSON file holds them."""
    common = {
        "item_key": k["s2orc"],
        "item_title": S2ORC,
        "attachment_key": k["s2orc_pdf"],
        "kind": "annotation",
    }
    dates = {"date_added": ADDED, "date_modified": ADDED}
    return [
        common
        | dates
        | {
            "key": k["highlight"],
            "page_label": "4969",
            "color_name": "yellow",
            "color_hex": "#ffd400",
            "type": "highlight",
            "text": "81.1M English-language academic papers",
            "comment": "size of the corpus",
            "tags": [],
        },
        common
        | dates
        | {
            "key": k["note_ann"],
            "page_label": "4970",
            "color_name": "red",
            "color_hex": "#ff6666",
            "type": "note",
            "text": None,
            "comment": "check the licence",
            "tags": [],
        },
        common
        | dates
        | {
            "key": k["image"],
            "page_label": "4971",
            "color_name": "blue",
            "color_hex": "#2ea8e5",
            "type": "image",
            "text": None,
            "comment": None,
            "tags": [],
        },
        common
        | dates
        | {
            "key": k["tagged"],
            "page_label": "4972",
            "color_name": "green",
            "color_hex": "#5fb236",
            "type": "underline",
            "text": "=SUM(A1:A9)",
            "comment": "+1 important",
            "tags": ["method"],
        },
        {
            "kind": "note",
            "key": k["note"],
            "item_key": k["s2orc"],
            "item_title": S2ORC,
            "attachment_key": None,
            "page_label": None,
            "color_name": None,
            "color_hex": None,
            "type": None,
            "text": "@everyone read the corpus section",
            "comment": None,
            "tags": ["summary"],
            "date_added": NOTE_ADDED,
            "date_modified": NOTE_ADDED,
        },
    ]


def as_csv_row(record: dict[str, object]) -> dict[str, str]:
    """A JSON record as its CSV row: empty cells for null, tags joined, formulas escaped."""
    joined = {**record, "tags": "; ".join(record["tags"])}  # type: ignore[arg-type]
    return {c: safe_cell(joined[c]) for c in COLUMNS}


async def test_readme_request_writes_one_paper_as_csv(lib: Lib, settings: Settings) -> None:
    assert README_REQUEST in " ".join(README.read_text(encoding="utf-8").split())
    error, text, data = await export(settings, query=README_REQUEST)
    assert not error, text
    assert (
        data["route"]["mode"] == "annotations" and data["resolved"]["papers"][0]["key"] == lib.keys["s2orc"]
    )
    assert data["format"] == "csv" and (data["annotations"], data["notes"], data["count"]) == (4, 1, 5)
    target = Path(data["path"])
    assert target.parent == settings.export_dir.resolve() and target.suffix == ".csv"
    assert text.startswith(f"Exported 4 annotations and 1 note on '{S2ORC}' [{lib.keys['s2orc']}] as CSV")
    assert f"as CSV to {target}." in text and "… 2 more in the file." in text
    line = f"[{lib.keys['highlight']}] highlight, p. 4969, yellow: “81.1M English-language academic papers” — size"
    assert line in text and "(on S2ORC" not in text  # one paper: its title is said once
    rows = read_csv(target)
    assert rows == [as_csv_row(r) for r in s2orc_records(lib.keys)]
    assert [s["key"] for s in data["sample"]] == [lib.keys[n] for n in ("highlight", "note_ann", "image")]


async def test_collection_scope_as_json_field_by_field(lib: Lib, settings: Settings) -> None:
    error, text, data = await export(
        settings, force_mode="annotations", path="thesis.json", collection="Thesis"
    )
    assert not error, text
    assert data["format"] == "json" and data["items"] == 1
    records = json.loads(Path(data["path"]).read_text(encoding="utf-8"))
    assert records == s2orc_records(lib.keys)  # Chapter 2, below Thesis, holds the paper


async def test_json_path_in_the_words_stays_annotations(lib: Lib, settings: Settings) -> None:
    error, text, data = await export(settings, query="export my highlights to out/highlights.json")
    assert not error, text
    assert data["route"]["mode"] == "annotations" and data["format"] == "json"
    records = json.loads(Path(data["path"]).read_text(encoding="utf-8"))
    assert len(records) == 8  # the whole library: 6 annotations, a child note, a standalone note


async def test_json_asked_for_in_words_without_a_file_name(lib: Lib, settings: Settings) -> None:
    error, text, data = await export(settings, query="export my annotations tagged method as JSON")
    assert not error, text
    assert data["route"]["params"]["tags"] == ["method"] and data["format"] == "json"
    target = Path(data["path"])
    assert target.name.startswith("annotations-method-") and target.suffix == ".json"
    assert [r["key"] for r in json.loads(target.read_text(encoding="utf-8"))] == [
        lib.keys["tagged"],
        lib.keys["robot_ann"],
    ]


async def test_tag_scope_counts_own_and_paper_tags(lib: Lib, settings: Settings) -> None:
    k = lib.keys
    error, text, data = await export(settings, force_mode="annotations", path="method.json", tags=["METHOD"])
    assert not error, text
    records = json.loads(Path(data["path"]).read_text(encoding="utf-8"))
    assert [r["key"] for r in records] == [k["tagged"], k["robot_ann"]]
    robot = records[1]
    assert robot["item_title"] == "轮腿式平衡机器人控制" and robot["text"] == "平衡控制"
    assert (robot["color_name"], robot["color_hex"], robot["page_label"]) == ("purple", "#a28ae5", "iv")
    assert "tagged method (their own tag or their paper's)" in text
    # The paper's tag brings in all its annotations and notes.
    _, _, by_paper = await export(settings, path="corpus.csv", tags=["corpus"])
    assert [r["key"] for r in read_csv(Path(by_paper["path"]))] == [r["key"] for r in s2orc_records(k)]
    # The same tags scope narrows an item export.
    _, _, bib = await export(settings, path="corpus.bib", tags=["corpus"])
    assert bib["item_keys"] == [k["s2orc"]]


async def test_whole_library_includes_standalone_notes_and_pdfs(lib: Lib, settings: Settings) -> None:
    error, text, data = await export(settings, path="all.csv")  # a .csv path alone picks the mode
    assert not error, text
    assert data["route"]["mode"] == "annotations" and data["format"] == "csv"  # the extension decided
    rows = read_csv(Path(data["path"]))
    loose, standalone = rows[-2], rows[-1]
    assert (  # on a top-level PDF, which is an item of its own
        loose["key"] == lib.keys["loose_ann"]
        and loose["item_key"] == loose["attachment_key"]
        and loose["item_title"] == "Loose scan"
    )
    assert standalone["kind"] == "note" and standalone["item_key"] == "" and standalone["item_title"] == ""
    assert "in the whole library" in text and data["count"] == 8


async def test_cells_a_spreadsheet_would_run_are_escaped(lib: Lib, settings: Settings) -> None:
    _, _, data = await export(settings, path="all.csv")
    rows = {r["key"]: r for r in read_csv(Path(data["path"]))}
    k = lib.keys
    assert rows[k["tagged"]]["text"] == "'=SUM(A1:A9)" and rows[k["tagged"]]["comment"] == "'+1 important"
    assert rows[k["note"]]["text"] == "'@everyone read the corpus section"
    assert rows[k["standalone"]]["text"] == "'-loose idea"
    assert rows[k["highlight"]]["text"] == "81.1M English-language academic papers"  # plain text untouched
    assert [safe_cell(v) for v in ("\t=1", "  =1", "\r+", "a=b", "", None, 3)] == [
        "'\t=1",
        "'  =1",
        "'\r+",
        "a=b",
        "",
        "",
        "3",
    ]
    # JSON keeps the values as they are.
    _, _, as_json = await export(settings, force_mode="annotations", path="all.json")
    raw = {r["key"]: r for r in json.loads(Path(as_json["path"]).read_text(encoding="utf-8"))}
    assert raw[k["tagged"]]["text"] == "=SUM(A1:A9)"


async def test_empty_scope_says_so_and_writes_nothing(lib: Lib, settings: Settings) -> None:
    error, text, _ = await export(settings, force_mode="annotations", collection="Empty shelf", path="x.csv")
    assert error and "Nothing to export: no annotations or notes in collection 'Empty shelf'" in text
    assert "Nothing was written" in text and not (settings.export_dir / "x.csv").exists()
    error, text, _ = await export(settings, force_mode="annotations", item_keys=[lib.keys["bare"]])
    assert error and "no annotations or notes on 'A book nobody annotated'" in text


async def test_unsupported_extension_and_existing_file(lib: Lib, settings: Settings) -> None:
    error, text, _ = await export(settings, force_mode="annotations", path="notes.bib")
    assert error and "Annotations export as .csv or .json, not .bib." in text
    first, _, _ = await export(settings, path="same.csv")
    again, text, _ = await export(settings, path="same.csv")
    assert not first and again and "already exists" in text


def test_cli_export_by_item_tag_and_format(
    lib: Lib, settings: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(settings.data_dir))
    monkeypatch.setenv("AGENT_ZOT_EXPORT_DIR", str(settings.export_dir))
    runner = CliRunner()

    def run(*args: str):
        return runner.invoke(cli, ["--library", str(lib.data_dir), "export", *args], catch_exceptions=False)

    shown = run("robot.csv", "--item", lib.keys["robot"])
    assert shown.exit_code == 0 and "Exported 1 annotation on '轮腿式平衡机器人控制'" in shown.output
    rows = read_csv(settings.export_dir.resolve() / "robot.csv")
    assert [(r["key"], r["text"], r["tags"], r["color_name"]) for r in rows] == [
        (lib.keys["robot_ann"], "平衡控制", "method", "purple")
    ]
    data = json.loads(run("method.json", "--format", "annotations", "--tag", "method", "--json").output)
    assert data["format"] == "json" and data["count"] == 2
    records = json.loads(Path(data["path"]).read_text(encoding="utf-8"))
    assert [r["key"] for r in records] == [lib.keys["tagged"], lib.keys["robot_ann"]]
    empty = run("none.csv", "--collection", "Empty shelf")
    assert empty.exit_code != 0 and "no annotations or notes in collection 'Empty shelf'" in empty.output


async def test_the_zotero_database_is_untouched(lib: Lib, settings: Settings) -> None:
    before = hashlib.sha256(lib.db.read_bytes()).hexdigest()
    await export(settings, path="check.csv")
    await export(settings, force_mode="annotations", path="check.json", tags=["method"])
    assert hashlib.sha256(lib.db.read_bytes()).hexdigest() == before


@pytest.mark.shared_data(REAL / "zotero.sqlite")
async def test_real_library_with_chinese_titles(tmp_path: Path) -> None:
    db = guard_database(REAL / "zotero.sqlite")
    before = hashlib.sha256(db.read_bytes()).hexdigest()
    plain = library_settings(REAL, tmp_path)
    # Its six annotations sit on a standalone PDF in Zotero's trash: left out unless include_trash is on.
    error, text, _ = await export(plain, path="all.csv")
    assert error and "no annotations or notes in the whole library" in text and "include_trash" in text
    error, text, _ = await export(plain, force_mode="annotations", item_keys=["MS2YEZYT"])
    assert error and "no annotations or notes on '轮腿式平衡机器人控制' [MS2YEZYT]" in text
    error, text, _ = await export(plain, force_mode="annotations", collection="控制理论")
    assert error and "no annotations or notes in collection '控制理论' (and below)" in text
    trash = plain.model_copy(update={"include_trash": True})
    error, text, data = await export(trash, path="all.csv")
    assert not error, text
    rows = read_csv(Path(data["path"]))
    assert len(rows) == 6 and data["annotations"] == 6 and data["notes"] == 0
    assert {(r["kind"], r["type"], r["color_name"], r["color_hex"]) for r in rows} == {
        ("annotation", "highlight", "yellow", "#ffed00")
    }
    assert [r["page_label"] for r in rows] == ["426", "426", "429", "467", "467", "467"]  # reading order
    # the standalone PDF is an item of its own (as Zotero lists it): its annotations are that item's
    assert {r["attachment_key"] for r in rows} == {"6ZMYANI3"} and {r["item_key"] for r in rows} == {
        "6ZMYANI3"
    }
    assert all(r["item_title"] and r["date_added"].startswith("2025-10-01") for r in rows)
    assert rows[0]["text"].startswith("if more than one of these prototypes")
    assert hashlib.sha256(db.read_bytes()).hexdigest() == before


def test_a_negative_number_stays_a_number_and_a_formula_does_not() -> None:
    from agent_zot.formats.csvtable import safe_cell

    assert safe_cell("-3.5") == "-3.5" and safe_cell("+12") == "+12"
    assert (
        safe_cell("-1+1") == "'-1+1" and safe_cell("=SUM(A1)") == "'=SUM(A1)" and safe_cell(" @x") == "' @x"
    )
