"""Reference matching against a large library: a reference is scored against the few titles that share a
rare word with it, not against every title of its years, and still finds its paper however it is misprinted."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from rapidfuzz import fuzz, process

from agent_zot.graph.matching import ReferenceMatcher
from agent_zot.graph.references import Reference
from agent_zot.zotero.models import Creator, Item, ZoteroDate

PAPERS = 3000
YEARS = (2019, 2020, 2021)  # a thousand titles a year: a year's block alone is large


def _vocabulary(rng: random.Random, size: int) -> list[str]:
    syllables = ["ka", "lo", "mi", "ne", "ru", "ta", "vo", "si", "pe", "dra", "gul", "tor", "ven", "bis"]
    words: set[str] = set()
    while len(words) < size:
        words.add("".join(rng.choice(syllables) for _ in range(rng.randint(2, 4))))
    return sorted(words)


def _library(seed: int = 7) -> list[Item]:
    """Titles of made-up words, common ones far more often (as "learning" and "networks" are)."""
    rng = random.Random(seed)
    words = _vocabulary(rng, 3000)
    items = []
    for n in range(PAPERS):
        title = " ".join(words[int(len(words) * rng.random() ** 3)] for _ in range(rng.randint(6, 10)))
        surname = f"Author{n % 700}"
        items.append(
            Item(
                key=f"P{n:05d}",
                item_id=n,
                item_type="journalArticle",
                library_id=1,
                fields={"title": title.capitalize()},
                base_fields={},
                creators=[Creator(n, "author", surname, "A.")],
                date=ZoteroDate(str(YEARS[n % 3]), YEARS[n % 3]),
            )
        )
    return items


def _typo(title: str, rng: random.Random) -> str:
    at = rng.randrange(1, len(title) - 1)
    return title[:at] + title[at + 1 :]


def _glued(title: str, rng: random.Random) -> str:
    words = title.split()
    at = rng.randrange(len(words) - 1)
    return " ".join([*words[:at], words[at] + words[at + 1], *words[at + 2 :]])


def _split(title: str, rng: random.Random) -> str:
    words = title.split()
    at = max(range(len(words)), key=lambda i: len(words[i]))
    word = words[at]
    return " ".join([*words[:at], word[:2], word[2:], *words[at + 1 :]])


def _transposed(title: str, rng: random.Random) -> str:
    at = rng.randrange(1, len(title) - 2)
    return title[:at] + title[at + 1] + title[at] + title[at + 2 :]


MISPRINTS: list[Callable[[str, random.Random], str]] = [_typo, _glued, _split, _transposed]


def _references(items: list[Item], seed: int = 3) -> list[tuple[str | None, Reference]]:
    """A misprinted reference to each of 600 papers (a year off or none at times), and 300 to works
    outside the library; with the key each should match."""
    rng = random.Random(seed)
    refs: list[tuple[str | None, Reference]] = []
    for n, item in enumerate(rng.sample(items, 600)):
        title = MISPRINTS[n % len(MISPRINTS)](item.title, rng)
        assert item.year is not None
        year = [item.year, item.year + 1, None][n % 3]
        author = f"A. {item.creators[0].last_name}"
        refs.append((item.key, Reference(f"{author}. {year}. {title}.", (author,), year, title)))
    for n in range(300):
        title = f"An outside study of topic {n} in the field"
        refs.append((None, Reference(f"B. Other. 2020. {title}.", ("B. Other",), 2020, title)))
    return refs


@pytest.fixture(scope="module")
def library() -> list[Item]:
    return _library()


def test_a_reference_is_scored_against_a_few_titles(
    library: list[Item], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Counted through rapidfuzz itself: every title the matcher scores a reference against."""
    scored = 0
    extract, partial_ratio = process.extract, fuzz.partial_ratio

    def counting_extract(query: str, choices: list[str], **options: object) -> object:
        nonlocal scored
        scored += len(choices)
        return extract(query, choices, **options)  # type: ignore[call-overload]

    def counting_partial_ratio(s1: str, s2: str, *, score_cutoff: float | None = None) -> float:
        nonlocal scored
        scored += 1
        return partial_ratio(s1, s2, score_cutoff=score_cutoff)

    matcher = ReferenceMatcher(library)
    refs = _references(library)
    monkeypatch.setattr(process, "extract", counting_extract)
    monkeypatch.setattr(fuzz, "partial_ratio", counting_partial_ratio)
    for _, ref in refs:
        matcher.match(ref)
    # Scoring each reference (twice: sorted words and squeezed) against every title of its years would be
    # some 3,000 titles a reference; the few that share a rare word are a few dozen.
    assert scored / len(refs) < 100, scored / len(refs)


def test_misprinted_references_still_find_their_paper(library: list[Item]) -> None:
    matcher = ReferenceMatcher(library)
    for key, ref in _references(library):
        found = matcher.match(ref)
        assert (found.item_key if found else None) == key, (ref.title, found)
