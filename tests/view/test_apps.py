"""MCP Apps on the wire, through fastmcp's in-memory client: zot_summarize names its view in
`_meta.ui.resourceUri`; the view is a `ui://` resource of the Apps mime type, self-contained under a CSP
that allows no network; a client without the Apps capability gets exactly the answer the services give
(text and structured content), and one with it also gets each matrix cell's whole candidates (zot_search's
claim check: each passage's whole words, for the claim worksheet; the figure list's thumbnails:
test_figures.py). The vendored
SDK bundles match their manifests and are package data. The browser half: test_app_matrix_browser.py."""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from fastmcp.apps import UI_EXTENSION_ID, UI_MIME_TYPE
from mcp.client.extension import advertise

from agent_zot.apps.views import VIEWS, app_page
from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services import tools
from agent_zot.services.context import AppContext
from tests.conftest import call_tool
from tests.matrix_library import build_trials_library

REPO = Path(__file__).resolve().parents[2]
BUNDLES = {
    REPO / "agent_zot" / "apps" / "assets": "ext-apps.min.js",
    REPO / "tests" / "assets": "ext-apps-host.min.js",
}
MATRIX = {"questions": ["sample size", "funding agency"], "collection": "Trials", "force_mode": "matrix"}
APPS = advertise(UI_EXTENSION_ID, {"mimeTypes": [UI_MIME_TYPE]})


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    return build_trials_library(tmp_path_factory.mktemp("apps"))


async def _call(settings: Settings, *, apps: bool, tool: str = "zot_summarize", **arguments: Any) -> Any:
    """One call from a client with the MCP Apps extension (``apps``) or without it."""
    return await call_tool(settings, tool, extensions=[APPS] if apps else [], **arguments)


async def test_the_tool_names_its_view_and_the_view_is_a_self_contained_resource(app: AppContext) -> None:
    async with Client(build_server(app)) as client:
        listed = {t.name: t for t in await client.list_tools()}
        resources = {str(r.uri): r for r in await client.list_resources()}
        page = (await client.read_resource("ui://agent-zot/summarize.html"))[0]
    assert listed["zot_summarize"].meta["ui"] == {"resourceUri": "ui://agent-zot/summarize.html"}
    assert listed["zot_search"].meta["ui"] == {"resourceUri": "ui://agent-zot/search.html"}
    assert listed["zot_explore_graph"].meta["ui"] == {"resourceUri": "ui://agent-zot/graph.html"}
    with_views = {"zot_summarize", "zot_search", "zot_explore_graph"}
    assert all("ui" not in (t.meta or {}) for name, t in listed.items() if name not in with_views)
    resource = resources["ui://agent-zot/summarize.html"]
    assert resource.mime_type == UI_MIME_TYPE == "text/html;profile=mcp-app"
    assert resource.meta["ui"] == {"csp": {}, "prefersBorder": True}  # no origin allowed
    html = page.text
    assert page.mime_type == UI_MIME_TYPE and html == app_page(VIEWS[0])
    csp = re.search(r'http-equiv="Content-Security-Policy" content="([^"]+)"', html)
    assert csp and "default-src 'none'" in csp.group(1) and "connect-src 'none'" in csp.group(1)
    # Nothing is loaded from anywhere: no src or href attributes, no @@MARKERS@@ left.
    assert not re.search(r"<(script|link|img)[^>]+(src|href)=", html) and "@@" not in html
    assert html.count("<script>") == 4 and "renderers.matrix" in html and "renderers.figures" in html
    assert "img-src data:;" in csp.group(1)  # the figure list's pictures come inline, nothing else
    search = app_page(VIEWS[1])  # the claim worksheet's page: the same shell, its own renderer
    assert VIEWS[1].uri in resources and "renderers.evidence" in search and "renderers.matrix" not in search
    assert search.count("<script>") == 3 and not re.search(r"<(script|link|img)[^>]+(src|href)=", search)


@pytest.mark.slow
async def test_a_client_without_apps_gets_exactly_the_services_answer(library: Settings) -> None:
    result = await _call(library, apps=False, **MATRIX)
    ctx = AppContext(library)
    try:
        direct = tools.call(ctx, "zot_summarize", **MATRIX)
    finally:
        ctx.close()
    assert result.content[0].text == direct.text
    assert result.structured_content == json.loads(json.dumps(direct.data))
    assert "view" not in result.structured_content and direct.view is not None


@pytest.mark.slow
async def test_a_client_with_apps_also_gets_each_cells_whole_candidates(library: Settings) -> None:
    plain = await _call(library, apps=False, **MATRIX)
    rich = await _call(library, apps=True, **MATRIX)
    data = rich.structured_content
    assert rich.content[0].text == plain.content[0].text  # what the model reads does not change
    assert {k: v for k, v in data.items() if k != "view"} == plain.structured_content
    texts = data["view"]["candidates"]
    assert len(texts) == len(data["rows"])
    for row, row_texts in zip(data["rows"], texts, strict=True):
        for cell, cell_texts in zip(row["cells"], row_texts, strict=True):
            assert len(cell.get("candidates", [])) == len(cell_texts)
    metformin = next(i for i, r in enumerate(data["rows"]) if r["title"].startswith("Metformin"))
    first = texts[metformin][0][0]
    assert first["text"].startswith("We enrolled 120 patients") and first["value"] == 120
    walking = next(i for i, r in enumerate(data["rows"]) if r["title"].startswith("Walking"))
    assert texts[walking][1] == [] and data["rows"][walking]["cells"][1]["found"] is False
    # Another mode has no view data: the page shows its text.
    quick = await _call(library, apps=True, query="Metformin and glycaemic control", force_mode="quick")
    assert "view" not in quick.structured_content


@pytest.mark.parametrize("folder", sorted(BUNDLES), ids=lambda p: p.parent.name)
def test_vendored_bundles_match_their_manifest(folder: Path) -> None:
    manifest = json.loads((folder / "vendor.json").read_text(encoding="utf-8"))
    listed: set[str] = set()
    for package in manifest["packages"]:
        assert package["integrity"].startswith("sha512-") and package["license"] in ("MIT", "Apache-2.0")
        assert any(f.endswith("LICENSE.txt") for f in package["files"]), f"{package['name']} has no licence"
        for name, digest in package["files"].items():
            assert hashlib.sha256((folder / name).read_bytes()).hexdigest() == digest, f"{name} was changed"
            listed.add(name)
    assert BUNDLES[folder] in listed
    vendored = {p.name for p in folder.iterdir() if p.name.endswith((".min.js", ".LICENSE.txt"))}
    assert vendored == listed  # every vendored file has its provenance
    source = (folder / BUNDLES[folder]).read_text(encoding="utf-8")
    assert "</script" not in source.lower()  # safe to inline


def test_the_view_assets_are_package_data() -> None:
    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    patterns = config["tool"]["setuptools"]["package-data"]["agent_zot"]
    shipped = {p.name for p in (REPO / "agent_zot" / "apps" / "assets").iterdir()}
    assert all(any(Path("apps/assets", n).match(p) for p in patterns) for n in shipped)


CLAIM = {"query": "Metformin lowers HbA1c in type 2 diabetes", "force_mode": "evidence"}


@pytest.mark.slow
async def test_the_claim_check_sends_each_passages_whole_words_only_to_an_apps_client(
    library: Settings,
) -> None:
    plain = await _call(library, apps=False, tool="zot_search", **CLAIM)
    rich = await _call(library, apps=True, tool="zot_search", **CLAIM)
    ctx = AppContext(library)
    try:
        direct = tools.call(ctx, "zot_search", **CLAIM)
    finally:
        ctx.close()
    assert plain.content[0].text == direct.text == rich.content[0].text
    assert plain.structured_content == json.loads(json.dumps(direct.data))
    assert "view" not in plain.structured_content and direct.view is not None
    data = rich.structured_content
    assert data["route"]["mode"] == "evidence" and data["papers"]
    assert {k: v for k, v in data.items() if k != "view"} == plain.structured_content
    texts = data["view"]["passages"]
    assert [len(t) for t in texts] == [len(paper["passages"]) for paper in data["papers"]]
    metformin = next(i for i, p in enumerate(data["papers"]) if p["title"].startswith("Metformin"))
    words = " ".join(texts[metformin])
    assert "Patients received 500 mg of metformin twice daily for 12 weeks." in " ".join(words.split())
    # The text clips a passage; the view gets it whole (the words a verdict quotes from).
    assert all(
        t["chars"] == len(w)
        for p, ws in zip(data["papers"], texts, strict=True)
        for t, w in zip(p["passages"], ws, strict=True)
    )
