"""Parameter extraction shared by all tools: one fixed pipeline over a `Scan`.

The order matters and is deliberate: precise, self-delimiting things first (note text, paths, DOIs,
keys), then phrases with clear cues (time windows, collections, tags), then the looser shape-based
guesses (years, names, venues) on what is left. Whatever was taken is cut out of the `topic`.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from agent_zot.services.routing.direction import citation_direction
from agent_zot.text import STOPWORDS

from .extract_library import (
    extract_collections,
    extract_color,
    extract_identifiers,
    extract_note_text,
    extract_paper_title,
    extract_path,
    extract_registry_ids,
    extract_tags,
    extract_whole_library,
)
from .extract_people import extract_authors, extract_venue
from .extract_time import extract_days, extract_limit, extract_pages, extract_years, hide_cited_works
from .model import MANAGEMENT_TOOLS
from .scan import QUOTED_RE, Scan, unquote, words

# Words that frame a request rather than name its subject; trimmed from the ends of the topic only,
# so "attention in transformers" keeps its inner "in".
_FRAME_WORDS = words(
    """
    a about all also an and any anything are as at be both by can could did discuss discussing i'm
    im i’m discusses do does documents everything find for from get give go has have help how i in
    into is it items item just let library list look looking me mention mentioning mentions more
    most my need of on or our paper papers articles article publications publication please pls
    quick recent related regarding retrieve search show so some something studies stuff tell that
    the their them there these this those to up want was we were what whats what's where which who
    whom whose why will with work works would you your zotero concerning covering cover export
    exporting save dump summarize summarise summarizing explain results result hits talk talks
    talking word words write wrote written containing contain contains mentioned
    """
)
# Tool nouns that frame a management request ("notes about X", "tags for X") but are topic elsewhere.
_TOOL_FRAME_WORDS: dict[str, frozenset[str]] = {
    "zot_manage_notes": words(
        "note notes annotation annotations highlight highlights highlighted comments pdf mark marked colour"
        " color coloured colored"
    ),
    "zot_manage_tags": words("tag tags tagged"),
    "zot_manage_collections": words("collection collections folder folders subcollection"),
    "zot_export": words("bibtex markdown csl json graphml file files format"),
}
# At the end of a query fewer words are framing: "...All You Need" is a title, "...please" is not.
_TRAILING_FRAME_WORDS = words(
    """
    please pls thanks thank you me my our in on of for from to about with at by library zotero
    papers paper articles article studies items item work works stuff anything everything related
    etc the a an and or over time there here too also now again
    """
)
# Text after a colon longer than this is pasted material rather than part of the request.
_PAYLOAD_MIN_CHARS = 200
_HAS_LOWER = re.compile(r"[a-zß-ÿ]")
_QUOTES = "\"“”‘’'"
_STRANDED_PUNCT_RE = re.compile(r"(?<!\S)[^\w\s\"'“”‘’&+]+(?!\S)")
_LONE_APOSTROPHE_RE = re.compile(r"(?<!\w)'|'(?!\w)")
_QUOTES_TO_SPACE = str.maketrans({c: " " for c in '"“”‘’'})
_PUNCT_EDGE = " \t\n.,;:!?()[]{}\"'“”‘’-–—/|"


@dataclass(frozen=True)
class Extraction:
    params: dict[str, Any]
    removed: tuple[tuple[int, int], ...]


def extract_params(query: str, tool: str) -> Extraction:
    """Everything the query says besides its topic, as JSON-ready params (without `topic`)."""
    scan = Scan(query)
    params: dict[str, Any] = {}
    if tool == "zot_manage_notes":
        extract_note_text(scan, params)
        extract_color(scan, params)
    quoted = [unquote(m.group(0)) for m in QUOTED_RE.finditer(scan.masked)]
    extract_path(scan, params)
    if tool == "zot_manage_collections":
        extract_registry_ids(query, params)
    extract_identifiers(scan, params)
    extract_pages(scan, params)
    extract_days(scan, params)
    extract_limit(scan, params)
    _hide_payload(scan)
    if tool == "zot_explore_graph":
        extract_whole_library(scan, params)
    extract_collections(scan, params, collections_tool=tool == "zot_manage_collections")
    extract_tags(scan, params)
    if tool == "zot_manage_notes":
        extract_paper_title(scan, params)
    # Quoted text left over is a phrase to search for: keep it in the topic, hide it from name guessing.
    scan.consume((m.span() for m in QUOTED_RE.finditer(scan.masked)), drop=False)
    if tool == "zot_search":
        hide_cited_works(scan)
    extract_years(scan, params, recent_means_years=tool not in MANAGEMENT_TOOLS)
    # Names and venues are recognised by capitalisation, which means nothing in an all-caps query.
    if _HAS_LOWER.search(query):
        extract_authors(scan, params)
        if tool not in MANAGEMENT_TOOLS:
            extract_venue(scan, params)
    if quoted:
        params["quoted"] = [q for q in dict.fromkeys(quoted) if q]
    if tool == "zot_explore_graph":
        direction = citation_direction(query)
        if direction is not None:
            params["direction"] = direction
    return Extraction(params, tuple(scan.removed))


def _hide_payload(scan: Scan) -> None:
    """In "similar to this abstract: <pasted text>" the pasted part is topic, not instructions:
    hide it from the guesses that follow (names, years, venues, collection names)."""
    colon = scan.masked.find(": ")
    if colon >= 0 and len(scan.masked) - colon > _PAYLOAD_MIN_CHARS:
        scan.consume([(colon + 1, len(scan.masked))], drop=False)


def build_topic(query: str, removed: Iterable[tuple[int, int]], tool: str = "") -> str:
    """The query minus extracted spans and framing words: what a semantic search should look for.

    Framing words are trimmed from the ends only, never from inside a quoted phrase, and fewer words
    count as framing at the end than at the start, so titles ("Attention Is All You Need") survive.
    """
    # Punctuation left stranded by the cuts ("X, , Y") is noise.
    tokens = _STRANDED_PUNCT_RE.sub(" ", _cut(query, removed)).split()
    leading = _FRAME_WORDS | _TOOL_FRAME_WORDS[tool] if tool in _TOOL_FRAME_WORDS else _FRAME_WORDS
    start, end = 0, len(tokens)
    while start < end and _is_frame(tokens[start], leading):
        start += 1
    while end > start and _is_frame(tokens[end - 1], _TRAILING_FRAME_WORDS):
        end -= 1
    topic = " ".join(tokens[start:end]).translate(_QUOTES_TO_SPACE)
    if "'" in topic:
        topic = _LONE_APOSTROPHE_RE.sub(" ", topic)
    return " ".join(topic.split()).strip(_PUNCT_EDGE)


# Words of a request's wording rather than its subject: framing words that are neither function words nor
# the generic frame of a search ("papers on", "what do I have about", "looking for literature on").
_SEARCH_FRAME = words(
    """
    papers paper articles article studies study literature research work works stuff anything something find
    search looking look need want give show get list please pls what about regarding concerning covering
    related especially particularly mainly mostly everything items item publications publication sources
    """
)
_REQUEST_WORDING = _FRAME_WORDS - STOPWORDS - _SEARCH_FRAME
_WORDS_RE = re.compile(r"[\w'’-]+")


def bare_topic(query: str) -> bool:
    """A topic and nothing else ("protein structure prediction with deep learning"): no word of request
    wording, only the subject's words and function words. Its resemblance to labelled requests is topical,
    so it says nothing about the mode."""
    words = [w.lower() for w in _WORDS_RE.findall(query)]
    return bool(words) and not any(w in _REQUEST_WORDING for w in words)


def trim_frame_words(text: str) -> str:
    """`text` without framing words at either end."""
    return build_topic(text, ())


def _is_frame(token: str, vocabulary: frozenset[str]) -> bool:
    """A framing word, and not the edge of a quoted phrase (trimming never enters quotes)."""
    if token[0] in _QUOTES or token[-1] in _QUOTES:
        return False
    bare = token.strip(_PUNCT_EDGE).lower()
    return not bare or bare in vocabulary


def _cut(text: str, spans: Iterable[tuple[int, int]]) -> str:
    parts: list[str] = []
    pos = 0
    for start, end in sorted(spans):
        if start > pos:
            parts.append(text[pos:start])
        pos = max(pos, end)
    parts.append(text[pos:])
    return " ".join(parts)
