"""Non-PDF sources: HTML snapshots, EPUB books, plain text files, and Zotero's full-text cache."""

from __future__ import annotations

import posixpath
import re
import zipfile
import zlib
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote
from xml.etree import ElementTree as ET

from agent_zot.ingest.document import build_document
from agent_zot.ingest.main_content import main_paragraphs, place_paragraphs
from agent_zot.ingest.models import SECTION_MARK, ParsedDocument, ParseError

_SKIPPED_TAGS = frozenset({"script", "style", "nav", "noscript", "template", "head", "svg"})
_BLOCK_TAGS = frozenset(
    {
        "address", "article", "aside", "blockquote", "br", "dd", "div", "dl", "dt", "figcaption",
        "figure", "footer", "h1", "h2", "h3", "h4", "h5", "h6", "header", "hr", "li", "main", "ol",
        "p", "pre", "section", "table", "td", "th", "tr", "ul",
    }
)  # fmt: skip
_HEADING_TAGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
_SECTION_TAGS = frozenset({"h1", "h2", "h3"})  # a web page's sections begin at these; h4-h6 stay inside
_SECTION_LABEL_CHARS = 60
_MIN_MAIN_SHARE = 0.05  # main content this much smaller than the visible text is not the article
_RETRY_SHARE = 0.2  # main content under this share of the visible text: trafilatura's balanced mode too
# A page of a few lines (a note, a fragment) is indexed whole: trafilatura's measures of boilerplate have
# too little to go on there and drop its lists and headings (500: twice its own minimum extraction).
_MIN_PAGE_CHARS = 500
_EDIT_LINK = re.compile(r"\s*\[edit\]", re.IGNORECASE)  # Wikipedia's "History[edit]"
# <meta charset=...>, <meta http-equiv content="...; charset=...">, <?xml ... encoding="..."?>
_CHARSET = re.compile(rb"""(?:charset|encoding)\s*=\s*["']?([A-Za-z0-9_\-:.]+)""", re.IGNORECASE)
_WHITESPACE = re.compile(r"\s+")
_HTML_TYPES = frozenset({"application/xhtml+xml", "text/html"})
MAX_MEMBER_BYTES = 64 * 1024 * 1024  # an EPUB member larger than this is skipped (zip bombs)
FT_CACHE_WARNING = "text from Zotero's full-text cache: no page numbers"


class _HtmlText(HTMLParser):
    """Visible text of an HTML document, one line per block element; headings collected on the way."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.parts: list[str] = []
        self.headings: list[str] = []
        self.sections: list[tuple[int, str]] = []  # (index into parts where it begins, its heading)
        self._skip_depth = 0
        self._pre_depth = 0
        self._heading: list[str] | None = None
        self._heading_start = 0

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag == "body":  # whatever was left open before it (a <head> without </head>) is over
            self._skip_depth = 0
        if tag in _SKIPPED_TAGS:
            self._skip_depth += 1
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")
        if tag == "pre":
            self._pre_depth += 1
        if tag in _HEADING_TAGS and not self._skip_depth:
            self._heading = []
            self._heading_start = len(self.parts)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if tag in _BLOCK_TAGS:  # <br/>, <hr/>: no end tag follows, so nothing to count
            self.parts.append("\n")

    def handle_endtag(self, tag: str) -> None:
        if tag in _SKIPPED_TAGS:
            self._skip_depth = max(0, self._skip_depth - 1)
        elif tag in _BLOCK_TAGS:
            self.parts.append("\n")
        if tag == "pre":
            self._pre_depth = max(0, self._pre_depth - 1)
        if tag in _HEADING_TAGS and self._heading is not None:
            heading = _EDIT_LINK.sub("", _WHITESPACE.sub(" ", "".join(self._heading))).strip()
            if heading:
                self.headings.append(heading)
                if tag in _SECTION_TAGS:
                    self.sections.append((self._heading_start, heading))
            self._heading = None

    def handle_data(self, data: str) -> None:
        if self._skip_depth:
            return
        text = data if self._pre_depth else _WHITESPACE.sub(" ", data)
        self.parts.append(text)
        if self._heading is not None:
            self._heading.append(text)

    def parse_marked_section(self, i: int, report: bool = True) -> int:
        """``<![...]>`` with an unknown keyword makes the stdlib parser assert: skip the section."""
        try:
            return super().parse_marked_section(i, report)
        except AssertionError:
            end = self.rawdata.find(">", i)
            return -1 if end < 0 else end + 1

    def text(self) -> str:
        return _EDIT_LINK.sub("", "".join(self.parts))

    def section_texts(self) -> list[tuple[str | None, str]]:
        """(heading, text) per section: the text before the first h1-h3 (heading None), then each h1-h3
        with what follows it up to the next."""
        bounds = [(0, None), *self.sections]
        found = []
        for (start, heading), (end, _) in zip(bounds, [*bounds[1:], (len(self.parts), None)], strict=True):
            found.append((heading, _EDIT_LINK.sub("", "".join(self.parts[start:end]))))
        return found


def html_to_text(markup: str) -> tuple[str, list[str]]:
    """The visible text of an HTML document and its h1-h6 headings."""
    parser = _HtmlText()
    parser.feed(markup)
    parser.close()
    return parser.text(), parser.headings


def visible_sections(markup: str) -> list[tuple[str | None, str]]:
    """All the visible text of an HTML document by sections, (heading, text), those without any text left
    out: the page's chrome (menus, banners, footers) with its article."""
    parser = _HtmlText()
    parser.feed(markup)
    parser.close()
    return [(heading, text) for heading, text in parser.section_texts() if text.strip()]


def html_sections(markup: str) -> list[tuple[str | None, str]]:
    """A web page's sections, (heading, text): the paragraphs of its main content (ingest/main_content.py)
    in the sections the page has, or all its visible text where no main content is found or what is found
    is far too little to be the article."""
    visible = visible_sections(markup)
    seen = sum(len(text) for _, text in visible)
    if seen < _MIN_PAGE_CHARS:
        return visible
    main = main_paragraphs(markup)
    if _chars(main) < _RETRY_SHARE * seen:  # maybe one small box taken for the article: balanced retries
        main = max(main, main_paragraphs(markup, recall=False), key=_chars)
    main = [_EDIT_LINK.sub("", paragraph) for paragraph in main]
    if not _is_article(main, seen):
        return visible
    return place_paragraphs(main, visible)


def _chars(paragraphs: list[str]) -> int:
    return sum(len(paragraph) for paragraph in paragraphs)


def _is_article(main: list[str], seen: int) -> bool:
    """Whether what the extractor kept can stand for the page: it finds nothing on some pages without an
    article, and on an odd one it keeps one stray box of a page whose text lies elsewhere. The whole
    visible text indexes those, as before."""
    kept = _chars(main)
    return kept > 0 and kept >= _MIN_MAIN_SHARE * seen


def section_label(heading: str | None) -> str:
    """ "§ Methods": where a passage of a web page is, as a PDF page's is "p. 3"."""
    if heading is None:
        return SECTION_MARK + "opening"
    clipped = heading if len(heading) <= _SECTION_LABEL_CHARS else heading[: _SECTION_LABEL_CHARS - 1] + "…"
    return SECTION_MARK + clipped


def decode_html(data: bytes) -> str:
    """Decode with the charset the document declares (in its first 4 KB), else UTF-8."""
    declared = _CHARSET.search(data[:4096])
    encoding = declared.group(1).decode("ascii") if declared else "utf-8"
    try:
        return data.decode(encoding, errors="replace")
    except LookupError:  # an unknown charset name
        return data.decode("utf-8", errors="replace")


def _read_file(path: Path) -> bytes:
    try:
        return path.read_bytes()
    except OSError as err:
        raise ParseError(f"cannot read {path.name}: {err.strerror or err}") from err


class HtmlParser:
    """An HTML snapshot, one "page" per section (h1-h3), each labelled with its heading ("§ Methods"): a web
    page has no page numbers, so its passages are cited by section and paragraph. Its reference list
    ("References", "Bibliography" as a section) is split off as a PDF's is."""

    name = "html"

    def parse(self, path: Path, attachment_key: str) -> ParsedDocument:
        sections = html_sections(decode_html(_read_file(path)))
        if not sections:
            raise ParseError("no text in the file")
        texts = [text for _, text in sections]
        labels = [section_label(heading) for heading, _ in sections]
        doc = build_document(attachment_key, self.name, texts, labels)
        headings = [(number, heading) for number, (heading, _) in enumerate(sections, 1) if heading]
        doc.headings = headings or doc.headings
        return doc


class TextParser:
    """A plain text file as one page."""

    name = "text"

    def parse(self, path: Path, attachment_key: str) -> ParsedDocument:
        text = _read_file(path).decode("utf-8-sig", errors="replace")
        return build_document(attachment_key, self.name, [text])


def fulltext_cache_document(attachment_key: str, text: str) -> ParsedDocument:
    """Zotero's cached text as one page (it has no page boundaries)."""
    doc = build_document(attachment_key, "ft-cache", [text])
    doc.page_count = 0  # unknown: the cache does not say how many pages the file has
    doc.warnings.append(FT_CACHE_WARNING)
    return doc


def _local_name(element: ET.Element) -> str:
    return element.tag.rsplit("}", 1)[-1]


def _read_member(archive: zipfile.ZipFile, name: str) -> bytes:
    info = archive.getinfo(name)  # KeyError when absent
    if info.file_size > MAX_MEMBER_BYTES:
        raise ParseError(f"EPUB member {name} is too large ({info.file_size} bytes)")
    return archive.read(info)


def _package_path(archive: zipfile.ZipFile) -> str:
    container = ET.fromstring(_read_member(archive, "META-INF/container.xml"))
    for element in container.iter():
        if _local_name(element) == "rootfile" and element.get("full-path"):
            return str(element.get("full-path"))
    raise ParseError("EPUB has no package document (META-INF/container.xml names none)")


def _spine(archive: zipfile.ZipFile) -> list[str]:
    """Archive names of the spine's XHTML documents, in reading order."""
    package_path = _package_path(archive)
    package = ET.fromstring(_read_member(archive, package_path))
    base = posixpath.dirname(package_path)
    manifest: dict[str, str] = {}
    order: list[str] = []
    for element in package.iter():
        name = _local_name(element)
        if name == "item" and element.get("media-type") in _HTML_TYPES and element.get("href"):
            href = unquote(str(element.get("href")))
            manifest[str(element.get("id"))] = posixpath.normpath(posixpath.join(base, href))
        elif name == "itemref" and element.get("idref"):
            order.append(str(element.get("idref")))
    return [manifest[idref] for idref in order if idref in manifest]


def _encrypted_members(archive: zipfile.ZipFile) -> set[str]:
    """Members listed in META-INF/encryption.xml (DRM, or obfuscated fonts)."""
    if "META-INF/encryption.xml" not in archive.namelist():
        return set()
    root = ET.fromstring(_read_member(archive, "META-INF/encryption.xml"))
    return {
        unquote(str(element.get("URI")))
        for element in root.iter()
        if _local_name(element) == "CipherReference" and element.get("URI")
    }


class EpubParser:
    """An EPUB book: one "page" per spine document, in reading order."""

    name = "epub"

    def parse(self, path: Path, attachment_key: str) -> ParsedDocument:
        try:
            with zipfile.ZipFile(path) as archive:
                spine = _spine(archive)
                if spine and set(spine) & _encrypted_members(archive):
                    raise ParseError("EPUB is DRM-protected (its text is encrypted)")
                pages, headings = self._read_spine(archive, spine)
        except (zipfile.BadZipFile, zipfile.LargeZipFile, zlib.error, EOFError) as err:
            raise ParseError(f"not a valid EPUB (bad zip archive: {err})") from err
        except RuntimeError as err:  # zipfile: a password-protected member, or NotImplementedError
            raise ParseError(f"EPUB uses zip features that cannot be read ({err})") from err
        except KeyError as err:
            raise ParseError(f"not a valid EPUB (missing {err.args[0]})") from err
        except ET.ParseError as err:
            raise ParseError(f"not a valid EPUB (bad XML: {err})") from err
        except OSError as err:
            raise ParseError(f"cannot read {path.name}: {err.strerror or err}") from err
        if not pages:
            raise ParseError("EPUB has no readable documents in its spine")
        doc = build_document(attachment_key, self.name, pages)
        doc.headings = headings or doc.headings
        return doc

    @staticmethod
    def _read_spine(archive: zipfile.ZipFile, spine: list[str]) -> tuple[list[str], list[tuple[int, str]]]:
        pages: list[str] = []
        headings: list[tuple[int, str]] = []
        for number, name in enumerate(spine, start=1):
            try:
                text, found = html_to_text(decode_html(_read_member(archive, name)))
            except KeyError:  # the manifest names a file the archive lacks
                text, found = "", []
            pages.append(text)
            headings.extend((number, heading) for heading in found)
        return pages, headings
