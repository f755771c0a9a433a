"""Annotation colours: Zotero's names, aliases and hex values, and stored shades counted as their nearest
named colour (CIEDE2000)."""

from __future__ import annotations

import pytest

from agent_zot.errors import InvalidArgumentError
from agent_zot.zotero.colors import ANNOTATION_COLORS, color_name, delta_e, parse_color


@pytest.mark.parametrize(
    ("given", "label", "hex_color"),
    [
        ("red", "red", "#ff6666"),
        ("RED", "red", "#ff6666"),
        (" Grey ", "gray", "#aaaaaa"),
        ("pink", "magenta", "#e56eee"),
        ("#FFD400", "yellow", "#ffd400"),
        ("ffd400", "yellow", "#ffd400"),
        ("#e5e", "#ee55ee", "#ee55ee"),
        ("#EE1111", "#ee1111", "#ee1111"),
    ],
)
def test_a_colour_is_a_name_an_alias_or_a_hex(given: str, label: str, hex_color: str) -> None:
    choice = parse_color(given)
    assert (choice.label, choice.hex) == (label, hex_color)


@pytest.mark.parametrize("given", ["teal", "bad", "#12345", ""])
def test_an_unknown_colour_lists_the_valid_ones(given: str) -> None:
    with pytest.raises(InvalidArgumentError) as err:
        parse_color(given)
    assert all(name in str(err.value) for name in ANNOTATION_COLORS)


@pytest.mark.parametrize(
    ("stored", "name"),
    [
        ("#ffd400", "yellow"),
        ("#ee1111", "red"),
        ("#ff0000", "red"),
        ("#ffff00", "yellow"),
        ("#00ff00", "green"),
        ("#ffa500", "orange"),
        ("#ee82ee", "magenta"),
        ("#7b68ee", "purple"),
        ("#00ffff", "blue"),
        ("#e6e6e6", "gray"),
        ("", ""),
    ],
)
def test_a_stored_colour_counts_as_its_nearest_named_colour(stored: str, name: str) -> None:
    assert color_name(stored) == name


def test_colour_difference_is_ciede2000() -> None:
    # Reference pairs from Sharma, Wu and Dalal (2005), table 1.
    assert delta_e((50, 2.6772, -79.7751), (50, 0, -82.7485)) == pytest.approx(2.0425, abs=1e-4)
    assert delta_e((50, 2.5, 0), (73, 25, -18)) == pytest.approx(27.1492, abs=1e-4)
    assert delta_e((2.0776, 0.0795, -1.135), (0.9033, -0.0636, -0.5514)) == pytest.approx(0.9082, abs=1e-4)


def test_a_custom_hex_matches_shades_nearer_to_it_than_to_any_named_colour() -> None:
    custom = parse_color("#ee1111")
    assert custom.matches("#ee1111") and custom.matches("#f00") and not custom.matches("#ff6666")
    assert parse_color("red").matches("#ee1111") and not parse_color("red").matches("#ffd400")
