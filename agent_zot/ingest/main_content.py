"""A web snapshot's main content, the article without the page around it (cookie banners, menus, sidebars,
sharing links, footers): trafilatura chooses the paragraphs, and each is put back in the section (h1-h3)
of the page it came from, so passages keep the section labels the HTML parser gives them."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from configparser import ConfigParser
from dataclasses import dataclass
from xml.etree import ElementTree as ET

# trafilatura's XML: elements that are paragraphs of their own; the rest (hi, ref, del, span) run inline
_BLOCKS = frozenset({"p", "head", "item", "list", "quote", "table", "row", "div", "main"})
_WHITESPACE = re.compile(r"\s+")
# What the page hid from its reader: hidden and aria-hidden elements, dialogs (consent banners, video
# players' settings), inline display:none, and what SingleFile (Zotero's snapshot saver) marked hidden.
_HIDDEN = (
    "//*[@hidden or @aria-hidden='true' or @role='dialog' or @role='alertdialog'"
    " or contains(concat(' ', normalize-space(@class), ' '), ' sf-hidden ')"
    " or contains(translate(@style, ' ', ''), 'display:none')]"
)
_SHORT = 24  # a paragraph shorter than this ("Help", "Search") is looked for only in the section at hand


class _Paragraphs:
    """Walks trafilatura's XML into paragraphs: a line break at <lb/>, a table row one paragraph with its
    cells joined by " | ", code as it is written."""

    def __init__(self) -> None:
        self.found: list[str] = []
        self._line: list[str] = []

    def _end(self) -> None:
        lines = (" ".join(line.split()) for line in "".join(self._line).split("\n"))
        text = "\n".join(line for line in lines if line)
        if text:
            self.found.append(text)
        self._line = []

    def _add(self, text: str | None) -> None:
        if text:
            self._line.append(_WHITESPACE.sub(" ", text))

    def walk(self, element: ET.Element) -> None:
        tag = element.tag
        if tag == "code":
            self._end()
            self.found.append("".join(element.itertext()).strip("\n"))
        elif tag == "lb":
            self._line.append("\n")
        elif tag == "cell":
            if "".join(self._line).strip():  # not the first cell (the XML is indented: blanks before it)
                self._add(" | ")
            self._inside(element)
        elif tag in _BLOCKS:
            self._end()
            self._inside(element)
            self._end()
        else:
            self._inside(element)
        self._add(element.tail)

    def _inside(self, element: ET.Element) -> None:
        self._add(element.text)
        for child in element:
            self.walk(child)


@functools.cache
def _config() -> ConfigParser:
    from trafilatura.settings import use_config

    config = use_config()  # reads the settings file inside the package: nothing is fetched
    # Below this length trafilatura swaps its own extraction for a flat dump of the whole page (its
    # "baseline") or justext's paragraphs: one block of chrome and article together. A short extraction
    # is kept as it is; an empty one leaves the page to the HTML parser.
    config.set("DEFAULT", "MIN_EXTRACTED_SIZE", "1")
    return config


def main_paragraphs(markup: str, *, recall: bool = True) -> list[str]:
    """The paragraphs of the page's main content, in reading order; [] when trafilatura finds none.
    ``recall``: when unsure, keep (a page without an article frame keeps its lists, a reference list
    among them); else trafilatura's balanced mode, which alone retries a page where it first took one
    small box for the article. Offline: it is handed the markup and no URL, so it fetches nothing."""
    import trafilatura  # a fifth of a second to import: only when a snapshot is read

    extracted = trafilatura.extract(
        markup,
        config=_config(),
        output_format="xml",
        include_formatting=True,  # bold, italics, code as elements: walked as text, nothing lost
        include_tables=True,
        include_comments=False,  # readers' comments are not the article
        include_links=False,
        include_images=False,
        favor_recall=recall,
        fast=False,  # fast skips the retry that rescues a page first read as one small box
        deduplicate=False,  # its cache spans calls: a second snapshot of a page would come back empty
        with_metadata=False,
        prune_xpath=_HIDDEN,
    )
    if not extracted:
        return []
    try:
        root = ET.fromstring(extracted)
    except ET.ParseError:
        return []
    walker = _Paragraphs()
    for main in root.iter("main"):
        walker.walk(main)
    return walker.found


def _flat(text: str) -> str:
    return _WHITESPACE.sub(" ", text).strip()


@dataclass(frozen=True, slots=True)
class _Section:
    """A section of the page's visible text, whitespace collapsed: to find paragraphs in."""

    heading: str
    text: str
    lines: frozenset[str]

    @classmethod
    def of(cls, heading: str | None, text: str) -> _Section:
        lines = frozenset(_flat(line) for line in text.split("\n"))
        return cls(_flat(heading or ""), _flat(text), lines)


def _locate(key: str, sections: Sequence[_Section], at: int, pos: int) -> tuple[int, int]:
    """Where a paragraph is, (section, end of it in that section's text), looking on from (at, pos): a
    heading of a later section, else the section at hand, else a later section that has it (a short one,
    "Help", "Item one", only as a whole line there: as part of a longer one it turns up by chance);
    where it is nowhere, (at, pos)."""
    later = range(at + 1, len(sections))
    for index in later:
        if sections[index].heading == key:
            return index, len(key)
    found = sections[at].text.find(key, pos)
    if found >= 0:
        return at, found + len(key)
    for index in later:
        section = sections[index]
        found = section.text.find(key) if len(key) >= _SHORT or key in section.lines else -1
        if found >= 0:
            return index, found + len(key)
    return at, pos


def place_paragraphs(
    paragraphs: Sequence[str], sections: Sequence[tuple[str | None, str]]
) -> list[tuple[str | None, str]]:
    """Each paragraph in the section of the page whose text holds it, in order (one found nowhere stays
    in the section at hand); each section that receives any begins with its heading line, and one that
    receives none is left out. ``sections`` are the page's visible text by sections (``visible_sections``)."""
    if not sections:
        return []
    flat = [_Section.of(heading, text) for heading, text in sections]
    placed: list[list[str]] = [[] for _ in sections]
    at, pos = 0, 0
    for paragraph in paragraphs:
        key = _flat(paragraph.split(" | ", 1)[0])  # a table row: its first cell, as the page has it
        at, pos = _locate(key, flat, at, pos)
        if not placed[at] and sections[at][0] is not None and _flat(paragraph) in flat[at].heading:
            continue  # the heading line (less any hidden label), which the section begins with anyway
        placed[at].append(paragraph)
    return [
        (heading, "\n\n".join([heading, *kept] if heading is not None else kept))
        for (heading, _), kept in zip(sections, placed, strict=True)
        if kept
    ]
