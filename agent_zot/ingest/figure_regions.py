"""Which detected region is which caption's: the nearest on the side of its caption where its kind
usually is (a figure above its caption, a table below), else the nearest on the other side; a page set
the other way round is read that way. A table gets only its own rows: not its caption, not the next
table under the same box. Boxes are in PDF points from the page's top left."""

from __future__ import annotations

from typing import TYPE_CHECKING

from agent_zot.ingest import layout
from agent_zot.ingest.text_lines import Box

if TYPE_CHECKING:
    from agent_zot.ingest.figures import Element


def overlap(a: Box, b: Box) -> float:
    """Horizontal overlap of two boxes as a share of the narrower."""
    width = min(a[2], b[2]) - max(a[0], b[0])
    narrower = min(a[2] - a[0], b[2] - b[0])
    return max(0.0, width) / narrower if narrower > 0 else 0.0


# The side of its caption a region usually is on: a figure above its caption, a table below.
USUAL_SIDE = {"figure": "above", "table": "below"}
_OTHER = {"above": "below", "below": "above"}
REACH = 160.0  # points between a caption and the farthest region it may take
OTHER_KIND = 40.0  # a region detected as the other kind counts this much farther


def _place(element: Element, region: layout.Region) -> tuple[str, float] | None:
    """Which side of the caption the region is on and how far, in points. A region that holds the
    caption at its top or foot (detectors often draw a table's box around the caption over it) is on
    the side of its middle, as far as it reaches into the caption; one with the caption in its middle
    is no caption's."""
    assert element.caption_box is not None
    cap_top, cap_bottom = element.caption_box[1], element.caption_box[3]
    r_top, r_bottom = region.box[1], region.box[3]
    if cap_top - r_bottom >= -4:
        return "above", max(cap_top - r_bottom, 0.0)
    if r_top - cap_bottom >= -4:
        return "below", max(r_top - cap_bottom, 0.0)
    depth = cap_bottom - r_top if (r_top + r_bottom) / 2 > (cap_top + cap_bottom) / 2 else r_bottom - cap_top
    side = "below" if (r_top + r_bottom) / 2 > (cap_top + cap_bottom) / 2 else "above"
    return (side, depth) if depth <= cap_bottom - cap_top + 12 else None


def _pairing(
    elements: list[Element], regions: list[layout.Region], sides: dict[str, str]
) -> list[tuple[Element, layout.Region, str]]:
    """Each caption with the nearest free region on its kind's side in ``sides``; a caption left without
    one then takes the nearest free region on the other side."""
    pairs = []
    for e_index, element in enumerate(elements):
        for r_index, region in enumerate(regions):
            if element.caption_box is None or overlap(element.caption_box, region.box) <= 0.3:
                continue
            placed = _place(element, region)
            if placed is None:
                continue
            cost = placed[1] + (0.0 if region.kind == element.kind else OTHER_KIND)
            if cost <= REACH:
                pairs.append((placed[0] != sides[element.kind], cost, e_index, r_index, placed[0]))
    pairs.sort()
    taken: set[int] = set()
    done: set[int] = set()
    chosen = []
    for _, _, e_index, r_index, side in pairs:
        if r_index not in taken and e_index not in done:
            taken.add(r_index)
            done.add(e_index)
            chosen.append((elements[e_index], regions[r_index], side))
    return chosen


def _cost(chosen: list[tuple[Element, layout.Region, str]]) -> float:
    total = 0.0
    for element, region, _ in chosen:
        placed = _place(element, region)
        total += placed[1] if placed else 0.0
    return total


def _own_part(box: Box, element: Element, side: str, others: list[Element]) -> Box:
    """The part of a region that is the element's: up to another caption inside it (one box drawn round
    two stacked tables), and for a table less its own caption (its rows would read the caption as rows;
    a figure keeps its caption in its picture)."""
    left, top, right, bottom = box
    for other in others:
        cap = other.caption_box
        if other is element or cap is None or overlap(cap, box) <= 0.3 or not top < cap[1] < bottom:
            continue
        if side == "below" and element.caption_box is not None and cap[1] > element.caption_box[3]:
            bottom = min(bottom, cap[1])
        elif side == "above" and element.caption_box is not None and cap[3] < element.caption_box[1]:
            top = max(top, cap[3])
    if element.kind == "table" and element.caption_box is not None:
        if side == "below":
            top = max(top, element.caption_box[3])
        else:
            bottom = min(bottom, element.caption_box[1])
    return left, top, right, bottom


def pair_regions(elements: list[Element], regions: list[layout.Region]) -> set[int]:
    """Give each captioned element its region (USUAL_SIDE first, the other side as fallback); a page
    set the other way round (tables captioned below them) is read that way when that pairs more
    captions, or as many at less than half the distance. Returns the ids of the regions taken."""
    chosen = _pairing(elements, regions, USUAL_SIDE)
    for kind in ("table", "figure"):
        sides = dict(USUAL_SIDE, **{kind: _OTHER[USUAL_SIDE[kind]]})
        other = _pairing(elements, regions, sides)
        if len(other) > len(chosen) or (len(other) == len(chosen) and _cost(other) < _cost(chosen) / 2):
            chosen = other
    for element, region, side in chosen:
        element.box = _own_part(region.box, element, side, elements)
    return {id(region) for _, region, _ in chosen}
