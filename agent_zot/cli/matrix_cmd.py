"""`agent-zot matrix`: the review matrix (zot_summarize mode matrix) at the command line, or written to a
CSV or Markdown file (zot_export mode matrix)."""

from __future__ import annotations

import click

from agent_zot.cli.common import State, _emit, _guard, json_option


@click.command()
@click.option(
    "-q",
    "--question",
    "questions",
    multiple=True,
    required=True,
    help="A column (repeatable), e.g. -q 'sample size'.",
)
@click.option("--collection", default=None, help="Rows: the papers of this collection (and below).")
@click.option("--tag", "tags", multiple=True, help="Rows: papers with this tag (repeatable: any of them).")
@click.option("--item", "item_keys", multiple=True, help="Rows: this item key (repeatable).")
@click.option("--search", default=None, help="Rows: the best papers for these words.")
@click.option("--offset", type=int, default=None, help="Start at this row (the answer names the next one).")
@click.option("--max-tokens", type=int, default=None, help="Size budget of the printed page of rows.")
@click.option(
    "--out",
    "path",
    default=None,
    help="Write every row to this file in the export folder instead: .csv or .md.",
)
@click.option("--overwrite", is_flag=True, help="Replace an existing --out file.")
@json_option
@click.pass_obj
@_guard
def matrix(
    state: State,
    questions: tuple[str, ...],
    collection: str | None,
    tags: tuple[str, ...],
    item_keys: tuple[str, ...],
    search: str | None,
    offset: int | None,
    max_tokens: int | None,
    path: str | None,
    overwrite: bool,
    as_json: bool,
) -> None:
    """The same questions asked of every paper of a collection (or tags, items, a search): one row per
    paper, each cell the best passage with its page, and the value and unit of a number."""
    from agent_zot.services.tools import call

    scope = {
        "collection": collection,
        "tags": list(tags) or None,
        "item_keys": list(item_keys) or None,
        "search": search,
    }
    ctx = state.context()
    try:
        if path is not None:
            response = call(
                ctx,
                "zot_export",
                force_mode="matrix",
                questions=list(questions),
                path=path,
                overwrite=overwrite,
                **scope,
            )
        else:
            response = call(
                ctx,
                "zot_summarize",
                force_mode="matrix",
                questions=list(questions),
                offset=offset,
                max_tokens=max_tokens,
                **scope,
            )
    finally:
        ctx.close()
    _emit(response.data, response.text, as_json)
