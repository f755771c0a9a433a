"""The reading gap: works the library's papers cite that the library does not hold, by how many of its papers
(or of a collection's, a tag's, a topic's) cite them, with their identifiers; and, plainly, when no such
work is cited twice or none was parsed at all."""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from agent_zot.graph.model import EdgeKind
from agent_zot.graph.store import GraphStore
from agent_zot.services.resolve.graph import Field
from agent_zot.services.response import ToolResponse, plural

SHOWN_ONCE = 5  # when nothing is cited twice: how many of the once-cited works to name


def reading_gap(store: GraphStore, field: Field | None, *, limit: int) -> ToolResponse:
    """External works ranked by how many papers in scope cite them (ties: the newer first)."""
    citing: dict[str, set[str]] = defaultdict(set)
    scope = field.paper_ids if field is not None else None
    papers_with_references: set[str] = set()
    for edge in store.all_edges([EdgeKind.CITES]):
        if scope is not None and edge.source not in scope:
            continue
        papers_with_references.add(edge.source)
        if edge.target.startswith("work:"):
            citing[edge.target].add(edge.source)
    where = f" ({field.description})" if field is not None else ""
    if not citing:
        return _nothing_cited(field, len(papers_with_references))
    nodes = {n.id: n for n in store.get_nodes(sorted(citing))}
    ranked = sorted(citing, key=lambda w: (-len(citing[w]), -_year(nodes.get(w)), w))
    twice = [w for w in ranked if len(citing[w]) >= 2]
    rows = [_row(nodes[w], citing[w]) for w in (twice or ranked[:SHOWN_ONCE])[:limit] if w in nodes]
    count = plural(len(papers_with_references), "paper")
    if twice:
        lines = [
            f"Works your papers cite that are not in your library{where}, by how many of your {count} with "
            f"references cite them ({plural(len(citing), 'work')} in all):"
        ]
        lines += [_line(row) for row in rows]
        if len(twice) > limit:
            lines.append(f"… {len(twice) - limit} more cited by two or more (raise limit)")
    else:
        lines = [
            f"No work outside your library is cited by two or more of your papers{where}: each of the "
            f"{plural(len(citing), 'work')} your {count} cite is cited once. The newest of them:"
        ]
        lines += [_line(row) for row in rows]
    return ToolResponse(
        "\n".join(lines),
        {
            "missing": rows,
            "cited_twice_or_more": len(twice),
            "works": len(citing),
            "papers_with_references": len(papers_with_references),
            "field": field.description if field is not None else None,
        },
    )


def _nothing_cited(field: Field | None, with_references: int) -> ToolResponse:
    """No external work in scope: say whether reference lists were read at all, and where to look."""
    where = f" ({field.description})" if field is not None else ""
    if with_references:
        text = (
            f"No work outside your library is named in the reference lists of your "
            f"{plural(with_references, 'paper')} that have them{where}: every work they cite is in your library."
        )
    else:
        text = (
            f"No reference list was read from your papers{where}, so no work outside your library is known. "
            "References are read from the PDFs' full text: run `agent-zot update-db` with full text, or check "
            "that these papers have PDFs."
        )
    data = {
        "missing": [],
        "papers_with_references": with_references,
        "field": field.description if field is not None else None,
    }
    return ToolResponse(text, data)


def _year(node: Any) -> int:
    year = node.props.get("year") if node is not None else None
    return year if isinstance(year, int) else 0


def _row(node: Any, citing: set[str]) -> dict[str, Any]:
    props = node.props
    names = [a.strip() for a in str(props.get("authors") or props.get("first_author") or "").split(";")]
    names = [n for n in names if n]
    row: dict[str, Any] = {
        "title": props.get("title") or node.name,
        "year": props.get("year"),
        "authors": names,
        "cited_by": len(citing),
        "citing_keys": sorted(p.removeprefix("paper:") for p in citing),
    }
    for name in ("doi", "arxiv"):
        if props.get(name):
            row[name] = props[name]
    return row


def _line(row: dict[str, Any]) -> str:
    names = row["authors"]
    who = (names[0] + (" et al." if len(names) > 1 else "") + " ") if names else ""
    year = f"({row['year']}) " if row["year"] else ""
    ids = f" doi:{row['doi']}" if row.get("doi") else f" arXiv:{row['arxiv']}" if row.get("arxiv") else ""
    keys = ", ".join(row["citing_keys"][:6]) + (" …" if len(row["citing_keys"]) > 6 else "")
    return f"  {who}{year}{row['title']}{ids} — cited by {row['cited_by']}: {keys}"
