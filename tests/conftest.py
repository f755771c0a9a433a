"""Shared fixtures. Every Zotero database a test touches is hashed before and after the whole session."""

from __future__ import annotations

import hashlib
import os
from collections.abc import AsyncIterator, Callable, Iterator, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from mcp.types import TextContent

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.factories import FullLibrary, build_full_library

# How the suite runs in parallel (pytest-xdist): workers, one file per worker, the longest files first.
pytest_plugins = ["tests.parallel"]

REPO_ROOT = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO_ROOT.parent / "shared" / "data"
SHARED_ZOTERO = SHARED_DATA / "zotero"
SIDECARS = ("-journal", "-wal", "-shm")


@dataclass(frozen=True)
class Fingerprint:
    sha256: str
    mtime_ns: int
    size: int


def fingerprint(path: Path) -> Fingerprint:
    stat = path.stat()
    return Fingerprint(hashlib.sha256(path.read_bytes()).hexdigest(), stat.st_mtime_ns, stat.st_size)


_GUARDED: dict[Path, Fingerprint] = {}


def guard_database(path: Path) -> Path:
    """Record a database's bytes and mtime; the session fails if either changes or a sidecar appears."""
    path = path.resolve()
    _GUARDED.setdefault(path, fingerprint(path))
    return path


def index_library(settings: Settings, home: Path, *, graph: bool = False) -> Settings:
    """Build the full-text index of ``settings``' library with the real embedded stack, as update-db does
    (and its knowledge graph, with ``graph``)."""
    ctx = AppContext(settings, home=home)
    try:
        update_index(
            ctx.library(), ctx.index_resources(), UpdateOptions(), graph=ctx.graph() if graph else None
        )
    finally:
        ctx.close()
    return settings


@dataclass(frozen=True)
class SectionedPaper:
    """A one-page paper for a fixture library: its Zotero title, its sections as (heading or None, text),
    and its attachment's file name; ``title_in_pdf`` sets the title above the sections too."""

    title: str
    sections: list[tuple[str | None, str]]
    filename: str
    date: str = "2020-00-00 2020"
    title_in_pdf: bool = True


def sectioned_library(
    root: Path, papers: Sequence[SectionedPaper], *, seed: int, collection: str | None = None
) -> Settings:
    """A z7 library of ``papers`` (each a journal article with its PDF, all filed in ``collection`` when
    given), guarded against writes and indexed with the real embedded stack."""
    from tests.pdf_factory import write_sectioned_paper  # fpdf2 and Pillow: only for the modules using it

    builder = ZoteroLibraryBuilder(root / "library", shape="z7", seed=seed)
    collections = [builder.add_collection(collection)] if collection else []
    for paper in papers:
        item = builder.add_item("journalArticle", title=paper.title, date=paper.date, collections=collections)
        title = paper.title if paper.title_in_pdf else None
        content = write_sectioned_paper(root / paper.filename, paper.sections, title)
        builder.add_attachment(item, filename=paper.filename, content=content)
    db = guard_database(builder.build())
    return index_library(library_settings(db.parent, root), root / "home")


def shared_reason(path: Path) -> str:
    """Why a test on ``path`` (a file or folder under ../shared/data) does not run here."""
    shown = f"../{path.relative_to(REPO_ROOT.parent)}" if path.is_relative_to(REPO_ROOT.parent) else str(path)
    return (
        f"{shown} not found: these tests run on the shared real-data libraries and PDFs in ../shared/data, "
        f"beside the repository (CI provides them; locally, put or link that folder at {SHARED_DATA})"
    )


def require_shared(path: Path) -> Path:
    """``path`` under ../shared/data, or skip the calling test (or module, at import) saying which path is
    missing and how to get it. An empty folder counts as missing. Every skip on the shared data comes from
    here: directly, or through the ``shared_data(path, ...)`` marker (see ``pytest_runtest_setup``)."""
    present = path.is_file() or (path.is_dir() and any(path.iterdir()))
    if not present:
        pytest.skip(shared_reason(path), allow_module_level=True)
    return path


def shared_libraries() -> list[Path]:
    if not SHARED_ZOTERO.is_dir():
        return []
    return sorted(p for p in SHARED_ZOTERO.iterdir() if (p / "zotero.sqlite").is_file())


def shared_library_params() -> list[Any]:
    """The shared real libraries as test parameters (marked ``shared_data``), named by folder; where there
    are none, one parameter (None, "absent") whose test is skipped with the reason, where an empty
    parameter set would say only "got empty parameter set"."""
    mark = pytest.mark.shared_data(SHARED_ZOTERO)
    found = shared_libraries()
    if found:
        return [pytest.param(folder, id=folder.name, marks=mark) for folder in found]
    return [pytest.param(None, id="absent", marks=mark)]


def tesseract_missing() -> str:
    """Why the Tesseract tests cannot run here ("" when they can): the binary and its English data."""
    from agent_zot.ingest.ocr import installed, language

    if not installed("tesseract"):
        return "tesseract is not installed (apt-get install tesseract-ocr tesseract-ocr-eng)"
    if "eng" not in language.tesseract_languages():
        return "tesseract has no English data (apt-get install tesseract-ocr-eng)"
    return ""


# Optional system packages some tests drive for real: each name maps to why it cannot run here ("" if it can).
SYSTEM_PACKAGES: dict[str, Callable[[], str]] = {"tesseract": tesseract_missing}


def require_system(name: str) -> None:
    """Skip the calling test, with the reason and the install line, where the optional system package
    ``name`` is missing; on CI, which installs every one of them (.ci/run), fail instead: a skip there
    would hide a test that never ran."""
    why = SYSTEM_PACKAGES[name]()
    if not why:
        return
    if os.environ.get("CI"):
        pytest.fail(f"CI must run the tests that need {name}: {why}")
    pytest.skip(f"{why}; .ci/run installs it")


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """``@pytest.mark.shared_data(path, ...)``: skip, before any fixture is built, unless every named path
    is there (no path: ../shared/data itself). ``@pytest.mark.system(name)``: skip where the optional
    system package is missing (fail on CI)."""
    for mark in item.iter_markers("shared_data"):
        for path in mark.args or (SHARED_DATA,):
            require_shared(Path(path))
    for mark in item.iter_markers("system"):
        for name in mark.args:
            require_system(name)


@pytest.fixture(scope="session", autouse=True)
def zotero_databases_unchanged() -> Iterator[None]:
    for folder in shared_libraries():
        guard_database(folder / "zotero.sqlite")
    yield
    assert_unchanged(list(_GUARDED))


def assert_unchanged(paths: list[Path]) -> None:
    """Fail if a guarded database's bytes or mtime changed or a sidecar appeared; the paths are checked
    once (a test's own folder is removed when it passes: tmp_path_retention_policy)."""
    problems = []
    for path in paths:
        before = _GUARDED.pop(path)
        if fingerprint(path) != before:
            problems.append(f"{path} changed (bytes or mtime)")
        problems.extend(f"{path}{s} was created" for s in SIDECARS if Path(f"{path}{s}").exists())
    assert not problems, "A Zotero database was modified during the tests:\n" + "\n".join(problems)


@pytest.fixture(autouse=True)
def _isolated_environment(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[None]:
    """No test reads the developer's own config, environment or Zotero folder. The databases a test made in
    its own folder are checked when it ends, before the folder goes."""
    for name in list(os.environ):
        if name.startswith("AGENT_ZOT_"):
            monkeypatch.delenv(name)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "home" / ".config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "home" / ".local" / "share"))
    monkeypatch.setenv("XDG_DOCUMENTS_DIR", str(tmp_path / "home" / "Documents"))
    yield
    own = tmp_path.resolve()
    assert_unchanged([path for path in _GUARDED if path.is_relative_to(own)])


@pytest.fixture(scope="session")
def full_lib(tmp_path_factory: pytest.TempPathFactory) -> FullLibrary:
    """The every-case library in the newest schema shape, built once per session."""
    lib = build_full_library(tmp_path_factory.mktemp("zotero-z7") / "Zotero", "z7")
    guard_database(lib.db_path)
    return lib


@pytest.fixture(params=["z5-early", "z5", "z6", "z7", "z8", "z9", "z10"])
def any_shape_lib(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> FullLibrary:
    lib = build_full_library(tmp_path_factory.mktemp(f"zotero-{request.param}") / "Zotero", request.param)
    guard_database(lib.db_path)
    return lib


def make_settings(lib: FullLibrary, tmp_path: Path, **overrides: object) -> Settings:
    """``library_settings`` of the every-case library ``lib`` (its linked-attachment folder included)."""
    values: dict[str, Any] = {"zotero_data_dir": lib.data_dir, "linked_attachment_base_dir": lib.linked_base}
    values.update(overrides)
    return library_settings(values.pop("zotero_data_dir"), tmp_path, **values)


def library_settings(zotero_data_dir: Path, root: Path, **overrides: object) -> Settings:
    """Settings over the Zotero folder ``zotero_data_dir``, agent-zot's state and exports under ``root``."""
    values: dict[str, object] = {
        "zotero_data_dir": zotero_data_dir,
        "data_dir": root / "state",
        "export_dir": root / "exports",
    }
    values.update(overrides)
    return Settings(**values)


@pytest.fixture
def settings(full_lib: FullLibrary, tmp_path: Path) -> Settings:
    """The every-case library's settings, state and exports in this test's tmp_path."""
    return make_settings(full_lib, tmp_path)


@pytest.fixture
def app(settings: Settings, tmp_path: Path) -> AppContext:
    return AppContext(settings, home=tmp_path / "home")


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--update-snapshots", action="store_true", help="Rewrite snapshot files from current output."
    )


@asynccontextmanager
async def connect(
    settings: Settings, *, home: Path | None = None, extensions: Sequence[Any] | None = None
) -> AsyncIterator[Client]:
    """fastmcp's in-memory client on a fresh AppContext over ``settings`` (discovery under ``home``; client
    ``extensions``, e.g. MCP Apps), the context closed after."""
    ctx = AppContext(settings, home=home)
    try:
        async with Client(build_server(ctx), extensions=extensions) as client:
            yield client
    finally:
        ctx.close()


async def call_tool(
    settings: Settings,
    tool: str,
    *,
    home: Path | None = None,
    extensions: Sequence[Any] | None = None,
    **arguments: Any,
) -> Any:
    """One tool call through fastmcp's in-memory client, on a fresh AppContext over ``settings``; a tool
    error comes back as the result (``is_error``), not raised."""
    async with connect(settings, home=home, extensions=extensions) as client:
        return await client.call_tool(tool, arguments, raise_on_error=False)


def text_of(result: Any) -> str:
    """The text of an MCP CallToolResult: its text blocks, one after another on their own lines (images
    and other blocks left out)."""
    return "\n".join(block.text for block in result.content if isinstance(block, TextContent))
