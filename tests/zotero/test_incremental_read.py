"""A library read on top of an earlier snapshot reads only what changed, and equals a full read.

Edits are written as Zotero writes them (zotero/edits.py, or the rows Zotero's own bulk operations write)
to copies of the every-case library in each schema shape and of the shared real libraries."""

from __future__ import annotations

import dataclasses
import shutil
import sqlite3
import time
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from agent_zot.config import Settings
from agent_zot.index.changes import changed_since_indexed, item_fingerprint, library_stamp, plan_update
from agent_zot.services.context import AppContext
from agent_zot.zotero.edits import LocalEdits
from agent_zot.zotero.models import Library, ReadOptions
from agent_zot.zotero.reader import attach_marks, load_library
from tests.conftest import shared_library_params
from tests.factories import FullLibrary


def _as_read(library: Library) -> dict[str, Any]:
    """Everything a read yields, orders included (what it was read from left out)."""
    data = dataclasses.asdict(library)
    for name in ("read_stamp", "marks", "lineage"):
        data.pop(name)
    data["item_order"] = list(library.items)
    data["annotation_order"] = list(library.annotations_by_attachment)
    return data


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S")


def _write(db: Path, sql: str, *params: object, touch: int | None = None) -> None:
    """One of Zotero's own writes; ``touch``: the item it saves, stamped as Zotero stamps it."""
    with sqlite3.connect(db) as conn:
        conn.execute(sql, params)
        if touch is not None:
            conn.execute(
                "UPDATE items SET dateModified = ?, clientDateModified = ? WHERE itemID = ?",
                (_now(), _now(), touch),
            )
    conn.close()


def _item_id(db: Path, key: str) -> int:
    with sqlite3.connect(db) as conn:
        (item_id,) = conn.execute("SELECT itemID FROM items WHERE key = ?", (key,)).fetchone()
    conn.close()
    return item_id


def _edits(db: Path, library: Library) -> list[tuple[str, Callable[[], None]]]:
    """Zotero's edits, in order, on the library as first read."""
    keys = list(library.items)
    edits = LocalEdits(db)
    first, second, last = keys[0], keys[1], keys[-1]
    untouched_tag = next(
        t.name for key in keys[2:-1] for t in library.items[key].tags
    )  # on items no edit saves
    steps: list[tuple[str, Callable[[], None]]] = [
        ("tag added", lambda: edits.add_tag([first, second], "to read")),
        ("title fixed", lambda: edits.set_field(first, "title", "A corrected title")),
        ("tag removed", lambda: edits.remove_tag([second], "to read")),
        # Zotero renames a tag in place, without saving the items that carry it
        (
            "tag renamed",
            lambda: _write(db, "UPDATE tags SET name = name || ' (renamed)' WHERE name = ?", untouched_tag),
        ),
        (
            "moved to the trash",
            lambda: _write(
                db,
                "INSERT INTO deletedItems (itemID) VALUES (?)",
                _item_id(db, last),
                touch=_item_id(db, last),
            ),
        ),
        ("deleted outright", lambda: _write(db, "DELETE FROM items WHERE key = ?", second)),
    ]
    if library.collections:
        collection = next(iter(library.collections))
        steps.append(("filed", lambda: edits.add_to_collection([first], collection)))
        steps.append(
            (
                "collection renamed",
                lambda: _write(
                    db, "UPDATE collections SET collectionName = 'Renamed' WHERE key = ?", collection
                ),
            )
        )
    note = next((n for item in library.items.values() for n in item.notes), None)
    if note is not None:
        steps.append(
            (
                "note edited",
                lambda: _write(
                    db,
                    "UPDATE itemNotes SET note = '<p>Edited</p>' WHERE itemID = ?",
                    note.item_id,
                    touch=note.item_id,
                ),
            )
        )
    annotation = next(iter(library.annotations), None)
    if annotation is not None:
        steps.append(
            (
                "annotation commented",
                lambda: _write(
                    db,
                    "UPDATE itemAnnotations SET comment = 'Why?' WHERE itemID = ?",
                    annotation.item_id,
                    touch=annotation.item_id,
                ),
            )
        )
    return steps


def _copy(folder: Path, tmp_path: Path) -> Path:
    """A copy of a library last edited a while ago (a fixture built a second ago was edited "just now")."""
    copy = tmp_path / "Zotero"
    shutil.copytree(folder, copy, ignore=shutil.ignore_patterns("*.sqlite-wal", "*.sqlite-shm", "*.bak"))
    db = copy / "zotero.sqlite"
    _write(
        db,
        "UPDATE items SET dateModified = '2024-05-01 10:00:00', clientDateModified = '2024-05-01 10:00:00'",
    )
    return db


def _check_edits_read_incrementally(db: Path, options: ReadOptions) -> None:
    data_dir = db.parent
    library = load_library(db, data_dir, options)
    assert attach_marks(library, options)
    incremental_reads = 0
    for name, edit in _edits(db, library):
        edit()
        read = load_library(db, data_dir, options, previous=library)
        assert _as_read(read) == _as_read(load_library(db, data_dir, options)), name
        if read.lineage:
            incremental_reads += 1
            kept = [k for k in read.items if k not in read.lineage[0][1]]
            assert kept and all(read.items[k] is library.items[k] for k in kept), name
        library = read
    assert incremental_reads >= 4


def test_each_edit_reads_only_its_items_and_equals_a_full_read(
    any_shape_lib: FullLibrary, tmp_path: Path
) -> None:
    plain, with_trash = (
        ReadOptions(base_attachment_dir=any_shape_lib.linked_base),
        ReadOptions(include_trash=True),
    )
    _check_edits_read_incrementally(_copy(any_shape_lib.data_dir, tmp_path / "plain"), plain)
    _check_edits_read_incrementally(_copy(any_shape_lib.data_dir, tmp_path / "trash"), with_trash)


@pytest.mark.parametrize("folder", shared_library_params())
@pytest.mark.slow
def test_edits_to_real_libraries_read_incrementally(folder: Path, tmp_path: Path) -> None:
    _check_edits_read_incrementally(_copy(folder, tmp_path), ReadOptions())


def test_a_second_edit_in_the_same_second_is_read(full_lib: FullLibrary, tmp_path: Path) -> None:
    """Zotero's stamps count whole seconds: two edits within one leave the item's row as it was."""
    db = _copy(full_lib.data_dir, tmp_path)
    library = load_library(db)
    attach_marks(library, ReadOptions())
    key = next(iter(library.items))
    edits = LocalEdits(db)
    edits.set_field(key, "title", "First fix")
    once = load_library(db, previous=library)
    edits.set_field(key, "title", "Second fix")  # same second, most likely: same stamps either way
    twice = load_library(db, previous=once)
    assert twice.items[key].title == "Second fix" and twice.lineage


def test_a_retag_fingerprints_only_the_items_it_changed(full_lib: FullLibrary, tmp_path: Path) -> None:
    db = _copy(full_lib.data_dir, tmp_path)
    indexed = load_library(db)
    attach_marks(indexed, ReadOptions())
    recorded = library_stamp(indexed)
    # What an index recorded, marked so that a fingerprint made again would not match it
    fingerprints = {
        key: item_fingerprint(item).replace("|v", "|v99", 1) for key, item in indexed.items.items()
    }
    keys = list(indexed.items)[:2]
    LocalEdits(db).add_tag(keys, "retagged")
    now = load_library(db, previous=indexed)
    changed = changed_since_indexed(recorded, now)
    assert changed == frozenset(keys)
    assert changed_since_indexed(recorded, load_library(db)) is None  # a full read cannot tell
    plan = plan_update(now, fingerprints, {}, {}, fulltext=False, changed_since_indexed=changed)
    assert sorted(w.item.key for w in plan.work) == sorted(keys)  # the others keep what was recorded
    assert plan.unchanged == len(now.items) - len(keys)


def test_a_server_reads_only_what_each_edit_changed(full_lib: FullLibrary, tmp_path: Path) -> None:
    db = _copy(full_lib.data_dir, tmp_path)
    ctx = AppContext(Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state"), follows_library=True)
    try:
        first = ctx.library()
        deadline = time.monotonic() + 30
        while first.marks is None and time.monotonic() < deadline:
            time.sleep(0.05)  # read apart, once no request is served
        assert first.marks is not None
        key = next(iter(first.items))
        LocalEdits(db).add_tag([key], "seen")
        after = ctx.library()
        assert "seen" in {t.name for t in after.items[key].tags}
        assert after.lineage and after.lineage[0][1] == frozenset({key})
        one_off = AppContext(Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state2"))
        assert one_off.library().marks is None  # a one-off command reads once, and marks nothing
        one_off.close()
    finally:
        ctx.close()
