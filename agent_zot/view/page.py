"""The self-contained HTML page of `agent-zot view`: the bundled scripts and style inlined, the graph data
embedded as JSON. It loads nothing from anywhere, so it works from file:// and offline."""

from __future__ import annotations

import html
import json
import re
from importlib import resources
from pathlib import Path
from typing import Any

from agent_zot import __version__
from agent_zot.errors import ExportError

# Inlined in this order: the libraries first, the page's own code last. The graph view in the chat inlines
# the same scripts, the graph's markup (BODY) and its style (GRAPH_STYLE).
LIBRARIES = ("graphology.umd.min.js", "graphology-layout-forceatlas2.min.js", "sigma.min.js")
SCRIPTS = (*LIBRARIES, "view.js")
BODY = "graph-body.html"
GRAPH_STYLE = "graph.css"
_MARKER = re.compile(r"@@([A-Z]+)@@")


def asset(name: str) -> str:
    return (resources.files("agent_zot.view") / "assets" / name).read_text(encoding="utf-8")


def json_for_script(data: Any) -> str:
    """JSON that can sit inside <script>…</script>: with '<', '>' and '&' escaped no title can close the
    element or open a comment, and ASCII output leaves no raw U+2028/U+2029 or lone surrogates."""
    text = json.dumps(data, ensure_ascii=True, separators=(",", ":"), allow_nan=False)
    return text.replace("<", "\\u003c").replace(">", "\\u003e").replace("&", "\\u0026")


def inline_script(source: str) -> str:
    # A vendored file containing "</script" or "<!--" would end or confuse the element; none does (a test
    # checks), but a future version might: "<\/" means the same inside JavaScript strings and regexes.
    return "<script>" + source.replace("</script", "<\\/script").replace("<!--", "<\\!--") + "</script>"


def inline_style(source: str) -> str:
    return source.replace("</style", "<\\/style")


def render_page(data: dict[str, Any], title: str) -> str:
    values = {
        "TITLE": html.escape(title),
        "VERSION": html.escape(__version__),
        "STYLE": inline_style(asset("view.css") + asset(GRAPH_STYLE)),
        "BODY": asset(BODY),
        "DATA": json_for_script(data),
        "SCRIPTS": "\n".join(inline_script(asset(name)) for name in SCRIPTS),
    }
    # One pass, so nothing inserted (a title, the data) is ever read as a marker.
    return _MARKER.sub(lambda m: values[m.group(1)], asset("view.html"))


def check_writable(path: Path) -> Path:
    """Fail early, before the graph is read, when ``path`` cannot be written."""
    path = path.expanduser()
    if path.is_dir():
        raise ExportError(f"--out {path} is a folder.", hint="Give a file name, e.g. library.html.")
    parent = path.parent
    if parent.exists() and not parent.is_dir():
        raise ExportError(
            f"Cannot write {path}: {parent} is not a folder.", hint="Choose another --out path."
        )
    if not parent.is_dir():
        raise ExportError(
            f"Cannot write {path}: the folder {parent} does not exist.", hint="Create it first."
        )
    return path


def write_page(path: Path, page: str) -> None:
    try:
        path.write_text(page, encoding="utf-8")
    except OSError as exc:
        raise ExportError(
            f"Cannot write {path}: {exc.strerror or exc}.", hint="Choose another --out path."
        ) from exc
