"""MCP prompts: the research workflows an assistant runs with this library, each a short plan naming the
tool calls it expects. Text only: the tools do the work, the assistant does the writing.

No `from __future__ import annotations` here: fastmcp reads the parameters' annotations as objects, and
annotates every argument that is not plainly `str` with a JSON-schema note the client pays for in tokens.
"""

import json
import logging
from typing import Any

from fastmcp import FastMCP
from fastmcp.exceptions import PromptError
from fastmcp.prompts import PromptResult
from fastmcp.prompts.function_prompt import FunctionPrompt


class WorkflowPrompt(FunctionPrompt):
    """A prompt whose missing or blank required arguments get a clear error: fastmcp's own check raises a
    plain ValueError, which the server masks as "Error rendering prompt", and it accepts blank text."""

    async def render(self, arguments: dict[str, Any] | None = None) -> PromptResult:
        given = arguments or {}
        for argument in self.arguments or []:
            if argument.required and not str(given.get(argument.name) or "").strip():
                raise PromptError(
                    f"The prompt {self.name!r} needs {argument.name!r} (it is missing or blank): "
                    f"{argument.description}",
                    log_level=logging.DEBUG,  # the caller's to fix, not a server fault
                )
        return await super().render(arguments)


def _q(text: str) -> str:
    """A user's words as a quoted argument value (quotes and newlines escaped)."""
    return json.dumps(text.strip(), ensure_ascii=False)


def literature_review(topic: str, collection: str = "") -> str:
    """Literature review of a topic.

    Args:
        topic: The topic or research question.
        collection: Only papers in this collection (name, path or key).
    """
    scope = f", collection={_q(collection)}" if collection.strip() else ""
    where = f" (collection {_q(collection)})" if scope else ""
    return (
        f"Write a literature review of {_q(topic)} from my Zotero library{where}. Cite only what the tools "
        "return, as [KEY, p. N].\n"
        f"1. zot_search(query={_q(topic)}, limit=15{scope}): the candidate papers.\n"
        '2. For the 3-6 most relevant: zot_summarize(item_key=KEY, force_mode="comprehensive"): question, '
        "method, findings, limitations.\n"
        '3. zot_explore_graph(item_key=KEY, force_mode="related") and zot_explore_graph(item_key=KEY, '
        'force_mode="citation"): how they connect, and relevant papers step 1 missed.\n'
        "4. Write the review by theme (agreements, disagreements, open questions); say where the library is "
        "thin.\n"
        '5. zot_export(item_keys=[the cited keys], path="review.bib") for the bibliography, or '
        'path="review.md" for reading notes.'
    )


def check_citations(draft: str) -> str:
    """Check a draft's citations.

    Args:
        draft: The draft text with its citations (Markdown/Pandoc, LaTeX or plain).
    """
    return (
        "Check the citations in my draft (below) against my Zotero library.\n"
        '1. zot_summarize(force_mode="audit", draft=<the draft, verbatim>).\n'
        "2. Work through the report's problems: replace wrong or unknown keys with the item it proposes, "
        "correct page numbers, fix quotations the source does not contain; for claims it flags as unsupported "
        'or uncited, look for support with zot_search(query=<the claim>, force_mode="evidence") or say there '
        "is none.\n"
        "3. Give me the corrected sentences. For a draft file, `agent-zot audit DRAFT --patch fixes.diff` "
        "writes the key and page fixes as a diff to review.\n"
        f'Draft:\n"""\n{draft.strip()}\n"""'
    )


def sceptical_review(claims: str) -> str:
    """Sceptical reviewer over a set of claims.

    Args:
        claims: The claims to test, one per line.
    """
    lines = [line.strip() for line in claims.splitlines() if line.strip()]
    return (
        "Review these claims as a sceptical reviewer, with evidence from my Zotero library only.\n"
        '1. For each claim: zot_search(query=<the claim>, force_mode="evidence"). Judge each numbered '
        "passage (supports / contradicts / unrelated, a one-line reason); weigh how direct each is.\n"
        '2. zot_export(force_mode="review", draft=<the claims, one per line>, verdicts=<your verdicts, each '
        'with its claim>, path="review.md") checks your verdicts and writes the review package.\n'
        "3. Per claim: a verdict (supported / contested / unsupported), the best evidence each way as "
        "[KEY, p. N], and what evidence is missing.\n"
        f"Claims ({len(lines)}):\n" + "\n".join(lines)
    )


def what_to_read_next(topic: str = "", collection: str = "") -> str:
    """What to read next.

    Args:
        topic: Focus on this topic or concept.
        collection: Start from this collection (name, path or key).
    """
    field = topic.strip() or collection.strip()
    concept = f", concept={_q(field)}" if field else ""
    focus = "".join(
        [
            f" on {_q(topic)}" if topic.strip() else "",
            f" given my collection {_q(collection)}" if collection.strip() else "",
        ]
    )
    steps = [f"Suggest what I should read next{focus}."]
    if collection.strip():
        steps.append(
            f'0. zot_manage_collections(collection={_q(collection)}, force_mode="show_items"): what I have there.'
        )
    steps += [
        f'1. zot_explore_graph(force_mode="influence"{concept}, limit=15): the most influential papers and the '
        "most cited works I do not have.\n"
        '2. For the 2-3 most central papers I have: zot_explore_graph(item_key=KEY, force_mode="related"): '
        "close work, and gaps between my papers.\n"
        "3. Recommend 5-10 readings, works I do not have first (the reference as the tool gives it, and which "
        "of my papers cite it); one line each on why. Do not invent works the tools did not return."
    ]
    return "\n".join(steps)


PROMPTS = (
    (
        literature_review,
        "Literature review of a topic: search, summarize the top papers, map the graph, export.",
    ),
    (check_citations, "Audit a draft's citations (keys, pages, quotations, support, missing citations)."),
    (sceptical_review, "Sceptical reviewer: evidence for and against each claim, then a review package."),
    (what_to_read_next, "What to read next: influential works you lack and related papers, by topic."),
)


def register_prompts(server: FastMCP) -> None:
    for function, description in PROMPTS:
        server.add_prompt(WorkflowPrompt.from_function(function, description=description))
