"""`agent-zot view`: the library's graph as a page in the browser (agent_zot.view)."""

from __future__ import annotations

import re
import sys
from collections import Counter
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agent_zot.cli.common import read_draft_file
from agent_zot.errors import AgentZotError

if TYPE_CHECKING:
    from agent_zot.cli.common import State
    from agent_zot.services.explore.view_data import ViewData

DEFAULT_MAX_NODES = (
    2000  # agent_zot.services.explore.view_data.DEFAULT_MAX_NODES; not imported, so --help stays light
)


@click.command()
@click.option(
    "--collection", default=None, help="Only this collection (name, path or key; sub-collections too)."
)
@click.option("--item", default=None, help="A seed paper (item key or title words) and its neighbours.")
@click.option(
    "--hops",
    type=click.IntRange(0, 4),
    default=None,
    help="Also papers this many steps away (citations, shared authors); default 1 with --item, else 0.",
)
@click.option("--author", default=None, help="Only this author's papers.")
@click.option("--concept", default=None, help="Only papers mentioning this concept.")
@click.option(
    "--claim",
    "claims",
    multiple=True,
    help="Check this claim against the library and draw the papers for and against it (repeatable).",
)
@click.option(
    "--audit",
    "draft",
    type=click.Path(dir_okay=False, path_type=Path, allow_dash=True),
    default=None,
    help="Audit this draft's citations and draw each citing sentence with the papers it cites.",
)
@click.option(
    "--out",
    type=click.Path(path_type=Path),
    default=None,
    help="Write the page here (default: view/<scope>.html in the data folder).",
)
@click.option("--no-open", is_flag=True, help="Do not open a browser.")
@click.option(
    "--serve", is_flag=True, help="Serve the page on 127.0.0.1 instead of opening the file (Ctrl-C stops)."
)
@click.option(
    "--port", type=click.IntRange(0, 65535), default=8766, show_default=True, help="Port for --serve."
)
@click.option(
    "--max-nodes",
    type=click.IntRange(min=1),
    default=DEFAULT_MAX_NODES,
    show_default=True,
    help="Draw at most this many papers (the most connected are kept).",
)
@click.pass_obj
def view(
    state: State,
    collection: str | None,
    item: str | None,
    hops: int | None,
    author: str | None,
    concept: str | None,
    claims: tuple[str, ...],
    draft: Path | None,
    out: Path | None,
    no_open: bool,
    serve: bool,
    port: int,
    max_nodes: int,
) -> None:
    """Draw the library's graph in the browser: papers sized by citations in the library, coloured by
    collection or year, with citation, co-author and shared-concept links, a search box and a panel per
    paper. The page is one self-contained HTML file that works offline.

    With --claim or --audit it draws evidence instead: each claim (or each citing sentence of a draft)
    linked to the papers that support, contradict or are cited for it."""
    from agent_zot.services.explore.view_data import library_view
    from agent_zot.services.explore.view_scope import ViewRequest
    from agent_zot.view.page import check_writable, render_page, write_page

    request = ViewRequest(collection, item, author, concept, hops, max_nodes)
    evidence = bool(claims) or draft is not None
    if evidence and ((claims and draft is not None) or any((collection, item, author, concept, hops))):
        raise click.UsageError("--claim and --audit each draw their own papers: use one, without scopes.")
    try:
        if out is not None:
            out = check_writable(out)
        text = read_draft_file(draft) if draft is not None else None
        ctx = state.context()
        try:
            if claims:
                from agent_zot.services.evidence.graph_view import claims_view

                data = claims_view(ctx, claims)
            elif text is not None:
                from agent_zot.services.audit.graph_view import audit_view

                data = audit_view(ctx, text)
            else:
                data = library_view(ctx, request)
        finally:
            ctx.close()
        page = render_page(data.to_json(), f"agent-zot · {data.scope}")
        if out is None and not serve:
            out = state.settings.data_dir / "view" / f"{_slug(data.scope)}.html"
            out.parent.mkdir(parents=True, exist_ok=True)
        if out is not None:
            write_page(out, page)
            click.echo(f"Wrote {out}", err=True)
        click.echo(_summary(data))
        if serve:
            _serve(page, port, open_browser=not no_open)
        elif not no_open and out is not None:  # not served: the page was written to out
            import webbrowser

            webbrowser.open(out.resolve().as_uri())
    except AgentZotError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)


def _serve(page: str, port: int, *, open_browser: bool) -> None:
    from agent_zot.view.serve import make_server, url

    server = make_server(page, port)
    address = url(server)
    click.echo(f"Serving the graph at {address} (Ctrl-C stops).", err=True)
    if open_browser:
        import webbrowser

        webbrowser.open(address)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        pass
    finally:
        server.server_close()


def _summary(data: ViewData) -> str:
    counts = data.counts()
    if data.claims:
        stances = Counter(data.claims_stances())
        line = (
            f"{data.scope[:1].upper()}{data.scope[1:]}: {_plural(counts['claims'], 'claim')} drawn with "
            f"{_plural(counts['papers'], 'paper')}; links "
            + ", ".join(f"{n} {stance}" for stance, n in stances.most_common())
            + "."
        )
        return f"{line}\n{data.note}" if data.note else line
    line = (
        f"{data.scope[:1].upper()}{data.scope[1:]}: {_plural(counts['papers'], 'paper')}, "
        f"{_plural(counts['cites'], 'citation')}, {_plural(counts['coauthor'], 'shared-author link')} and "
        f"{_plural(counts['concept'], 'shared-concept link')}."
    )
    return f"{line}\n{data.note}" if data.note else line


def _plural(count: int, noun: str) -> str:
    return f"{count:,} {noun}" + ("" if count == 1 else "s")


def _slug(text: str) -> str:
    return re.sub(r"[^\w]+", "-", text.casefold()).strip("-")[:60] or "library"
