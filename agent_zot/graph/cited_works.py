"""The graph's nodes for works the library's papers cite but the library does not hold: one node per work,
however differently the reference lists print it.

Lists are filed together while the graph is built (a DOI in one list, only the title in another: the same
keys, `matching.work_keys`). What keys cannot join is joined afterwards: entries with the same first
author and year whose titles differ only as a PDF's text mangles them ("affine" / "ane" where a ligature
was lost), or that print no title at all, beside the one titled work of that author and year.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import TypeVar

from rapidfuzz import fuzz

from agent_zot.graph.matching import external_work_key, title_form, work_keys
from agent_zot.graph.model import Node, NodeKind, node_id
from agent_zot.graph.references import Reference
from agent_zot.text import ascii_key

MAX_WORK_AUTHORS = 12  # a cited work's authors kept on its node (a 40-author consortium paper keeps 12)
SAME_TITLE = 90  # rapidfuzz ratio of two title forms of one author and year that name one work

Nodes = dict[str, Node]
V = TypeVar("V")  # what a citation edge's key maps to: its props, in whatever form the caller keeps


def work_node(nodes: Nodes, reference: Reference, filed: dict[str, str]) -> str | None:
    """The node of a cited work outside the library, made or completed: it keeps every identifier and the
    fuller author list any of its entries gives. ``filed``: every key of a work seen so far → its node."""
    keys = work_keys(reference)
    if not keys:
        return None
    work = next((filed[k] for k in keys if k in filed), None) or external_work_key(reference) or keys[0]
    for key in keys:
        filed.setdefault(key, work)
    # every author (as "A; B; C"): "Rowstron and Druschel" names a work as it names a paper
    authors = "; ".join(reference.authors[:MAX_WORK_AUTHORS]) or None
    wid = node_id(NodeKind.EXTERNAL_WORK, work)
    if wid not in nodes:
        props = {
            "title": reference.title or _untitled(reference),
            "year": reference.year,
            "doi": reference.doi,
            "arxiv": reference.arxiv,
            "first_author": reference.authors[0] if reference.authors else None,
            "authors": authors,
            "venue": reference.venue or None,
            "untitled": True if not reference.title else None,
        }
        nodes[wid] = Node(
            wid, NodeKind.EXTERNAL_WORK, {k: v for k, v in props.items() if v not in (None, "")}
        )
        return wid
    _complete(nodes[wid].props, reference.title, {"doi": reference.doi, "arxiv": reference.arxiv,
              "venue": reference.venue, "authors": authors})  # fmt: skip
    return wid


def _complete(props: dict[str, object], title: str, more: dict[str, str | None]) -> None:
    for name in ("doi", "arxiv", "venue"):
        if more.get(name) and not props.get(name):
            props[name] = more[name]
    authors = more.get("authors")
    if authors and len(authors) > len(str(props.get("authors") or "")):
        props["authors"] = authors
    if title and props.get("untitled"):
        props["title"] = title
        del props["untitled"]


def _untitled(reference: Reference) -> str:
    """What stands for the title of a reference that prints none: its text, without its number."""
    text = re.sub(r"^\s*(?:\[\d+\]|\d+[.)])\s*", "", reference.raw)
    return text[:160]


def merge_variants(nodes: Nodes, edges: dict[tuple[str, str, str], V]) -> int:
    """Join the nodes of one work that keys kept apart (see the module docstring); the number joined. The
    node most papers cite speaks for the work."""
    citing: dict[str, list[tuple[str, str, str]]] = defaultdict(list)
    for key in edges:
        if key[2].startswith("work:"):
            citing[key[2]].append(key)
    by_author_year: dict[tuple[str, int], list[Node]] = defaultdict(list)
    for node in nodes.values():
        first, year = ascii_key(str(node.props.get("first_author") or "")), node.props.get("year")
        if node.kind is NodeKind.EXTERNAL_WORK and first and isinstance(year, int):
            by_author_year[(first, year)].append(node)
    joined = 0
    for group in by_author_year.values():
        for variants in _one_work_groups(group):
            keep, *others = sorted(
                variants, key=lambda n: (-len(citing[n.id]), bool(n.props.get("untitled")), n.id)
            )
            for other in others:
                _join(nodes, edges, citing, keep, other)
                joined += 1
    return joined


def _one_work_groups(group: list[Node]) -> list[list[Node]]:
    """The works among one author's entries of one year: titles alike form one; untitled entries join the
    titled work when there is just one (else which they are is unknown)."""
    works: list[list[Node]] = []
    for node in sorted((n for n in group if not n.props.get("untitled")), key=lambda n: n.id):
        home = next((w for w in works if fuzz.ratio(_form(node), _form(w[0])) >= SAME_TITLE), None)
        if home is None:
            works.append([node])
        else:
            home.append(node)
    if len(works) == 1:
        works[0] += sorted((n for n in group if n.props.get("untitled")), key=lambda n: n.id)
    return [w for w in works if len(w) > 1]


def _form(node: Node) -> str:
    return title_form(str(node.props.get("title") or ""))


def _join(
    nodes: Nodes,
    edges: dict[tuple[str, str, str], V],
    citing: dict[str, list[tuple[str, str, str]]],
    keep: Node,
    other: Node,
) -> None:
    """Move ``other``'s citations to ``keep`` (a paper citing both keeps its first edge) and drop it."""
    for key in citing.pop(other.id, []):
        props = edges.pop(key)
        moved = (key[0], key[1], keep.id)
        if moved not in edges:
            edges[moved] = props
            citing[keep.id].append(moved)
    found = other.props
    title = "" if found.get("untitled") else str(found.get("title") or "")
    _complete(
        keep.props, title, {name: _text(found.get(name)) for name in ("doi", "arxiv", "venue", "authors")}
    )
    del nodes[other.id]


def _text(value: object) -> str | None:
    return str(value) if value else None
