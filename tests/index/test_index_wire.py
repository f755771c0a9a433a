"""What crosses between agent-zot processes on one index (index/wire.py, index/shared.py): every type the store
Protocol takes or returns arrives as it left, and a value that cannot cross is an error with its cause, on
the side that made it; never silence that a caller would read as an owner that does not answer."""

from __future__ import annotations

import math
import re
import socket
import struct
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from agent_zot.index import wire
from agent_zot.index.shared import IndexBusyError, IndexOwnerError, SharedIndex
from agent_zot.index.store import Hit, IndexInfo, Point, SearchFilter, SparseVector, VectorStore
from agent_zot.index.store_edge import EdgeStore
from agent_zot.index.wire import WireError
from tests.index.index_peer import DIM, make_point, open_index


def _through_a_socket(message: dict[str, Any]) -> dict[str, Any]:
    left, right = socket.socketpair()
    with left, right:
        wire.send(left, message)
        return wire.receive(right)


POINT = Point("00000000-0000-4000-8000-000000000001", [0.5, -0.25], SparseVector([3, 9], [1.0, 0.5]),
              {"item_key": "K1", "tags": ["a", "b"], "year": None, "text": "Schrödinger ψ 量子 🙂"})  # fmt: skip
VALUES: list[tuple[str, Any]] = [
    ("set", {"b", "a"}),
    ("empty set", set()),
    ("frozenset", frozenset({1, 2})),
    ("tuple", ("x", 1, None)),
    ("a page of points", ([POINT], None)),
    ("nested", {"k": [({"x"}, (1, 2))]}),
    ("a dict with the tag key", {"__t": "set", "v": [1]}),
    ("point", POINT),
    ("hit", Hit("id", 0.75, {"item_key": "K", "page_start": 3})),
    ("filter", SearchFilter(item_keys=("A", "B"), year_min=2001, kinds=("chunk",))),
    ("info", IndexInfo("model", 384, "bm25", 12)),
    ("sparse", SparseVector([], [])),
    ("counts", {"ITEMA": 3, "ITEMB": 1}),
    ("plain", [None, True, 0, -1.5, "", "ü"]),
]


@pytest.mark.parametrize("value", [v for _, v in VALUES], ids=[name for name, _ in VALUES])
def test_every_value_the_store_uses_round_trips_with_its_type(value: Any) -> None:
    received = _through_a_socket({"result": value})["result"]
    assert received == value and type(received) is type(value)
    if isinstance(value, tuple):
        assert [type(v) for v in received] == [type(v) for v in value]


def test_numpy_values_arrive_as_numbers() -> None:
    point = Point(
        "p", np.asarray([0.5, 0.25], dtype=np.float32), None, {"score": np.float32(0.5), "n": np.int64(7)}
    )
    received = _through_a_socket({"args": [point, np.float64(math.pi)]})["args"]
    assert received[0].dense == [0.5, 0.25] and received[0].payload == {"score": 0.5, "n": 7}
    assert received[1] == math.pi and type(received[1]) is float


@pytest.mark.parametrize(
    ("value", "named"),
    [
        ({"payload": {"when": object()}}, "message['payload']['when'] is a builtins.object"),
        ({"counts": {("K", 1): 2}}, "message['counts'] has a tuple key"),
        ({"path": Path("/tmp")}, "message['path'] is a pathlib"),
        ({"ok": [1, {2: "x"}]}, "message['ok'][1] has a int key"),
    ],
)
def test_a_value_that_cannot_cross_is_refused_where_it_sits(value: dict[str, Any], named: str) -> None:
    with pytest.raises(WireError, match=re.escape(named)):
        wire.frame(value)


def test_a_message_that_does_not_decode_leaves_the_stream_usable() -> None:
    left, right = socket.socketpair()
    with left, right:
        for body in (b"{not json", b'{"__t": "Nonesuch", "x": 1}', b'{"__t": "Hit", "id": "x"}', b"[1]"):
            left.sendall(struct.pack("!I", len(body)) + body)
        wire.send(left, {"ok": True})
        for expected in ("could not be read", "unknown type 'Nonesuch'", "does not fit", "not an object"):
            with pytest.raises(WireError, match=expected):
                wire.receive(right)
        assert wire.receive(right) == {"ok": True}


def test_the_shared_index_forwards_every_store_method() -> None:
    methods = {name for name in vars(VectorStore) if not name.startswith("_")}
    assert methods <= set(vars(SharedIndex)), methods - set(vars(SharedIndex))


class _UnsendableCounts(EdgeStore):
    """An engine whose answer cannot cross: what a store method added later might return."""

    def points_per_item(self) -> dict[str, int]:
        return {("ITEM", 1): 1}  # type: ignore[dict-item]


def test_an_answer_the_owner_cannot_send_is_an_error_with_its_cause_not_a_busy_index(tmp_path: Path) -> None:
    def factory() -> EdgeStore:
        (tmp_path / "shard").mkdir(parents=True, exist_ok=True)
        store = _UnsendableCounts(tmp_path / "shard")
        store.open_or_create(model="test-model", dense_dim=DIM, sparse="bm25")
        return store

    owner, client = SharedIndex(tmp_path, factory), open_index(tmp_path)
    try:
        owner.upsert([make_point(n) for n in range(3)])
        assert owner.is_owner and not client.is_owner
        with pytest.raises(IndexOwnerError, match=r"points_per_item.*could not be sent.*tuple key") as failed:
            client.points_per_item()
        assert not isinstance(failed.value, IndexBusyError) and "doctor" in (failed.value.hint or "")
        assert client.count() == 3  # the same connection answers the next call
    finally:
        client.close()
        owner.close()


def test_a_value_the_client_cannot_send_fails_in_the_client_and_the_owner_stays_reachable(
    tmp_path: Path,
) -> None:
    owner, client = open_index(tmp_path), open_index(tmp_path)
    try:
        owner.upsert([make_point(n) for n in range(2)])
        with pytest.raises(WireError, match=r"\['ITEM0001'\]\['added'\] is a builtins.object"):
            client.set_payloads({"ITEM0001": {"added": object()}})
        assert client.count() == 2 and not client.is_owner
    finally:
        client.close()
        owner.close()
