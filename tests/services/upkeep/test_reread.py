"""Files an earlier release read otherwise are found from the stored page texts and read again, a few a run."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.ingest.pdfium import PdfiumParser
from agent_zot.ingest.text_version import TEXT_VERSION, StoredPdf, reads_differently
from agent_zot.services.upkeep.reread import SCAN_META, VERSION_META, record, to_reread
from agent_zot.state.index import AttachmentRecord, IndexState, PageRecord
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import guard_database
from tests.pdf_factory import ABSTRACT, LICENCE, pages_pdf, write_abstract_over_stamp

# A HAL preprint's cover sheet as pdfium reads it (tests/ingest/test_ingest_text.py holds the same sheet).
HAL_COVER = (
    "HAL Id: hal-00905460\nhttps://hal.science/hal-00905460\nSubmitted on 18 Nov 2013\nHAL is a multi-disciplinary "
    "open access\narchive for the deposit and dissemination of scientific research documents, whether they are "
    "published or not.\nRelaxed and Hybridized Backstepping\nTo cite this version:\nHumberto Stein Shiromoto."
)
BODY = "We design a hybrid feedback law that unites a local and a global controller for nonlinear systems."


def test_stored_text_an_earlier_release_read_is_told_from_text_this_one_reads() -> None:
    assert reads_differently([HAL_COVER, BODY], since=0)  # the cover sheet would be left out now
    assert reads_differently(["", "The di↵erent e↵ect of a di↵erentiable law.", BODY], since=0)  # "ff" glyph
    assert reads_differently(["", "Universit¨at Stuttgart showed it.", BODY], since=0)  # TeX's accent
    assert not reads_differently(["", BODY, "The different effect of a differentiable law."], since=0)
    assert not reads_differently([], since=0)
    # read by this release's text version: nothing to look for
    assert not reads_differently([HAL_COVER, BODY], since=TEXT_VERSION)


def _state(tmp_path: Path, first_pages: dict[str, str]) -> IndexState:
    """An index state whose items each have one file, stored as an earlier release read it."""
    state = IndexState(tmp_path / "state.sqlite")
    for item, first in first_pages.items():
        attachment = AttachmentRecord(f"A{item}", item, "fp", "pdfium", 2, 3, "indexed")
        pages = [PageRecord(1, None, first), PageRecord(2, None, BODY)]
        state.record_item(
            item, "fp", status="indexed", attachments=[attachment], pages={attachment.attachment_key: pages}
        )
    return state


def test_a_chinese_paper_read_before_its_headings_were_is_read_again() -> None:
    thesis = "第 4 章 机器人运动学建模与状态观测\n4.1 本章简述\n在上一章，通过 PNP 进行三维重建。本章建立目标的运动学模型。"
    assert reads_differently([BODY, thesis], since=2)
    assert not reads_differently([BODY, thesis], since=TEXT_VERSION)
    assert not reads_differently(
        [BODY, "在上一章，通过 PNP 进行三维重建。本章建立目标的运动学模型。"], since=2
    )  # no heading
    assert not reads_differently([BODY, BODY], since=2)


def test_the_look_takes_at_most_its_share_of_items_and_goes_on_where_it_stopped(tmp_path: Path) -> None:
    state = _state(tmp_path, {"ITEM1": HAL_COVER, "ITEM2": BODY, "ITEM3": HAL_COVER, "ITEM4": BODY})
    first = to_reread(state, 1)
    assert first.items == {"ITEM1"} and not first.through
    record(state, first)
    assert state.get_meta(SCAN_META) == "ITEM1" and state.get_meta(VERSION_META) is None
    second = to_reread(state, 1)  # ITEM2 reads the same: looked at, not read again
    assert second.items == {"ITEM3"} and not second.through
    record(state, second)
    third = to_reread(state, 1)
    assert third.items == set() and third.through
    record(state, third)
    assert state.get_meta(VERSION_META) == str(TEXT_VERSION)
    assert to_reread(state, 1).items == set()  # later runs do not look
    state.close()


def test_none_is_read_again_when_the_setting_says_so_and_the_look_keeps_to_its_time(tmp_path: Path) -> None:
    state = _state(tmp_path, {"ITEM1": HAL_COVER, "ITEM2": HAL_COVER})
    off = to_reread(state, 0)
    assert off.items == set()
    record(state, off)
    assert state.get_meta(VERSION_META) is None  # not looked at: the next run with a share still looks
    ticks = iter(range(100))
    timed = to_reread(state, 10, seconds=1.5, clock=lambda: next(ticks))  # time is up after the first item
    assert timed.items == {"ITEM1"} and not timed.through and timed.last == "ITEM1"
    state.close()


@pytest.mark.slow
def test_an_index_an_earlier_release_made_reads_again_only_the_files_read_otherwise(tmp_path: Path) -> None:
    """Two preprints were indexed with their cover sheets by an earlier release, a third paper has none: the
    updates after the upgrade read the two again, one a run here, and never the third; then they stop
    looking."""
    b = ZoteroLibraryBuilder(tmp_path / "library", shape="z7", seed=21)
    papers = {
        "Relaxed and Hybridized Backstepping": [HAL_COVER, BODY],
        "Uniting Local and Global Controllers": [HAL_COVER.replace("00905460", "00905461"), BODY + " Again."],
        "Sleep in Shift Workers": ["Shift work shortens sleep by an hour on average.", "Naps help a little."],
    }
    for n, (title, pages) in enumerate(papers.items()):
        item = b.add_item("journalArticle", title=title, date="2013-00-00 2013")
        b.add_attachment(item, filename=f"p{n}.pdf", content=pages_pdf(tmp_path / f"p{n}.pdf", pages))
    db = guard_database(b.build())
    env = {"AGENT_ZOT_DATA_DIR": str(tmp_path / "state"), "AGENT_ZOT_EMBEDDER": "minilm-onnx"}
    update = ["--library", str(db.parent), "update-db"]
    runner = CliRunner()
    made = runner.invoke(cli, update, env=env)
    assert made.exit_code == 0 and "Read again" not in made.output, made.output
    state = tmp_path / "state" / "index" / "state.sqlite"

    def first_pages() -> dict[str, str]:
        with sqlite3.connect(f"file:{state}?mode=ro", uri=True) as conn:
            rows = conn.execute("SELECT attachment_key, text FROM pages WHERE number = 1").fetchall()
        conn.close()
        return dict(rows)

    sheets = {key: text for key, text in first_pages().items() if not text}
    assert len(sheets) == 2  # this release leaves both sheets out
    with sqlite3.connect(state) as conn:  # as an earlier release stored them, before text versions
        for key in sheets:
            conn.execute(
                "UPDATE pages SET text = ? WHERE attachment_key = ? AND number = 1", (HAL_COVER, key)
            )
        conn.execute("DELETE FROM meta WHERE key = ?", (VERSION_META,))
    conn.close()

    off = runner.invoke(cli, update, env={**env, "AGENT_ZOT_TEXT_REREAD_ITEMS": "0"})
    assert off.exit_code == 0 and "Read again" not in off.output, off.output
    assert all(first_pages()[key] == HAL_COVER for key in sheets)
    one = runner.invoke(cli, update, env={**env, "AGENT_ZOT_TEXT_REREAD_ITEMS": "1"})
    assert one.exit_code == 0, one.output
    assert (
        "Indexed 1 items" in one.output
        and "Read again: 1 item whose files this release reads better" in one.output
    )
    assert "still to look at; the next update-db goes on" in one.output
    assert sorted(first_pages()[key] for key in sheets) == ["", HAL_COVER]
    rest = runner.invoke(cli, update, env=env)
    assert "Read again: 1 item whose files" in rest.output and "still to look at" not in rest.output, (
        rest.output
    )
    assert all(first_pages()[key] == "" for key in sheets)
    later = runner.invoke(cli, update, env=env)
    assert later.exit_code == 0 and "Read again" not in later.output and "Indexed 0 items" in later.output


def _without_abstract(text: str) -> str:
    """The page as an earlier release stored it: the abstract's lines set aside with the stamp under it."""
    return "\n".join(line for line in text.split("\n") if " ".join(line.split()[:3]) not in ABSTRACT)


def test_a_pdf_whose_stored_text_lost_body_lines_is_told_from_its_file(tmp_path: Path) -> None:
    path = write_abstract_over_stamp(tmp_path / "elsevier.pdf")
    now = [page.text for page in PdfiumParser().parse(path, "ELSEVIER").pages]
    before = [_without_abstract(now[0])]
    assert ABSTRACT.split(". ")[1] not in " ".join(before[0].split())
    pdf = StoredPdf(path)
    assert reads_differently(before, since=1, pdf=pdf)
    assert not reads_differently(now, since=1, pdf=pdf)  # this release's own text: nothing lost
    assert not reads_differently(before, since=1)  # the stored text alone cannot tell
    assert not reads_differently(before, since=TEXT_VERSION, pdf=pdf)
    # a page of the reference list (stored apart from the page texts) is not looked at
    assert not reads_differently(before, since=1, pdf=StoredPdf(path, references_page=1))
    # the other way: a licence block this release takes for chrome, stored in the page's text
    licensed = write_abstract_over_stamp(tmp_path / "licensed.pdf", licence=True)
    kept = PdfiumParser().parse(licensed, "LICENSED").pages[0].text
    assert reads_differently([kept + "\n" + "\n".join(LICENCE)], since=1, pdf=StoredPdf(licensed))
    assert not reads_differently([kept], since=1, pdf=StoredPdf(licensed))


@pytest.mark.slow
def test_an_abstract_an_earlier_release_set_aside_is_read_back_by_the_next_update(tmp_path: Path) -> None:
    b = ZoteroLibraryBuilder(tmp_path / "library", shape="z7", seed=22)
    item = b.add_item("journalArticle", title="Automated artifact elimination", date="2018-00-00 2018")
    b.add_attachment(
        item, filename="e.pdf", content=write_abstract_over_stamp(tmp_path / "e.pdf").read_bytes()
    )
    db = guard_database(b.build())
    env = {"AGENT_ZOT_DATA_DIR": str(tmp_path / "state"), "AGENT_ZOT_EMBEDDER": "minilm-onnx"}
    update = ["--library", str(db.parent), "update-db"]
    runner = CliRunner()
    assert runner.invoke(cli, update, env=env).exit_code == 0
    state = tmp_path / "state" / "index" / "state.sqlite"
    with sqlite3.connect(state) as conn:  # as text version 1 stored it
        ((key, text),) = conn.execute("SELECT attachment_key, text FROM pages WHERE number = 1").fetchall()
        assert ABSTRACT.split(". ")[1] in " ".join(text.split())
        conn.execute("UPDATE pages SET text = ? WHERE attachment_key = ?", (_without_abstract(text), key))
        conn.execute("UPDATE meta SET value = '1' WHERE key = ?", (VERSION_META,))
    conn.close()
    again = runner.invoke(cli, update, env=env)
    assert again.exit_code == 0 and "Read again: 1 item whose files" in again.output, again.output
    with sqlite3.connect(f"file:{state}?mode=ro", uri=True) as conn:
        ((text,),) = conn.execute("SELECT text FROM pages WHERE number = 1").fetchall()
        ((version,),) = conn.execute("SELECT value FROM meta WHERE key = ?", (VERSION_META,)).fetchall()
    conn.close()
    assert ABSTRACT.split(". ")[1] in " ".join(text.split()) and version == str(TEXT_VERSION)
