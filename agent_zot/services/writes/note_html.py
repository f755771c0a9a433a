"""Note text (Markdown or plain text) to the sanitised HTML Zotero stores in a note."""

from __future__ import annotations

import re

import nh3
from markdown_it import MarkdownIt

from agent_zot.errors import InvalidArgumentError

NOTE_HTML_LIMIT = 256 * 1024  # bytes of HTML; large enough for long notes, far below Zotero's sync limits

# What Zotero's note editor itself produces; everything else (scripts, styles, forms, iframes, images,
# event handlers, style attributes) is removed.
ALLOWED_TAGS = frozenset(
    {
        "p", "br", "hr", "h1", "h2", "h3", "h4", "h5", "h6", "blockquote", "pre", "code",
        "strong", "b", "em", "i", "u", "s", "del", "sub", "sup", "span", "div",
        "ul", "ol", "li", "a", "table", "thead", "tbody", "tr", "th", "td",
    }
)  # fmt: skip
ALLOWED_ATTRIBUTES = {
    "a": {"href", "title"},
    "ol": {"start"},
    "th": {"colspan", "rowspan"},
    "td": {"colspan", "rowspan"},
}
# zotero:// links select items in the app; javascript: and data: are never allowed.
URL_SCHEMES = frozenset({"http", "https", "mailto", "zotero"})

# "breaks": plain text keeps its line breaks; "html": pasted HTML passes to the sanitiser, not escaped.
_MARKDOWN = MarkdownIt("commonmark", {"html": True, "breaks": True}).enable(["table", "strikethrough"])
_TAG_RE = re.compile(r"<[^>]*>")


def note_html(text: str) -> str:
    """Render Markdown (plain text is valid Markdown) and sanitise it with a tight allow-list."""
    if not text or not text.strip():
        raise InvalidArgumentError(
            "The note is empty.", hint="Pass the note text (Markdown or plain text) as note='...'."
        )
    _check_size(len(text.encode("utf-8")), "text")
    html = nh3.clean(
        _MARKDOWN.render(text),
        tags=set(ALLOWED_TAGS),
        clean_content_tags={"script", "style"},
        attributes={tag: set(names) for tag, names in ALLOWED_ATTRIBUTES.items()},
        url_schemes=set(URL_SCHEMES),
        strip_comments=True,
    ).strip()
    if not _TAG_RE.sub("", html).strip():
        raise InvalidArgumentError(
            "The note has no text left after removing unsafe HTML (scripts, styles, event handlers).",
            hint="Write the note as Markdown or plain text.",
        )
    _check_size(len(html.encode("utf-8")), "HTML")
    return html


def _check_size(size: int, what: str) -> None:
    if size > NOTE_HTML_LIMIT:
        raise InvalidArgumentError(
            f"The note is too large: {size // 1024} KB of {what}; notes are limited to "
            f"{NOTE_HTML_LIMIT // 1024} KB of HTML. Nothing was changed.",
            hint="Shorten the note or split it into several notes.",
        )
