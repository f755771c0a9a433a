"""Write BibTeX, CSL-JSON or Markdown files for part of the library, only where the user allows."""

from __future__ import annotations

import json
import os
import re
import tempfile
from collections import Counter
from dataclasses import dataclass
from datetime import date
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
from agent_zot.services.notes.annotations import resolve_tags
from agent_zot.services.resolve.library import resolve_collection
from agent_zot.services.response import ToolResponse, clip
from agent_zot.services.scope.match import match_items
from agent_zot.zotero.copies import paper_key
from agent_zot.zotero.models import Item, Library

FORMAT_EXTENSIONS = {
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".json": "csljson",
    ".csljson": "csljson",
    ".md": "markdown",
    ".markdown": "markdown",
    ".graphml": "graphml",
    ".csv": "annotations",  # annotations and notes as rows; their .json comes with the annotations mode
}
DEFAULT_EXTENSION = {"bibtex": ".bib", "csljson": ".json", "markdown": ".md", "graphml": ".graphml"}


@dataclass(frozen=True, slots=True)
class ExportScope:
    item_keys: tuple[str, ...] = ()
    collection: str | None = None
    query: str | None = None
    tags: tuple[str, ...] = ()  # items with any of these (annotations: their own tag or their paper's)

    def describe(self) -> str:
        parts = []
        if self.collection:
            parts.append(f"collection {self.collection!r}")
        if self.item_keys:
            parts.append(f"{len(self.item_keys)} listed items")
        if self.query:
            parts.append(f"items matching {self.query!r}")
        if self.tags:
            parts.append("items tagged " + " or ".join(self.tags))
        return " and ".join(parts) or "the whole library"


def format_for(path: str | None, requested: str | None) -> str:
    """The export format: the file extension decides; else the requested format; else BibTeX."""
    if path:
        suffix = Path(path).suffix.lower()
        if suffix in FORMAT_EXTENSIONS:
            return FORMAT_EXTENSIONS[suffix]
    return requested or "bibtex"


def select_items(library: Library, scope: ExportScope) -> list[Item]:
    items = list(library.items.values())
    if scope.item_keys:
        wanted = [k.strip().upper() for k in scope.item_keys if k.strip()]
        unknown = [k for k in wanted if k not in library.items]
        if unknown:
            raise NotFoundError(
                f"No item with key(s) {', '.join(unknown)} in this library.",
                hint="Nothing was exported. Check the keys (they look like ABCD2345).",
            )
        items = [library.items[k] for k in dict.fromkeys(wanted)]
    if scope.collection:
        collection = resolve_collection(library, scope.collection)
        below = _collection_and_children(library, collection.key)
        items = [i for i in items if below.intersection(i.collection_keys)]
    if scope.query:
        items = match_items(items, scope.query)
    if scope.tags:
        wanted_tags = {t.casefold() for t in resolve_tags(library, scope.tags)}
        items = [i for i in items if any(t.name.casefold() in wanted_tags for t in i.tags)]
    return items


def _collection_and_children(library: Library, key: str) -> set[str]:
    found, stack = set(), [key]
    while stack:
        current = stack.pop()
        if current in found or current not in library.collections:
            continue
        found.add(current)
        stack.extend(library.collections[current].child_keys)
    return found


MAX_NAME_CHARS = 255  # one path component, as most file systems allow


def _process_umask() -> int:
    current = os.umask(0o022)  # read it once, at import (setting it briefly is unsafe once threads run)
    os.umask(current)
    return current


_UMASK = _process_umask()


def check_path(path: str) -> None:
    """Refuse what no file system takes or what agent-zot cannot write, before touching the disk."""
    shown = clip(path, 80)
    if "\x00" in path:
        raise InvalidArgumentError(
            f"The path {shown!r} contains a NUL character.", hint="Give a plain file name."
        )
    longest = max((len(part) for part in re.split(r"[\\/]", path)), default=0)
    if longest > MAX_NAME_CHARS:
        raise InvalidArgumentError(
            f"A file or folder name in {shown!r} is {longest} characters long; the limit is {MAX_NAME_CHARS}.",
            hint="Use a shorter name.",
        )
    suffix = Path(path.strip()).suffix.lower()
    if suffix and suffix not in FORMAT_EXTENSIONS and not path.rstrip().endswith(("/", os.sep)):
        raise InvalidArgumentError(
            f"agent-zot does not write {suffix} files.",
            hint="Use .bib (BibTeX), .json (CSL-JSON), .md (Markdown), .csv (annotations) or .graphml, or "
            "a folder name ending in / for one Markdown file per item.",
        )


def resolve_target(settings: Settings, path: str | None, fmt: str, scope: ExportScope) -> Path:
    """Where to write: under export_dir, unless absolute paths are explicitly allowed."""
    if path:
        check_path(path)
    export_dir = settings.export_dir.expanduser().resolve()
    raw = path.strip() if path else _default_name(scope, fmt)
    candidate = Path(raw).expanduser()
    target = (candidate if candidate.is_absolute() else export_dir / candidate).resolve()
    if not target.is_relative_to(export_dir) and not settings.allow_absolute_export_paths:
        raise ExportError(
            f"Refusing to write {target}: it is outside the export folder {export_dir}.",
            hint="Use a path relative to the export folder, or set allow_absolute_export_paths = true "
            "(AGENT_ZOT_ALLOW_ABSOLUTE_EXPORT_PATHS) to allow other locations.",
        )
    return target


def _default_name(scope: ExportScope, fmt: str) -> str:
    label = scope.collection or (scope.query if scope.query else "library")
    slug = re.sub(r"[^\w]+", "-", label.casefold()).strip("-")[:60] or "export"
    return f"{slug}-{date.today():%Y%m%d}{DEFAULT_EXTENSION[fmt]}"


def export(
    library: Library,
    settings: Settings,
    *,
    path: str | None,
    fmt: str | None,
    scope: ExportScope,
    overwrite: bool = False,
    graph: GraphExport | None = None,
) -> ToolResponse:
    if path:
        check_path(path)
    fmt = fmt if fmt == "annotations" else format_for(path, fmt)
    if fmt == "annotations":  # rows of annotations and notes; .csv or .json
        from agent_zot.services.export.annotations import export_annotations

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
    items = select_items(library, scope)
    if not scope.item_keys:  # a file without a record is no reference (Zotero's exports skip them too)
        items = [i for i in items if i.item_type != "attachment"]
    if not items:
        raise NotFoundError(
            f"Nothing to export: {scope.describe()} has no items.",
            hint="Check the collection, keys or query; nothing was written.",
        )
    target = resolve_target(settings, path, fmt, scope)
    per_item = fmt == "markdown" and (target.suffix == "" or (path or "").endswith(("/", os.sep)))
    keys = bibtex_keys(items)
    written = (
        _write_per_item(library, items, keys, target, overwrite)
        if per_item
        else [_write_one(target, _render(library, items, keys, fmt), overwrite)]
    )
    where = f"{len(written)} files in {target}" if per_item else str(target)
    return ToolResponse(
        f"Exported {len(items)} items ({scope.describe()}) as {fmt} to {where}.",
        {
            "format": fmt,
            "path": str(target),
            "files": [str(p) for p in written],
            "count": len(items),
            "item_keys": [i.key for i in items],
            "citation_keys": keys,
        },
    )


def write_review(settings: Settings, path: str | None, body: str, *, overwrite: bool) -> Path:
    """Write a review package (Markdown) under the export folder."""
    if path and Path(path.strip()).suffix.lower() not in ("", ".md", ".markdown"):
        raise InvalidArgumentError(
            f"A review package is Markdown; {Path(path).suffix} does not fit.", hint="Name it e.g. review.md."
        )
    target = resolve_target(settings, path or f"review-{date.today():%Y%m%d}.md", "markdown", ExportScope())
    if target.suffix == "":
        target = target.with_suffix(".md")
    return _write_one(target, body, overwrite)


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
    scope: ExportScope,
    overwrite: bool,
    graph: GraphExport,
) -> ToolResponse:
    kinds = _node_kinds(graph.node_types)
    whole = not (scope.item_keys or scope.collection or scope.query or scope.tags)
    keys = None if whole else [paper_key(library, i.key) for i in select_items(library, scope)]
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
    written = _write_one(target, to_graphml(data), overwrite)
    by_kind = Counter(n.kind.value for n in data.nodes)
    return ToolResponse(
        f"Exported a graph of {len(data.nodes)} nodes and {len(data.edges)} edges ({scope.describe()}) as "
        f"GraphML to {written} — " + ", ".join(f"{v} {k}" for k, v in sorted(by_kind.items())) + ".",
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
        _write_one(p, item_markdown(item, library, key=keys[item.key]), True) for p, item in files.items()
    ]


def _write_one(target: Path, content: str, overwrite: bool) -> Path:
    if target.exists() and not overwrite:
        raise ExportError(
            f"{target} already exists.", hint="Pass overwrite=true to replace it, or pick another name."
        )
    if target.exists() and target.is_dir():
        raise ExportError(f"{target} is a folder.", hint="Give a file name such as refs.bib.")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Write beside the target and rename, so a failed export never leaves half a file behind.
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".agent-zot-", suffix=target.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
        # mkstemp makes the file private (0600); an export is an ordinary file, readable as the umask allows.
        Path(tmp).chmod(0o666 & ~_UMASK)
        Path(tmp).replace(target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ExportError(f"Could not write {target}: {exc.strerror or exc}.") from exc
    return target
