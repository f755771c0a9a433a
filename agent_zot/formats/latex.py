"""LaTeX-safe text for BibTeX values, including Zotero's small rich-text markup in titles.

Every brace in the output is one this module wrote, so values are brace-balanced whatever the input.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# User braces become text commands rather than ``\{``/``\}``: BibTeX and btparse count a brace even
# when a backslash precedes it, so an escaped lone "}" would still end the field early.
_SPECIALS = {
    "\\": r"\textbackslash{}",
    "{": r"\textbraceleft{}",
    "}": r"\textbraceright{}",
    "&": r"\&",
    "%": r"\%",
    "$": r"\$",
    "#": r"\#",
    "_": r"\_",
    "~": r"\textasciitilde{}",
    "^": r"\textasciicircum{}",
}
_SPECIALS_TABLE = str.maketrans(_SPECIALS)
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")
_SPACE = re.compile(r"\s+")

# Zotero's rich text in titles: <i>, <b>, <sub>, <sup>, and spans for small caps / "nocase".
_TAG = re.compile(r"<(/?)(i|b|sub|sup|span)(\s[^<>]*)?>", re.IGNORECASE)
_LATEX_OPEN = {"i": r"\textit{", "b": r"\textbf{", "sub": r"\textsubscript{", "sup": r"\textsuperscript{"}
# An uppercase letter right after a letter or digit: DNA, BERT, iPhone, CO2, 2D.
_INTERNAL_CAPITAL = re.compile(r"(?<=[^\W_])[A-Z]")


def clean_text(text: str) -> str:
    """One line of text: control characters dropped, whitespace runs collapsed."""
    return _SPACE.sub(" ", _CONTROL.sub("", text)).strip()


def escape(text: str) -> str:
    """Escape LaTeX specials in plain text (non-ASCII stays as UTF-8 for biber/XeLaTeX/LuaLaTeX)."""
    return clean_text(text).translate(_SPECIALS_TABLE)


def verbatim(text: str) -> str:
    """A url/doi value: read verbatim by biblatex, so only braces and backslashes need neutralising."""
    cleaned = clean_text(text).replace(" ", "%20")
    return cleaned.replace("\\", "%5C").replace("{", "%7B").replace("}", "%7D")


def _tokens(text: str) -> Iterator[tuple[str, str, str]]:
    """Split rich text into ("text", chunk, "") and ("open"/"close", tag, attributes) tokens."""
    pos = 0
    for match in _TAG.finditer(text):
        if match.start() > pos:
            yield "text", text[pos : match.start()], ""
        kind = "close" if match.group(1) else "open"
        yield kind, match.group(2).lower(), match.group(0) if kind == "close" else (match.group(3) or "")
        pos = match.end()
    if pos < len(text):
        yield "text", text[pos:], ""


def _span_open(attributes: str) -> str:
    if "small-caps" in attributes:
        return r"\textsc{"
    if "nocase" in attributes:
        return "{"
    return ""  # a span we don't understand: keep its text, drop the markup


def _protect_words(chunk: str) -> str:
    """Escape a text chunk, bracing words whose capitals a style must not lowercase."""
    out = []
    for part in re.split(r"(\s+)", chunk):
        if not part or part.isspace():
            out.append(part)
        elif _INTERNAL_CAPITAL.search(part):
            out.append("{" + part.translate(_SPECIALS_TABLE) + "}")
        else:
            out.append(part.translate(_SPECIALS_TABLE))
    return "".join(out)


def latex_title(text: str) -> str:
    """A title for BibTeX: rich-text tags become LaTeX commands, acronyms and camel-case are braced."""
    out: list[str] = []
    stack: list[tuple[str, str]] = []  # (tag, what we emitted when it opened)
    for kind, value, extra in _tokens(clean_text(text)):
        if kind == "text":
            out.append(_protect_words(value))
        elif kind == "open":
            opener = _span_open(extra) if value == "span" else _LATEX_OPEN[value]
            stack.append((value, opener))
            out.append(opener)
        elif stack and stack[-1][0] == value:
            out.append("}" if stack.pop()[1] else "")
        else:
            out.append(_protect_words(extra))  # a stray closing tag is just text
    out.extend("}" for _tag, opener in reversed(stack) if opener)
    return "".join(out)


def strip_markup(text: str) -> str:
    """Plain text of a rich-text title (for keys, Markdown and matching)."""
    return clean_text(_TAG.sub("", text))
