"""Markdown export: a note-taking page per item (YAML front matter) or one document for many (no I/O)."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Mapping, Sequence

from agent_zot.formats.bibtex import item_date
from agent_zot.formats.latex import clean_text, strip_markup
from agent_zot.identifiers import clean_doi
from agent_zot.zotero.models import Annotation, Attachment, Item, Library, LinkMode

_YAML_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\t": "\\t", "\r": "\\r", "\0": "\\0"}
_MD_INLINE = re.compile(r"([\\`*_\[\]<>#|])")
_HEADING = re.compile(r"^(#{1,6})(?=\s)", re.MULTILINE)
_UNSAFE_FILENAME = re.compile(r'[\x00-\x1f\x7f/\\:*?"<>|]')
_RESERVED_NAMES = re.compile(r"^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$", re.IGNORECASE)
_MAX_FILENAME = 120
_VISUAL = frozenset({"image", "ink"})  # annotations that mean something without any text


# -- YAML -------------------------------------------------------------------------------------------


def yaml_string(text: str) -> str:
    """A double-quoted YAML scalar: safe for any string (quotes, colons, newlines, "yes", "#")."""
    out = []
    for char in text:
        if char in _YAML_ESCAPES:
            out.append(_YAML_ESCAPES[char])
        elif unicodedata.category(char) in {"Cc", "Cs", "Co", "Zl", "Zp"} or char in "\ufeff\ufffe\uffff":
            out.append(_yaml_escape_code(ord(char)))
        else:
            out.append(char)
    return '"' + "".join(out) + '"'


def _yaml_escape_code(code: int) -> str:
    if code < 0x100:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code < 0x10000 else f"\\U{code:08x}"


def _yaml_value(name: str, value: object) -> list[str]:
    if isinstance(value, list):
        if not value:
            return [f"{name}: []"]
        return [f"{name}:", *(f"  - {yaml_string(str(v))}" for v in value)]
    if isinstance(value, int):
        return [f"{name}: {value}"]
    return [f"{name}: {yaml_string(str(value))}"]


def front_matter(values: Mapping[str, object]) -> str:
    """``---``-fenced YAML; None and "" values are left out, lists always stay (possibly [])."""
    lines = ["---"]
    for name, value in values.items():
        if value is None or value == "":
            continue
        lines.extend(_yaml_value(name, value))
    return "\n".join([*lines, "---"])


# -- pieces -----------------------------------------------------------------------------------------


def md_inline(text: str) -> str:
    """Text that Markdown will show literally on one line."""
    return _MD_INLINE.sub(r"\\\1", clean_text(text))


def _plain_title(item: Item) -> str:
    return strip_markup(item.title) or "(untitled)"


def _collection_paths(item: Item, library: Library) -> list[str]:
    paths = [
        library.collections[k].path or library.collections[k].name
        for k in item.collection_keys
        if k in library.collections
    ]
    return sorted(paths)


def _year(item: Item) -> int | None:
    date = item_date(item)
    return date.year if date else None


def _doi_url(doi: str) -> str:
    return "https://doi.org/" + clean_doi(doi) if doi else ""


def citation_line(item: Item) -> str:
    """ "Last, F.; Other, A. (2020). *Venue*, 12(3), 45–67. https://doi.org/…" — a quick reference."""
    names = [c.sort_name for c in item.authors if c.full_name.strip()]
    authors = "; ".join(names[:3]) + ("; et al." if len(names) > 3 else "")
    year = _year(item)
    parts = [f"{md_inline(authors)} ({year or 'n.d.'})." if authors else f"({year or 'n.d.'})."]
    venue = item.venue
    if venue:
        detail = f"*{md_inline(venue)}*"
        volume, issue, pages = item.field("volume"), item.field("issue"), item.field("pages")
        if volume:
            detail += f", {md_inline(volume)}" + (f"({md_inline(issue)})" if issue else "")
        if pages:
            detail += f", {md_inline(pages)}"
        parts.append(detail + ".")
    link = _doi_url(item.doi) or item.url
    if link:
        parts.append(f"<{_link_target(link)}>")
    return " ".join(parts)


def _link_target(url: str) -> str:
    """A URL usable inside ``<...>``: no spaces, angle brackets or line breaks."""
    return clean_text(url).replace(" ", "%20").replace("<", "%3C").replace(">", "%3E")


def note_markdown(html: str) -> str:
    """Zotero note HTML as Markdown, headings pushed down two levels to sit under ``## Notes``."""
    from markdownify import markdownify  # with BeautifulSoup: 0.15 s, paid only by a Markdown export

    text = markdownify(html, heading_style="ATX", bullets="-").strip()
    text = re.sub(r"\n{3,}", "\n\n", text)
    return _HEADING.sub(lambda m: "#" * min(6, len(m.group(1)) + 2), text)


def _attachment_link(attachment: Attachment) -> str:
    label = md_inline(attachment.title or (attachment.path.name if attachment.path else "") or attachment.key)
    if attachment.path is not None and attachment.exists and attachment.path.is_absolute():
        return f"[{label}](<{attachment.path.as_uri()}>)"
    if attachment.link_mode == LinkMode.LINKED_URL and attachment.url:
        return f"[{label}](<{_link_target(attachment.url)}>)"
    return f"{label} (file not found)" if attachment.path is not None else label


def _quote(text: str) -> list[str]:
    return ["> " + line if line.strip() else ">" for line in text.strip().splitlines()]


def annotation_markdown(annotation: Annotation) -> str:
    """A highlight as a block quote, then the comment; the page label closes the block."""
    page = f"(p. {annotation.page_label})" if annotation.page_label else ""
    lines = _quote(annotation.text) if annotation.text.strip() else []
    if not lines and not annotation.comment.strip():
        lines = [f"*[{annotation.annotation_type} annotation]*"]
    if annotation.comment.strip():
        if lines:
            lines.append("")
        lines.extend(annotation.comment.strip().splitlines())
    if page:
        lines[-1] = f"{lines[-1]} {page}"
    return "\n".join(lines)


def _worth_showing(annotation: Annotation) -> bool:
    """Empty highlights (Zotero keeps some with no text) are noise; images and ink never have text."""
    has_words = bool(annotation.text.strip() or annotation.comment.strip())
    return has_words or annotation.annotation_type in _VISUAL


def _annotation_sections(item: Item, library: Library) -> list[str]:
    blocks = []
    for attachment in item.attachments:
        annotations = library.annotations_by_attachment.get(attachment.key, [])
        visible = [a for a in annotations if _worth_showing(a)]
        if not visible:
            continue
        blocks.append(f"### {_attachment_link(attachment)}")
        blocks.extend(annotation_markdown(a) for a in sorted(visible, key=lambda a: (a.sort_index, a.key)))
    return ["## Annotations", *blocks] if blocks else []


def _body(item: Item, library: Library) -> list[str]:
    """Abstract, notes, annotations and attachments: the sections both layouts share."""
    blocks: list[str] = []
    if item.retraction:
        blocks.append(f"> **Retracted.** {md_inline(item.retraction.describe())}")
    if item.abstract.strip():
        blocks += ["## Abstract", item.abstract.strip()]
    notes = [n for n in item.notes if n.html.strip() or n.text.strip()]
    if notes:
        blocks.append("## Notes")
        for note in notes:
            converted = note_markdown(note.html) if note.html.strip() else md_inline(note.text)
            if not converted.startswith("#"):
                blocks.append(f"### {md_inline(note.title or 'Note')}")
            blocks.append(converted)
    blocks += _annotation_sections(item, library)
    if item.attachments:
        blocks += ["## Attachments", "\n".join(f"- {_attachment_link(a)}" for a in item.attachments)]
    return blocks


# -- public API -------------------------------------------------------------------------------------


def _metadata(item: Item, library: Library, key: str) -> dict[str, object]:
    metadata: dict[str, object] = {
        "title": _plain_title(item),
        "authors": [c.full_name for c in item.authors if c.full_name.strip()],
        "year": _year(item),
        "item_type": item.item_type,
        "venue": item.venue,
        "doi": clean_doi(item.doi),
        "url": item.url,
        "item_key": item.key,
        "citekey": key,
        "tags": item.tag_names(),
        "collections": _collection_paths(item, library),
        "date_added": item.date_added,
    }
    if item.retraction:
        metadata["retracted"] = item.retraction.date or True
    return metadata


def item_markdown(item: Item, library: Library, *, key: str | None = None) -> str:
    """A standalone page: YAML front matter, title, citation line, then abstract, notes, annotations."""
    citekey = key or item.citation_key or item.key
    blocks = [
        front_matter(_metadata(item, library, citekey)),
        f"# {md_inline(_plain_title(item))}",
        citation_line(item),
        *_body(item, library),
    ]
    return "\n\n".join(blocks) + "\n"


def _metadata_list(item: Item, library: Library, key: str) -> str:
    """The front matter's facts as a Markdown list, for documents holding many items."""
    year = _year(item)
    rows = [
        ("Authors", "; ".join(c.full_name for c in item.authors if c.full_name.strip())),
        ("Year", str(year) if year else ""),
        ("Type", item.item_type),
        ("Venue", item.venue),
        ("DOI", clean_doi(item.doi)),
        ("URL", item.url),
        ("Tags", ", ".join(item.tag_names())),
        ("Collections", "; ".join(_collection_paths(item, library))),
    ]
    lines = [f"- **Citekey:** {md_inline(key)}", f"- **Item key:** {item.key}"]
    lines += [f"- **{label}:** {md_inline(value)}" for label, value in rows if value.strip()]
    return "\n".join(lines)


def to_markdown_single(items: Sequence[Item], library: Library, keys: Mapping[str, str]) -> str:
    """Every item in one document: a heading and a metadata list per item, separated by rules."""
    sections = []
    for item in items:
        key = keys.get(item.key) or item.citation_key or item.key
        heading = f"# {md_inline(_plain_title(item))}"
        sections.append("\n\n".join([heading, _metadata_list(item, library, key), *_body(item, library)]))
    return "\n\n---\n\n".join(sections) + "\n" if sections else ""


def markdown_filename(item: Item, key: str) -> str:
    """``<citekey>.md`` safe on Windows, macOS and Linux, at most 120 characters (and 240 bytes)."""
    stem = _UNSAFE_FILENAME.sub("_", unicodedata.normalize("NFC", key or "")).strip(" .")
    stem = stem or item.key
    if _RESERVED_NAMES.match(stem):
        stem = "_" + stem
    stem = stem[: _MAX_FILENAME - 3]
    while len(stem.encode("utf-8")) > 240:
        stem = stem[:-1]
    return stem.rstrip(" .") + ".md"
