"""The reader over fixture libraries in every schema shape: every case the issue lists."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent_zot.zotero.models import LinkMode, ReadOptions
from agent_zot.zotero.reader import load_library
from tests.factories import FullLibrary


def _load(lib: FullLibrary, **options: object):
    return load_library(lib.db_path, options=ReadOptions(base_attachment_dir=lib.linked_base, **options))


def test_items_fields_and_base_fields(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    k = any_shape_lib.keys
    s2orc = library.items[k["s2orc"]]
    assert s2orc.item_type == "conferencePaper"
    assert s2orc.fields["proceedingsTitle"].startswith("Proceedings of the 58th")
    # conference proceedings, book sections and websites all answer "venue" through base fields
    assert s2orc.venue == s2orc.field("publicationTitle") == s2orc.fields["proceedingsTitle"]
    assert library.items[k["chapter"]].venue == "Optimal State Estimation"
    assert library.items[k["webpage"]].venue == "Wikipedia"
    assert library.items[k["thesis"]].field("publisher") == "哈尔滨工业大学"
    assert s2orc.doi == "10.18653/v1/2020.acl-main.447"
    assert s2orc.abstract.startswith("We introduce S2ORC")
    assert library.items[k["webpage"]].url.startswith("https://en.wikipedia.org")
    assert s2orc.version == 1 and s2orc.date_added == "2024-03-01 12:00:00"


def test_citation_key_from_field_or_extra(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    assert library.items[any_shape_lib.keys["s2orc"]].citation_key == "lo2020s2orc"
    assert library.items[any_shape_lib.keys["book"]].citation_key is None


def test_dates_parsed_with_original_text(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    k = any_shape_lib.keys
    date = library.items[k["s2orc"]].date
    assert (date.year, date.month, date.day, date.original) == (2020, 7, None, "July 2020")
    assert library.items[k["scibert"]].date.day == 26
    assert library.items[k["book"]].year == 2006 and library.items[k["book"]].date.month is None
    assert library.items[k["report"]].year == 2021  # free-text date, not in Zotero's stored form
    assert library.items[k["no_date"]].date is None and library.items[k["no_date"]].year is None


def test_creators_in_order_with_roles_and_single_field_names(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    k = any_shape_lib.keys
    names = [c.full_name for c in library.items[k["s2orc"]].creators]
    assert names == ["Kyle Lo", "Lucy Lu Wang", "Mark Neumann", "Rodney Kinney", "Daniel S. Weld"]
    chapter = library.items[k["chapter"]]
    assert [(c.last_name, c.creator_type) for c in chapter.creators] == [
        ("Simon", "author"),
        ("Kálmán", "editor"),
    ]
    assert [c.last_name for c in chapter.authors] == ["Simon"]
    org = library.items[k["webpage"]].creators[0]
    assert org.single_field and org.full_name == "Wikipedia contributors" and org.first_name == ""
    assert library.items[k["report"]].creators[2].last_name == "van der Waals"


def test_tags_manual_and_automatic(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    tags = {t.name: t.automatic for t in library.items[any_shape_lib.keys["s2orc"]].tags}
    assert tags == {"corpus": False, "nlp": False, "Computer Science - Computation and Language": True}
    counts = library.tag_counts()
    assert counts["nlp"] == 3  # s2orc, scibert, group item; the trashed item is not counted
    assert "to-read" in counts


def test_collections_tree_paths_and_membership(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    k = any_shape_lib.keys
    ch2 = library.collections[k["ch2_coll"]]
    assert ch2.path == "Thesis/Chapter 2" and ch2.parent_key == k["thesis_coll"]
    assert set(ch2.item_keys) == {k["s2orc"], k["scibert"]}
    assert library.collections[k["thesis_coll"]].child_keys == [k["ch2_coll"]]
    assert set(library.items[k["s2orc"]].collection_keys) == {k["thesis_coll"], k["ch2_coll"]}
    # trashed item is not a member; trashed collection (Zotero 5.0.8x+) is hidden
    assert k["trashed"] not in library.collections[k["reading_coll"]].item_keys
    assert "Old stuff" not in {c.name for c in library.collections.values()}


def test_notes_html_and_plain_text(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    k = any_shape_lib.keys
    note = library.items[k["s2orc"]].notes[0]
    assert "<b>8.1M</b>" in note.html
    assert (
        "Key ideas" in note.text
        and "8.1M open-access papers" in note.text
        and "- citation links" in note.text
    )
    assert "alert" not in note.text  # script content is not text
    assert library.items[k["book"]].notes[0].text == "Chapter 3 covers line search & trust regions."
    assert [n.key for n in library.standalone_notes] == [k["standalone_note"]]
    assert k["trashed_note"] not in {n.key for n in library.notes}


def test_attachment_paths_resolve_for_every_link_mode(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    k = any_shape_lib.keys
    by_key = {a.key: a for a in library.attachments}
    pdf = by_key[k["s2orc_pdf"]]
    assert pdf.link_mode is LinkMode.IMPORTED_FILE and pdf.is_pdf and pdf.exists
    assert pdf.path == any_shape_lib.data_dir / "storage" / k["s2orc_pdf"] / "Lo et al. - 2020 - S2ORC.pdf"
    assert pdf.fulltext().startswith("S2ORC: The Semantic Scholar")
    snapshot = by_key[k["scibert_html"]]
    assert (
        snapshot.link_mode is LinkMode.IMPORTED_URL
        and snapshot.exists
        and snapshot.url.endswith("1903.10676")
    )
    rel = by_key[k["book_linked_rel"]]
    assert (
        rel.link_mode is LinkMode.LINKED_FILE
        and rel.path == any_shape_lib.linked_base / "papers" / "nocedal.pdf"
    )
    assert rel.exists
    absolute = by_key[k["book_linked_abs"]]
    assert absolute.exists and absolute.path == any_shape_lib.linked_base / "absolute.pdf"
    link = by_key[k["web_link"]]
    assert link.link_mode is LinkMode.LINKED_URL and link.path is None and not link.exists
    missing = by_key[k["missing_pdf"]]
    assert missing.path is not None and not missing.exists and missing.fulltext() is None
    # a PDF with no parent item is an item of its own, as Zotero lists it, its one attachment itself
    top = library.items[k["standalone_pdf"]]
    assert top.item_type == "attachment" and [a.key for a in top.attachments] == [k["standalone_pdf"]]
    assert top.title and top.attachments[0].parent_key == top.key
    assert library.standalone_attachments == []
    assert k["trashed_pdf"] not in by_key


def test_relative_linked_files_need_the_base_directory(any_shape_lib: FullLibrary) -> None:
    library = load_library(any_shape_lib.db_path)
    rel = next(a for a in library.attachments if a.key == any_shape_lib.keys["book_linked_rel"])
    assert rel.raw_path == "attachments:papers/nocedal.pdf" and rel.path is None and not rel.exists


def test_relations_resolve_to_item_keys(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    k = any_shape_lib.keys
    relations = {(r.predicate, r.target_key) for r in library.items[k["s2orc"]].relations}
    assert relations == {("dc:relation", k["scibert"]), ("dc:replaces", "ZZZZ2222")}
    assert [r.target_key for r in library.items[k["scibert"]].relations] == [k["s2orc"]]


def test_trash_is_excluded_by_default_and_included_on_request(any_shape_lib: FullLibrary) -> None:
    k = any_shape_lib.keys
    library = _load(any_shape_lib)
    assert k["trashed"] not in library.items and library.trashed_count == 1
    with_trash = _load(any_shape_lib, include_trash=True)
    assert with_trash.items[k["trashed"]].deleted
    assert k["trashed_pdf"] in {a.key for a in with_trash.attachments}


def test_user_and_group_libraries_but_no_feeds(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    assert [(lib.kind, lib.name) for lib in library.libraries] == [
        ("user", "My Library"),
        ("group", "Lab group"),
    ]
    group_item = library.items[any_shape_lib.keys["group_item"]]
    assert group_item.library_id == library.libraries[1].library_id
    assert library.collections[any_shape_lib.keys["group_coll"]].item_keys == [group_item.key]
    assert "A feed item that must not appear" not in {i.title for i in library.items.values()}
    only_user = _load(any_shape_lib, library_ids=frozenset({1}))
    assert group_item.key not in only_user.items and len(only_user.libraries) == 1


def test_annotations_with_page_labels_and_indexes(any_shape_lib: FullLibrary) -> None:
    library = _load(any_shape_lib)
    k = any_shape_lib.keys
    if any_shape_lib.shape.startswith("z5"):
        assert library.annotations == []  # Zotero 5 had no built-in annotations
        return
    anns = library.items[k["s2orc"]].annotations(library)
    assert [a.annotation_type for a in anns] == ["highlight", "note", "underline"]  # reading order
    first = anns[0]
    assert (first.page_label, first.page_index, first.attachment_key, first.parent_item_key) == (
        "4969",
        0,
        k["s2orc_pdf"],
        k["s2orc"],
    )
    assert first.text.startswith("81.1M") and first.comment == "size of the corpus"
    assert [t.name for t in first.tags] == ["stat"]
    assert anns[1].color == "#ff6666" and anns[1].page_index == 2


def test_schema_newer_than_known_is_read_with_a_warning(tmp_path: Path) -> None:
    from agent_zot.zotero.builder import ZoteroLibraryBuilder

    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", userdata=199)
    key = b.add_item("journalArticle", title="From the future")
    library = load_library(b.build())
    assert library.items[key].title == "From the future"
    assert any("199" in w and "newer" in w for w in library.warnings)


def test_missing_optional_tables_and_columns_degrade(tmp_path: Path) -> None:
    """The oldest shape lacks the *Combined tables, annotations and collection trash: still reads."""
    from agent_zot.zotero.builder import ZoteroLibraryBuilder

    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z5-early")
    key = b.add_item("bookSection", title="Old", bookTitle="The Book")
    library = load_library(b.build())
    assert library.items[key].venue == "The Book" and library.annotations == []


@pytest.mark.parametrize("shape", ["z5", "z7"])
def test_builder_rejects_fields_a_type_does_not_have(tmp_path: Path, shape: str) -> None:
    from agent_zot.zotero.builder import ZoteroLibraryBuilder

    with pytest.raises(ValueError, match="no field"):
        ZoteroLibraryBuilder(tmp_path, shape=shape).add_item("book", proceedingsTitle="x")
