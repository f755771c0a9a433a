"""What every service returns to a front end: compact text for the assistant plus structured data."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

from agent_zot.errors import InvalidArgumentError
from agent_zot.zotero.file_metadata import pdf_note
from agent_zot.zotero.models import Item

MAX_LIMIT = 200
MAX_QUERY_CHARS = 2000  # a query is a question or key phrases, not a document
MIN_TOKENS, MAX_TOKENS = 100, 100_000  # what an answer's max_tokens may ask for


@dataclass(slots=True)
class ToolResponse:
    text: str
    data: dict[str, Any] = field(default_factory=dict)  # always JSON-ready; carries "route" for tools
    is_error: bool = False
    # A question for the client's model that the front end asks before the answer is final (the claim
    # check's stance judge); None for every answer that is final as it is.
    ask_client: Any = None
    # PNG images that go with the text (a figure, a page), sent as MCP image content
    images: list[bytes] = field(default_factory=list)
    # What an app view shows beside `data` (a matrix cell's whole candidates): sent only to a client that
    # renders views (mcp/apps.py), so the others get the answer as it always was; a function when it costs
    # work (the figure list's thumbnails, the graph), called only for such a client and free to return None
    view: dict[str, Any] | Callable[[], dict[str, Any] | None] | None = None


def clamp_limit(limit: int | None, default: int = 20) -> int:
    if limit is None:
        return default
    return max(1, min(int(limit), MAX_LIMIT))


def within_length(text: str, limit: int, *, what: str, hint: str) -> str:
    """``text`` when it is at most ``limit`` characters long; else the error every tool gives for a request
    too long to be a question (``what`` names it: "The query", "A question")."""
    if len(text) > limit:
        raise InvalidArgumentError(
            f"{what} is {len(text):,} characters long; the limit is {limit:,}.", hint=hint
        )
    return text


def token_budget(max_tokens: int | None, default: int, mode: str) -> int:
    """The answer's size budget: ``max_tokens`` when given (checked), else the mode's ``default``."""
    if max_tokens is None:
        return default
    if not MIN_TOKENS <= max_tokens <= MAX_TOKENS:
        raise InvalidArgumentError(
            f"max_tokens={max_tokens} is out of range.",
            hint=f"Use {MIN_TOKENS}-{MAX_TOKENS:,}; the default for {mode} is {default}.",
        )
    return max_tokens


def plural(count: int, noun: str) -> str:
    return f"{count} {noun}" if count == 1 else f"{count} {noun}s"


def estimate_tokens(text: str) -> int:
    """Characters / 4, the usual rule of thumb for English under BPE tokenizers like the assistant's;
    counting with the embedder's tokenizer would load the model for answers that need none."""
    return (len(text) + 3) // 4


# A title in a list of papers named without passages (the search answer's later papers): most titles whole,
# a long one cut where its subtitle starts to run on.
BRIEF_TITLE = 80


def clip(text: str, chars: int) -> str:
    """The text on one line, cut to ``chars`` characters with an ellipsis when longer."""
    flat = " ".join(text.split())
    return flat if len(flat) <= chars else flat[: chars - 1].rstrip() + "…"


def quoted(text: str, chars: int = 80) -> str:
    """``text`` quoted for a message, cut to ``chars``: an answer never echoes a pasted page back whole."""
    return repr(clip(text, chars))


def more_line(total: int, limit: int) -> str:
    """Tells the assistant that a list was cut and how to see the rest."""
    return f"\n… {total - limit} more (raise limit)" if total > limit else ""


def item_line(item: Item, *, brief: bool = False) -> str:
    """One compact line per item: key, first authors, year, title, venue. ``brief``: a paper an answer only
    names (its first author, its title cut to ``BRIEF_TITLE`` characters, no venue); its key fetches the
    whole record."""
    authors = item.authors
    if brief:
        names = authors[0].last_name + (" et al." if len(authors) > 1 else "") if authors else ""
    else:
        names = ", ".join(c.last_name for c in authors[:2]) + (" et al." if len(authors) > 2 else "")
    year = item.year or "n.d."
    venue_text = f" — {item.venue}" if item.venue and not brief else ""
    who = f"{names} ({year})" if names else f"({year})"
    flag = f"[{item.retraction.flag()}] " if item.retraction else ""  # never lost in a compact list
    read = f" ({note})" if (note := pdf_note(item)) else ""  # Zotero has no metadata for it
    title = item.title or "(untitled)"
    return f"[{item.key}] {flag}{who} {clip(title, BRIEF_TITLE) if brief else title}{venue_text}{read}"


class _Routed(Protocol):
    """What chose an answer's mode (routing's `Route`), as the answer records it."""

    def to_dict(self) -> dict[str, Any]: ...


def with_route(response: ToolResponse, decision: _Routed, **extra: Any) -> ToolResponse:
    """The answer with the route that chose its mode (and any extras) at the head of its data."""
    response.data = {"route": decision.to_dict(), **extra, **response.data}
    return response
