"""`agent-zot status`: what library is in use and what it holds."""

from __future__ import annotations

from typing import Any

from agent_zot.graph.authors import authors_text
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.unread import files_note, partly_read
from agent_zot.services.watch.watcher import update_failure
from agent_zot.state.index import AttachmentRecord
from agent_zot.zotero.models import Library


def library_status(ctx: AppContext) -> dict[str, Any]:
    source = ctx.source()
    library = ctx.library()
    attachments = library.attachments
    with_files = [a for a in attachments if a.path is not None]
    return {
        "library": {
            "path": str(source.db_path),
            "data_dir": str(source.data_dir),
            "found_by": source.how,
            "demo": source.is_demo,
            "schema_version": library.schema_version,
            "libraries": [
                {"id": lib.library_id, "kind": lib.kind, "name": lib.name} for lib in library.libraries
            ],
            "load_seconds": round(ctx.last_load_seconds or 0.0, 4),
        },
        "counts": {
            "items": len(library.items),
            "attachments": len(attachments),
            "attachment_files_present": sum(a.exists for a in attachments),
            "attachment_files_missing": sum(not a.exists for a in with_files),
            "pdfs": sum(a.is_pdf for a in attachments),
            "notes": len(library.notes),
            "annotations": len(library.annotations),
            "collections": len(library.collections),
            "tags": len(library.tag_counts()),
            "in_trash": library.trashed_count,
        },
        "index": index_status(ctx, library),
        "graph": graph_status(ctx),
        "warnings": list(library.warnings),
    }


def index_status(ctx: AppContext, library: Library) -> dict[str, Any]:
    """Read from the state database only: no model or vector store is opened for a status line."""
    running = ctx.rebuild_status()
    status = _live_index_status(ctx, library)
    status["rebuild"] = running.describe() if running else None
    return status


def _live_index_status(ctx: AppContext, library: Library) -> dict[str, Any]:
    from agent_zot.index.integrity import quick_verdict
    from agent_zot.index.owner import OtherLibraryError, check_library

    resources = ctx.index_resources()
    if not resources.exists():
        return {"state": "not built", "detail": "run `agent-zot update-db` to index full text"}
    integrity = quick_verdict(resources)
    if integrity is not None and not integrity.ok:
        return {
            "state": "damaged",
            "detail": f"{integrity.describe()}; a plain `agent-zot update-db` repairs it",
            "integrity": integrity.to_dict(),
        }
    try:
        check_library(resources.state, library)
    except OtherLibraryError as exc:
        return {"state": "built from another library", "detail": str(exc)}
    from agent_zot.index.changes import LIBRARY_STAMP, changed_since_indexed, plan_update
    from agent_zot.index.space import disk_usage

    state = resources.state
    counts = state.counts()
    plan = plan_update(
        library,
        state.item_fingerprints(),
        state.attachment_fingerprints(),
        state.attachments_by_item(),
        changed_since_indexed=changed_since_indexed(state.get_meta(LIBRARY_STAMP), library),
    )
    pending = len(plan.work) + len(plan.removed)
    failure = (
        update_failure(ctx.settings.data_dir, indexed_at=state.get_meta("updated_at")) if pending else None
    )
    return {
        "state": "built",
        "items_indexed": counts.items_indexed,
        "items_pending": pending,
        "update_failing": failure.to_dict() if failure else None,
        "items_failed": counts.items_failed,
        "attachments_failed": counts.attachments_failed,
        "attachments_metadata_only": counts.attachments_skipped,
        "files_unread": [_unread(record) for record in state.unread_files()],
        "files_partly_read": [_partly(record) for record in partly_read(state.indexed_with_reasons())],
        "chunks": counts.chunks,
        "pages": counts.pages,
        "notes_indexed": sum(state.note_counts().values()),  # notes and annotations, for search by meaning
        "model": state.get_meta("model"),
        "store": state.get_meta("store"),
        "updated_at": state.get_meta("updated_at"),
        "disk_bytes": disk_usage(resources.folder),
    }


def graph_status(ctx: AppContext) -> dict[str, Any]:
    """Node and edge counts of the embedded graph (kept current by update-db), and where it is explored."""
    if not ctx.index_resources().exists():
        return {"state": "not built", "store": ctx.settings.graph_store}
    counts = ctx.graph().local.stored_counts()
    if not counts.get("Paper"):
        return {"state": "not built", "store": ctx.settings.graph_store}
    return {"state": "built", "store": ctx.settings.graph_store, "counts": counts}


def format_status(status: dict[str, Any]) -> str:
    lib, counts = status["library"], status["counts"]
    lines = [
        f"Library:     {lib['path']}" + ("  (DEMO — no Zotero library was found)" if lib["demo"] else ""),
        f"Found by:    {lib['found_by']}",
        f"Schema:      userdata {lib['schema_version']}",
        "Libraries:   " + ", ".join(f"{x['name']} ({x['kind']} {x['id']})" for x in lib["libraries"]),
        f"Items:       {counts['items']}  (in trash, hidden: {counts['in_trash']})",
        f"Attachments: {counts['attachments']}  ({counts['pdfs']} PDFs; files present: "
        f"{counts['attachment_files_present']}, missing: {counts['attachment_files_missing']})",
        f"Notes:       {counts['notes']}",
        f"Annotations: {counts['annotations']}",
        f"Collections: {counts['collections']}",
        f"Tags:        {counts['tags']}",
        _index_line(status["index"]),
        _graph_line(status["graph"]),
        f"Read in:     {lib['load_seconds'] * 1000:.0f} ms",
    ]
    lines.extend(f"Warning:     {w}" for w in status["warnings"])
    return "\n".join(lines)


def _graph_line(graph: dict[str, Any]) -> str:
    if graph["state"] != "built":
        return "Graph:       not built — `agent-zot update-db` builds it"
    c = graph["counts"]
    where = "" if graph["store"] == "networkx" else f"; explored in {graph['store']}"
    return (
        f"Graph:       {c.get('Paper', 0)} papers, {authors_text(c.get('Author', 0), c.get('Paper', 0))}, "
        f"{c.get('Concept', 0)} concepts, "
        f"{c.get('ExternalWork', 0)} external works; {c.get('CITES', 0)} citations{where}"
    )


def _index_line(index: dict[str, Any]) -> str:
    rebuild = (
        f"\n             {index['rebuild']}; answers come from the current index until it completes"
        if index.get("rebuild")
        else ""
    )
    return _built_index_line(index) + rebuild


def _unread(record: AttachmentRecord) -> dict[str, Any]:
    """A file an update could not read: whose, and why (indexed from metadata only, or failed)."""
    return {
        "item_key": record.item_key,
        "attachment_key": record.attachment_key,
        "status": "failed" if record.status == "failed" else "metadata only",
        "reason": record.reason or "no text could be read",
    }


def _partly(record: AttachmentRecord) -> dict[str, str]:
    """A file indexed without all its text: whose, and what cut it short."""
    return {
        "item_key": record.item_key,
        "attachment_key": record.attachment_key,
        "reason": record.reason or "",
    }


def _built_index_line(index: dict[str, Any]) -> str:
    if index["state"] != "built":
        return f"Index:       {index['state']} — {index['detail']}"
    failing = index.get("update_failing")
    behind = (
        f"\n             behind Zotero: background updates have failed {failing['attempts']} time(s) since "
        f"{failing['since']}: {failing['reason']} (`agent-zot doctor` checks why)"
        if failing
        else ""
    )
    files = files_note(index.get("files_unread") or [], index.get("files_partly_read") or [])
    return (
        f"Index:       {index['items_indexed']} items indexed, {index['items_pending']} pending, "
        f"{index['items_failed']} failed; {files}{index['chunks']} chunks from {index['pages']} pages; "
        f"{index['notes_indexed']} notes and annotations\n"
        f"             model {index['model']}, store {index['store']}, "
        f"{index['disk_bytes'] / 1e6:.1f} MB, updated {index['updated_at']}{behind}"
    )
