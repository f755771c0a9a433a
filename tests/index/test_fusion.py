"""Fusing the two channels' lists into one ranking: the same lists give the same ranking however the store
returned points that tie."""

from __future__ import annotations

from agent_zot.index.fusion import fuse, fuse_as_the_store
from agent_zot.index.store import RRF_K, Hit


def chunk(point: str, page: int) -> Hit:
    return Hit(point, 0.5, {"page_start": page})


# "x" is third in the dense list only and "y" third in the sparse list only: the same fused score
DENSE = [chunk("a", 1), chunk("b", 1), chunk("x", 5)]
SPARSE = [chunk("c", 2), chunk("b", 1), chunk("y", 4)]


def test_fused_as_the_store_a_tie_is_broken_by_page_then_id_whatever_order_the_lists_come_in() -> None:
    one = fuse_as_the_store({"dense": DENSE, "sparse": SPARSE})
    other = fuse_as_the_store({"sparse": list(SPARSE), "dense": list(DENSE)})
    assert [c.hit.id for c in one] == [c.hit.id for c in other] == ["b", "a", "c", "y", "x"]
    scores = {c.hit.id: c.score for c in one}
    assert scores["b"] == 2 / (RRF_K + 1)  # ranks count from 0, as the store counts them
    assert scores["x"] == scores["y"] == 1 / (RRF_K + 2)
    assert {c.hit.id: c.channels for c in one}["b"] == {"vector", "sparse"}


def test_the_librarywide_fusion_weighs_the_keyword_channel_more() -> None:
    fused = fuse({"dense": DENSE, "sparse": SPARSE}, method="rrf")
    # no tie here: "c", first in the keyword list, before "a", first in the dense one; "y" before "x"
    assert [c.hit.id for c in fused] == ["b", "c", "y", "a", "x"]
