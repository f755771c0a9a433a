"""`zot_summarize`: one paper at the depth the request asks for (summarize/paper.py), the same questions of
many papers (`matrix`, services/matrix/), or a draft's claims and citations checked (`audit`,
services/audit/). The index stack loads on the first call, not at startup."""

from __future__ import annotations

from agent_zot.errors import InvalidArgumentError
from agent_zot.services.catalog import SummarizeRequest
from agent_zot.services.context import AppContext
from agent_zot.services.response import ToolResponse, with_route
from agent_zot.services.routing import Route

# The request fields that say which papers a matrix covers and which questions it asks.
_MATRIX_FIELDS = {"questions", "collection", "tags", "item_keys", "search", "offset"}


def handle(ctx: AppContext, req: SummarizeRequest, decision: Route) -> ToolResponse:
    if decision.mode == "audit":
        return with_route(_audit(ctx, req), decision)
    if decision.mode == "matrix":
        from agent_zot.services.matrix.build import run_matrix

        arguments = req.model_dump(include=_MATRIX_FIELDS)
        matrix = run_matrix(ctx, decision.params, req.query, max_tokens=req.max_tokens, **arguments)
        return with_route(matrix, decision)
    from agent_zot.services.summarize.paper import run_summarize

    response = run_summarize(
        ctx,
        decision,
        req.query,
        item_key=req.item_key,
        pages=req.pages,
        offset=req.offset,
        max_tokens=req.max_tokens,
        figure=req.figure,
    )
    return with_route(response, decision)


def _audit(ctx: AppContext, req: SummarizeRequest) -> ToolResponse:
    if not req.draft or not req.draft.strip():
        raise InvalidArgumentError(
            "The audit needs the draft's text.",
            hint="Pass draft='<the draft: Markdown, LaTeX or plain text>' (the CLI takes a file: "
            "agent-zot audit DRAFT).",
        )
    from agent_zot.services.audit.audit_draft import audit_draft
    from agent_zot.services.audit.report import response

    return response(audit_draft(ctx, req.draft))
