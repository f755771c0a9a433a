"""Which tool opens which view, and the view's HTML page.

A tool names one `ui://` resource (`_meta.ui.resourceUri`), and one tool has many modes, so a page belongs to
a tool, not to a mode: it holds the renderers of the modes that have a view (zot_summarize: `matrix`, the
review matrix, and `figures`, the figure list; zot_search: `evidence`, the claim worksheet;
zot_explore_graph: its paper, author and concept modes, the library graph) and shows any other result
plainly, as its text. A renderer is a script (assets/NAME.js) that registers itself for its modes. The page
inlines the vendored Apps SDK, the shared shell (app.js: connect, theme, fallback) and the renderers, and
the graph's page also the drawing code, markup and style of `agent-zot view`: it loads nothing, under a
Content-Security-Policy that allows no network at all.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from importlib import resources

from agent_zot import __version__
from agent_zot.view import page as graph_page
from agent_zot.view.page import inline_script, inline_style

SDK = "ext-apps.min.js"  # vendored, see assets/vendor.json
SHELL = "app.js"
_MARKER = re.compile(r"@@([A-Z]+)@@")


@dataclass(frozen=True, slots=True)
class ToolView:
    """The page of one tool: the ``renderers`` (assets/NAME.js) of its ``modes``, inlined after the shell;
    ``draws_graph`` adds the graph of `agent-zot view` (its libraries, markup and style)."""

    tool: str
    name: str
    title: str
    shows: str  # what a person sees, for docs/tools.md
    modes: tuple[str, ...]
    renderers: tuple[str, ...]
    draws_graph: bool = False

    @property
    def uri(self) -> str:
        return f"ui://agent-zot/{self.name}.html"


# zot_explore_graph's modes that start from a paper, an author or a concept (the others rank a field).
GRAPH_MODES = ("citation", "related", "content_similarity", "collaboration", "concept", "comprehensive")

VIEWS: tuple[ToolView, ...] = (
    ToolView(
        "zot_summarize",
        "summarize",
        "agent-zot · summary, review matrix and figures",
        "the review matrix (choose each cell's answer, export it checked) and the figure list",
        ("matrix", "figures"),
        ("matrix", "figures"),
    ),
    ToolView(
        "zot_search",
        "search",
        "agent-zot · search and claim worksheet",
        "the claim worksheet (a verdict per passage, sent to the review package)",
        ("evidence",),
        ("evidence",),
    ),
    ToolView(
        "zot_explore_graph",
        "graph",
        "agent-zot · library graph",
        "the library graph around the paper, author or concept the request named",
        GRAPH_MODES,
        ("graph",),
        draws_graph=True,
    ),
)


def view_of(tool: str) -> ToolView | None:
    return next((view for view in VIEWS if view.tool == tool), None)


def asset(name: str) -> str:
    return (resources.files("agent_zot.apps") / "assets" / name).read_text(encoding="utf-8")


def app_page(view: ToolView) -> str:
    """The view's HTML: the SDK, the shell and the renderers inlined, with the shared style."""
    scripts = [asset(name) for name in (SDK, SHELL, *(f"{name}.js" for name in view.renderers))]
    style = asset("app.css")
    templates = ""
    if view.draws_graph:
        scripts[2:2] = [graph_page.asset(name) for name in graph_page.SCRIPTS]
        style += graph_page.asset(graph_page.GRAPH_STYLE) + asset("graph.css")
        templates = f'<template id="graph-body">{graph_page.asset(graph_page.BODY)}</template>'
    values = {
        "TITLE": html.escape(view.title),
        "VERSION": html.escape(__version__),
        "STYLE": inline_style(style),
        "TEMPLATES": templates,
        "SCRIPTS": "\n".join(inline_script(source) for source in scripts),
    }
    return _MARKER.sub(lambda m: values[m.group(1)], asset("app.html"))
