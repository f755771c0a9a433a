"""A figure or table asked for by what it shows, with no paper named ("the execution overview figure"): the
papers whose captions hold the description, never a paper whose title merely looks like its words.

The index's stored page texts point at candidates cheaply (pages holding the words on a line that opens a
caption); the few best are confirmed from their PDFs' own caption inventory (figures.py), the captions the
answer then shows. One clear match is that figure; several are asked back, each with its figure; none is
said, with how to go on."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.ingest.models import ParseError
from agent_zot.services.context import AppContext
from agent_zot.services.resolve.papers import PaperRequest, candidate_line, resolve_named_paper
from agent_zot.services.response import clip, quoted
from agent_zot.services.summarize.figures import (
    Description,
    Target,
    cached_inventory,
    description_of,
    pdf_of,
    target_of,
)
from agent_zot.zotero.models import Item, Library

CANDIDATE_PAPERS = 8  # papers whose PDFs are read to confirm: the inventory costs ~20 ms a page
SHOWN = 6

# A line of page text that opens a caption ("Figure 3:", "Fig. 2.", "Table IV"), by kind.
_OPENS = {
    "figure": re.compile(r"^\s*fig(?:ure)?s?\.?\s*[a-z]?\d", re.IGNORECASE),
    "table": re.compile(r"^\s*tab(?:le)?s?\.?\s*(?:[a-z]?\d|[ivxl]{1,6}\b)", re.IGNORECASE),
}


@dataclass(frozen=True, slots=True)
class CaptionMatch:
    item: Item
    kind: str
    number: str
    page: int
    caption: str
    fit: int

    @property
    def target(self) -> Target:
        return Target(self.kind, self.number)

    def line(self) -> str:
        return (
            f"{candidate_line(self.item)} — {self.kind.capitalize()} {self.number} (p. {self.page}): "
            + clip(self.caption, 90)
        )


def figure_by_description(
    ctx: AppContext, library: Library, request: PaperRequest, figure: str | None
) -> tuple[Item, Target] | None:
    """The paper and figure a description-only request means, or None when the request names a number,
    a page or a paper (the paper is then resolved as usual). AmbiguousNameError lists several papers with a
    fitting figure; NotFoundError says none has one."""
    asked = figure or request.text
    if request.item_keys or request.doi or target_of(asked) is not None:
        return None
    wishes = _wishes(asked, from_argument=bool(figure))
    if not wishes:
        return None
    try:
        if resolve_named_paper(library, request) is not None:
            return None
    except NotFoundError:
        return None  # a paper named but not found: its own answer says so
    said = quoted(" ".join(sorted(wishes[0].words)))
    kind = " or ".join(w.kind for w in wishes)
    if not ctx.index_ready():
        raise InvalidArgumentError(
            f"No paper is named: finding the {kind} described as {said} among all your papers needs "
            "the full-text index, which is not built yet.",
            hint="Run `agent-zot update-db`, or name the paper (its title words, author and year, or item_key).",
        )
    found = sorted(
        (m for wish in wishes for m in _confirmed(wish, _candidates(ctx, library, wish))),
        key=lambda m: -m.fit,
    )
    if not found:
        raise NotFoundError(
            f"No {kind} caption in your indexed papers holds {said}.",
            hint=f"Name the paper to list its {wishes[0].kind}s (e.g. 'list the {wishes[0].kind}s of <title>'), "
            "or use words from the caption.",
        )
    best = [m for m in found if m.fit == found[0].fit]
    if len(best) == 1:
        return best[0].item, best[0].target
    raise AmbiguousNameError(
        f"{len(best)} {kind}s in your papers fit {said} equally well; which one?",
        candidates=[m.line() for m in best[:SHOWN]],
        hint=f"Repeat the request with item_key and figure='{best[0].kind.capitalize()} N' of one of them.",
    )


def _wishes(asked: str, *, from_argument: bool) -> list[Description]:
    """What is described: one kind when the words name it; the ``figure`` argument alone ("the execution
    overview") may mean a figure or a table, so both are looked for."""
    wish = description_of(asked)
    if wish is not None or not from_argument:
        return [wish] if wish is not None else []
    either = (description_of(f"{asked} {kind}") for kind in ("figure", "table"))
    return [w for w in either if w is not None]


def _candidates(ctx: AppContext, library: Library, wish: Description) -> list[Item]:
    """The papers whose stored pages hold the most of the description on a line opening a caption of its
    kind (with the line after, where captions run on), best first."""
    opens = _OPENS[wish.kind]
    best: dict[str, int] = {}
    for key, _, text in ctx.index().state.pages_holding(sorted(wish.words)):
        lines = text.splitlines()
        for i, line in enumerate(lines):
            if opens.match(line):
                fit = wish.fit(" ".join(lines[i : i + 2]))
                if fit:
                    best[key] = max(best.get(key, 0), fit)
    ranked = sorted((k for k in best if k in library.items), key=lambda k: -best[k])
    return [library.items[k] for k in ranked[:CANDIDATE_PAPERS]]


def _confirmed(wish: Description, items: list[Item]) -> list[CaptionMatch]:
    """The numbered figures (or tables) of ``items`` whose PDF captions hold at least half of the
    description's words, best fit first."""
    need = max(1, math.ceil(len(wish.words) / 2))
    found: list[CaptionMatch] = []
    for item in items:
        try:
            elements = cached_inventory(pdf_of(item)).of_kind(wish.kind)
        except (NotFoundError, ParseError, OSError):
            continue  # its file is gone or unreadable: it cannot show the figure either
        for e in elements:
            fit = wish.fit(e.caption)
            if e.number and fit >= need:
                found.append(CaptionMatch(item, e.kind, e.number, e.page, e.caption, fit))
    return sorted(found, key=lambda m: -m.fit)
