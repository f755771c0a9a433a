"""Which tool opens which view, and the view's HTML page.

A tool names one `ui://` resource (`_meta.ui.resourceUri`), and one tool has many modes, so a page belongs to
a tool, not to a mode: it holds one renderer per mode that has a view (zot_summarize: `matrix`, zot_search:
`evidence`, the claim worksheet; zot_summarize: `figures`, the figure list) and shows any other result
plainly, as its text. A later view adds a renderer script (assets/MODE.js) and names its mode on the page
of its tool. The page inlines the
vendored Apps SDK, the shared shell (app.js: connect, theme, fallback) and the renderers: it loads nothing,
under a Content-Security-Policy that allows no network at all.
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from importlib import resources

from agent_zot import __version__
from agent_zot.view.page import inline_script

SDK = "ext-apps.min.js"  # vendored, see assets/vendor.json
SHELL = "app.js"
_MARKER = re.compile(r"@@([A-Z]+)@@")


@dataclass(frozen=True, slots=True)
class ToolView:
    """The page of one tool: a renderer for each of ``modes`` (assets/MODE.js), inlined after the shell."""

    tool: str
    name: str
    title: str
    modes: tuple[str, ...]

    @property
    def uri(self) -> str:
        return f"ui://agent-zot/{self.name}.html"


VIEWS: tuple[ToolView, ...] = (
    ToolView(
        "zot_summarize", "summarize", "agent-zot · summary, review matrix and figures", ("matrix", "figures")
    ),
    ToolView("zot_search", "search", "agent-zot · search and claim worksheet", ("evidence",)),
)


def view_of(tool: str) -> ToolView | None:
    return next((view for view in VIEWS if view.tool == tool), None)


def asset(name: str) -> str:
    return (resources.files("agent_zot.apps") / "assets" / name).read_text(encoding="utf-8")


def app_page(view: ToolView) -> str:
    """The view's HTML: the SDK, the shell and the renderers inlined, with the shared style."""
    scripts = (SDK, SHELL, *(f"{mode}.js" for mode in view.modes))
    values = {
        "TITLE": html.escape(view.title),
        "VERSION": html.escape(__version__),
        "STYLE": asset("app.css").replace("</style", "<\\/style"),
        "SCRIPTS": "\n".join(inline_script(asset(name)) for name in scripts),
    }
    return _MARKER.sub(lambda m: values[m.group(1)], asset("app.html"))
