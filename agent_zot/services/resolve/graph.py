"""Which author or field (concept, tag, collection, topic) a graph request is about, found in the graph."""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from rapidfuzz import fuzz, process

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.graph.authors import PersonName, given_compatible, normalise_name
from agent_zot.graph.concepts import normalise_concept
from agent_zot.graph.model import EdgeKind, Node, NodeKind, node_id, paper_id
from agent_zot.graph.store import Direction, GraphStore
from agent_zot.services.resolve.match import match_items
from agent_zot.services.response import quoted
from agent_zot.text import STOPWORDS, fold
from agent_zot.zotero.copies import paper_key
from agent_zot.zotero.models import Collection, Library

_NAMED_CAP = 5_000  # authors whose names contain a surname, read before ranking
_FIELD_CAP = 500  # papers taken from one field; enough for ranking, bounded for big libraries


@dataclass(slots=True)
class Field:
    """A set of papers a request restricts itself to, and how it was found."""

    description: str
    paper_ids: set[str]


def resolve_author(store: GraphStore, name: str) -> Node:
    """An author node by name: exact (case/accents folded) surname + given names, else fuzzy, else an
    error listing close names."""
    wanted = re.sub(r"['’]s?$", "", name.strip())  # "Bolejko's co-authors"
    if not wanted:
        raise InvalidArgumentError("Which author? Give a name, e.g. 'Kyle Lo'.")
    surname = wanted.replace(",", " ").split()[-1] if "," not in wanted else wanted.split(",")[0]
    # A common surname is contained in many others (Mann in Baumann, Hoffmann…): the store answers
    # those in id order, so authors who bear it exactly come first before the list is cut
    named = store.find_nodes(NodeKind.AUTHOR, name=surname.strip(), limit=_NAMED_CAP)
    bearers = fold(surname.strip())
    candidates = sorted(named, key=lambda n: _surname(n) != bearers)[:200]
    if " " not in wanted and "," not in wanted:  # a surname alone: the one author who has it
        same = [n for n in candidates if _surname(n) == fold(wanted)]
        if len({n.name.casefold() for n in same}) == 1:
            return same[0]
        if same:
            raise AmbiguousNameError(
                f"{len(same)} authors are called {quoted(wanted)}; give the full name.",
                candidates=sorted({n.name for n in same}),
            )
    fitting = _initials_fit(wanted, candidates)
    if fitting is not None:
        return fitting
    if not candidates:
        candidates = store.find_nodes(NodeKind.AUTHOR, limit=100_000)
    names = {n.id: n.name for n in candidates}
    scored = process.extract(wanted, names, scorer=fuzz.token_sort_ratio, limit=5, score_cutoff=60)
    if not scored or scored[0][1] < 80:
        everyone = sorted({n.name for n in store.find_nodes(NodeKind.AUTHOR, limit=10**9)})
        near = process.extract(wanted, everyone, scorer=fuzz.WRatio, limit=5, score_cutoff=60)
        close = ", ".join(n for n, _, _ in near) or "none"
        raise NotFoundError(f"No author named {quoted(wanted)} in the graph.", hint=f"Close names: {close}.")
    best = [node_id for _, score, node_id in scored if score >= scored[0][1] - 2]
    nodes = store.get_nodes(best)
    if len(nodes) > 1 and not _same_person_written_twice(nodes):
        raise AmbiguousNameError(
            f"{len(nodes)} authors match {quoted(wanted)}; say which one.",
            candidates=[n.name for n in nodes],
        )
    return nodes[0]


_NOT_NAMES = STOPWORDS | frozenset(
    [
        "who",
        "whom",
        "with",
        "has",
        "have",
        "had",
        "co",
        "authors",
        "author",
        "coauthors",
        "co-authors",
        "co-authored",
        "coauthored",
        "authored",
        "wrote",
        "written",
        "worked",
        "works",
        "work",
        "working",
        "collaborated",
        "collaborators",
        "collaborator",
        "collaborates",
        "papers",
        "paper",
        "list",
        "show",
        "find",
        "network",
        "people",
        "colleagues",
        "together",
        "publish",
        "published",
        "publishes",
    ]
)
_NAME_RUN = re.compile(r"\b[A-Z][\w'’-]+(?:\s+(?:[a-z]{1,3}\s+)?[A-Z][\w'’-]+){0,3}")


def resolve_author_in(store: GraphStore, text: str) -> Node:
    """The author a request names somewhere in its words ("with who Kyle Lo has written papers?"): each run
    of capitalised words, longest first, tried as a name; else the whole text as one name."""
    runs = sorted({m.group(0) for m in _NAME_RUN.finditer(text)}, key=len, reverse=True)
    # typed in lower case: pairs of words, then single words, that are not the request's own words
    words = [w for w in re.findall(r"[^\W\d_][\w'’-]*", text) if fold(w) not in _NOT_NAMES]
    words = [re.sub(r"['’]s?$", "", w) for w in words]
    pairs = [f"{a} {b}" for a, b in itertools.pairwise(words)]
    for candidate in [*runs, *pairs, *words]:
        try:
            return resolve_author(store, candidate)
        except NotFoundError:
            continue
    return resolve_author(store, text)


def _initials_fit(wanted: str, candidates: list[Node]) -> Node | None:
    """The one author whose name the wanted name abbreviates or spells out: the graph keeps one person's
    fullest form ("Andrew W. Mann"), while the user may write the form of another paper ("A. W. Mann").
    Several that fit equally well are asked back; None when none fits (the fuzzy match decides)."""
    person = _person(wanted)
    if not person.given:
        return None
    fitting = [
        (node, other)
        for node in candidates
        if (other := _person(node.name)).surname_key == person.surname_key
        and given_compatible(other.given, person.given)
    ]
    # the name as written first; then "A. W." fits Andrew W. better than Anna, who has no middle name
    # to match the W.
    exact = [node for node, other in fitting if other.given == person.given]
    complete = [node for node, other in fitting if len(other.given) >= len(person.given)]
    for group in (exact, complete, [node for node, _ in fitting]):
        if len({node.id for node in group}) == 1 or (group and _same_person_written_twice(group)):
            return group[0]
        if group and _one_person(group):
            return max(group, key=lambda node: _informativeness(_person(node.name)))
    if len(fitting) > 1:
        raise AmbiguousNameError(
            f"{len(fitting)} authors match {quoted(wanted)}; say which one.",
            candidates=sorted({node.name for node, _ in fitting}),
        )
    return None


def _one_person(nodes: list[Node]) -> bool:
    """Could every one of these names be the same person ("E. M. Kempton", "Eliza M. -R. Kempton")? The
    graph keeps such forms apart when it cannot tell; the fullest stands for them. Andrew and Anna never."""
    people = [_person(node.name) for node in nodes]
    return all(given_compatible(a.given, b.given) for a, b in itertools.combinations(people, 2))


def _informativeness(person: PersonName) -> tuple[int, int, int]:
    return person.full_tokens, len(person.given), len(person.display)


def _person(name: str) -> PersonName:
    if "," in name:
        last, first = name.split(",", 1)
    else:
        *given, last = name.split()
        first = " ".join(given)
    return normalise_name(last.strip(), first.strip())


def _surname(node: Node) -> str:
    parts = node.name.split()
    return fold(parts[-1]) if parts else ""


def _same_person_written_twice(nodes: list[Node]) -> bool:
    return len({n.name.casefold() for n in nodes}) == 1


def resolve_field(store: GraphStore, library: Library, text: str) -> Field | None:
    """Papers about ``text``: a concept of that name, a tag, a collection, or papers whose metadata
    contains every word; None when ``text`` is empty."""
    wanted = text.strip()
    if not wanted:
        return None
    concept = find_concept(store, wanted)
    if concept is not None:
        edges = store.edges_of([concept.id], kinds=[EdgeKind.MENTIONS], direction=Direction.IN)
        return Field(f"concept '{concept.name}'", {e.source for e in edges})
    folded = wanted.casefold()
    for kind, edge in ((NodeKind.TAG, EdgeKind.TAGGED), (NodeKind.COLLECTION, EdgeKind.IN_COLLECTION)):
        exact = [n for n in store.find_nodes(kind, name=wanted, limit=20) if n.name.casefold() == folded]
        if exact:
            edges = store.edges_of([exact[0].id], kinds=[edge], direction=Direction.IN)
            return Field(f"{kind.value.lower()} '{exact[0].name}'", {e.source for e in edges})
    items = match_items(list(library.items.values()), wanted)[:_FIELD_CAP]
    return Field(f"papers matching '{wanted}'", {paper_id(paper_key(library, i.key)) for i in items})


def find_concept(store: GraphStore, text: str) -> Node | None:
    """The concept node for a phrase (by its normalised key), else the closest concept name."""
    key = normalise_concept(text)
    if key:
        found = store.get_nodes([node_id(NodeKind.CONCEPT, key)])
        if found:
            return found[0]
    candidates = store.find_nodes(NodeKind.CONCEPT, name=text.strip(), limit=50)
    if not candidates:
        return None
    names = {n.id: n.name for n in candidates}
    best = process.extractOne(text, names, scorer=fuzz.token_sort_ratio, score_cutoff=85)
    return next(n for n in candidates if n.id == best[2]) if best else None


def collection_papers(store: GraphStore, library: Library, collection: Collection) -> set[str]:
    """Papers in the collection and its sub-collections, as the graph records them."""
    ids = [node_id(NodeKind.COLLECTION, k) for k in library.collection_and_below(collection.key)]
    return {e.source for e in store.edges_of(ids, kinds=[EdgeKind.IN_COLLECTION], direction=Direction.IN)}
