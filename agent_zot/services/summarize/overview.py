"""`quick` mode: what the paper is, from Zotero's metadata, plus an APA-like reference and counts."""

from __future__ import annotations

import re

from agent_zot.formats.bibtex import split_suffix
from agent_zot.formats.latex import strip_markup
from agent_zot.identifiers import clean_doi
from agent_zot.services.full_text import FullText
from agent_zot.services.summarize.common import header
from agent_zot.zotero.file_metadata import HINT, pdf_note
from agent_zot.zotero.models import Creator, Item, Library

_APA_MAX_AUTHORS = 20  # APA 7 lists up to 20 authors, then an ellipsis and the last one
_SHOWN_AUTHORS = 12


def initials(first_name: str) -> str:
    """ "Lucy Lu" -> "L. L.", "Ming-Wei" -> "M.-W.", "Daniel S." -> "D. S."."""
    given, _ = split_suffix(first_name)
    parts = []
    for word in given.replace(".", ". ").split():
        pieces = [p for p in word.split("-") if p]
        parts.append("-".join(p[0].upper() + "." for p in pieces))
    return " ".join(parts)


def _apa_name(creator: Creator) -> str:
    if creator.single_field or not creator.first_name:
        return creator.last_name
    _, suffix = split_suffix(creator.first_name)
    name = f"{creator.last_name}, {initials(creator.first_name)}"
    return f"{name}, {suffix}" if suffix else name


def _apa_authors(item: Item) -> str:
    names = [_apa_name(c) for c in item.authors if c.full_name.strip()]
    if len(names) > _APA_MAX_AUTHORS:
        return ", ".join(names[: _APA_MAX_AUTHORS - 1]) + ", … " + names[-1]
    if len(names) > 1:
        return ", ".join(names[:-1]) + ", & " + names[-1]
    return names[0] if names else ""


def apa_citation(item: Item) -> str:
    """ "Lo, K., Wang, L. L., … & Weld, D. S. (2020). Title. Venue, 12(3), 4969–4983. https://doi.org/…" """
    title = strip_markup(item.title).strip() or "(untitled)"
    parts = [_apa_authors(item), f"({item.year or 'n.d.'}).", title.rstrip(".") + "."]
    venue = strip_markup(item.venue).strip() or item.field("publisher")
    if venue:
        detail = venue
        volume, issue, pages = item.field("volume"), item.field("issue"), item.field("pages")
        if volume:
            detail += f", {volume}" + (f"({issue})" if issue else "")
        if pages:
            detail += ", " + re.sub(r"\s*-+\s*", "–", pages)
        parts.append(detail + ".")
    link = f"https://doi.org/{clean_doi(item.doi)}" if item.doi else item.url
    if link:
        parts.append(link)
    return " ".join(p for p in parts if p)


def collection_paths(item: Item, library: Library) -> list[str]:
    found = (library.collections.get(k) for k in item.collection_keys)
    return sorted(c.path or c.name for c in found if c is not None)


def quick(item: Item, library: Library, full_text: FullText) -> tuple[list[str], dict[str, object]]:
    """Metadata, abstract, tags, collections, citation and counts: a few hundred tokens."""
    authors = [c.full_name for c in item.authors]
    shown = ", ".join(authors[:_SHOWN_AUTHORS]) + (
        f", … ({len(authors)} authors)" if len(authors) > _SHOWN_AUTHORS else ""
    )
    annotations = item.annotations(library)
    collections = collection_paths(item, library)
    lines = [header(item), f"Title: {item.title or '(untitled)'}"]
    if item.retraction:
        lines.append(f"Warning: this paper was retracted — {item.retraction.describe()}")
    if item.from_pdf:
        lines.append(f"Note: {pdf_note(item)}; {HINT}.")
    lines.append(f"Authors: {shown or 'none recorded'}")
    lines.append(
        f"Year: {item.year or 'n.d.'} · Type: {item.item_type}"
        + (f" · Venue: {item.venue}" if item.venue else "")
    )
    if item.doi:
        lines.append(f"DOI: {clean_doi(item.doi)}")
    lines.append(f"Cite: {apa_citation(item)}")
    if item.tags:
        lines.append("Tags: " + ", ".join(item.tag_names()))
    if collections:
        lines.append("Collections: " + "; ".join(collections))
    lines.append("Abstract: " + (item.abstract.strip() or "(none in Zotero)"))
    lines.append(
        f"Notes: {len(item.notes)} · Annotations: {len(annotations)} · Full text: {_full_text_line(full_text)}"
    )
    data: dict[str, object] = {
        "item": item.to_summary() | {"authors": authors, "doi": item.doi, "citation_key": item.citation_key},
        "citation": apa_citation(item),
        "retraction": item.retraction.to_dict() if item.retraction else None,
        "abstract_chars": len(item.abstract.strip()),  # the words are in the text, once
        "tags": item.tag_names(),
        "collections": collections,
        "counts": {
            "notes": len(item.notes),
            "annotations": len(annotations),
            "attachments": len(item.attachments),
        },
    }
    return lines, data


def _full_text_line(full_text: FullText) -> str:
    if full_text.indexed and full_text.attachment is not None:
        return f"indexed, {full_text.attachment.pages} pages (force_mode='full' reads them)"
    return {"no_index": "index not built", "not_indexed": "not indexed yet"}.get(full_text.status, "none")
