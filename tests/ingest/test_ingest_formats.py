"""HTML snapshots, EPUB books and plain text files."""

from __future__ import annotations

import zipfile
from pathlib import Path

import pytest

from agent_zot.ingest import ParseError
from agent_zot.ingest.formats import EpubParser, HtmlParser, TextParser, html_to_text

SNAPSHOT = """<!DOCTYPE html>
<html><head><title>Snapshot title</title><style>body { color: red }</style>
<script>var hidden = "script text";</script></head>
<body>
<nav><a href="/">Home</a> <a href="/about">Navigation link</a></nav>
<h1>Article   heading</h1>
<p>First paragraph with <b>bold</b> and&nbsp;an entity &amp; more.</p>
<p>Second paragraph.<br>After a break.</p>
<noscript>Enable JavaScript</noscript>
<h2>Section two</h2><ul><li>Item one</li><li>Item two</li></ul>
<pre>keep   these
   spaces</pre>
</body></html>
"""


def test_html_text_skips_script_style_and_nav() -> None:
    text, headings = html_to_text(SNAPSHOT)
    for hidden in ("script text", "color: red", "Navigation link", "Enable JavaScript", "Snapshot title"):
        assert hidden not in text
    assert "First paragraph with bold and an entity & more." in text
    assert headings == ["Article heading", "Section two"]


def test_html_snapshot_is_one_page_a_section_with_headings(tmp_path: Path) -> None:
    path = tmp_path / "snapshot.html"
    path.write_text(SNAPSHOT, encoding="utf-8")
    doc = HtmlParser().parse(path, "HTML1")
    assert doc.source == "html" and doc.page_count == 2 and len(doc.pages) == 2
    assert [page.label for page in doc.pages] == ["§ Article heading", "§ Section two"]
    first, second = (page.text.splitlines() for page in doc.pages)
    assert first[0] == "Article heading" and "Second paragraph." in first and "After a break." in first
    assert second[0] == "Section two" and "Item one" in second and "Item two" in second
    assert second[-2:] == ["keep these", "spaces"]  # <pre> keeps its line breaks
    assert doc.headings == [(1, "Article heading"), (2, "Section two")]


WIKI = """<html><body><p>Lead paragraph about gradient methods.</p>
<div id="toc"><h2>Contents</h2><ul><li>1 History</li><li>2 References</li></ul></div>
<h2>History<span class="mw-editsection">[edit]</span></h2>
<p>Stochastic approximation began with Robbins and Monro.</p>
<p>Its convergence was proved for convex losses much later.</p>
<h2>References<span class="mw-editsection">[edit]</span></h2>
<ol>
<li>^ Robbins, Herbert; Monro, Sutton (1951). "A Stochastic Approximation Method". Annals of Mathematical
Statistics. 22 (3): 400–407.</li>
<li>^ a b Bottou, Léon (1998). "Online Algorithms and Stochastic Approximations". Online Learning and Neural
Networks. Cambridge University Press.</li>
<li>^ Kiefer, J.; Wolfowitz, J. (1952). "Stochastic Estimation of the Maximum of a Regression Function".
Annals of Mathematical Statistics. 23 (3): 462–466.</li>
</ol></body></html>"""


def test_a_web_page_is_read_by_sections_and_its_reference_list_is_split_off(tmp_path: Path) -> None:
    from agent_zot.graph.references import parse_references

    path = tmp_path / "wiki.html"
    path.write_text(WIKI, encoding="utf-8")

    doc = HtmlParser().parse(path, "WIKI1")

    assert [page.label for page in doc.pages] == ["§ opening", "§ Contents", "§ History", "§ References"]
    assert "[edit]" not in doc.text
    assert "Robbins, Herbert" in doc.references_text and "Robbins, Herbert" not in doc.text
    entries = parse_references(doc.references_text)
    assert [e.year for e in entries] == [1951, 1998, 1952]
    assert "Stochastic Approximation Method" in (entries[0].title or "")


def test_html_declared_charset_is_used(tmp_path: Path) -> None:
    path = tmp_path / "latin.html"
    path.write_bytes('<meta charset="iso-8859-1"><p>Café Müller</p>'.encode("latin-1"))
    assert HtmlParser().parse(path, "H").pages[0].text == "Café Müller"


def test_html_unknown_charset_falls_back_to_utf8(tmp_path: Path) -> None:
    path = tmp_path / "odd.html"
    path.write_bytes('<meta charset="no-such-charset"><p>Straße</p>'.encode())
    assert HtmlParser().parse(path, "H").pages[0].text == "Straße"


def test_html_without_text_raises(tmp_path: Path) -> None:
    path = tmp_path / "empty.html"
    path.write_text("<html><body><script>only()</script></body></html>")
    with pytest.raises(ParseError, match="no text"):
        HtmlParser().parse(path, "H")


def test_plain_text_is_one_page(tmp_path: Path) -> None:
    path = tmp_path / "notes.txt"
    path.write_bytes("\ufeffLine one\r\nLine two\r\n\r\n\r\nNext paragraph".encode())
    doc = TextParser().parse(path, "T")
    assert doc.source == "text"
    assert doc.pages[0].text == "Line one\nLine two\n\nNext paragraph"


CONTAINER = """<?xml version="1.0"?>
<container version="1.0" xmlns="urn:oasis:names:tc:opendocument:xmlns:container">
  <rootfiles><rootfile full-path="OEBPS/content.opf" media-type="application/oebps-package+xml"/></rootfiles>
</container>"""
PACKAGE = """<?xml version="1.0" encoding="utf-8"?>
<package xmlns="http://www.idpf.org/2007/opf" version="3.0">
  <manifest>
    <item id="c2" href="text/chapter%202.xhtml" media-type="application/xhtml+xml"/>
    <item id="c1" href="text/chapter1.xhtml" media-type="application/xhtml+xml"/>
    <item id="css" href="style.css" media-type="text/css"/>
  </manifest>
  <spine><itemref idref="c1"/><itemref idref="c2"/></spine>
</package>"""


def _chapter(title: str, body: str) -> str:
    return (
        '<?xml version="1.0" encoding="utf-8"?><html xmlns="http://www.w3.org/1999/xhtml"><head>'
        f"<title>{title}</title></head><body><h1>{title}</h1><p>{body}</p></body></html>"
    )


def write_epub(path: Path, *, encrypted: bool = False) -> Path:
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
        archive.writestr("META-INF/container.xml", CONTAINER)
        archive.writestr("OEBPS/content.opf", PACKAGE)
        archive.writestr("OEBPS/text/chapter1.xhtml", _chapter("Chapter One", "It was a dark night."))
        archive.writestr("OEBPS/text/chapter 2.xhtml", _chapter("Chapter Two", "The morning came."))
        archive.writestr("OEBPS/style.css", "p { margin: 0 }")
        if encrypted:
            archive.writestr(
                "META-INF/encryption.xml",
                '<encryption xmlns="urn:oasis:names:tc:opendocument:xmlns:container" '
                'xmlns:enc="http://www.w3.org/2001/04/xmlenc#"><enc:EncryptedData><enc:CipherData>'
                '<enc:CipherReference URI="OEBPS/text/chapter1.xhtml"/></enc:CipherData>'
                "</enc:EncryptedData></encryption>",
            )
    return path


def test_epub_has_one_page_per_spine_document_in_reading_order(tmp_path: Path) -> None:
    doc = EpubParser().parse(write_epub(tmp_path / "book.epub"), "E1")
    assert doc.source == "epub" and doc.page_count == 2
    assert doc.pages[0].text == "Chapter One\n\nIt was a dark night."
    assert doc.pages[1].text == "Chapter Two\n\nThe morning came."
    assert doc.headings == [(1, "Chapter One"), (2, "Chapter Two")]


def test_drm_protected_epub_raises(tmp_path: Path) -> None:
    with pytest.raises(ParseError, match="DRM"):
        EpubParser().parse(write_epub(tmp_path / "drm.epub", encrypted=True), "E2")


def test_not_a_zip_raises(tmp_path: Path) -> None:
    path = tmp_path / "bad.epub"
    path.write_bytes(b"this is not a zip archive")
    with pytest.raises(ParseError, match="not a valid EPUB"):
        EpubParser().parse(path, "E3")


def test_epub_without_container_raises(tmp_path: Path) -> None:
    path = tmp_path / "nocontainer.epub"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("mimetype", "application/epub+zip")
    with pytest.raises(ParseError, match=r"missing .*container\.xml"):
        EpubParser().parse(path, "E4")


def test_epub_with_broken_xml_raises(tmp_path: Path) -> None:
    path = tmp_path / "badxml.epub"
    with zipfile.ZipFile(path, "w") as archive:
        archive.writestr("META-INF/container.xml", "<container><rootfiles>")
    with pytest.raises(ParseError, match="bad XML"):
        EpubParser().parse(path, "E5")


@pytest.mark.parametrize("markup", ["<![foo bar]>after", "<p>x</p><![ after", "<![if !supportLists]>after"])
def test_odd_markup_does_not_break_the_html_parser(markup: str) -> None:
    text, _ = html_to_text(markup)
    assert "after" in text
