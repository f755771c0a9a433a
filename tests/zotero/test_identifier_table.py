"""The one identifier table (zotero/identifier_table.py), the one collection-tree walk (Library) and the one
item-key alphabet (identifiers.py): each read the way every caller used to read it on its own."""

from __future__ import annotations

import re
from pathlib import Path

from agent_zot.graph.matching import surname_key
from agent_zot.identifiers import ITEM_KEY, KEY_LIKE_LOWER, KEY_MENTION, KEY_SHAPED, is_item_key
from agent_zot.zotero.identifier_table import IdentifierTable, item_arxiv, item_doi
from agent_zot.zotero.models import Collection, Item, Library


def _item(key: str, **fields: str) -> Item:
    return Item(key=key, item_id=0, item_type="journalArticle", library_id=1, fields=fields, base_fields={})


def test_each_identifier_finds_its_items_however_it_is_written() -> None:
    first = _item("AAAA2222", DOI="https://doi.org/10.1145/1281100.1281103")
    copy = _item("BBBB3333", DOI="10.1145/1281100.1281103.")
    preprint = _item("CCCC4444", DOI="10.48550/arXiv.2004.10706")
    extra = _item("DDDD5555", extra="arXiv: 1706.03762v5\nCitation Key: vaswani2017")
    linked = _item("EEEE6666", url="https://arxiv.org/abs/hep-th/9901001")
    extra_item = _item("FFFF7777")
    extra_item.citation_key = "Lo2020S2ORC"
    table = IdentifierTable.of([first, copy, preprint, extra, linked, extra_item])

    assert item_doi(first) == item_doi(copy) == "10.1145/1281100.1281103"
    for written in ("10.1145/1281100.1281103", "doi:10.1145/1281100.1281103", "10.1145/1281100.1281103?"):
        assert table.with_doi(written) == ["AAAA2222", "BBBB3333"]  # in the order the items came
    assert table.with_doi("10.9999/none") == [] and table.with_doi("not a doi") == []
    assert item_arxiv(preprint) == "2004.10706" and item_arxiv(extra) == "1706.03762"
    assert item_arxiv(linked) == "hep-th/9901001" and item_arxiv(first) is None
    assert table.arxiv == {
        "2004.10706": ["CCCC4444"],
        "1706.03762": ["DDDD5555"],
        "hep-th/9901001": ["EEEE6666"],
    }
    assert table.citation_keys == {"lo2020s2orc": ["FFFF7777"]}


def test_one_walk_down_the_collection_tree() -> None:
    def collection(key: str, items: list[str], children: list[str]) -> Collection:
        return Collection(key, 0, key.lower(), None, 1, item_keys=items, child_keys=children)

    tree = {
        "ROOT": collection("ROOT", ["A"], ["KID1", "KID2"]),
        "KID1": collection("KID1", ["B"], ["GRAND"]),
        "KID2": collection("KID2", [], ["ROOT"]),  # a corrupt parent cycle
        "GRAND": collection("GRAND", ["C", "A"], ["GONE"]),  # GONE: a child that is no collection
    }
    library = Library(Path(), Path("z.sqlite"), None, [], {}, tree, [], [], {})
    below = library.collection_and_below("ROOT")
    assert below[0] == "ROOT" and sorted(below) == ["GRAND", "KID1", "KID2", "ROOT"]
    assert library.items_below("ROOT") == {"A", "B", "C"} and library.items_below("KID1") == {"B", "C", "A"}
    assert library.collection_and_below("GONE") == []


def test_one_item_key_alphabet() -> None:
    assert is_item_key("ABCD2345") and not is_item_key("ABCD234O") and not is_item_key("abcd2345")
    assert KEY_SHAPED.findall("keys ABCDEFGH and ABCD2345, not ABCD23456") == ["ABCDEFGH", "ABCD2345"]
    assert ITEM_KEY.findall("keys ABCDEFGH and ABCD2345") == ["ABCD2345"]  # prose wants a digit and a letter
    assert KEY_MENTION.findall("see [ABCD2345] and [abcd2345]") == ["ABCD2345"]
    lower = re.compile(KEY_LIKE_LOWER)
    assert lower.match("dfszkrys") and lower.match("abcd2345") and not lower.match("bayesian")


def test_one_surname_key() -> None:
    assert surname_key("van der Berg") == surname_key("Berg") == "berg"
    assert surname_key("O'Brien") == "obrien" and surname_key("Müller-Lüdenscheidt") == "mullerludenscheidt"
    assert surname_key("") == ""
