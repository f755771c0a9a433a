"""Author identity: name normalisation, conservative merging across papers, fuzzy lookup."""

from __future__ import annotations

import itertools
from collections import Counter
from pathlib import Path

import pytest

from agent_zot.errors import AmbiguousNameError
from agent_zot.graph import authors
from agent_zot.graph.authors import (
    AuthorIndex,
    given_compatible,
    is_full_name,
    normalise_name,
    resolve_authors,
)
from agent_zot.graph.model import GraphData, Node, NodeKind
from agent_zot.graph.store_sqlite import SqliteGraphStore
from agent_zot.services.resolve.graph import resolve_author
from agent_zot.zotero.models import Creator, Item
from tests.conftest import shared_library_params

_ids = itertools.count(1)


def creator(
    last: str, first: str = "", *, single: bool = False, kind: str = "author", cid: int | None = None
) -> Creator:
    return Creator(cid if cid is not None else next(_ids), kind, last, first, single)


def item(key: str, *creators: Creator) -> Item:
    return Item(key, next(_ids), "journalArticle", 1, {"title": key}, {}, creators=list(creators))


# --- normalise_name ---------------------------------------------------------------------------------

NAME_CASES = [
    # (last, first, single_field) -> (surname_key, given tokens, display)
    (("Tolkien", "J.R.R.", False), ("tolkien", ("j", "r", "r"), "J.R.R. Tolkien")),
    (("Tolkien", "J. R. R.", False), ("tolkien", ("j", "r", "r"), "J. R. R. Tolkien")),
    (("Tolkien", "JRR", False), ("tolkien", ("j", "r", "r"), "JRR Tolkien")),
    (("Tolkien", "J R R", False), ("tolkien", ("j", "r", "r"), "J R R Tolkien")),
    (
        ("Tolkien", "John Ronald Reuel", False),
        ("tolkien", ("john", "ronald", "reuel"), "John Ronald Reuel Tolkien"),
    ),
    (("van der Berg", "J.", False), ("vanderberg", ("j",), "J. van der Berg")),
    (("Berg", "J. van der", False), ("vanderberg", ("j",), "J. van der Berg")),
    (("de la Cruz", "Maria", False), ("delacruz", ("maria",), "Maria de la Cruz")),
    (("Cruz", "Maria de la", False), ("delacruz", ("maria",), "Maria de la Cruz")),
    (("von Neumann", "John", False), ("vonneumann", ("john",), "John von Neumann")),
    (("Da Silva", "Ana", False), ("dasilva", ("ana",), "Ana Da Silva")),
    (("dos Santos", "João", False), ("dossantos", ("joao",), "João dos Santos")),
    (("al-Khwarizmi", "Muhammad", False), ("alkhwarizmi", ("muhammad",), "Muhammad al-Khwarizmi")),
    (("bin Talal", "Hassan", False), ("bintalal", ("hassan",), "Hassan bin Talal")),
    (("Smith-Jones", "Anna", False), ("smithjones", ("anna",), "Anna Smith-Jones")),
    (("O'Brien", "Pat", False), ("obrien", ("pat",), "Pat O'Brien")),
    (("O’Brien", "Pat", False), ("obrien", ("pat",), "Pat O’Brien")),
    (("D’Angelo", "Lucia", False), ("dangelo", ("lucia",), "Lucia D’Angelo")),
    (("MCDONALD", "JOHN", False), ("mcdonald", ("john",), "JOHN MCDONALD")),
    (("McDonald", "John", False), ("mcdonald", ("john",), "John McDonald")),
    (("Müller", "Jürgen", False), ("muller", ("jurgen",), "Jürgen Müller")),
    (("Gödel", "Kurt", False), ("godel", ("kurt",), "Kurt Gödel")),
    (("Łukasiewicz", "Jan", False), ("lukasiewicz", ("jan",), "Jan Łukasiewicz")),
    (("Dupont", "Jean-Pierre", False), ("dupont", ("jean-pierre",), "Jean-Pierre Dupont")),
    (("Dupont", "J.-P.", False), ("dupont", ("j-p",), "J.-P. Dupont")),
    (("King", "Martin Luther, Jr.", False), ("king", ("martin", "luther"), "Martin Luther King, Jr.")),
    (("Stein Shiromoto, Humberto", "", False), ("steinshiromoto", ("humberto",), "Humberto Stein Shiromoto")),
    (("Plato", "", True), ("plato", (), "Plato")),
    (("Plato", "", False), ("plato", (), "Plato")),
    (("World Health Organization", "", True), ("world health organization", (), "World Health Organization")),
    (("陈阳", "", True), ("陈阳", (), "陈阳")),
    (("MAO", "LI", False), ("mao", ("li",), "LI MAO")),  # all capitals: "LI" is a name, not initials
    (("  Smith ", " John  ", False), ("smith", ("john",), "John Smith")),
]


@pytest.mark.parametrize(("args", "expected"), NAME_CASES, ids=[f"{a[0]}|{a[1]}" for a, _ in NAME_CASES])
def test_normalise_name(args: tuple[str, str, bool], expected: tuple[str, tuple[str, ...], str]) -> None:
    last, first, single = args
    name = normalise_name(last, first, single_field=single)
    assert (name.surname_key, name.given, name.display) == expected


def test_name_keys_and_initials() -> None:
    assert normalise_name("Smith", "John R.").key == "smith|john r"
    assert normalise_name("Smith", "J.").key == "smith|j"
    assert normalise_name("Smith", "John Ronald").initials == "jr"
    assert normalise_name("World Health Organization", single_field=True).key == "world health organization"
    assert normalise_name("Organisation, Geneva, Switzerland", single_field=True).single_field  # two commas


SAME_PERSON_FORMS = [
    (("van der Berg", "J."), ("Berg", "J. van der")),
    (("O'Brien", "Pat"), ("OBrien", "Pat")),
    (("O'Brien", "Pat"), ("O’Brien", "Pat")),
    (("MCDONALD", "JOHN"), ("McDonald", "John")),
    (("Müller", "Jürgen"), ("Muller", "Jurgen")),
    (("Smith-Jones", "Anna"), ("Smith Jones", "Anna")),
    (("Tolkien", "J.R.R."), ("Tolkien", "JRR")),
]


@pytest.mark.parametrize(("a", "b"), SAME_PERSON_FORMS)
def test_spellings_share_a_key(a: tuple[str, str], b: tuple[str, str]) -> None:
    assert normalise_name(*a).key == normalise_name(*b).key


GIVEN_PAIRS = [
    # (a, b, compatible)
    ("J.", "John", True),
    ("J. R.", "John Ronald", True),
    ("J. R.", "John", True),
    ("John", "John Ronald", True),
    ("J.R.R.", "John Ronald Reuel", True),
    ("Jürgen", "Jurgen", True),
    ("John", "Jane", False),
    ("J. R.", "J. P.", False),
    ("John R.", "John P.", False),
    ("J.", "Mary", False),
    ("Jean-Pierre", "Jean", False),  # a compound first name is its own name
    ("J.-P.", "Jean-Pierre", True),
    ("J.-P.", "Jean", False),
    ("Jean-Pierre", "J.", True),
    ("", "John", False),  # no given name: no evidence
    ("", "", False),
]


@pytest.mark.parametrize(("a", "b", "compatible"), GIVEN_PAIRS)
def test_given_name_compatibility(a: str, b: str, compatible: bool) -> None:
    ga, gb = normalise_name("X", a).given, normalise_name("X", b).given
    assert given_compatible(ga, gb) is compatible
    assert given_compatible(gb, ga) is compatible


# --- resolve_authors ------------------------------------------------------------------------------


def _keys(index: AuthorIndex, *creators: Creator) -> list[str]:
    return [index.key_for(c) for c in creators]


def test_initials_merge_with_the_one_full_name() -> None:
    full, short, dotted = creator("Smith", "John"), creator("Smith", "J."), creator("SMITH", "J")
    index = resolve_authors([item("A", full), item("B", short), item("C", dotted)])
    assert set(_keys(index, full, short, dotted)) == {"smith|john"}
    author = index["smith|john"]
    assert author.name == "John Smith"
    assert author.creator_ids == sorted([full.creator_id, short.creator_id, dotted.creator_id])
    assert sorted(author.item_keys) == ["A", "B", "C"]


def test_different_full_names_never_merge() -> None:
    john, jane = creator("Smith", "John"), creator("Smith", "Jane")
    index = resolve_authors([item("A", john), item("B", jane)])
    assert index.key_for(john) != index.key_for(jane)
    assert len(index) == 2


def test_ambiguous_initial_stays_apart() -> None:
    john, jane, j = creator("Smith", "John"), creator("Smith", "Jane"), creator("Smith", "J.")
    index = resolve_authors([item("A", john), item("B", jane), item("C", j)])
    assert len({index.key_for(c) for c in (john, jane, j)}) == 3
    assert index.key_for(j) == "smith|j"


def test_middle_initials_decide() -> None:
    jr, jp = creator("Tolkien", "John Ronald"), creator("Tolkien", "John Paul")
    j_r, j = creator("Tolkien", "J. R."), creator("Tolkien", "John")
    index = resolve_authors([item("A", jr), item("B", jp), item("C", j_r), item("D", j)])
    assert index.key_for(j_r) == index.key_for(jr) == "tolkien|john ronald"
    assert index.key_for(jp) == "tolkien|john paul"
    assert index.key_for(j) == "tolkien|john"  # fits both John Ronald and John Paul: kept apart


def test_surname_alone_never_merges() -> None:
    bare, j = creator("Smith"), creator("Smith", "J.")
    index = resolve_authors([item("A", bare), item("B", j)])
    assert index.key_for(bare) == "smith" and index.key_for(j) == "smith|j"


def test_particles_diacritics_and_case_merge_across_papers() -> None:
    forms = [
        creator("van der Berg", "Jan"),
        creator("Berg", "J. van der"),
        creator("Van Der Berg", "J."),
        creator("VANDERBERG", "JAN"),
    ]
    index = resolve_authors([item(f"P{i}", c) for i, c in enumerate(forms)])
    assert {index.key_for(c) for c in forms} == {"vanderberg|jan"}
    assert index["vanderberg|jan"].name == "Jan van der Berg"


def test_positions_and_editors() -> None:
    a, b = creator("Alpha", "Ann"), creator("Beta", "Bob")
    editor = creator("Gamma", "Gil", kind="editor")
    paper = item("P", a, editor, b)
    index = resolve_authors([paper, item("Q", b)])
    assert index.items_for("alpha|ann") == [("P", 0)]
    assert index.items_for("beta|bob") == [("P", 1), ("Q", 0)]
    assert "gamma|gil" not in index.authors  # editors are not authors when the item has authors
    assert index.items_for("nobody") == []


def test_single_field_names_are_whole_identities() -> None:
    who1, who2 = (
        creator("World Health Organization", single=True),
        creator("World Health Organization", single=True),
    )
    chen, plato = creator("陈阳", single=True), creator("Plato", single=True)
    index = resolve_authors([item("A", who1, chen), item("B", who2, plato)])
    assert index.key_for(who1) == index.key_for(who2) == "world health organization"
    assert index.key_for(chen) == "陈阳" and index.key_for(plato) == "plato"
    assert len(index) == 3


def test_key_for_an_unseen_creator_uses_its_form() -> None:
    known = creator("Smith", "John")
    index = resolve_authors([item("A", known), item("B", creator("Smith", "J."))])
    assert index.key_for(creator("Smith", "J.")) == "smith|john"  # the form merged into John
    assert index.key_for(creator("Doe", "Jane")) == "doe|jane"


def test_keys_are_stable_across_input_order() -> None:
    creators = [
        creator("Smith", "J."),
        creator("Smith", "John"),
        creator("Smith", "J. A."),
        creator("Doe", "J."),
    ]
    items = [item(f"P{i}", c) for i, c in enumerate(creators)]
    first = {c.creator_id: resolve_authors(items).key_for(c) for c in creators}
    second = {c.creator_id: resolve_authors(list(reversed(items))).key_for(c) for c in creators}
    assert first == second


# --- the real shared libraries ------------------------------------------------------------------------


@pytest.mark.parametrize("folder", shared_library_params())
@pytest.mark.slow
def test_shared_library_merges_are_consistent(folder: Path, record_property: pytest.RecordProperty) -> None:
    from agent_zot.zotero.reader import load_library

    library = load_library(folder / "zotero.sqlite")
    creators = {c.creator_id: c for it in library.items.values() for c in it.authors}
    index = resolve_authors(library.items.values())
    assert set(index.by_creator) == set(creators)
    for author in index:
        names = [
            normalise_name(creators[cid].last_name, creators[cid].first_name) for cid in author.creator_ids
        ]
        surnames = {n.surname_key for n in names}
        assert len(surnames) == 1, author
        for a, b in itertools.combinations(names, 2):
            assert given_compatible(a.given, b.given) or a.key == b.key, (author.key, a, b)
        firsts = {n.given[0] for n in names if n.given and is_full_name(n.given[0])}
        assert len(firsts) <= 1, (author.key, firsts)  # never two different full first names
    merged = sum(len(a.creator_ids) > 1 for a in index)
    counts = Counter(len(a.creator_ids) for a in index)
    record_property("creators", len(creators))
    record_property("authors", len(index))
    record_property("merged", merged)
    print(
        f"{folder.name}: {len(creators)} creators -> {len(index)} authors, {merged} merged ({dict(counts)})"
    )
    if folder.name == "pthemis5-z7":
        assert len(creators) > 2000 and merged > 100


# --- looking an author up in the graph --------------------------------------------------------------


def _author_graph(tmp_path: Path, names: list[str]) -> SqliteGraphStore:
    store = SqliteGraphStore(tmp_path / "state.sqlite")
    store.upsert(GraphData([Node(f"author:{i}", NodeKind.AUTHOR, {"name": n}) for i, n in enumerate(names)]))
    return store


def test_an_author_is_found_by_the_initials_another_paper_wrote(tmp_path: Path) -> None:
    """The graph keeps one person's fullest form; the user may ask with the initials of another record."""
    store = _author_graph(tmp_path, ["Andrew W. Mann", "Anna Mann", "Beatrice Q. Mann"])
    assert resolve_author(store, "A. W. Mann").name == "Andrew W. Mann"
    assert resolve_author(store, "Mann, A. W.").name == "Andrew W. Mann"
    assert resolve_author(store, "B. Mann").name == "Beatrice Q. Mann"
    with pytest.raises(AmbiguousNameError):  # Andrew or Anna: the tool asks back instead of guessing
        resolve_author(store, "A. Mann")


def test_forms_of_one_person_the_graph_kept_apart_answer_as_the_fullest(tmp_path: Path) -> None:
    """Every form here could be the same person; the graph could not merge them, the lookup need not ask."""
    forms = ["E. M. -R. Kempton", "E. M. Kempton", "Eliza M. -R. Kempton", "È. Kempton"]
    store = _author_graph(tmp_path, forms)
    assert resolve_author(store, "Eliza M-R Kempton").name == "Eliza M. -R. Kempton"
    assert resolve_author(store, "Eliza Kempton").name == "Eliza M. -R. Kempton"
    assert (
        resolve_author(store, "E. M. Kempton").name == "E. M. Kempton"
    )  # a form the graph holds, as written


def test_a_name_written_out_in_full_is_that_author_even_beside_its_initials(tmp_path: Path) -> None:
    """ "K. Lo" stays apart when it could be Kyle or Kevin; asking for Kyle Lo still means Kyle Lo."""
    store = _author_graph(tmp_path, ["Kyle Lo", "Kevin Lo", "K. Lo"])
    assert resolve_author(store, "Kyle Lo").name == "Kyle Lo"
    assert resolve_author(store, "K. Lo").name == "K. Lo"


def test_a_common_surname_inside_many_others_still_finds_its_bearer(tmp_path: Path) -> None:
    """Hundreds of names contain "mann" (Baumann, Hoffmann…); the store lists them in id order, and the
    one author called Mann must not fall off the end of that list."""
    others = [f"Given{i} {stem}mann" for i, stem in enumerate(["Bau", "Hoff", "Neu", "Kauf"] * 80)]
    store = _author_graph(tmp_path, [*others, "Andrew W. Mann"])  # the last id of 321
    assert resolve_author(store, "A. W. Mann").name == "Andrew W. Mann"
    assert resolve_author(store, "Mann").name == "Andrew W. Mann"


def test_a_common_surname_compares_each_form_with_the_few_it_could_be(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Thousands of Wangs: a form is weighed only against the forms of its first initial (no other can be the
    same person), not against every Wang; counted through the real comparison."""
    compared = 0
    compatible = authors.given_compatible

    def counting(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
        nonlocal compared
        compared += 1
        return compatible(a, b)

    syllables = ["an", "bo", "chen", "di", "fei", "gang", "hui", "jun", "kai", "lei", "ming", "ning", "qiang"]
    givens = sorted(
        {a.capitalize() + b for a in syllables for b in syllables} | {s.capitalize() for s in syllables}
    )
    creators = [creator("Wang", g) for g in givens] + [creator("Wang", f"{g[0]}.") for g in givens[::7]]
    monkeypatch.setattr(authors, "given_compatible", counting)
    index = resolve_authors([item(f"P{n}", c) for n, c in enumerate(creators)])
    assert compared < 20 * len(creators), compared / len(creators)
    # every full name its own author, and each initial beside several of them too (it may be any of them)
    assert len(index) == len(givens) + len({g[0] for g in givens[::7]})
