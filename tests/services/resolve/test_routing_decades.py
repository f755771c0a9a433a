"""A year or a decade that modifies the content words after it ("the 1970s knowledge-based systems", "the
2008 financial crisis") is what a question is about, not when its papers appeared: the router leaves it in
the topic. One that stands alone or names publications ("papers from the 1990s", "the 2017 transformer
paper") stays a publication-year filter."""

from __future__ import annotations

import pytest

from agent_zot.services.routing import route


@pytest.mark.parametrize(
    "query",
    [
        "In the introduction of the textbook, what weak spot of the 1970s knowledge-based systems did the "
        "visionaries point out?",
        "what did critics say about the 1990s' expert systems",
        "1980s neural network hardware",
        "compare the 1970s expert systems with today's",
        "The 1960s perceptron controversy",
        "how did 1990s connectionist models learn past tenses",
        "2008 financial crisis effects on banks",  # a bare year opening the request, likewise
    ],
)
def test_a_decade_or_year_describing_the_content_is_no_filter(query: str) -> None:
    decision = route("zot_search", query)
    assert "years" not in decision.params
    assert any(ch.isdigit() for ch in decision.params.get("topic", "")), decision.params  # kept in the topic


@pytest.mark.parametrize(
    ("query", "start", "end"),
    [
        ("papers from the 1990s on connectionism", 1990, 1999),
        ("anything from the 1990s", 1990, 1999),
        ("work published in the 1980s", 1980, 1989),
        ("expert systems in the 1970s", 1970, 1979),
        ("1990s papers on expert systems", 1990, 1999),
        ("expert systems in the 1970s, mostly rule-based ones", 1970, 1979),  # punctuation ends the phrase
        ("the 2017 transformer paper", 2017, 2017),
        ("Smith 2019 attention", 2019, 2019),
    ],
)
def test_a_decade_or_year_that_stands_alone_or_names_publications_filters(
    query: str, start: int, end: int
) -> None:
    assert route("zot_search", query).params["years"] == {"start": start, "end": end}
