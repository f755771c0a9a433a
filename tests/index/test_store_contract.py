"""One contract for every VectorStore: the embedded Qdrant engine, qdrant-client's local mode, and the shared
index (index/shared.py), whose every call crosses a socket to the process that owns the embedded engine.

The data set is small and deterministic. Hand-made points sit on the axes e0..e6 of an 8-d space with
their own sparse terms, so the best hit of a query is known; filler points crowd around e7 with other terms,
so they never compete with the hand-made ones but do exercise filters and counts.
"""

from __future__ import annotations

import math
import random
import shutil
import uuid
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from agent_zot.errors import AgentZotError
from agent_zot.index.fusion import fuse_as_the_store
from agent_zot.index.shared import SharedIndex
from agent_zot.index.store import (
    NOTE_KINDS,
    PAPER_KINDS,
    Hit,
    IndexMismatchError,
    Point,
    SearchFilter,
    SearchRequest,
    SparseVector,
    StoreLockedError,
    VectorStore,
)
from agent_zot.index.store_choice import open_store

DIM = 8
MODEL = "test-model"
SPARSE_KIND = "bm25"
NS = uuid.UUID("6f1c1d2e-0000-4000-8000-000000000000")

StoreFactory = Callable[[], VectorStore]


def pid(name: str) -> str:
    return str(uuid.uuid5(NS, name))


def axis(i: int, scale: float = 1.0) -> list[float]:
    return [scale if j == i else 0.0 for j in range(DIM)]


def unit(vector: list[float]) -> list[float]:
    norm = math.sqrt(sum(x * x for x in vector))
    return [x / norm for x in vector]


def payload(
    item: str, kind: str, *, attachment: str | None, page: int | None, **fields: Any
) -> dict[str, Any]:
    base: dict[str, Any] = {
        "item_key": item,
        "attachment_key": attachment,
        "kind": kind,
        "text": f"{item} {kind} p{page}",
        "page_start": page,
        "page_end": page,
        "section": None,
        "title": f"Title of {item}",
    }
    return base | fields


ITEM_A = {"year": 2001, "item_type": "journalArticle", "collections": ["COLL1"], "tags": ["ml", "nlp"],
          "creators": ["Smith", "Müller"]}  # fmt: skip
ITEM_B = {"year": 2010, "item_type": "book", "collections": ["COLL2"], "tags": ["bio"], "creators": ["Jones"]}
ITEM_C = {
    "year": None,
    "item_type": "report",
    "collections": ["COLL1", "COLL2"],
    "tags": [],
    "creators": ["Smith"],
}


def hand_made_points() -> list[Point]:
    a_text = "Schrödinger: ∂ψ/∂t = −iĤψ — 量子力学 «quotes» 🙂"
    return [
        Point(pid("A-meta"), axis(0), None, payload("ITEMA", "metadata", attachment=None, page=None, **ITEM_A)),
        Point(pid("A-c1"), axis(1), SparseVector([1001, 7], [1.0, 0.5]),
              payload("ITEMA", "chunk", attachment="ATTA", page=1, **ITEM_A)),
        Point(pid("A-c2"), axis(2), SparseVector([1002, 7], [1.0, 0.5]),
              payload("ITEMA", "chunk", attachment="ATTA", page=2, section="Methods", **ITEM_A) | {"text": a_text}),
        Point(pid("B-meta"), axis(3), None, payload("ITEMB", "metadata", attachment=None, page=None, **ITEM_B)),
        Point(pid("B-c1"), axis(4), SparseVector([1003, 99], [1.0, 0.3]),
              payload("ITEMB", "chunk", attachment="ATTB1", page=5, **ITEM_B)),
        Point(pid("B-c2"), axis(5), SparseVector([1004], [1.0]),
              payload("ITEMB", "chunk", attachment="ATTB2", page=1, **ITEM_B)),
        Point(pid("C-c1"), axis(6), SparseVector([1005], [1.0]),
              payload("ITEMC", "chunk", attachment="ATTC", page=None, **ITEM_C)),
    ]  # fmt: skip


def filler_points(n: int = 24) -> list[Point]:
    rng = random.Random(1234)
    points = []
    for i in range(n):
        item = f"R{i % 6:02d}"
        dense = [rng.gauss(0, 0.3) for _ in range(DIM - 1)] + [3.0]
        terms = sorted(rng.sample(range(7), 3))
        fields = {
            "year": rng.choice([1995, 2001, 2005, 2010, 2020, None]),
            "item_type": rng.choice(["journalArticle", "book", "thesis"]),
            "collections": rng.sample(["COLL1", "COLL2", "COLL3"], rng.randint(0, 2)),
            "tags": rng.sample(["ml", "bio", "stats", "nlp"], rng.randint(0, 2)),
            "creators": rng.sample(["Smith", "Jones", "Nakamura", "Okafor"], rng.randint(1, 2)),
        }
        kind = "metadata" if i < 6 else "chunk"
        attachment = None if kind == "metadata" else f"ATT{item}"
        sparse = SparseVector(terms, [rng.uniform(0.2, 1.5) for _ in terms])
        points.append(
            Point(pid(f"F{i}"), dense, sparse, payload(item, kind, attachment=attachment, page=i, **fields))
        )
    return points


ALL_POINTS = hand_made_points() + filler_points()
BY_ID = {p.id: p for p in ALL_POINTS}


def matches(p: dict[str, Any], f: SearchFilter) -> bool:
    """The reference semantics of SearchFilter, written plainly."""
    year = p["year"]
    checks = [
        not f.item_keys or p["item_key"] in f.item_keys,
        f.year_min is None or (year is not None and year >= f.year_min),
        f.year_max is None or (year is not None and year <= f.year_max),
        not f.item_types or p["item_type"] in f.item_types,
        not f.collections or bool(set(p["collections"]) & set(f.collections)),
        not f.tags or bool(set(p["tags"]) & set(f.tags)),
        not f.creators or bool(set(p["creators"]) & set(f.creators)),
        not f.kinds or p["kind"] in f.kinds,
    ]
    return all(checks)


def ids(hits: list[Hit]) -> list[str]:
    return [h.id for h in hits]


def all_ids(store: VectorStore, f: SearchFilter | None = None) -> set[str]:
    """Every point matching ``f``: a dense search with a limit above the collection size returns all."""
    return set(ids(store.search(axis(7), None, limit=1000, filter=f)))


# -- fixtures --------------------------------------------------------------------------------------


ENGINES = ["edge", "qdrant"]


def _factory(kind: str, folder: Path, made: list[VectorStore]) -> StoreFactory:
    """Stores over one folder (so tests can close and reopen). "shared": handles that are not the owner, so
    every call goes through the owner's socket to an embedded engine, as a second server's calls do."""
    if kind == "shared":
        owner = SharedIndex(
            folder, lambda: open_store("edge", path=folder / "vectors")
        )  # as agent-zot opens it
        owner.disk_size_bytes()  # the first call takes the lock: this handle owns the index
        assert owner.is_owner
        made.append(owner)

    def make() -> VectorStore:
        if kind == "shared":
            store: VectorStore = SharedIndex(folder, lambda: pytest.fail("a client never opens the engine"))  # type: ignore[assignment]
        else:
            store = open_store(kind, path=folder)
        made.append(store)
        return store

    return make


@pytest.fixture(params=[*ENGINES, "shared"])
def make_store(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """A factory of stores over one folder; all are closed at the end (the owner last)."""
    made: list[VectorStore] = []
    yield _factory(request.param, tmp_path / request.param, made)
    for store in reversed(made):
        store.close()


@pytest.fixture(params=ENGINES)
def make_engine(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[StoreFactory]:
    """The same, for what only an engine does itself (the shared index exists to let a second handle in)."""
    made: list[VectorStore] = []
    yield _factory(request.param, tmp_path / request.param, made)
    for store in reversed(made):
        store.close()


@pytest.fixture
def store(make_store: StoreFactory) -> VectorStore:
    s = make_store()
    s.open_or_create(model=MODEL, dense_dim=DIM, sparse=SPARSE_KIND)
    s.upsert(ALL_POINTS)
    return s


# -- lifecycle --------------------------------------------------------------------------------------


def test_create_reports_info(make_store: StoreFactory) -> None:
    info = make_store().open_or_create(model=MODEL, dense_dim=DIM, sparse=SPARSE_KIND)
    assert (info.model, info.dense_dim, info.sparse, info.points) == (MODEL, DIM, SPARSE_KIND, 0)


@pytest.mark.parametrize(
    "changed",
    [{"model": "other-model"}, {"dense_dim": 16}, {"sparse": "bge-m3"}],
    ids=["model", "dim", "sparse"],
)
def test_reopen_with_other_settings_is_a_mismatch(
    store: VectorStore, make_store: StoreFactory, changed: dict
) -> None:
    store.close()
    settings = {"model": MODEL, "dense_dim": DIM, "sparse": SPARSE_KIND} | changed
    other = make_store()
    with pytest.raises(IndexMismatchError) as err:
        other.open_or_create(**settings)
    message = str(err.value)
    assert "--force-rebuild" in message
    assert MODEL in message and str(settings["model"]) in message
    assert isinstance(err.value, AgentZotError)
    # The refusal changed nothing: the original settings still open the same data.
    again = make_store()
    assert again.open_or_create(model=MODEL, dense_dim=DIM, sparse=SPARSE_KIND).points == len(ALL_POINTS)


def test_second_open_of_the_same_folder_is_refused(make_engine: StoreFactory) -> None:
    make_engine().open_or_create(model=MODEL, dense_dim=DIM, sparse=SPARSE_KIND)
    with pytest.raises(StoreLockedError):
        make_engine().open_or_create(model=MODEL, dense_dim=DIM, sparse=SPARSE_KIND)


def test_persists_across_close_and_reopen(store: VectorStore, make_store: StoreFactory) -> None:
    before = store.get_by_item("ITEMA")
    store.close()
    reopened = make_store()
    info = reopened.open_or_create(model=MODEL, dense_dim=DIM, sparse=SPARSE_KIND)
    assert info.points == len(ALL_POINTS)
    assert all_ids(reopened) == set(BY_ID)
    assert reopened.get_by_item("ITEMA") == before
    assert ids(reopened.search(axis(4), None, limit=1)) == [pid("B-c1")]


def test_drop_empties_and_allows_new_settings(store: VectorStore) -> None:
    store.drop()
    info = store.open_or_create(model="other-model", dense_dim=16, sparse="bge-m3")
    assert info.points == 0
    assert store.count() == 0


def test_disk_size_after_data(store: VectorStore) -> None:
    assert store.disk_size_bytes() > 0


# -- writes -----------------------------------------------------------------------------------------


def test_upsert_is_idempotent_by_id(store: VectorStore) -> None:
    store.upsert(ALL_POINTS)
    assert store.count() == len(ALL_POINTS)
    changed = hand_made_points()[1]
    changed.payload = changed.payload | {"title": "Renamed"}
    store.upsert([changed])
    assert store.count() == len(ALL_POINTS)
    titles = {h.id: h.payload["title"] for h in store.get_by_item("ITEMA")}
    assert titles[pid("A-c1")] == "Renamed"


def test_upsert_accepts_numpy_vectors(make_store: StoreFactory) -> None:
    np = pytest.importorskip("numpy")
    store = make_store()
    store.open_or_create(model=MODEL, dense_dim=DIM, sparse=SPARSE_KIND)
    point = Point(pid("np"), np.asarray(axis(3), dtype=np.float32), None, {"item_key": "NP", "kind": "chunk"})
    store.upsert([point])
    assert ids(store.search(np.asarray(axis(3), dtype=np.float32), None, limit=1)) == [pid("np")]


def test_delete_items_removes_exactly_their_points(store: VectorStore) -> None:
    store.delete_items(["ITEMA", "R01"])
    gone = {p.id for p in ALL_POINTS if p.payload["item_key"] in ("ITEMA", "R01")}
    assert gone and all_ids(store) == set(BY_ID) - gone
    assert store.count() == len(ALL_POINTS) - len(gone)
    assert store.get_by_item("ITEMA") == []


def test_delete_attachments_removes_exactly_their_points(store: VectorStore) -> None:
    store.delete_attachments(["ATTB1"])
    assert all_ids(store) == set(BY_ID) - {pid("B-c1")}
    assert {h.id for h in store.get_by_item("ITEMB")} == {pid("B-meta"), pid("B-c2")}


def test_delete_items_of_some_kinds_keeps_their_other_points(store: VectorStore) -> None:
    store.delete_items(["ITEMA", "ITEMB"], kinds=["metadata"])
    assert all_ids(store) == set(BY_ID) - {pid("A-meta"), pid("B-meta")}
    assert {h.id for h in store.get_by_item("ITEMA")} == {pid("A-c1"), pid("A-c2")}


def test_set_payloads_rewrites_the_fields_of_every_point_of_each_item_in_place(store: VectorStore) -> None:
    before = {h.id: h.payload for h in store.get_by_item("ITEMA")}
    store.set_payloads(
        {"ITEMA": {"tags": ["retagged"], "collections": [], "title": "New title"}, "ITEMC": {"year": 1999}}
    )
    after = {h.id: h.payload for h in store.get_by_item("ITEMA")}
    assert set(after) == set(before)
    for point_id, fields in after.items():  # the new fields, and every other field (text, page) as it was
        assert fields == before[point_id] | {"tags": ["retagged"], "collections": [], "title": "New title"}
    expected = {p.id: p.payload for p in ALL_POINTS}  # the reference: the updates applied by hand
    for point_id in after:
        expected[point_id] = expected[point_id] | {
            "tags": ["retagged"],
            "collections": [],
            "title": "New title",
        }
    expected[pid("C-c1")] = expected[pid("C-c1")] | {"year": 1999}
    for f in (
        SearchFilter(tags=("retagged",)),
        SearchFilter(tags=("nlp",)),
        SearchFilter(collections=("COLL1",)),
        SearchFilter(year_max=1999),
    ):
        assert all_ids(store, f) == {i for i, fields in expected.items() if matches(fields, f)}, f
    hits = store.search(axis(1), None, limit=1, filter=SearchFilter(tags=("retagged",)))
    assert hits[0].id == pid("A-c1")  # vectors untouched: the nearest point is still the nearest
    assert store.get_by_item("ITEMB")[0].payload["tags"] == ["bio"]  # other items untouched
    assert store.count() == len(ALL_POINTS)


def test_set_payloads_removes_a_field_given_as_none(store: VectorStore) -> None:
    store.set_payloads({"ITEMA": {"year": None, "tags": []}})
    for hit in store.get_by_item("ITEMA"):
        assert "year" not in hit.payload and hit.payload["tags"] == [] and hit.payload["item_key"] == "ITEMA"
    assert all_ids(store, SearchFilter(year_min=2000, year_max=2002)) == {
        p.id
        for p in ALL_POINTS
        if p.payload["item_key"] != "ITEMA" and matches(p.payload, SearchFilter(year_min=2000, year_max=2002))
    }
    store.set_payloads({"ITEMA": {"year": 2003}})
    assert {h.payload["year"] for h in store.get_by_item("ITEMA")} == {2003}


def test_set_payloads_of_nothing_or_of_an_unknown_item_changes_nothing(store: VectorStore) -> None:
    store.set_payloads({})
    store.set_payloads({"NOSUCHKY": {"tags": ["x"]}})
    assert store.count() == len(ALL_POINTS) and all_ids(store, SearchFilter(tags=("x",))) == set()


def test_delete_nothing_is_a_no_op(store: VectorStore) -> None:
    store.delete_items([])
    store.delete_attachments([])
    assert store.count() == len(ALL_POINTS)


# -- search -----------------------------------------------------------------------------------------

# Dense: A-c1 is nearest, A-c2 second. Sparse: A-c2 matches term 1002 strongly, B-c1 term 99 weakly.
# Fused, A-c2 (2nd + 1st) comes first.
HYBRID_DENSE = unit([0.0, 1.0, 0.9, 0.0, 0.0, 0.0, 0.0, 0.0])
HYBRID_SPARSE = SparseVector([1002, 99], [1.0, 1.0])


@pytest.mark.slow
def test_dense_search_finds_the_nearest_first(store: VectorStore) -> None:
    for name, i in (("A-meta", 0), ("A-c2", 2), ("B-c2", 5), ("C-c1", 6)):
        hits = store.search(axis(i, 2.5), None, limit=3)
        assert hits[0].id == pid(name)
        assert hits[0].score == pytest.approx(1.0, abs=1e-3)
        assert hits[0].payload == BY_ID[pid(name)].payload
    assert ids(store.search(HYBRID_DENSE, None, limit=2)) == [pid("A-c1"), pid("A-c2")]


@pytest.mark.slow
def test_sparse_search_ranks_by_term_weight(store: VectorStore) -> None:
    assert ids(store.search(None, HYBRID_SPARSE, limit=10)) == [pid("A-c2"), pid("B-c1")]
    assert ids(store.search(None, SparseVector([1005], [1.0]), limit=10)) == [pid("C-c1")]
    # A term shared by both chunks of item A: both come back, nothing else.
    assert set(ids(store.search(None, SparseVector([7], [1.0]), limit=10))) == {pid("A-c1"), pid("A-c2")}


def test_sparse_search_with_no_terms_finds_nothing(store: VectorStore) -> None:
    assert store.search(None, SparseVector([], []), limit=5) == []


# RRF counts ranks, so B-c1 (in both lists, low in the dense one) passes A-c1 (top of one list only);
# DBSF adds normalised scores, so A-c1's strong dense score keeps it second.
@pytest.mark.parametrize(
    ("fusion", "top3"), [("rrf", ["A-c2", "B-c1", "A-c1"]), ("dbsf", ["A-c2", "A-c1", "B-c1"])]
)
def test_hybrid_search_fuses_both_lists(store: VectorStore, fusion: str, top3: list[str]) -> None:
    hits = store.search(HYBRID_DENSE, HYBRID_SPARSE, limit=5, fusion=fusion)
    assert ids(hits[:3]) == [pid(name) for name in top3]
    assert len(hits) == 5
    assert [h.score for h in hits] == sorted((h.score for h in hits), reverse=True)


def test_fusing_the_two_lists_here_as_the_store_does_gives_the_stores_own_scores(store: VectorStore) -> None:
    """A paper's passages come from its chunks fused by ``fusion.fuse_as_the_store`` (so a tie is broken the
    same way on every run): its scores are the store's own fused query's."""
    every = len(ALL_POINTS) + 5
    fused = store.search(HYBRID_DENSE, HYBRID_SPARSE, limit=every, fusion="rrf", prefetch=every)
    lists = {
        "dense": store.search(HYBRID_DENSE, None, limit=every),
        "sparse": store.search(None, HYBRID_SPARSE, limit=every),
    }
    ours = {c.hit.id: c.score for c in fuse_as_the_store(lists)}
    assert {h.id: h.score for h in fused} == pytest.approx(ours, rel=1e-5)


def test_hybrid_search_respects_filter_and_limit(store: VectorStore) -> None:
    f = SearchFilter(item_keys=("ITEMB",))
    hits = store.search(HYBRID_DENSE, HYBRID_SPARSE, limit=2, filter=f, prefetch=10)
    assert len(hits) == 2
    assert all(h.payload["item_key"] == "ITEMB" for h in hits)
    assert hits[0].id == pid("B-c1")  # the only ITEMB point in the sparse list


def test_search_arguments_are_checked(store: VectorStore) -> None:
    with pytest.raises(ValueError, match="fusion"):
        store.search(HYBRID_DENSE, HYBRID_SPARSE, limit=5, fusion="max")
    with pytest.raises(ValueError, match="dense vector, a sparse vector"):
        store.search(None, None, limit=5)


FILTERS = [
    SearchFilter(item_keys=("ITEMA",)),
    SearchFilter(item_keys=("ITEMA", "ITEMB", "R03")),
    SearchFilter(year_min=2005),
    SearchFilter(year_max=2005),
    SearchFilter(year_min=2001, year_max=2010),
    SearchFilter(year_min=2010, year_max=2010),
    SearchFilter(item_types=("book",)),
    SearchFilter(item_types=("book", "report")),
    SearchFilter(collections=("COLL1",)),
    SearchFilter(collections=("COLL2", "COLL3")),
    SearchFilter(tags=("ml",)),
    SearchFilter(tags=("bio", "stats")),
    SearchFilter(creators=("Smith",)),
    SearchFilter(creators=("Müller", "Okafor")),
    SearchFilter(kinds=("metadata",)),
    SearchFilter(kinds=("chunk",)),
    SearchFilter(collections=("COLL1",), creators=("Smith",), kinds=("chunk",), year_max=2005),
    SearchFilter(item_types=("journalArticle",), tags=("ml", "nlp"), year_min=1995, year_max=2001),
    SearchFilter(tags=("no-such-tag",)),
]


@pytest.mark.parametrize("f", FILTERS, ids=lambda f: repr(f).removeprefix("SearchFilter"))
def test_every_filter_field(store: VectorStore, f: SearchFilter) -> None:
    expected = {p.id for p in ALL_POINTS if matches(p.payload, f)}
    if f.tags != ("no-such-tag",):
        assert 0 < len(expected) < len(ALL_POINTS), "the test data should make this filter discriminate"
    assert all_ids(store, f) == expected
    assert store.count(f) == len(expected)
    fused = store.search(HYBRID_DENSE, HYBRID_SPARSE, limit=50, filter=f)
    assert set(ids(fused)) <= expected
    sparse_only = store.search(None, SparseVector([0, 1, 2, 3, 7, 99, 1002], [1.0] * 7), limit=50, filter=f)
    assert set(ids(sparse_only)) <= expected


def test_a_search_reads_only_the_payload_fields_asked_and_payloads_reads_the_rest(store: VectorStore) -> None:
    # a ranking reads two fields of each hit; the passages of the papers it keeps read the whole payloads
    for dense, sparse in ((HYBRID_DENSE, None), (None, HYBRID_SPARSE), (HYBRID_DENSE, HYBRID_SPARSE)):
        whole = store.search(dense, sparse, limit=4)
        lean = store.search(dense, sparse, limit=4, payload=("item_key", "page_start"))
        assert ids(lean) == ids(whole)
        for hit in lean:
            wanted = {k: v for k, v in BY_ID[hit.id].payload.items() if k in ("item_key", "page_start")}
            assert hit.payload == wanted
    found = store.payloads([pid("A-c2"), pid("nonesuch"), pid("C-c1")])
    assert found == {pid("A-c2"): BY_ID[pid("A-c2")].payload, pid("C-c1"): BY_ID[pid("C-c1")].payload}
    assert store.payloads([]) == {}


def test_a_batch_of_searches_answers_each_as_its_own_search_would(store: VectorStore) -> None:
    # a claim check sends every variant's dense and sparse query at once: one call, the same hits
    f = SearchFilter(item_keys=("ITEMB",))
    requests = [
        SearchRequest(HYBRID_DENSE, None, limit=3),
        SearchRequest(None, HYBRID_SPARSE, limit=10, payload=("item_key", "page_start")),
        SearchRequest(HYBRID_DENSE, HYBRID_SPARSE, limit=5, fusion="dbsf"),
        SearchRequest(HYBRID_DENSE, HYBRID_SPARSE, limit=2, filter=f, prefetch=10),
        SearchRequest(None, SparseVector([], []), limit=5),  # no terms: nothing, as alone
        SearchRequest(axis(7), None, limit=1000, filter=SearchFilter(kinds=("metadata",))),
    ]
    alone = [
        store.search(r.dense, r.sparse, limit=r.limit, filter=r.filter, fusion=r.fusion, prefetch=r.prefetch,
                     payload=r.payload)
        for r in requests
    ]  # fmt: skip
    together = store.search_batch(requests)
    assert [[(h.id, h.payload) for h in hits] for hits in together] == [
        [(h.id, h.payload) for h in hits] for hits in alone
    ]
    for hits, own in zip(together, alone, strict=True):
        assert [h.score for h in hits] == pytest.approx([h.score for h in own], abs=1e-5)
    assert store.search_batch([]) == []
    with pytest.raises(ValueError, match="fusion"):
        store.search_batch([SearchRequest(HYBRID_DENSE, HYBRID_SPARSE, limit=5, fusion="max")])


def test_existing_ids_are_those_stored(store: VectorStore) -> None:
    assert store.existing_ids([pid("A-meta"), pid("nonesuch"), pid("C-c1")]) == {pid("A-meta"), pid("C-c1")}
    assert store.existing_ids([]) == set()
    store.delete_items(["ITEMA"])
    assert store.existing_ids([pid("A-meta")]) == set()


def test_points_per_item_counts_every_key(store: VectorStore) -> None:
    expected: dict[str, int] = {}
    for p in ALL_POINTS:
        expected[p.payload["item_key"]] = expected.get(p.payload["item_key"], 0) + 1
    assert store.points_per_item() == expected
    store.delete_items(["ITEMA"])
    assert store.points_per_item() == {k: n for k, n in expected.items() if k != "ITEMA"}


def test_count_without_filter(store: VectorStore) -> None:
    assert store.count() == len(ALL_POINTS)
    assert store.count(SearchFilter()) == len(ALL_POINTS)


def test_get_by_item_returns_all_points_in_reading_order(store: VectorStore) -> None:
    hits = store.get_by_item("ITEMA")
    assert ids(hits) == [pid("A-meta"), pid("A-c1"), pid("A-c2")]  # metadata, then by page
    for hit in hits:
        assert hit.payload == BY_ID[hit.id].payload  # unicode text, lists, None values intact
    assert hits[2].payload["text"].endswith("🙂")
    assert hits[0].payload["creators"] == ["Smith", "Müller"]
    assert store.get_by_item("NO-SUCH-ITEM") == []


def test_optimize_keeps_results(store: VectorStore) -> None:
    store.optimize()
    assert store.count() == len(ALL_POINTS)
    assert ids(store.search(axis(4), None, limit=1)) == [pid("B-c1")]
    assert store.search(HYBRID_DENSE, HYBRID_SPARSE, limit=3)[0].id == pid("A-c2")
    assert all_ids(store, SearchFilter(tags=("ml",))) == {
        p.id for p in ALL_POINTS if "ml" in p.payload["tags"]
    }


def test_unknown_store_kind_is_a_config_error() -> None:
    with pytest.raises(AgentZotError, match="Unknown vector store"):
        open_store("faiss")


def test_points_pages_through_every_point_with_its_vectors(store: VectorStore) -> None:
    seen: dict[str, Point] = {}
    offset: str | None = None
    pages = 0
    while True:
        page, offset = store.points(offset=offset, limit=7)
        pages += 1
        assert len(page) <= 7
        for point in page:
            assert point.id not in seen  # no point twice across pages
            seen[point.id] = point
        if offset is None:
            break
    assert pages > 1 and set(seen) == set(BY_ID)
    for point_id, original in BY_ID.items():
        copy = seen[point_id]
        assert copy.payload == original.payload
        # stored vectors may be normalised (cosine distance): the direction is what must survive
        dot = sum(a * b for a, b in zip(unit(list(copy.dense)), unit(list(original.dense)), strict=True))
        assert dot == pytest.approx(1.0, abs=1e-5)
        if original.sparse is not None and original.sparse.indices:
            assert copy.sparse is not None
            assert dict(zip(copy.sparse.indices, copy.sparse.values, strict=True)) == pytest.approx(
                dict(zip(original.sparse.indices, original.sparse.values, strict=True))
            )


# -- notes and annotations share the store ------------------------------------------------------------


def note_points() -> list[Point]:
    """A note and an annotation of ITEMA, nearer to the queries below than any of the paper's own points."""
    where = {"attachment_key": None, "page_label": None, "page_index": None, "color": None}
    return [
        Point(pid("N-note"), unit([0.0, 1.0, 0.95, 0, 0, 0, 0, 0]), SparseVector([1002, 500], [2.0, 1.0]),
              {"item_key": "NOTE0001", "kind": "note", "parent_key": "ITEMA", "text": "a note", **where}),
        Point(pid("N-ann"), unit([0.0, 0.95, 1.0, 0, 0, 0, 0, 0]), SparseVector([1001, 500], [2.0, 1.0]),
              {"item_key": "ANNO0001", "kind": "annotation", "parent_key": "ITEMA", "text": "highlighted",
               "attachment_key": "ATTA", "page_label": "iv", "page_index": 3, "color": "#ff6666"}),
    ]  # fmt: skip


def test_notes_share_the_store_and_a_kind_filter_keeps_them_out_of_paper_searches(store: VectorStore) -> None:
    store.upsert(note_points())
    notes = {pid("N-note"), pid("N-ann")}
    papers = SearchFilter(kinds=PAPER_KINDS)
    queries = [
        (HYBRID_DENSE, None),
        (None, HYBRID_SPARSE),
        (None, SparseVector([500], [1.0])),
        (HYBRID_DENSE, HYBRID_SPARSE),
    ]
    for dense, sparse in queries:
        assert notes & set(ids(store.search(dense, sparse, limit=50))), "the notes are the nearest points"
        assert not notes & set(ids(store.search(dense, sparse, limit=50, filter=papers)))
    assert store.count(papers) == len(ALL_POINTS) and store.count(SearchFilter(kinds=NOTE_KINDS)) == 2
    # notes are found by kind and by their own key, with their payload intact
    (annotation,) = store.search(HYBRID_DENSE, None, limit=5, filter=SearchFilter(kinds=("annotation",)))
    assert annotation.payload == note_points()[1].payload
    assert ids(store.get_by_item("NOTE0001")) == [pid("N-note")]
    # deleting a paper's points leaves its notes; a note's own key deletes it
    store.delete_items(["ITEMA"])
    assert all_ids(store, SearchFilter(kinds=NOTE_KINDS)) == notes
    store.delete_items(["ANNO0001"])
    assert all_ids(store, SearchFilter(kinds=NOTE_KINDS)) == {pid("N-note")}


def test_a_create_killed_inside_the_engine_is_created_again(tmp_path: Path) -> None:
    """`kill -9` between the engine making the shard's folders and writing its config left a shard no
    engine can load ("edge config is not provided"); the next open creates it again. A shard with its
    config is never touched."""
    folder = tmp_path / "vectors"
    store = open_store("edge", path=folder)
    store.open_or_create(model="m", dense_dim=4, sparse="bm25")
    store.close()
    shard = folder / "shard"
    for child in shard.iterdir():  # what the kill left: the description, the folders, nothing in them
        if child.is_dir():
            shutil.rmtree(child)
        else:
            child.unlink()
    (shard / "segments").mkdir()
    again = open_store("edge", path=folder)
    try:
        assert again.open_or_create(model="m", dense_dim=4, sparse="bm25").points == 0
        assert (shard / "edge_config.json").exists()
    finally:
        again.close()
