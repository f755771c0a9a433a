"""What the MCP resources `zotero://item/{key}`, `zotero://item/{key}/fulltext/{page}` and
`zotero://collection/{key}` hold: one item's metadata and abstract, one page of its indexed text, one
collection's place and contents. Plain text for the assistant to read; errors are AgentZotErrors that
say what was wrong and how to fix it."""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Concatenate, ParamSpec

from agent_zot.errors import AgentZotError, InvalidArgumentError, NotFoundError
from agent_zot.services.answer_notes import DEMO_HINT, DEMO_NOTE, note_error
from agent_zot.services.context import AppContext
from agent_zot.services.full_text import UPDATE_DB, FullText, full_text_of, page_name
from agent_zot.services.resolve.library import resolve_collection, resolve_item
from agent_zot.services.response import MAX_LIMIT, item_line, plural, quoted
from agent_zot.services.summarize.overview import apa_citation, collection_paths
from agent_zot.state.index import AttachmentRecord
from agent_zot.zotero.models import Item, Library

ITEM_URI = "zotero://item/{key}"
PAGE_URI = "zotero://item/{key}/fulltext/{page}"
COLLECTION_URI = "zotero://collection/{key}"
_SHOWN_AUTHORS = 12
P = ParamSpec("P")


def _says_demo(read: Callable[Concatenate[AppContext, P], str]) -> Callable[Concatenate[AppContext, P], str]:
    """Reads from the built-in demo library say so, as the tools' answers do: an assistant must not take
    the demo papers for the user's."""

    @functools.wraps(read)
    def noted(ctx: AppContext, *args: P.args, **kwargs: P.kwargs) -> str:
        try:
            text = read(ctx, *args, **kwargs)
        except AgentZotError as exc:
            note_error(ctx, exc)
            raise
        return f"[{DEMO_NOTE} {DEMO_HINT}]\n{text}" if ctx.serving_demo() else text

    return noted


def find_item(library: Library, key: str) -> tuple[Item, str | None]:
    """The item a key names (the one door, resolve_item), and the attachment key when the key was one of
    its attachments."""
    item = resolve_item(library, key)
    wanted = key.strip().upper()
    return item, (wanted if wanted != item.key else None)


@_says_demo
def item_text(ctx: AppContext, key: str) -> str:
    """Compact Markdown: title, the metadata that identifies and places the item, where its full text
    can be read, and the abstract."""
    library = ctx.library()
    item, _ = find_item(library, key)
    authors = [c.full_name for c in item.authors]
    shown = ", ".join(authors[:_SHOWN_AUTHORS]) + (
        f", … ({len(authors)})" if len(authors) > _SHOWN_AUTHORS else ""
    )
    facts = [
        f"Key: {item.key} · {item.item_type} · {item.year or 'n.d.'}",
        f"Authors: {shown or 'none recorded'}",
        f"Venue: {item.venue}" if item.venue else "",
        f"DOI: {item.doi}" if item.doi else "",
        f"Citation key: {item.citation_key}" if item.citation_key else "",
        f"Cite: {apa_citation(item)}",
        "Tags: " + ", ".join(item.tag_names()) if item.tags else "",
        "Collections: " + "; ".join(collection_paths(item, library)) if item.collection_keys else "",
        f"Notes: {len(item.notes)} · Annotations: {len(item.annotations(library))}",
        f"Full text: {_full_text_line(ctx, item)}",
    ]
    lines = [f"# {item.title or '(untitled)'}", *(f"- {f}" for f in facts if f), ""]
    lines += ["## Abstract", item.abstract.strip() or "(none in Zotero)"]
    return "\n".join(lines) + "\n"


def _full_text_line(ctx: AppContext, item: Item) -> str:
    try:
        with ctx.request():
            full_text = full_text_of(ctx, item)
    except AgentZotError as exc:  # an unusable index (another library's) must not hide the metadata
        return exc.message
    record = full_text.attachment
    if full_text.indexed and record is not None:
        return f"{plural(record.pages, 'page')}, one per resource: {_page_span(item.key, record.pages)}"
    if full_text.status == "no_text":
        return _no_text(full_text)
    return f"not indexed (run {UPDATE_DB})"


def _page_span(key: str, total: int) -> str:
    first = PAGE_URI.format(key=key, page=1)
    return first if total == 1 else f"{first} to {PAGE_URI.format(key=key, page=total)}"


@_says_demo
def page_text(ctx: AppContext, key: str, page: str) -> str:
    """One page of an item's text from the full-text index (no re-parse), under a line naming the item
    and the page; a clear error when the page, the item's text or the whole index is missing."""
    number = _page_number(page)
    library = ctx.library()
    item, attachment_key = find_item(library, key)
    with ctx.request():
        record = _indexed_attachment(ctx, item, attachment_key)
        pages = ctx.index().state.pages_of(record.attachment_key)
    total = max((p.number for p in pages), default=0)
    if not pages:
        raise NotFoundError(
            f"The index holds no page texts for {item.key} (built by an older version).",
            hint=f"Run {UPDATE_DB} --force-rebuild.",
        )
    found = next((p for p in pages if p.number == number), None)
    if found is None:
        raise NotFoundError(
            f"{item.key} has {plural(total, 'page')}; page {number} is past the end.",
            hint=f"Read {_page_span(item.key, total)}.",
        )
    body = found.text.strip()
    if not body:
        in_references = record.references_page is not None and number >= record.references_page
        body = (
            "(reference list, kept apart from the body text)" if in_references else "(no text on this page)"
        )
    head = f"{item_line(item)} — {page_name(number, found.label)} of {total} (attachment {record.attachment_key})"
    return f"{head}\n\n{body}\n"


def _page_number(page: str) -> int:
    text = page.strip()
    if not text.isdigit() or int(text) < 1:
        raise InvalidArgumentError(
            f"{quoted(text, 20)} is not a page number.",
            hint="Pages are PDF positions from 1, e.g. zotero://item/ABCD2345/fulltext/3.",
        )
    return int(text)


def _indexed_attachment(ctx: AppContext, item: Item, attachment_key: str | None) -> AttachmentRecord:
    """The attachment whose pages to read: the one named by key, else the item's main text."""
    full_text = full_text_of(ctx, item)
    if full_text.status == "no_index":
        raise NotFoundError(
            "The full-text index has not been built yet, so there are no page texts.",
            hint=f"Run {UPDATE_DB} to build it (incremental; later runs only add what changed).",
        )
    if full_text.status == "not_indexed":
        raise NotFoundError(
            f"{item.key} is not in the full-text index yet (added or changed since the last update).",
            hint=f"Run {UPDATE_DB}.",
        )
    records = [r for r in [full_text.attachment, *full_text.others] if r is not None]
    if attachment_key is not None:
        named = [
            r for r in records if r.attachment_key == attachment_key and r.status == "indexed" and r.pages
        ]
        if named:
            return named[0]
    if full_text.attachment is None:
        raise NotFoundError(
            f"{item.key}: {_no_text(full_text)}",
            hint="Its metadata and abstract: " + ITEM_URI.format(key=item.key),
        )
    return full_text.attachment


def _no_text(full_text: FullText) -> str:
    # The summarize message ends by offering Zotero's own material, which a resource does not add.
    return full_text.message.removesuffix(" Showing what Zotero itself has.")


@_says_demo
def collection_text(ctx: AppContext, key: str) -> str:
    """The collection's path, parent, sub-collections (with item counts) and items, one compact line each."""
    library = ctx.library()
    collection = resolve_collection(library, key)
    lines = [f"# {collection.path or collection.name} [{collection.key}]"]
    parent = library.collections.get(collection.parent_key or "")
    if parent is not None:
        lines.append(f"Parent: {parent.path or parent.name} [{parent.key}]")
    children = sorted(
        (library.collections[k] for k in collection.child_keys), key=lambda c: c.name.casefold()
    )
    if children:
        lines.append(f"Sub-collections ({len(children)}):")
        lines += [
            f"- {c.name} [{c.key}]: {plural(len(c.item_keys), 'item')}"
            + (f", {plural(len(c.child_keys), 'sub-collection')}" if c.child_keys else "")
            for c in children
        ]
    items = sorted(
        (library.items[k] for k in collection.item_keys if k in library.items),
        key=lambda i: (-(i.year or 0), i.title.casefold()),
    )
    lines.append(f"Items ({len(items)}):" if items else "Items: none directly in this collection.")
    lines += [item_line(i) for i in items[:MAX_LIMIT]]
    if len(items) > MAX_LIMIT:
        lines.append(
            f"… {len(items) - MAX_LIMIT} more, not shown: zot_export(collection='{collection.key}', "
            "path='collection.md') writes them all."
        )
    return "\n".join(lines) + "\n"


FIGURE_URI = "zotero://item/{key}/figure/{number}"
TABLE_URI = "zotero://item/{key}/table/{number}"
PAGE_IMAGE_URI = "zotero://item/{key}/page/{page}/image"


def element_png(ctx: AppContext, key: str, kind: str, number: str) -> bytes:
    """A figure or table of an item's PDF as a PNG cropped to its region (the whole page when its region
    was not found)."""
    from agent_zot.services.summarize.figures import Target, element_image

    item, _ = find_item(ctx.library(), key)
    return element_image(item, Target(kind, number.strip()))


def page_png(ctx: AppContext, key: str, page: str) -> bytes:
    """One page of an item's PDF as a PNG (pages are positions in the file from 1)."""
    from agent_zot.services.summarize.figures import Target, element_image

    item, _ = find_item(ctx.library(), key)
    return element_image(item, Target("page", str(_page_number(page))))
