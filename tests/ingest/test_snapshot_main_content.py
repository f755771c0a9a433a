"""A web snapshot is indexed by its main content (issue 54): cookie banners, menus, sharing links, sidebars
and footers stay out, while sections, headings, paragraphs and the reference list stay as they were."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from agent_zot.ingest.formats import HtmlParser, section_label
from agent_zot.ingest.models import ParsedDocument
from tests.snapshot_pages import (
    ARXIV,
    ARXIV_CHROME,
    ARXIV_CONTENT,
    ARXIV_TITLE,
    BLOG,
    BLOG_CHROME,
    BLOG_CONTENT,
    BLOG_SECTIONS,
    BLOG_TITLE,
)


def _parse(tmp_path: Path, markup: str) -> ParsedDocument:
    path = tmp_path / "snapshot.html"
    path.write_text(markup, encoding="utf-8")
    return HtmlParser().parse(path, "SNAP1")


def _indexed(doc: ParsedDocument) -> str:
    return doc.text + "\n" + (doc.references_text or "")


def test_an_arxiv_abstract_page_is_indexed_without_its_chrome(tmp_path: Path) -> None:
    doc = _parse(tmp_path, ARXIV)
    indexed = _indexed(doc)
    assert [chrome for chrome in ARXIV_CHROME if chrome in indexed] == []
    for sentence in ARXIV_CONTENT:
        assert sentence in doc.text
    abstract_page = next(page for page in doc.pages if ARXIV_CONTENT[0] in page.text)
    assert ARXIV_TITLE[:40] in abstract_page.label
    assert any(ARXIV_TITLE[:40] in heading for _, heading in doc.headings)


def test_a_blog_post_keeps_its_sections_and_paragraphs_and_drops_the_chrome(tmp_path: Path) -> None:
    doc = _parse(tmp_path, BLOG)
    indexed = _indexed(doc)
    assert [chrome for chrome in BLOG_CHROME if chrome in indexed] == []
    for sentence in BLOG_CONTENT:
        assert sentence in doc.text
    learning, simulation, wrong = BLOG_SECTIONS[0], "Simulation first", BLOG_SECTIONS[1]
    labels = [page.label for page in doc.pages]
    assert labels[:4] == [section_label(BLOG_TITLE), f"§ {learning}", f"§ {simulation}", f"§ {wrong}"]
    assert [heading for _, heading in doc.headings][:4] == [BLOG_TITLE, learning, simulation, wrong]
    # a paragraph a line, blank lines between: passages are cited by section and paragraph
    section = next(page.text for page in doc.pages if page.label == f"§ {learning}")
    paragraphs = section.split("\n\n")
    assert paragraphs[0] == learning and len(paragraphs) == 3
    assert paragraphs[1].startswith("The model predicts") and paragraphs[2].startswith("A planner then")
    assert all("\n" not in paragraph for paragraph in paragraphs)


def test_a_blog_posts_reference_list_is_split_off(tmp_path: Path) -> None:
    doc = _parse(tmp_path, BLOG)
    assert "Cloth Dynamics Models for Robotic Folding" in (doc.references_text or "")
    assert "Cloth Dynamics Models" not in doc.text


def test_a_page_the_extractor_finds_nothing_in_is_still_read(tmp_path: Path) -> None:
    """No article to find (a short note, a bare list): what indexed before still indexes."""
    markup = (
        "<html><body><ul><li>Reading list for the seminar</li><li>Week two: kernels</li></ul></body></html>"
    )
    doc = _parse(tmp_path, markup)
    assert "Reading list for the seminar" in doc.text and "Week two: kernels" in doc.text


def test_extraction_prints_nothing_and_opens_no_connection(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The MCP stdio server speaks on stdout, and a snapshot is read offline."""
    import socket

    def refuse(*_: object) -> None:
        raise AssertionError("network use while reading a snapshot")

    monkeypatch.setattr(socket.socket, "connect", refuse)
    monkeypatch.setattr(socket, "create_connection", refuse)
    for markup in (ARXIV, BLOG, "<p>tiny</p>"):
        _parse(tmp_path, markup)
    assert capsys.readouterr().out == ""


def test_the_extractor_is_imported_only_when_a_snapshot_is_read() -> None:
    """It takes a fifth of a second to import: the server and CLI start without it."""
    code = "import sys, agent_zot.ingest.formats, agent_zot.ingest; print('trafilatura' in sys.modules)"
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert result.stdout.strip() == "False"
