"""Author identity across papers, from Zotero's creators.

Zotero already de-duplicates identical creator rows, so what is left to merge here are spellings of the same
person: "Smith, J." and "Smith, John", "O'Brien" and "OBrien", "Berg, J. van der" and "van der Berg, J.".
Merging is conservative: two forms merge only with given-name evidence (equal first names, or initials
consistent with the full name), and an initial-only form that fits two different people stays on its own.
"""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field

from agent_zot.text import fold
from agent_zot.zotero.models import Creator, Item

# Lowercase words that belong to the surname ("van der Berg"); "al" also covers "al-Farabi" after splitting.
PARTICLES = frozenset(
    {
        "van", "von", "der", "den", "de", "del", "della", "dei", "degli", "la", "le", "les", "di", "da",
        "das", "dos", "do", "du", "des", "ten", "ter", "te", "het", "'t", "zu", "zur", "am", "af", "av",
        "bin", "ibn", "ben", "bint", "al", "el", "abu", "st", "san",
    }
)  # fmt: skip
# Generational suffixes: shown, but not part of the identity (and never initials).
SUFFIXES = frozenset({"jr", "sr", "ii", "iii", "iv", "2nd", "3rd", "phd", "md"})
_APOSTROPHES = re.compile(r"['’‘`ʼ´]")
_KEY_DROP = re.compile(r"[\s\-‐‑‒–—.'’‘`ʼ´,]+")
_GIVEN_SPLIT = re.compile(r"[\s.\-‐‑‒–—]+")
_WORD_SPLIT = re.compile(r"[\W_]+")
_DASHES = re.compile(r"[‐‑‒–—]")
_VOWELS = frozenset("aeiouy")


@dataclass(frozen=True, slots=True)
class PersonName:
    """One creator's name, normalised for comparison; ``display`` keeps the original spelling."""

    surname_key: str  # folded surname with particles, no spaces/hyphens/apostrophes: "vanderberg", "obrien"
    given: tuple[str, ...]  # folded given-name tokens; one letter = an initial: ("john", "r")
    display: str  # "John R. van der Berg", "World Health Organization"
    single_field: bool = False  # a name that is one unit (organisation, mononym, CJK name in one field)

    @property
    def initials(self) -> str:
        return "".join(token[0] for token in self.given)

    @property
    def key(self) -> str:
        """Identity key of this exact form: ``smith|john r``; a name with no given part is just its key."""
        if self.single_field or not self.given:
            return self.surname_key
        return f"{self.surname_key}|{' '.join(self.given)}"

    @property
    def full_tokens(self) -> int:
        """Given-name tokens written out in full (more = more informative)."""
        return sum(is_full_name(token) for token in self.given)


def normalise_name(last: str, first: str = "", *, single_field: bool = False) -> PersonName:
    """Normalise a Zotero creator name (last/first fields, or one field)."""
    last, first = " ".join(last.split()), " ".join(first.split())
    if not first and last.count(",") == 1 and (not single_field or _looks_inverted(last)):
        last, first = (part.strip() for part in last.split(","))  # "Last, First" typed into one field
    if single_field or not first:
        return PersonName(_whole_key(last), (), last, single_field=True)
    first, moved = _split_trailing_particles(first)
    if moved:
        last = f"{moved} {last}"
    first, suffix = _split_suffix(first)
    display = " ".join(part for part in (first, last) if part) + (f", {suffix}" if suffix else "")
    return PersonName(_compact(last), _given_tokens(first, shouting=last.isupper()), display)


def _looks_inverted(name: str) -> bool:
    """A one-field "Surname, Given" (short parts, no organisation words) rather than "Org, Place"."""
    surname, given = (part.strip() for part in name.split(","))
    return bool(surname and given) and len(surname.split()) <= 3 and len(given.split()) <= 3


def _whole_key(text: str) -> str:
    """The key of a one-unit name: folded words, punctuation dropped ("world health organization")."""
    return " ".join(_WORD_SPLIT.split(_APOSTROPHES.sub("", fold(text).replace(".", "")))).strip()


def _compact(text: str) -> str:
    """The comparison key of a surname: folded, without spaces, hyphens, dots and apostrophes."""
    return _KEY_DROP.sub("", fold(text))


def _split_trailing_particles(first: str) -> tuple[str, str]:
    """ "J. van der" -> ("J.", "van der"): particles typed after the given names belong to the surname."""
    words = first.split()
    cut = len(words)
    while cut > 1 and fold(words[cut - 1]) in PARTICLES and words[cut - 1].islower():
        cut -= 1
    return " ".join(words[:cut]), " ".join(words[cut:])


def _split_suffix(first: str) -> tuple[str, str]:
    words = first.replace(",", " ").split()
    if len(words) > 1 and fold(words[-1]).rstrip(".") in SUFFIXES:
        return " ".join(words[:-1]), words[-1]
    return first, ""


def _given_tokens(first: str, *, shouting: bool) -> tuple[str, ...]:
    """Given names as folded tokens: "J.R.R.", "J. R. R." and "JRR" become ("j", "r", "r"); a hyphenated
    name stays one token ("jean-pierre", initials "j-p") because Jean-Pierre is not Jean."""
    tokens: list[str] = []
    for word in _DASHES.sub("-", _APOSTROPHES.sub("", first)).split():
        if "-" in word.strip("-"):
            parts = [fold(part) for part in re.split(r"[.\-]+", word) if part]
            tokens.append("-".join(parts))
            continue
        for piece in word.split("."):
            piece = piece.strip("-")
            if not piece:
                continue
            if _is_initials_block(piece, shouting=shouting):
                tokens.extend(fold(ch) for ch in piece)
            else:
                tokens.append(fold(piece))
    return tuple(t for t in tokens if t)


def _is_initials_block(word: str, *, shouting: bool) -> bool:
    """ "JRR"/"JR" are initials; when the whole name is in capitals, only vowel-less blocks are."""
    if not (2 <= len(word) <= 3 and word.isupper() and word.isalpha()):
        return False
    return not shouting or not (set(fold(word)) & _VOWELS)


def is_full_name(token: str) -> bool:
    """A written-out name ("john", "jean-pierre"), not an initial ("j", "j-p")."""
    return any(len(part) > 1 for part in token.split("-"))


def given_compatible(a: tuple[str, ...], b: tuple[str, ...]) -> bool:
    """Could these given names be the same person's? Needs evidence: an empty given name never is."""
    if not a or not b:
        return False
    return all(_token_compatible(x, y) for x, y in zip(a, b, strict=False))


def _token_compatible(x: str, y: str) -> bool:
    """ "j" fits any name starting with j; full names must be equal; compounds compare part by part."""
    if len(x) == 1 or len(y) == 1:
        return x[0] == y[0]
    xs, ys = x.split("-"), y.split("-")
    if len(xs) != len(ys):
        return False
    return all(a == b or ((len(a) == 1 or len(b) == 1) and a[0] == b[0]) for a, b in zip(xs, ys, strict=True))


# --- the index ------------------------------------------------------------------------------------


@dataclass(slots=True)
class Author:
    """One resolved person (or organisation) with every creator row and paper that belongs to it."""

    key: str
    name: str
    creator_ids: list[int] = field(default_factory=list)
    variants: list[str] = field(default_factory=list)  # every display form seen
    papers: list[tuple[str, int]] = field(default_factory=list)  # (item key, 0-based author position)

    @property
    def item_keys(self) -> list[str]:
        return [key for key, _ in self.papers]


@dataclass(slots=True)
class AuthorIndex:
    authors: dict[str, Author]
    by_creator: dict[int, str]
    by_form: dict[str, str]  # PersonName.key of each merged form -> author key

    def __len__(self) -> int:
        return len(self.authors)

    def __iter__(self) -> Iterator[Author]:
        return iter(self.authors.values())

    def __getitem__(self, key: str) -> Author:
        return self.authors[key]

    def get(self, key: str) -> Author | None:
        return self.authors.get(key)

    def key_for(self, creator: Creator) -> str:
        """The author key of a creator; one not seen when the index was built gets its own form's key."""
        known = self.by_creator.get(creator.creator_id)
        if known is not None:
            return known
        form = _name_of(creator).key
        return self.by_form.get(form, form)

    def items_for(self, key: str) -> list[tuple[str, int]]:
        author = self.authors.get(key)
        return list(author.papers) if author else []


def _name_of(creator: Creator) -> PersonName:
    return normalise_name(creator.last_name, creator.first_name, single_field=creator.single_field)


@dataclass(slots=True)
class _Form:
    """One distinct normalised name form with the creators and papers that use it."""

    name: PersonName
    creator_ids: set[int] = field(default_factory=set)
    displays: dict[str, int] = field(default_factory=dict)
    papers: list[tuple[str, int]] = field(default_factory=list)


def resolve_authors(items: Iterable[Item]) -> AuthorIndex:
    """Group the primary creators of ``items`` into authors (see the module docstring for the rules)."""
    forms: dict[str, _Form] = {}
    for item in items:
        for position, creator in enumerate(item.authors):
            name = _name_of(creator)
            if not name.surname_key and not name.given:
                continue
            form = forms.setdefault(name.key, _Form(name))
            form.creator_ids.add(creator.creator_id)
            form.displays[name.display] = form.displays.get(name.display, 0) + 1
            form.papers.append((item.key, position))
    by_surname: dict[tuple[str, bool], list[_Form]] = defaultdict(list)
    for form in forms.values():
        by_surname[(form.name.surname_key, form.name.single_field)].append(form)
    index = AuthorIndex({}, {}, {})
    for group in by_surname.values():
        for cluster in _cluster(group):
            _add_author(index, cluster)
    return index


def _informativeness(form: _Form) -> tuple[int, int, int, str]:
    return (-form.name.full_tokens, -len(form.name.given), -len(form.papers), form.name.key)


def _cluster(group: list[_Form]) -> list[list[_Form]]:
    """Most informative forms first; each later form joins the one cluster it fits entirely, if exactly one.

    A form that fits several clusters ("John" next to "John Paul" and "John Ronald") is kept apart and never
    attracts others: it stands for one of those people, not for a person of its own."""
    if group[0].name.single_field:
        return [[form] for form in group]  # a whole-name key already is the identity
    clusters: list[list[_Form]] = []
    ambiguous: list[list[_Form]] = []
    # Given names of different first initials are never compatible: a form is weighed only against the
    # clusters of its initial (thousands of Wangs, a few dozen per initial)
    by_initial: dict[str, tuple[list[list[_Form]], list[list[_Form]]]] = defaultdict(lambda: ([], []))
    for form in sorted(group, key=_informativeness):
        given = form.name.given
        near, near_ambiguous = by_initial[given[0][0] if given else ""]
        fits = [c for c in near if all(given_compatible(given, m.name.given) for m in c)]
        if len(fits) == 1:
            fits[0].append(form)
        elif fits or any(given_compatible(given, c[0].name.given) for c in near_ambiguous):
            ambiguous.append([form])
            near_ambiguous.append(ambiguous[-1])
        else:
            clusters.append([form])
            near.append(clusters[-1])
    return clusters + ambiguous


def _add_author(index: AuthorIndex, cluster: list[_Form]) -> None:
    head = cluster[0]  # the most informative form names the author
    key = head.name.key
    displays: dict[str, int] = {}
    for form in cluster:
        for display, count in form.displays.items():
            displays[display] = displays.get(display, 0) + count
    name = max(head.displays, key=lambda d: (not d.isupper(), head.displays[d], len(d), d))
    author = Author(
        key=key,
        name=name,
        creator_ids=sorted({cid for form in cluster for cid in form.creator_ids}),
        variants=sorted(displays, key=lambda d: (-displays[d], d)),
        papers=sorted({p for form in cluster for p in form.papers}),
    )
    index.authors[key] = author
    for form in cluster:
        index.by_form[form.name.key] = key
        for cid in form.creator_ids:
            index.by_creator[cid] = key


def authors_text(authors: int, papers: int) -> str:
    """ "12 authors", or why there are none: the graph's authors are the papers' creators in Zotero."""
    if authors or not papers:
        return f"{authors} authors"
    which = "the paper has" if papers == 1 else f"none of the {papers} papers has"
    return f"0 authors ({which} creators in Zotero)"
