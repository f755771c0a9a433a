"""`zot_export`: write a file in the export folder: BibTeX, CSL-JSON, Markdown, GraphML, annotations, a
review matrix (services/matrix/file.py) or a review package of a draft's claims (services/audit/review.py)."""

from __future__ import annotations

from agent_zot.errors import InvalidArgumentError, NotFoundError
from agent_zot.services.catalog import ExportRequest
from agent_zot.services.context import AppContext
from agent_zot.services.export.annotations_file import default_name as annotations_file_name
from agent_zot.services.export.files import GraphExport, export
from agent_zot.services.export_target import format_for, write_review
from agent_zot.services.resolve.named import paper_to_export
from agent_zot.services.resolve.papers import resolved_record
from agent_zot.services.resolve.scope import LibraryScope
from agent_zot.services.response import ToolResponse, plural, with_route
from agent_zot.services.routing import Route


def handle(ctx: AppContext, req: ExportRequest, decision: Route) -> ToolResponse:
    """Export to a file. ``search`` scopes by metadata words; the query's own words are not used as a
    filter (they usually just describe the request), only the collection and keys found in it, and the
    one paper it names ("export Lo et al. 2020 to BibTeX")."""
    fmt = req.force_mode or decision.mode
    if fmt == "review":
        return with_route(_review(ctx, req), decision)
    if fmt == "matrix":
        from agent_zot.services.matrix.file import (
            export_matrix,  # the index stack loads on the first call
        )

        return with_route(export_matrix(ctx, req, decision.params), decision)
    graphml = format_for(req.path, fmt) == "graphml"
    match = None
    if not (req.item_keys or req.collection or req.search or req.tags) and not graphml:
        match = paper_to_export(ctx.library(), req.query, decision.params)
    keys = (match.item.key,) if match is not None else tuple(req.item_keys or ())
    scope = LibraryScope.of(item_keys=keys, collection=req.collection, search=req.search, tags=req.tags)
    graph = None
    if graphml:
        from agent_zot.graph.graphml import DEFAULT_MAX_NODES

        graph = GraphExport(
            ctx.graph().store, tuple(req.node_types or ()), req.max_nodes or DEFAULT_MAX_NODES
        )
    path = req.path
    if fmt == "annotations" and not path:  # "… as JSON" with no file name: a .json file
        path = annotations_file_name(scope, req.query)
    response = export(
        ctx.library(), ctx.settings, path=path, fmt=fmt, scope=scope, overwrite=req.overwrite, graph=graph
    )
    if match is not None:
        response.data["resolved"] = resolved_record(match)
    return with_route(response, decision)


def _review(ctx: AppContext, req: ExportRequest) -> ToolResponse:
    from agent_zot.services.audit.review import build_review  # the index stack loads here
    from agent_zot.services.query_text import NO_INDEX

    has_draft = bool(req.draft and req.draft.strip())
    if not has_draft and not any(v.claim and v.claim.strip() for v in req.verdicts or ()):
        raise InvalidArgumentError(
            "The review package needs the draft (or the claims) to review.",
            hint="Pass draft='<the draft text>' or draft='claim one\nclaim two' (or name each verdict's claim).",
        )
    if not ctx.index_ready():
        raise NotFoundError(NO_INDEX, hint="The review package gathers evidence from the indexed passages.")
    body, counts = build_review(ctx, req.draft if has_draft else None, verdicts=list(req.verdicts or ()))
    target = write_review(ctx.settings, req.path, body, overwrite=req.overwrite)
    questions = counts["with_open_questions"]
    text = (
        f"Wrote a review package of {plural(counts['packaged'], 'claim')} ({questions} with open questions, "
        f"{counts['failed_citations']} with failed citations) to {target}. {counts['judged_by']}"
    )
    failed = [c for c in counts.get("verdict_checks", []) if c["status"] != "verified"]
    if failed:
        text += "\nNot checked out (fix and export again with overwrite=true):"
        text += "".join(
            f"\n- verdict {c['n']} [{c['item_key']} p. {c['page']}]: {c['reason']}" for c in failed
        )
    return ToolResponse(
        text + "\nHand that file to a reviewer.",
        {"format": "review", "path": str(target), "files": [str(target)], **counts},
    )
