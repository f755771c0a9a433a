"""Notes and annotations: listed per item or library-wide, narrowed by a scope (item, collection, tags,
colour; services/notes/note_scope.py), and searched by meaning and words (services/notes/meaning.py).

Answers are one line per annotation or search hit: key, kind, page, colour name, trimmed text, the paper.
The structured rows say which notes and annotations were shown and where; their words are in the text once.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

from agent_zot.errors import InvalidArgumentError
from agent_zot.index.notes import NoteDoc, note_docs
from agent_zot.services.notes.meaning import MeaningSearch, fuse_ranks
from agent_zot.services.notes.note_scope import NoteScope
from agent_zot.services.resolve.library import resolve_item
from agent_zot.services.response import ToolResponse, clip, more_line, plural, quoted
from agent_zot.zotero.colors import color_name
from agent_zot.zotero.models import Annotation, Library, Note, TagRef

_SNIPPET = 160
_TITLE = 40
_WORD = re.compile(r"\w+", re.UNICODE)
MORE_HINT = "Whole notes, or all of a paper's annotations: mode list_notes / list_annotations with item_key."
_ANNOTATION_WORDS = re.compile(r"annotat|highlight|underlin|comment|\bmark", re.IGNORECASE)


def listing_mode(
    mode: str, *, color: str | None, query: str, scoped: bool, text: str
) -> tuple[str, str] | None:
    """The mode to run instead of ``mode`` and why, or None. Colours belong to annotations, so a colour
    turns a notes listing into an annotations listing; a search with nothing left to look for but a scope
    ("my red highlights on the SciBERT paper") lists that scope."""
    if mode == "list_notes" and color:
        return "list_annotations", "a colour → annotations"
    if mode == "search" and scoped and not text:
        annotations = bool(color) or bool(_ANNOTATION_WORDS.search(query))
        return ("list_annotations" if annotations else "list_notes"), "nothing to search for → list"
    return None


def _scoped(library: Library, scope: NoteScope | None, item_key: str | None) -> NoteScope:
    scope = scope or NoteScope()
    if item_key:
        scope = replace(scope, item=resolve_item(library, item_key, words=True))
    return scope


def _header(count: str, scope: NoteScope, order: str, tags: str) -> str:
    """ "3 annotations in 'SciBERT…' [KEY], coloured red (#ff6666), most recent first (…tags…)"."""
    where = scope.describe() or ("in the library" if order else "")
    return ", ".join(part for part in (f"{count} {where}".strip(), order) if part) + tags


def list_notes(
    library: Library, *, item_key: str | None = None, limit: int, scope: NoteScope | None = None
) -> ToolResponse:
    scope = _scoped(library, scope, item_key)
    found = [n for n in library.notes if scope.admits_note(n, library)]
    if scope.item is not None:
        notes = sorted(found, key=lambda n: n.date_added)
    else:
        notes = sorted(found, key=lambda n: n.date_modified, reverse=True)
    order = "" if scope.item else "most recently changed first"
    if not notes:
        return ToolResponse(_header("No notes", scope, "", "") + ".", {"notes": [], "total": 0})
    shown = notes[:limit]
    blocks = [_note_block(library, n) for n in shown]
    return ToolResponse(
        _header(plural(len(notes), "note"), scope, order, _tag_counts(scope, library, notes))
        + ":\n\n"
        + "\n\n".join(blocks)
        + more_line(len(notes), limit),
        {"notes": [_note_row(scope, library, n) for n in shown], "total": len(notes)},
    )


def _note_row(scope: NoteScope, library: Library, note: Note) -> dict[str, object]:
    row = {k: v for k, v in note.to_dict().items() if k != "text"} | {"chars": len(note.text)}
    return row | _tag_field(scope, library, note.tags, note.parent_key)


def _note_block(library: Library, note: Note) -> str:
    return f"[{note.key}] note{_parent(library, note.parent_key)}, {note.date_modified[:10]}\n{note.text}"


def list_annotations(
    library: Library, *, item_key: str | None = None, limit: int, scope: NoteScope | None = None
) -> ToolResponse:
    scope = _scoped(library, scope, item_key)
    if scope.item is not None:
        annotations = [a for a in scope.item.annotations(library) if scope.admits_annotation(a, library)]
        order = ""
    else:
        found = [a for a in library.annotations if scope.admits_annotation(a, library)]
        annotations = sorted(found, key=lambda a: a.date_modified, reverse=True)
        order = "most recent first"
    if not annotations:
        return ToolResponse(_header("No annotations", scope, "", "") + ".", {"annotations": [], "total": 0})
    shown = annotations[:limit]
    lines: list[str] = []
    current = None
    for ann in shown:
        if ann.attachment_key != current:
            current = ann.attachment_key
            paper = "" if scope.item is not None else _parent(library, ann.parent_item_key)
            lines.append(f"Attachment {current}{paper}:")
        lines.append("  " + _annotation_line(ann))
    return ToolResponse(
        _header(
            plural(len(annotations), "annotation"), scope, order, _tag_counts(scope, library, annotations)
        )
        + ":\n"
        + "\n".join(lines)
        + more_line(len(annotations), limit),
        {"annotations": [_annotation_row(scope, library, a) for a in shown], "total": len(annotations)},
    )


def _annotation_row(scope: NoteScope, library: Library, ann: Annotation) -> dict[str, object]:
    row = {k: v for k, v in ann.to_dict().items() if k not in ("text", "comment")}
    row["color_name"] = color_name(ann.color) or None
    return row | _tag_field(scope, library, ann.tags, ann.parent_item_key)


def _annotation_line(ann: Annotation) -> str:
    """``[KEY] highlight (p. 4969) yellow "text" — comment``."""
    page = f"p. {ann.page_label}" if ann.page_label else "page ?"
    colour = f" {color_name(ann.color)}" if ann.color else ""
    text = f' "{ann.text}"' if ann.text else ""
    comment = f" — {ann.comment}" if ann.comment else ""
    return f"[{ann.key}] {ann.annotation_type} ({page}){colour}{text}{comment}".rstrip()


def _parent(library: Library, parent_key: str | None) -> str:
    if not parent_key:
        return " (standalone)"
    item = library.items.get(parent_key)
    title = clip(item.title or "(untitled)", _TITLE) if item is not None else ""
    return f" on {title} [{parent_key}]" if title else f" on [{parent_key}]"


def _tag_field(
    scope: NoteScope, library: Library, own: list[TagRef], parent_key: str | None
) -> dict[str, object]:
    via = scope.tag_via(own, parent_key, library)
    return {"tag_via": via} if via else {}


def _tag_counts(scope: NoteScope, library: Library, found: list[Note] | list[Annotation]) -> str:
    """ ", 2 by their own tag, 1 by their paper's" when a tag filter is on: it says whose tag counted."""
    if not scope.tags:
        return ""
    vias = [
        scope.tag_via(x.tags, x.parent_key if isinstance(x, Note) else x.parent_item_key, library)
        for x in found
    ]
    own = sum(v == "own" for v in vias)
    return f" ({own} by their own tag, {len(vias) - own} by their paper's)"


# -- search -------------------------------------------------------------------------------------


@dataclass(slots=True)
class _Hit:
    doc: NoteDoc
    tags: list[TagRef]  # the note's or annotation's own
    score: float
    found_by: set[str]
    passage: str  # the best-matching part of a long note


def search_notes(
    library: Library,
    text: str,
    *,
    limit: int,
    scope: NoteScope | None = None,
    meaning: MeaningSearch | None = None,
) -> ToolResponse:
    """Notes and annotations in scope that match ``text``: by meaning (the index's dense and keyword
    channels) fused with word matching (every word present, over the library's current text); by words
    alone, with a note saying so, when the index holds no notes."""
    scope = scope or NoteScope()
    terms = [t.casefold() for t in _WORD.findall(text)]
    if not terms:
        raise InvalidArgumentError("Nothing to search for.", hint="Give words that appear in your notes.")
    docs = _docs_in_scope(library, scope)
    words = sorted(
        ((key, s) for key, (doc, _) in docs.items() if (s := _score(doc.text, terms))),
        key=lambda pair: -pair[1],
    )
    hits = {key: _Hit(*docs[key], score, {"words"}, docs[key][0].text) for key, score in words}
    how = "words"
    if meaning is not None and meaning.ready and docs:
        kinds = ("annotation",) if scope.color else ("note", "annotation")
        keys = tuple(docs) if scope.narrowed else None
        found = [
            m for m in meaning.rank(text, keys=keys, kinds=kinds, fetch=max(50, 3 * limit)) if m.key in docs
        ]
        for m in found:
            doc = docs[m.key][0]
            # A long note shows its best-matching chunk; text changed since update-db shows as it is now.
            passage = m.text if m.text and m.text in doc.text else doc.text
            hit = hits.setdefault(m.key, _Hit(*docs[m.key], 0.0, set(), passage))
            hit.found_by.add("meaning")
        fused = fuse_ranks([[m.key for m in found], [key for key, _ in words]])
        for key, score in fused.items():
            hits[key].score = score
        how = "meaning and words"
    ranked = sorted(hits.values(), key=lambda h: -h.score)
    scope_text = f" {scope.describe()}" if scope.narrowed else ""
    note = ""
    if meaning is not None and not meaning.ready:
        note = f"\n(Word match only: {meaning.reason})"
    if not ranked:
        return ToolResponse(
            f"No notes or annotations{scope_text} match {quoted(text)}.{note}",
            {"matches": [], "total": 0, "ranked_by": how},
        )
    shown = ranked[:limit]
    lines = [_hit_line(library, h, terms) for h in shown]
    more = more_line(len(ranked), limit)
    return ToolResponse(
        f"{plural(len(ranked), 'hit')}{scope_text} for {quoted(text)} (by {how}):\n"
        + "\n".join(lines)
        + more
        + f"\n{MORE_HINT}"
        + note,
        {"matches": [_hit_row(scope, library, h) for h in shown], "total": len(ranked), "ranked_by": how},
    )


def _docs_in_scope(library: Library, scope: NoteScope) -> dict[str, tuple[NoteDoc, list[TagRef]]]:
    """The searchable notes and annotations in scope, by key, with their own tags."""
    tags = {n.key: n.tags for n in library.notes if scope.admits_note(n, library)}
    tags |= {a.key: a.tags for a in library.annotations if scope.admits_annotation(a, library)}
    return {d.key: (d, tags[d.key]) for d in note_docs(library) if d.key in tags}


def _hit_line(library: Library, hit: _Hit, terms: list[str]) -> str:
    doc = hit.doc
    snippet = _snippet(hit.passage, terms)
    if doc.kind == "note":
        return f"[{doc.key}] note{_parent(library, doc.parent_key)}: {snippet}"
    page = f"p. {doc.page_label}" if doc.page_label else "page ?"
    colour = f" {color_name(doc.color)}" if doc.color else ""
    return (
        f"[{doc.key}] {doc.annotation_type} ({page}){colour}: {snippet} —{_parent(library, doc.parent_key)}"
    )


def _hit_row(scope: NoteScope, library: Library, hit: _Hit) -> dict[str, object]:
    doc = hit.doc
    row: dict[str, object] = {"kind": doc.kind, "key": doc.key, "parent_key": doc.parent_key}
    if doc.kind == "annotation":
        row |= {
            "attachment_key": doc.attachment_key,
            "page_label": doc.page_label,
            "color": doc.color,
            "color_name": color_name(doc.color) or None,
        }
    return row | {"found_by": sorted(hit.found_by)} | _tag_field(scope, library, hit.tags, doc.parent_key)


def _score(body: str, terms: list[str]) -> float:
    """0 unless every term occurs; then more occurrences (relative to length) rank higher."""
    folded = body.casefold()
    counts = [folded.count(t) for t in terms]
    if not all(counts):
        return 0.0
    return sum(counts) / (1 + len(folded) / 2000)


def _snippet(body: str, terms: list[str]) -> str:
    """About ``_SNIPPET`` characters of ``body`` on one line, around the first query word it contains."""
    flat = " ".join(body.split())
    folded = flat.casefold()
    at = next((i for t in terms if (i := folded.find(t)) >= 0), 0)
    start = max(0, at - _SNIPPET // 3) if at > _SNIPPET // 2 else 0
    piece = flat[start : start + _SNIPPET]
    return ("…" if start else "") + piece + ("…" if start + _SNIPPET < len(flat) else "")


__all__ = ["list_annotations", "list_notes", "listing_mode", "search_notes"]
