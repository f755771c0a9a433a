"""GraphML export of (part of) the knowledge graph, loadable by networkx, Gephi, Cytoscape and yEd."""

from __future__ import annotations

import io
from collections import Counter
from collections.abc import Collection

from agent_zot.graph.model import GraphData, NodeKind, paper_id
from agent_zot.graph.store import GraphStore

DEFAULT_MAX_NODES = 5000


def select_subgraph(
    store: GraphStore,
    *,
    item_keys: Collection[str] | None,
    kinds: Collection[NodeKind],
    max_nodes: int = DEFAULT_MAX_NODES,
) -> GraphData:
    """Nodes of ``kinds`` (the given papers and their direct neighbours, or the whole graph) and the edges
    among them; past ``max_nodes`` the best-connected nodes are kept (papers in scope always first)."""
    wanted = set(kinds)
    if item_keys is None:
        nodes = [n for kind in wanted for n in store.find_nodes(kind, limit=10**9)]
        scope: set[str] = {n.id for n in nodes if n.kind is NodeKind.PAPER}
    else:
        scope = {paper_id(k) for k in item_keys}
        around = store.neighbourhood(sorted(scope), hops=1, limit=10**9)
        nodes = [n for n in around.nodes if n.kind in wanted]
    ids = {n.id for n in nodes}
    edges = [e for e in store.edges_of(sorted(ids)) if e.source in ids and e.target in ids]
    if len(nodes) > max_nodes:
        degree = Counter(x for e in edges for x in (e.source, e.target))
        nodes = sorted(nodes, key=lambda n: (n.id not in scope, -degree[n.id], n.id))[:max_nodes]
        ids = {n.id for n in nodes}
        edges = [e for e in edges if e.source in ids and e.target in ids]
    return GraphData(nodes, edges)


def to_graphml(data: GraphData) -> str:
    """GraphML text: node attribute ``kind`` and ``label`` plus the node's properties; edges carry
    ``kind`` and their properties. Lists become "; "-joined text (GraphML has no list type)."""
    import networkx as nx  # loaded by an export, not by every process that imports the export service

    graph = nx.MultiDiGraph()
    for node in data.nodes:
        graph.add_node(node.id, kind=node.kind.value, label=node.name, **_attributes(node.props))
    for edge in data.edges:
        graph.add_edge(
            edge.source, edge.target, key=edge.kind.value, kind=edge.kind.value, **_attributes(edge.props)
        )
    buffer = io.BytesIO()
    nx.write_graphml(graph, buffer, encoding="utf-8", named_key_ids=True)
    return buffer.getvalue().decode("utf-8")


def _attributes(props: dict[str, object]) -> dict[str, str | int | float | bool]:
    out: dict[str, str | int | float | bool] = {}
    for key, value in props.items():
        if value is None or key in ("kind", "label"):
            continue
        if isinstance(value, list | tuple):
            out[key] = "; ".join(str(v) for v in value)
        elif isinstance(value, str | int | float | bool):
            out[key] = value
        else:
            out[key] = str(value)
    return out
