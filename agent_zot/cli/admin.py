"""The maintenance commands: `index move`, `index check`, `graph sync`, `config show`, `config path`,
`models` and `authorize`."""

from __future__ import annotations

from pathlib import Path

import click

from agent_zot.cli.common import State, _emit, _guard, json_option
from agent_zot.config import default_config_path


@click.group()
def index() -> None:
    """The full-text index (built by update-db)."""


@index.command("check")
@json_option
@click.pass_obj
@_guard
def index_check(state: State, as_json: bool) -> None:
    """Check that the index's state database and vector store agree, every point counted; exits 1 when
    something is damaged (a plain update-db repairs it)."""
    from agent_zot.index.integrity import check_index

    ctx = state.context()
    try:
        report = check_index(ctx.index_resources(), thorough=True)
    finally:
        ctx.close()
    if report.ok:
        text = (
            f"The index is intact: {report.describe()}." if report.checked else "No index has been built yet."
        )
    else:
        text = "\n".join(["The index is damaged:", *(f"- {d.what}: {d.repair}." for d in report.damage)])
    _emit(report.to_dict(), text, as_json)
    if not report.ok:
        raise SystemExit(1)


@index.command("move")
@click.option(
    "--to", "to", type=click.Choice(["qdrant", "edge"]), required=True, help="The store to move to."
)
@click.option("--qdrant-url", default=None, help="The Qdrant server (default: qdrant_url from the config).")
@click.option(
    "--qdrant-path",
    type=click.Path(file_okay=False, path_type=Path),
    default=None,
    help="Move into qdrant-client's local mode in this folder instead of a server (for trying it out).",
)
@json_option
@click.pass_obj
@_guard
def index_move(
    state: State, to: str, qdrant_url: str | None, qdrant_path: Path | None, as_json: bool
) -> None:
    """Copy the index, vectors and all, to another store without re-embedding; resumable and verified.
    The current index is left as it is: switch vector_store in the config when the move succeeds."""
    from agent_zot.services.upkeep.index_move import move_index, target_store

    ctx = state.context()
    try:
        target, where = target_store(ctx, to, qdrant_url=qdrant_url, qdrant_path=qdrant_path)
        try:
            result = move_index(
                ctx,
                target,
                where,
                progress=None
                if as_json
                else lambda done, total: click.echo(f"{done:,}/{total:,} points", err=True),
            )
        finally:
            target.close()
    finally:
        ctx.close()
    url = qdrant_url or state.settings.qdrant_url
    switch = (
        f'set vector_store = "qdrant" and qdrant_url = "{url}"'
        if to == "qdrant"
        else 'set vector_store = "edge"'
    )
    text = (
        f"Moved {result.points:,} points to {result.target} in {result.seconds:.1f} s"
        + (" (resumed)" if result.resumed else "")
        + f"; {result.checked} spot-checked. To use it, {switch} in the config (or the AGENT_ZOT_* variables); "
        "update-db will then find nothing to do."
    )
    _emit(result.to_dict(), text, as_json)


@click.group()
def graph() -> None:
    """The knowledge graph (built by update-db)."""


@graph.command("sync")
@json_option
@click.pass_obj
@_guard
def graph_sync(state: State, as_json: bool) -> None:
    """Push the embedded graph to the Neo4j server in the configuration (neo4j_url, neo4j_user, ...)."""
    ctx = state.context()
    try:
        counts = ctx.graph().sync()
    finally:
        ctx.close()
    text = f"Synced to {state.settings.neo4j_url}: " + ", ".join(
        f"{v} {k}" for k, v in sorted(counts.items())
    )
    _emit({"neo4j_url": state.settings.neo4j_url, "counts": counts}, text, as_json)


@click.group()
def config() -> None:
    """Inspect the configuration."""


@config.command("show")
@json_option
@click.pass_obj
@_guard
def config_show(state: State, as_json: bool) -> None:
    """Print the effective configuration (secrets masked)."""
    settings = state.settings
    path = state.config_file or default_config_path()
    header = f"# config file: {path}{'' if path.is_file() else ' (not present; defaults + environment)'}\n"
    _emit({"config_file": str(path), "settings": settings.masked()}, header + settings.to_toml(), as_json)


@config.command("path")
@click.pass_obj
def config_path(state: State) -> None:
    """Print where the config file is read from."""
    click.echo(str(state.config_file or default_config_path()))


@click.group(invoke_without_command=True)
@json_option
@click.pass_context
@_guard
def models(click_ctx: click.Context, as_json: bool) -> None:
    """Optional models (BGE-M3 search, a reranker, an NLI stance judge): what each improves, its size,
    whether it is installed and in use. `agent-zot models install NAME` fetches one and sets it."""
    if click_ctx.invoked_subcommand is not None:
        return
    from agent_zot.index.optional_models import status

    state: State = click_ctx.obj
    rows = status(state.settings)
    lines = []
    for row in rows:
        mark = "in use" if row["in_use"] else "installed" if row["installed"] else "not installed"
        lines.append(f"{row['name']:9} {row['hub_id']} (~{row['size_mb']:,} MB) — {mark}")
        lines.append(f"          improves {row['improves']}")
    lines.append("Install one (downloads once; resumable): agent-zot models install NAME")
    _emit({"models": rows}, "\n".join(lines), as_json)


@models.command("install")
@click.argument("name")
@json_option
@click.pass_obj
@_guard
def models_install(state: State, name: str, as_json: bool) -> None:
    """Fetch the optional model NAME into the data folder (progress on stderr; run again to resume) and
    write its setting to the config file."""
    import sys

    from agent_zot.services.setup.model_install import install

    path = state.config_file or default_config_path()
    done = install(state.settings, name, path, progress=sys.stderr)
    settings = ", ".join(f"{k} = {v}" for k, v in done["settings"].items())
    _emit(
        {**done, "config_file": str(path)},
        f"Installed {done['name']} in {done['folder']}; set {settings} in {path}.",
        as_json,
    )


@click.command()
@json_option
@click.pass_obj
@_guard
def authorize(state: State, as_json: bool) -> None:
    """Ask the running Zotero (10 or newer) to let agent-zot write through its local API: Zotero shows a
    dialog; click Always Allow, and the key is kept in the data folder (readable only by you)."""
    from agent_zot.services.writes.local_keys import authorize as ask

    settings = state.settings
    granted = ask(settings, on_wait=lambda text: click.echo(text, err=True))
    text = granted.describe()
    if granted.remember and not (settings.writes_enabled and settings.zotero_local_api):
        text += " Writes are still off: set writes_enabled = true and zotero_local_api = true to use it."
    elif not granted.remember:
        text = (
            "Zotero gave a single-use key (Allow), good for one write; this command ends now, so it is not "
            "kept. For agent-zot to write, run `agent-zot authorize` again and click Always Allow."
        )
    data = {
        "remember": granted.remember,
        "server_id": granted.server_id,
        "key_file": str(granted.stored_in or ""),
    }
    _emit(data, text, as_json)
