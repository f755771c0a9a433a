"""The `agent-zot` command line: a thin shell over agent_zot.services."""

from __future__ import annotations

import json
import logging
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from agent_zot import __version__
from agent_zot.cli.common import (
    State,
    _emit,
    _guard,
    accept_group_options_anywhere,
    json_option,
    read_draft_file,
    read_json_list,
    tool_arguments,
)
from agent_zot.cli.update_report import update_report
from agent_zot.config import default_config_path
from agent_zot.errors import AgentZotError

if TYPE_CHECKING:
    from agent_zot.services.context import AppContext


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
@click.version_option(__version__, prog_name="agent-zot")
@click.option(
    "--config",
    "config_file",
    type=click.Path(path_type=Path, dir_okay=False),
    envvar="AGENT_ZOT_CONFIG",
    help=f"Config file (default: {default_config_path()}); may also follow the command.",
)
@click.option(
    "--library",
    type=click.Path(path_type=Path),
    help="Zotero data directory or zotero.sqlite (default: found automatically); may also follow the "
    "command (`agent-zot update-db --library PATH`).",
)
@click.pass_context
def cli(ctx: click.Context, config_file: Path | None, library: Path | None) -> None:
    """agent-zot: your Zotero library for AI assistants (MCP server and CLI). Never writes to zotero.sqlite."""
    from_env = ctx.get_parameter_source("config_file") is click.core.ParameterSource.ENVIRONMENT
    ctx.obj = State(config_file, library, config_named_by="AGENT_ZOT_CONFIG" if from_env else "--config")


@cli.command()
@click.option("--transport", type=click.Choice(["stdio", "http"]), default="stdio", show_default=True)
@click.option("--host", default=None, help="HTTP bind address (default from config: 127.0.0.1).")
@click.option("--port", type=int, default=None, help="HTTP port (default from config: 8765).")
@click.pass_obj
@_guard
def serve(state: State, transport: str, host: str | None, port: int | None) -> None:
    """Run the MCP server (stdio for Claude Desktop / Claude Code; streamable HTTP, which needs
    http_token off loopback)."""
    from agent_zot.services.upkeep.warmup import pause_collector

    pause_collector()  # until the warm-up is done (services/upkeep/warmup.py)
    settings = state.settings
    logging.basicConfig(level=settings.log_level.upper(), stream=sys.stderr)
    plan = None
    if transport == "http":
        from agent_zot.mcp.http import http_plan

        plan = http_plan(settings, host, port)  # refuses a network address without a token
    from agent_zot.mcp.server import build_server

    # after fastmcp's import, which sets its own level: its startup banner logs at INFO
    logging.getLogger("fastmcp").setLevel(settings.log_level.upper())
    ctx = state.context(follows_library=True)
    if plan is not None and plan.auth is None:
        from agent_zot.mcp.http import WRITES_NEED_TOKEN

        ctx.write_block = WRITES_NEED_TOKEN
    server = build_server(ctx, auth=None if plan is None else plan.auth)
    _start_background_work(state, ctx)
    if plan is None:
        server.run("stdio", show_banner=False)
        return
    server.run(
        "http",
        host=plan.host,
        port=plan.port,
        show_banner=False,
        log_level=settings.log_level,
        host_origin_protection=True,
        allowed_hosts=plan.allowed_hosts,
        allowed_origins=plan.allowed_origins,
    )


def _start_background_work(state: State, ctx: AppContext) -> None:
    """Once the server is built (its imports done, nothing loaded): the warm-up, then the background
    updates, whose first look at the library waits for the warm-up (it counts as a request). The
    collector `serve` paused comes back when the warm-up ends, or now without one."""
    from agent_zot.cli.watch_cmd import start_background_updates
    from agent_zot.services.upkeep.warmup import resume_collector, start_warm_up

    if state.settings.warm_up:
        start_warm_up(ctx, collector_paused=True)
    else:
        resume_collector()
    if state.settings.auto_update:
        start_background_updates(state, ctx)


@cli.command()
@json_option
@click.pass_obj
@_guard
def status(state: State, as_json: bool) -> None:
    """Which library is in use, its schema version and what it holds."""
    from agent_zot.services.upkeep.status import format_status, library_status

    ctx = state.context()
    try:
        data = library_status(ctx)
    finally:
        ctx.close()  # the index is released for the next command (or another process)
    _emit(data, format_status(data), as_json)


@cli.command()
@json_option
@click.pass_obj
@_guard
def doctor(state: State, as_json: bool) -> None:
    """Check each part (config, library, locks, attachments, folders) and say how to fix problems."""
    from agent_zot.services.upkeep.doctor import run_checks
    from agent_zot.services.upkeep.doctor_report import checks_as_dicts, format_checks

    ctx = state.context()
    try:
        checks = run_checks(ctx, state.config_file)
    finally:
        ctx.close()
    _emit({"checks": checks_as_dicts(checks)}, format_checks(checks), as_json)
    if any(c.status == "fail" for c in checks):
        sys.exit(1)


@cli.command()
@click.argument("draft", type=click.Path(dir_okay=False, allow_dash=True, path_type=Path))
@click.option(
    "--patch",
    "patch_file",
    type=click.Path(dir_okay=False, path_type=Path),
    default=None,
    help="Write the proposed fixes as a unified diff to this file (the draft is never changed).",
)
@json_option
@click.pass_obj
@_guard
def audit(state: State, draft: Path, patch_file: Path | None, as_json: bool) -> None:
    """Audit the citations of DRAFT (Markdown/Pandoc, LaTeX or plain text; - reads stdin) against the
    library: keys, pages, quotations, support, and claims left uncited."""
    from agent_zot.services.audit.audit_draft import audit_draft
    from agent_zot.services.audit.report import markdown_report, patch, response

    text = read_draft_file(draft)
    if patch_file is not None and str(draft) != "-" and patch_file.resolve() == draft.resolve():
        raise click.UsageError("--patch must name a new file: the draft itself is never written.")
    ctx = state.context()
    try:
        result = audit_draft(ctx, text)
    finally:
        ctx.close()
    name = "stdin" if str(draft) == "-" else draft.name
    if as_json:
        _emit(response(result, full=True).data, "", True)
    else:
        click.echo(markdown_report(result, name), nl=False)
    if patch_file is not None:
        diff = patch(result, name)
        if not diff:
            click.echo(f"No fixes to propose; {patch_file} was not written.", err=True)
            return
        patch_file.write_text(diff, encoding="utf-8")
        click.echo(
            f"Proposed fixes written to {patch_file} (apply with: patch -p1 < {patch_file}).", err=True
        )


@cli.command(name="update-db")
@click.option(
    "--fulltext/--no-fulltext",
    default=True,
    show_default=True,
    help="Parse attachments (PDF, HTML, EPUB) or index metadata only.",
)
@click.option(
    "--force-rebuild",
    is_flag=True,
    help="Build the index anew beside the current one, which answers searches until the new one replaces it "
    "(e.g. after changing model).",
)
@click.option(
    "--limit", type=click.IntRange(min=1), default=None, help="Index at most N changed items (newest first)."
)
@click.option(
    "--item",
    "item_keys",
    multiple=True,
    help="Only this item key (repeatable); its files are read again if an earlier update could not read them.",
)
@click.option(
    "--retry-failed",
    is_flag=True,
    help="Read again every file an earlier update could not read or read only in part (`agent-zot status` "
    "counts them).",
)
@click.option(
    "--parser", type=click.Choice(["pdfium", "docling"]), default=None, help="PDF parser (default: config)."
)
# The watcher's own runs: low priority and one parse worker, so the user's other work comes first.
@click.option("--background", is_flag=True, hidden=True)
@json_option
@click.pass_obj
@_guard
def update_db(
    state: State,
    fulltext: bool,
    force_rebuild: bool,
    limit: int | None,
    item_keys: tuple[str, ...],
    retry_failed: bool,
    parser: str | None,
    background: bool,
    as_json: bool,
) -> None:
    """Build or refresh the full-text index: only what changed since the last run is processed."""
    from agent_zot.cli.progress import ProgressLine
    from agent_zot.services.upkeep.update_db import UpdateOptions, update_index

    if background:
        state.in_background()
    ctx = state.context()
    options = UpdateOptions(
        fulltext=fulltext,
        force_rebuild=force_rebuild,
        limit=limit,
        item_keys=item_keys,
        parser=parser or ctx.settings.parser,
        wait=not background,
        retry_failed=retry_failed,
        thorough_check=not background,
    )
    line = ProgressLine(sys.stderr, ctx.settings.progress_interval_s)
    try:
        summary = update_index(
            ctx.library(), ctx.index_resources(), options, on_progress=line.update, graph=ctx.graph()
        )
    finally:
        line.finish()
        ctx.close()
    data = summary.to_dict()
    _emit(data, update_report(data), as_json)


@cli.command()
@click.pass_obj
@_guard
def demo(state: State) -> None:
    """Build a small demo library with PDFs, index it and show example tool calls (no Zotero needed)."""
    from agent_zot.cli.progress import ProgressLine
    from agent_zot.services.setup.demo_tour import run_demo

    line = ProgressLine(sys.stderr)
    try:
        sections = run_demo(state.settings, on_progress=line.update)
    finally:
        line.finish()
    for section in sections:
        click.echo(click.style(f"\n== {section.title}", bold=True))
        click.echo(section.text)


@cli.command(name="route")
@click.argument("tool")
@click.argument("query")
@click.option("--mode", "force_mode", default=None, help="Force a mode, as force_mode does in the tools.")
@click.option(
    "--arg",
    "arguments",
    multiple=True,
    metavar="NAME=VALUE",
    help="A tool argument, as the assistant passes it (JSON or text): --arg days=7 --arg 'tags=[\"nlp\"]'.",
)
@json_option
@click.pass_obj
@_guard
def route_cmd(
    state: State, tool: str, query: str, force_mode: str | None, arguments: tuple[str, ...], as_json: bool
) -> None:
    """Show how TOOL would route QUERY with its arguments (mode, confidence, parameters) and the paper,
    author and citation direction it names in your library, without running it."""
    from agent_zot.services.tools import prepare, request_for, spec_for

    spec = spec_for(tool)  # short names ("tags", "export") are accepted
    given = {"query": query, "force_mode": force_mode, **tool_arguments(arguments)}
    decision, _ = prepare(spec, request_for(spec, given))  # as the tool decides it: arguments beat words
    data = decision.to_dict()
    data["resolved"] = _resolved_preview(state, decision, query)
    text = (
        f"{data['tool']} → {data['mode']} (intent {data['intent']}, confidence {data['confidence']:.2f})\n"
        f"reason: {data['reason']}\nparams: {json.dumps(data['params'], ensure_ascii=False)}"
    )
    text += "".join(f"\n{line}" for line in _resolved_lines(data["resolved"]))
    _emit(data, text, as_json)


def _resolved_preview(state: State, decision: Any, query: str) -> dict[str, Any]:
    """The paper and direction the request names, resolved against the library when there is one."""
    from agent_zot.services.resolve.preview import preview

    try:
        state.override(demo_when_missing=False)  # routing never builds the demo library
        library = state.context().library()
    except AgentZotError:
        library = None  # no library here: the routing alone is still worth showing
    return preview(library, decision, query, _graph_store(state, decision))


def _graph_store(state: State, decision: Any) -> Any:
    """The embedded knowledge graph, for a citation request (the tool reaches works the library only
    cites through it), when update-db has built one; else None."""
    if decision.tool != "zot_explore_graph" or decision.mode != "citation":
        return None
    try:
        ctx = state.context()
        if not ctx.index_resources().exists():
            return None
        store = ctx.graph().local
        return store if store.has_papers() else None
    except AgentZotError:
        return None


def _resolved_lines(resolved: dict[str, Any]) -> list[str]:
    lines = [
        f"paper: [{p['key']}] {p['title']} ({p.get('year') or 'n.d.'}) — by {p['how']}"
        + (f"; duplicates: {', '.join(p['duplicates'])}" if p.get("duplicates") else "")
        for p in resolved.get("papers", [])
    ]
    if resolved.get("work"):
        work = resolved["work"]
        lines.append(f"cited work (not in your library): {work['title']} ({work.get('year') or 'n.d.'})")
    if resolved.get("direction"):
        lines.append(f"direction: {resolved['direction']}")
    if resolved.get("note"):
        lines.append(f"paper: {resolved['note']}")
    lines += [f"  candidate: {c}" for c in resolved.get("candidates", [])]
    return lines


@cli.command(name="export")
@click.argument("path", required=False)
@click.option("--collection", default=None, help="Collection name, path or key (sub-collections included).")
@click.option("--item", "item_keys", multiple=True, help="Item key (repeatable).")
@click.option("--search", default=None, help="Only items whose metadata has these words.")
@click.option(
    "--tag", "tags", multiple=True, help="Only items with this tag (repeatable; annotations: own or item's)."
)
@click.option(
    "--format",
    "fmt",
    type=click.Choice(["bibtex", "csljson", "markdown", "review", "annotations"]),
    default=None,
    help="Format when PATH has no telling extension (review: with --draft; annotations: .csv or .json).",
)
@click.option(
    "--draft",
    "draft",
    type=click.Path(dir_okay=False, allow_dash=True, path_type=Path),
    default=None,
    help="A review package for this draft (or list of claims, one per line).",
)
@click.option(
    "--verdicts",
    "verdicts_file",
    type=click.Path(dir_okay=False, exists=True, path_type=Path),
    default=None,
    help='Review: verdicts on passages, a JSON list (each is checked; "judge": "person" for your own).',
)
@click.option("--overwrite", is_flag=True, help="Replace existing files.")
@json_option
@click.pass_obj
@_guard
def export_cmd(
    state: State,
    path: str | None,
    collection: str | None,
    item_keys: tuple[str, ...],
    search: str | None,
    tags: tuple[str, ...],
    fmt: str | None,
    draft: Path | None,
    verdicts_file: Path | None,
    overwrite: bool,
    as_json: bool,
) -> None:
    """Export to PATH (under the export folder): .bib, .json (CSL-JSON), .md, or a folder for Markdown;
    .csv (or --format annotations with .json) for annotations and notes as rows; with --draft, a review
    package (Markdown) of the draft's claims and their evidence (--verdicts: with verdicts on its passages,
    checked)."""
    from agent_zot.services.tools import call

    review = draft is not None or verdicts_file is not None
    ctx = state.context()
    try:
        response = call(
            ctx,
            "zot_export",
            force_mode="review" if review else fmt,
            draft=read_draft_file(draft) if draft is not None else None,
            verdicts=read_json_list(verdicts_file) if verdicts_file is not None else None,
            path=path,
            collection=collection,
            item_keys=list(item_keys) or None,
            search=search,
            tags=list(tags) or None,
            overwrite=overwrite,
        )
    finally:
        ctx.close()
    _emit(response.data, response.text, as_json)


# Registered last: these modules import nothing from this one, and load their services lazily (no
# --help cost).
from agent_zot.cli.add_cmd import add  # noqa: E402
from agent_zot.cli.admin import authorize, config, graph, index, models  # noqa: E402
from agent_zot.cli.ask_cmd import ASK_COMMANDS  # noqa: E402
from agent_zot.cli.matrix_cmd import matrix  # noqa: E402
from agent_zot.cli.setup_cmd import setup  # noqa: E402
from agent_zot.cli.view_cmd import view  # noqa: E402
from agent_zot.cli.watch_cmd import update_worker, watch  # noqa: E402

_COMMANDS = (index, graph, config, models, authorize, setup, watch, update_worker, view, matrix, add)
for command in (*_COMMANDS, *ASK_COMMANDS):
    cli.add_command(command)
accept_group_options_anywhere(cli)
