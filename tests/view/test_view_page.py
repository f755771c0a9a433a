"""The page of `agent-zot view` without a browser: self-contained, data escaped, vendored files intact."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from html.parser import HTMLParser
from importlib import resources
from pathlib import Path

import pytest

from agent_zot.errors import ExportError
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.services.explore.view_data import build_view
from agent_zot.services.explore.view_scope import ViewRequest
from agent_zot.view.page import SCRIPTS, check_writable, json_for_script, render_page, write_page
from tests.view.view_fixtures import synthetic_library

ASSETS = resources.files("agent_zot.view") / "assets"
REPO = Path(__file__).resolve().parents[2]
HOSTILE = 'Evil </script><script>alert("x")</script> <!-- <\u2028\u2029 & \U0001f600 </SCRIPT > \ud800?'


class PageParser(HTMLParser):
    """Every element's tag and attributes, and the text of each <script> and <style>."""

    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.tags: list[tuple[str, dict[str, str | None]]] = []
        self.scripts: list[tuple[dict[str, str | None], str]] = []
        self.styles: list[str] = []
        self._open: str | None = None

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append((tag, dict(attrs)))
        if tag in ("script", "style"):
            self._open = tag
            if tag == "script":
                self.scripts.append((dict(attrs), ""))
            else:
                self.styles.append("")

    def handle_data(self, data: str) -> None:
        if self._open == "script":
            attrs, text = self.scripts[-1]
            self.scripts[-1] = (attrs, text + data)
        elif self._open == "style":
            self.styles[-1] += data

    def handle_endtag(self, tag: str) -> None:
        if tag == self._open:
            self._open = None


def parse(page: str) -> PageParser:
    parser = PageParser()
    parser.feed(page)
    parser.close()
    return parser


@pytest.fixture(scope="module")
def page_and_data(tmp_path_factory: pytest.TempPathFactory) -> tuple[str, dict[str, object]]:
    graph, library = synthetic_library(5)
    graph.nodes[1].props["title"] = library.items["P0000000"].fields["title"] = HOSTILE.replace("\ud800", "")
    store = SqliteGraphStore(tmp_path_factory.mktemp("page") / "state.sqlite")
    try:
        store.replace_all(graph)
        data = build_view(store, library, ViewRequest()).to_json()
    finally:
        store.close()
    data["scope"] = HOSTILE  # any text the page shows travels the same way
    return render_page(data, f"agent-zot · {HOSTILE}"), data


def test_page_is_self_contained(page_and_data: tuple[str, dict[str, object]]) -> None:
    page, _ = page_and_data
    parsed = parse(page)
    for tag, attrs in parsed.tags:
        assert "src" not in attrs, f"<{tag}> loads {attrs['src']}"
        assert not (tag == "link" and attrs.get("rel") == "stylesheet"), "an external stylesheet"
        for name in ("href", "src", "action", "data"):
            assert not re.match(r"\s*(https?:)?//", attrs.get(name) or ""), f"<{tag} {name}> is remote"
    for style in parsed.styles:
        assert "@import" not in style and not re.search(r"url\(\s*['\"]?(https?:)?//", style)
    # Everything is inline: the four bundled scripts, then the data.
    code = [text for attrs, text in parsed.scripts if "type" not in attrs]
    assert len(code) == len(SCRIPTS) and all(len(text) > 1000 for text in code)
    csp = next(
        a["content"]
        for t, a in parsed.tags
        if t == "meta" and a.get("http-equiv") == "Content-Security-Policy"
    )
    assert "default-src 'none'" in (csp or "") and "connect-src" not in (csp or "")


def test_data_survives_hostile_titles(page_and_data: tuple[str, dict[str, object]]) -> None:
    page, data = page_and_data
    parsed = parse(page)
    ((attrs, text),) = [(a, t) for a, t in parsed.scripts if a.get("type") == "application/json"]
    assert attrs["id"] == "view-data"
    assert json.loads(text) == json.loads(json.dumps(data))  # the same data, nothing cut off by a title
    assert "</script><script>alert" not in page and "<!-- <" not in page.split("<body>", 1)[1]
    assert page.count("</script>") == len(SCRIPTS) + 1
    # The title in <title> and <h1> is HTML-escaped.
    assert "<title>agent-zot · Evil &lt;/script&gt;" in page


def test_json_for_script_escapes_markup_and_separators() -> None:
    text = json_for_script({"t": "</script><!--\u2028&", "s": "\ud800"})
    assert "<" not in text and ">" not in text and "&" not in text and "\u2028" not in text
    assert json.loads(text) == {"t": "</script><!--\u2028&", "s": "\ud800"}


def test_vendored_files_match_their_manifest() -> None:
    manifest = json.loads((ASSETS / "vendor.json").read_text(encoding="utf-8"))
    names = {p["name"]: p for p in manifest["packages"]}
    assert names["sigma"]["version"] == "3.0.3" and names["graphology"]["version"] == "0.26.0"
    for package in manifest["packages"]:
        assert package["integrity"].startswith("sha512-")
        assert any(f.endswith("LICENSE.txt") for f in package["files"]), f"{package['name']} has no licence"
        for name, digest in package["files"].items():
            assert hashlib.sha256((ASSETS / name).read_bytes()).hexdigest() == digest, f"{name} was changed"
    for name in SCRIPTS[:-1]:
        source = (ASSETS / name).read_text(encoding="utf-8")
        assert "</script" not in source.lower() and "<!--" not in source  # safe to inline as they are


def test_assets_are_package_data() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["agent_zot"]
    shipped = {p.name for p in (REPO / "agent_zot" / "view" / "assets").iterdir()}
    covered = {
        name for name in shipped if any(Path("view/assets", name).match(pattern) for pattern in patterns)
    }
    assert covered == shipped


def test_out_path_checks(tmp_path: Path) -> None:
    with pytest.raises(ExportError, match="is a folder"):
        check_writable(tmp_path)
    with pytest.raises(ExportError, match="does not exist"):
        check_writable(tmp_path / "missing" / "page.html")
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ExportError, match="not a folder"):
        check_writable(blocker / "page.html")
    with pytest.raises(ExportError, match="Cannot write"):
        write_page(Path("/proc/agent-zot-view.html"), "<html></html>")
    assert check_writable(tmp_path / "page.html") == tmp_path / "page.html"
