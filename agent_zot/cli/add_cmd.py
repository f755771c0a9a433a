"""`agent-zot add`: papers by DOI, arXiv id, PMID or ISBN, through zot_manage_collections' import mode."""

from __future__ import annotations

import sys

import click

from agent_zot.cli.common import State, _emit, _guard, json_option


@click.command(name="add")
@click.argument("identifiers", nargs=-1, required=True)
@click.option("--collection", default=None, help="Put them into this collection (name, path A/B or key).")
@click.option("--tag", "tags", multiple=True, help="Give them this tag (repeatable).")
@json_option
@click.pass_obj
@_guard
def add(
    state: State, identifiers: tuple[str, ...], collection: str | None, tags: tuple[str, ...], as_json: bool
) -> None:
    """Add papers by DOI, arXiv id (arXiv:2101.00001), PMID (PMID:31452104) or ISBN, with metadata from
    doi.org/Crossref, arXiv, PubMed or Open Library; papers the library holds are named, not added again.
    Needs writes enabled (`agent-zot doctor` says how)."""
    from agent_zot.services.tools import call

    ctx = state.context()
    try:
        response = call(
            ctx,
            "zot_manage_collections",
            force_mode="import",
            identifiers=list(identifiers),
            collection=collection,
            tags=list(tags) or None,
        )
    finally:
        ctx.close()
    _emit(response.data, response.text, as_json)
    if response.is_error:
        sys.exit(1)
