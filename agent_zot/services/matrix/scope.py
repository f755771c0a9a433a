"""What a review matrix asks and of which papers: the questions (given, or read from the request's words)
and the rows (a collection, tags, item keys, or the best papers of a search), resolved with the same
resolver and filters the other tools use."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from agent_zot.errors import AgentZotError, InvalidArgumentError
from agent_zot.services.context import AppContext
from agent_zot.services.resolve.library import resolve_item
from agent_zot.services.resolve.match import match_items
from agent_zot.services.resolve.scope import LibraryScope
from agent_zot.services.response import within_length
from agent_zot.services.routing.scan import words
from agent_zot.zotero.models import Item

MAX_QUESTIONS = 8
MAX_QUESTION_CHARS = 300
SEARCH_PAPERS = 50  # a search scope is its best 50 papers

# "for each paper in my Trials collection", "across all studies tagged rct", "make a table of":
# the request's frame, cut before the rest is split into questions.
_FRAME = re.compile(
    r"\b(?:for|across|in|of|from|over)\s+(?:each|every|all)(?:\s+(?:of|the))*\s+(?:(?:my|the|these|those)\s+)?"
    r"(?:[\w-]+\s+)?(?:papers?|studies|study|articles?|items?|trials?|references|works|publications"
    r"|sources|reports)\b"
    r"|\b(?:make|build|create|fill(?:\s+in)?|give\s+me|produce|generate|draw\s+up|set\s+up|prepare)\s+(?:me\s+)?"
    r"(?:a|an|the|my)\s+(?:[\w-]+\s+){0,2}?(?:table|matrix|grid|spreadsheet|chart)(?:\s+(?:of|with|for|showing|on))?"
    r"|\b(?:review|evidence|extraction|comparison|summary)\s+(?:table|matrix|grid)(?:\s+(?:of|with|for|on))?"
    r"|\b(?:table|matrix|grid)\s+(?:of|with|showing)\b"
    r"|^\s*(?:compare|tabulate|extract)\s+(?:(?:the|my|all)\s+)*(?:papers?|studies|articles|trials)?"
    r"|^\s*(?:please\s+)?(?:export|save|write|dump)\b",
    re.IGNORECASE,
)
_SPLIT = re.compile(r"[?;:\n]|,|\band\b|\bas well as\b|\bplus\b|\balong with\b|&", re.IGNORECASE)
_STEM = re.compile(
    r"^\s*((?:what|which|how|who|when|where|whether)\s+(?:(?:was|were|is|are|did|do|does)\s+)?(?:the\s+)?)",
    re.IGNORECASE,
)
_ASKS = re.compile(r"^\s*(?:what|which|how|who|when|where|whether|why|did|does|do|is|are|was|were)\b", re.I)
_EDGE_WORDS = words(
    "and or also then plus with the a an its their in of for on please me my each every all paper papers "
    "study studies article articles"
)
_PUNCT = " \t.,;:!?()[]{}\"'“”‘’-–—"
# A piece made only of these names the kind of answer, not a question ("review matrix", "the table").
_FRAME_WORDS = words(
    "matrix matrices table tables grid spreadsheet chart review evidence extraction comparison summary columns "
    "column questions question rows csv markdown md file export the a an my of for please zot_summarize "
    "zot_export mode"
)


def scope_of(
    params: dict[str, Any],
    *,
    collection: str | None,
    tags: list[str] | None,
    item_keys: list[str] | None,
    search: str | None,
) -> LibraryScope:
    """Explicit arguments, else what the router read in the request (a collection, tags, item keys)."""
    explicit = LibraryScope.of(collection=collection, tags=tags, item_keys=item_keys, search=search)
    return explicit if not explicit.empty else LibraryScope.from_route(params)


def questions_of(given: list[str] | None, query: str, params: dict[str, Any]) -> list[str]:
    """The matrix's columns: the given questions, else the request's words split into questions
    ("what was the sample size and the primary outcome" → two)."""
    found = [" ".join(q.split()) for q in given or () if q and q.strip()] or split_questions(query, params)
    if not found:
        raise InvalidArgumentError(
            "Which questions? None were given or found in the request.",
            hint="Pass questions=['sample size', 'primary outcome'], or ask e.g. 'for each paper in my "
            "Trials collection: sample size and primary outcome'.",
        )
    if len(found) > MAX_QUESTIONS:
        raise InvalidArgumentError(
            f"{len(found)} questions; a matrix takes at most {MAX_QUESTIONS}.",
            hint="Split them over two matrices (each answer stays readable).",
        )
    for question in found:
        hint = "Ask each question in a few words ('sample size', 'primary outcome')."
        within_length(question, MAX_QUESTION_CHARS, what="A question", hint=hint)
    return list(dict.fromkeys(found))


def split_questions(query: str, params: dict[str, Any]) -> list[str]:
    """The questions of a matrix request: the frame and the scope cut out, the rest split at commas,
    semicolons, question marks and "and"; a question stem ("what was the") carries over to the pieces
    that follow it without one."""
    text = _FRAME.sub(" | ", query)
    for phrase in _scope_phrases(params):
        text = phrase.sub(" | ", text)
    pieces = [_trim(p) for chunk in text.split("|") for p in _SPLIT.split(chunk)]
    pieces = [p for p in pieces if any(len(w) > 1 and w.lower() not in _FRAME_WORDS for w in p.split())]
    questions, stem = [], ""
    for piece in pieces:
        match = _STEM.match(piece)
        if match:
            stem = match.group(1)
        elif stem and not _ASKS.match(piece):
            piece = stem + piece
        questions.append(piece)
    return questions


def _scope_phrases(params: dict[str, Any]) -> list[re.Pattern[str]]:
    """The words that named the scope ("in my Trials collection", "tagged rct"), as patterns to cut."""
    phrases = []
    if params.get("path"):  # "... to trials.csv"
        path = re.escape(str(params["path"]))
        phrases.append(
            re.compile(rf"(?:\b(?:to|as|in|into)\s+)?(?:a\s+)?(?:file\s+)?[\"'`]?{path}[\"'`]?", re.I)
        )
    if params.get("collection"):
        name = re.escape(str(params["collection"]))
        phrases.append(
            re.compile(
                rf"\b(?:in|from|of|within)?\s*(?:my|the)?\s*(?:collection|folder)?\s*[\"'“”]?{name}[\"'“”]?"
                rf"(?:\s+(?:collection|folder|sub-?collection))?",
                re.IGNORECASE,
            )
        )
    for tag in params.get("tags") or ():
        phrases.append(
            re.compile(
                rf"\b(?:tagged|with\s+(?:the\s+)?tags?|tag)\s+[\"'“”#]?{re.escape(str(tag))}[\"'“”]?",
                re.IGNORECASE,
            )
        )
    return phrases


def _trim(piece: str) -> str:
    words = piece.strip(_PUNCT).split()
    while words and words[0].lower().strip(_PUNCT) in _EDGE_WORDS:
        words.pop(0)
    while words and words[-1].lower().strip(_PUNCT) in _EDGE_WORDS:
        words.pop()
    return " ".join(words).strip(_PUNCT)


@dataclass(frozen=True, slots=True)
class RowSource:
    """A row of the matrix: the paper, or the key that names none (and why)."""

    key: str
    item: Item | None
    problem: str = ""


def resolve_rows(ctx: AppContext, scope: LibraryScope) -> tuple[list[RowSource], tuple[str, ...]]:
    """The scope's papers, in a stable order: listed keys as given (a key that names no paper stays a row
    that says so), a search's by rank, the rest by first author, year and title; and the names left out
    (an unknown tag beside a collection). The collection and tags resolve the one way every tool's do
    (resolve/scope.py: sub-collections included, tags in any case)."""
    if scope.empty:
        raise InvalidArgumentError(
            "Which papers? The request names no collection, tags, items or search words.",
            hint="Pass collection='Trials', tags=['rct'], item_keys=['ABCD2345'] or search='words' "
            "(the best papers for them).",
        )
    library = ctx.library()
    filters = scope.filters(library)
    if scope.item_keys:
        rows: dict[str, RowSource] = {}
        for key in scope.item_keys:
            try:
                item = resolve_item(library, key)
            except AgentZotError as exc:
                rows.setdefault(key, RowSource(key, None, f"{exc.message} {exc.hint or ''}".strip()))
                continue
            if filters.admits(item):
                rows.setdefault(item.key, RowSource(item.key, item))
        listed = list(rows.values())
    else:
        items = sorted(
            (i for i in library.items.values() if filters.admits(i)),
            key=lambda i: (i.authors[0].last_name.casefold() if i.authors else "", i.year or 0, i.title),
        )
        listed = [RowSource(i.key, i) for i in items]
    if not scope.search:
        return listed, (*filters.left_out, *filters.unmatched)
    known = [row.item for row in listed if row.item is not None]
    if not ctx.index_ready():  # no index: metadata words, as the export's search does
        return [RowSource(i.key, i) for i in match_items(known, scope.search)[:SEARCH_PAPERS]], (
            *filters.left_out,
            *filters.unmatched,
        )
    from agent_zot.index.retrieval import search_papers

    allowed = {i.key for i in known}
    found = search_papers(
        ctx.index(),
        scope.search,
        limit=SEARCH_PAPERS,
        search_filter=filters.store_filter(),
        passages_per_paper=1,
        detail="full",
    )
    return [RowSource(p.item_key, library.items[p.item_key]) for p in found if p.item_key in allowed], (
        *filters.left_out,
        *filters.unmatched,
    )
