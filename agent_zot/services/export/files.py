"""Write BibTeX, CSL-JSON or Markdown files for part of the library, only where the user allows."""

from __future__ import annotations

import json
import os
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from agent_zot.config import Settings
from agent_zot.errors import ExportError, InvalidArgumentError, NotFoundError
from agent_zot.formats import (
    bibtex_keys,
    item_markdown,
    markdown_filename,
    to_bibtex,
    to_csl_json,
    to_markdown_single,
)
from agent_zot.graph.graphml import DEFAULT_MAX_NODES, select_subgraph, to_graphml
from agent_zot.graph.model import NodeKind
from agent_zot.graph.store import GraphStore
from agent_zot.services.export_target import (
    DEFAULT_EXTENSION,
    check_path,
    format_for,
    resolve_target,
    write_file,
)
from agent_zot.services.resolve.scope import LibraryScope, without_note
from agent_zot.services.response import ToolResponse
from agent_zot.zotero.copies import paper_key
from agent_zot.zotero.models import Item, Library


def export(
    library: Library,
    settings: Settings,
    *,
    path: str | None,
    fmt: str | None,
    scope: LibraryScope,
    overwrite: bool = False,
    graph: GraphExport | None = None,
) -> ToolResponse:
    if path:
        check_path(path)
    fmt = fmt if fmt == "annotations" else format_for(path, fmt)
    if fmt == "annotations":  # rows of annotations and notes; .csv or .json
        from agent_zot.services.export.annotations_file import export_annotations

        return export_annotations(library, settings, path=path, scope=scope, overwrite=overwrite)
    if fmt == "graphml":
        if graph is None:
            raise ExportError(
                "GraphML export needs the knowledge graph.", hint="Run `agent-zot update-db` first."
            )
        return _export_graph(library, settings, path=path, scope=scope, overwrite=overwrite, graph=graph)
    if fmt not in DEFAULT_EXTENSION:
        raise InvalidArgumentError(
            f"Unknown export format {fmt!r}.",
            hint="Use bibtex, csljson or markdown, or a .bib/.json/.md file name.",
        )
    items, filters = scope.select(library)
    if not scope.item_keys:  # a file without a record is no reference (Zotero's exports skip them too)
        items = [i for i in items if i.item_type != "attachment"]
    if not items:
        why = "".join(f" {line}" for line in filters.unmatched)  # a typed tag the library does not have
        raise NotFoundError(
            f"Nothing to export: {scope.describe()} has no items.{why}",
            hint="Check the collection, keys or query; nothing was written.",
        )
    target = resolve_target(settings, path, fmt, scope)
    per_item = fmt == "markdown" and (target.suffix == "" or (path or "").endswith(("/", os.sep)))
    keys = bibtex_keys(items)
    written = (
        _write_per_item(library, items, keys, target, overwrite)
        if per_item
        else [write_file(target, _render(library, items, keys, fmt), overwrite)]
    )
    where = f"{len(written)} files in {target}" if per_item else str(target)
    left_out = f"\n{without_note('Exported', filters.left_out)}" if filters.left_out else ""
    return ToolResponse(
        f"Exported {len(items)} items ({scope.describe()}) as {fmt} to {where}.{left_out}",
        {
            "format": fmt,
            "path": str(target),
            "files": [str(p) for p in written],
            "count": len(items),
            "item_keys": [i.key for i in items],
            "citation_keys": keys,
        },
    )


@dataclass(frozen=True, slots=True)
class GraphExport:
    """The graph to export from, which node kinds, and at most how many nodes."""

    store: GraphStore
    node_types: tuple[str, ...] = ()
    max_nodes: int = DEFAULT_MAX_NODES


def _export_graph(
    library: Library,
    settings: Settings,
    *,
    path: str | None,
    scope: LibraryScope,
    overwrite: bool,
    graph: GraphExport,
) -> ToolResponse:
    kinds = _node_kinds(graph.node_types)
    whole = scope.empty
    items, filters = ([], None) if whole else scope.select(library)
    keys = None if whole else [paper_key(library, i.key) for i in items]
    if keys == []:
        raise NotFoundError(
            f"Nothing to export: {scope.describe()} has no items.", hint="Nothing was written."
        )
    data = select_subgraph(graph.store, item_keys=keys, kinds=kinds, max_nodes=graph.max_nodes)
    if not data.nodes:
        raise NotFoundError(
            "The knowledge graph has no nodes to export.", hint="Build it with `agent-zot update-db`."
        )
    target = resolve_target(settings, path, "graphml", scope)
    written = write_file(target, to_graphml(data), overwrite)
    by_kind = Counter(n.kind.value for n in data.nodes)
    return ToolResponse(
        f"Exported a graph of {len(data.nodes)} nodes and {len(data.edges)} edges ({scope.describe()}) as "
        f"GraphML to {written} — "
        + ", ".join(f"{v} {k}" for k, v in sorted(by_kind.items()))
        + "."
        + (f"\n{without_note('Exported', filters.left_out)}" if filters and filters.left_out else ""),
        {
            "format": "graphml",
            "path": str(written),
            "files": [str(written)],
            "nodes": len(data.nodes),
            "edges": len(data.edges),
            "node_kinds": dict(by_kind),
        },
    )


def _node_kinds(names: tuple[str, ...]) -> list[NodeKind]:
    if not names:
        return list(NodeKind)
    by_name = {k.value.casefold(): k for k in NodeKind} | {k.name.casefold(): k for k in NodeKind}
    unknown = [n for n in names if n.casefold().rstrip("s") not in by_name and n.casefold() not in by_name]
    if unknown:
        raise InvalidArgumentError(
            f"Unknown node type(s): {', '.join(unknown)}.",
            hint="Use: " + ", ".join(k.value for k in NodeKind) + ".",
        )
    return [by_name.get(n.casefold(), by_name.get(n.casefold().rstrip("s"))) for n in names]  # type: ignore[misc]


def _render(library: Library, items: list[Item], keys: dict[str, str], fmt: str) -> str:
    if fmt == "bibtex":
        return to_bibtex(items, keys)
    if fmt == "csljson":
        return json.dumps(to_csl_json(items, keys), ensure_ascii=False, indent=2) + "\n"
    return to_markdown_single(items, library, keys)


def _write_per_item(
    library: Library, items: list[Item], keys: dict[str, str], folder: Path, overwrite: bool
) -> list[Path]:
    files = {folder / markdown_filename(item, keys[item.key]): item for item in items}
    existing = [p for p in files if p.exists()]
    if existing and not overwrite:
        raise ExportError(
            f"{len(existing)} of the files already exist in {folder} (e.g. {existing[0].name}).",
            hint="Pass overwrite=true to replace them, or choose another folder. Nothing was written.",
        )
    return [
        write_file(p, item_markdown(item, library, key=keys[item.key]), True) for p, item in files.items()
    ]
