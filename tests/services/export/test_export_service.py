"""Export scoping, format choice and the export-folder guard."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent_zot.errors import ExportError, NotFoundError
from agent_zot.services.export.files import export
from agent_zot.services.export_target import format_for, resolve_target
from agent_zot.services.resolve.scope import LibraryScope
from agent_zot.zotero.models import ReadOptions
from agent_zot.zotero.reader import load_library
from tests.conftest import make_settings
from tests.factories import FullLibrary


@pytest.fixture(scope="module")
def lib(full_lib: FullLibrary):
    return load_library(full_lib.db_path, options=ReadOptions(base_attachment_dir=full_lib.linked_base))


@pytest.mark.parametrize(
    ("path", "requested", "expected"),
    [
        ("a.bib", None, "bibtex"),
        ("a.BIB", "markdown", "bibtex"),
        ("x/a.json", None, "csljson"),
        ("a.md", None, "markdown"),
        ("notes/", "markdown", "markdown"),
        (None, "csljson", "csljson"),
        (None, None, "bibtex"),
        ("g.graphml", None, "graphml"),
    ],
)
def test_format_from_extension_first(path, requested, expected) -> None:
    assert format_for(path, requested) == expected


def test_scope_by_keys_collection_and_query(lib, full_lib: FullLibrary) -> None:
    k = full_lib.keys
    assert {i.key for i in LibraryScope(collection="Thesis").items(lib)} == {k["s2orc"], k["scibert"]}
    assert [i.key for i in LibraryScope(search="nocedal optimization").items(lib)] == [k["book"]]
    both = LibraryScope(collection="Thesis", search="scibert").items(lib)
    assert [i.key for i in both] == [k["scibert"]]
    assert [i.key for i in LibraryScope(item_keys=(k["book"].lower(),)).items(lib)] == [k["book"]]
    with pytest.raises(NotFoundError, match="AAAA2222"):
        LibraryScope(item_keys=(k["book"], "AAAA2222")).items(lib)
    tagged = LibraryScope.of(collection=" ", tags=["", " to-read "], item_keys=[" "], search="  ")
    assert tagged == LibraryScope(tags=("to-read",)) and not tagged.empty and LibraryScope().empty
    assert LibraryScope().describe() == "the whole library"
    named = LibraryScope(collection="Thesis", tags=("a", "b"), item_keys=("X",), search="deep")
    assert named.describe() == (
        "collection 'Thesis' (and below) and items tagged a or b and 1 listed items and items matching 'deep'"
    )
    assert named.describe(ranked=True).endswith("the best papers for 'deep'")
    assert named.arguments() == {
        "collection": "Thesis",
        "tags": ["a", "b"],
        "item_keys": ["X"],
        "search": "deep",
    }


def test_targets_stay_inside_the_export_folder(full_lib: FullLibrary, tmp_path: Path) -> None:
    settings = make_settings(full_lib, tmp_path)
    root = settings.export_dir.resolve()
    assert resolve_target(settings, "sub/refs.bib", "bibtex", LibraryScope()) == root / "sub" / "refs.bib"
    assert resolve_target(
        settings, None, "csljson", LibraryScope(collection="Thesis/Chapter 2")
    ).name.startswith("thesis-chapter-2-")
    for bad in ("../x.bib", "/etc/x.bib", "sub/../../x.bib"):
        with pytest.raises(ExportError, match="outside the export folder"):
            resolve_target(settings, bad, "bibtex", LibraryScope())
    root.mkdir(parents=True, exist_ok=True)
    (root / "link").symlink_to(tmp_path)  # a symlink that points out of the folder is caught too
    with pytest.raises(ExportError, match="outside the export folder"):
        resolve_target(settings, "link/x.bib", "bibtex", LibraryScope())
    allowed = make_settings(full_lib, tmp_path, allow_absolute_export_paths=True)
    assert resolve_target(allowed, str(tmp_path / "x.bib"), "bibtex", LibraryScope()) == tmp_path / "x.bib"


def test_single_markdown_file_and_csl_json(lib, full_lib: FullLibrary, tmp_path: Path) -> None:
    settings = make_settings(full_lib, tmp_path)
    md = export(lib, settings, path="all.md", fmt=None, scope=LibraryScope(), overwrite=False)
    text = Path(md.data["path"]).read_text(encoding="utf-8")
    assert md.data["count"] == 9 and "S2ORC" in text and "轮腿式平衡机器人控制" in text
    csl = export(lib, settings, path="ch2.json", fmt=None, scope=LibraryScope(collection="chapter 2"))
    items = json.loads(Path(csl.data["path"]).read_text(encoding="utf-8"))
    s2orc = next(i for i in items if i["title"].startswith("S2ORC"))
    assert s2orc["type"] == "paper-conference" and s2orc["issued"]["date-parts"] == [[2020, 7]]


def test_failed_export_leaves_nothing_behind(lib, full_lib: FullLibrary, tmp_path: Path) -> None:
    settings = make_settings(full_lib, tmp_path)
    with pytest.raises(NotFoundError, match="Nothing to export"):
        export(lib, settings, path="none.bib", fmt=None, scope=LibraryScope(search="zzzz-no-such-words"))
    with pytest.raises(ExportError, match="GraphML"):
        export(lib, settings, path="g.graphml", fmt=None, scope=LibraryScope())
    assert not settings.export_dir.exists() or not any(settings.export_dir.iterdir())
