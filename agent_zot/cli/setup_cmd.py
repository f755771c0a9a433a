"""`agent-zot setup`: write the MCP configuration of the clients on this machine
(agent_zot.services.setup.clients)."""

from __future__ import annotations

import json
import os
import platform
import shlex
import shutil
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from agent_zot.errors import AgentZotError, LibraryNotFoundError
from agent_zot.services.setup.clients import CLIENT_KEYS

if TYPE_CHECKING:
    from agent_zot.cli.common import State
    from agent_zot.services.setup.clients import ServerEntry, SetupChange

_VERBS = {
    "add": ("add", "added", "to"),
    "update": ("update", "updated", "in"),
    "remove": ("remove", "removed", "from"),
}


def _system() -> str:
    """The OS whose folder layout applies (a function, so the tests can pretend to be another one)."""
    return platform.system()


@click.command()
@click.option(
    "--client",
    "clients",
    multiple=True,
    type=click.Choice(CLIENT_KEYS),
    help="Configure this client even if it was not found (repeatable; default: every client found).",
)
@click.option("--dry-run", is_flag=True, help="Print the changes as a diff; write nothing.")
@click.option("--remove", is_flag=True, help="Remove the entry instead (the files are backed up first).")
@click.option("--name", default="agent-zot", show_default=True, help="The server's name in the clients.")
@click.option(
    "--skill",
    is_flag=True,
    help="Install the skill for coding agents instead (Claude Code: ~/.claude/skills/agent-zot/SKILL.md), "
    "which teaches the shell route (`agent-zot search`, `summarize`, `explore`, `call`); --dry-run prints it.",
)
@click.option(
    "--project", is_flag=True, help="With --skill: in this project (./.claude/skills/), not for the user."
)
@click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")
@click.pass_obj
def setup(
    state: State,
    clients: tuple[str, ...],
    dry_run: bool,
    remove: bool,
    name: str,
    skill: bool,
    project: bool,
    as_json: bool,
) -> None:
    """Add agent-zot (this installation, and the library it finds) to the MCP configuration of Claude
    Desktop, Claude Code, Cursor and VS Code: those installed, or the --client ones. Every file it changes
    is backed up first, and running it again changes nothing. Exits 1 when a client could not be set up.
    With --skill, install the skill for coding agents instead."""
    if project and not skill:
        raise click.UsageError("--project goes with --skill.")
    if skill and (remove or clients):
        raise click.UsageError("--skill installs the skill only; --remove and --client are for MCP entries.")
    try:
        if skill:
            _skill(dry_run, project, as_json)
            return
        failed = _setup(state, clients, dry_run, remove, name, as_json)
    except AgentZotError as exc:  # the group's _guard is not imported: main.py imports this module
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    if failed:
        sys.exit(1)


def _setup(
    state: State, clients: tuple[str, ...], dry_run: bool, remove: bool, name: str, as_json: bool
) -> bool:
    from agent_zot.services.setup.clients import apply_setup, plan_setup, server_entry, setting_variables

    home, system = Path.home(), _system()
    # The one read of the environment: where clients keep their files (APPDATA, XDG_CONFIG_HOME,
    # CLAUDE_CONFIG_DIR), PATH for the `claude` CLI, which also runs with it, and the AGENT_ZOT_* settings
    # the server must be given to use the same index.
    environ = dict(os.environ)
    library, how = (None, "") if remove else _library(state, home)
    config_file = state.config_file.resolve() if state.config_file else None
    settings = {} if remove else setting_variables(environ)
    entry = server_entry(
        Path(sys.executable).absolute(), system, library=library, config_file=config_file, settings=settings
    )
    changes = plan_setup(
        entry, home=home, system=system, environ=environ, clients=clients, name=name, remove=remove
    )
    if not dry_run:
        changes = apply_setup(changes, environ=environ)
    if as_json:
        data = {
            "dry_run": dry_run,
            "remove": remove,
            "server": {"command": entry.command, "args": list(entry.args), "env": entry.env},
            "library": str(library) if library else None,
            "changes": [c.to_dict() for c in changes],
        }
        click.echo(json.dumps(data, ensure_ascii=False, indent=2))
    else:
        _report(changes, entry, library, how, dry_run, remove)
    return any(c.action == "error" for c in changes)


def _skill(dry_run: bool, project: bool, as_json: bool) -> None:
    """Write (or with ``dry_run`` print) SKILL.md where Claude Code looks for it."""
    from agent_zot.services.setup.clients import claude_code_dir
    from agent_zot.services.setup.skill import install_skill, skill_path, skill_text

    environ = dict(os.environ)  # CLAUDE_CONFIG_DIR moves Claude Code's folder; PATH finds agent-zot
    text = skill_text(_program(environ.get("PATH")))
    claude_dir = claude_code_dir(Path.home(), _system(), environ)
    path = skill_path("project" if project else "user", claude_dir=claude_dir, project=Path.cwd())
    change = install_skill(path, text, write=not dry_run)
    if as_json:
        click.echo(
            json.dumps({"dry_run": dry_run, **change.to_dict(), "text": text}, ensure_ascii=False, indent=2)
        )
        return
    if dry_run:
        click.echo(text, nl=False)
        click.echo(f"Dry run: would {change.action} {path}; nothing was written.", err=True)
        return
    done = {"add": "Installed", "update": "Updated", "unchanged": "Already installed:"}[change.action]
    backup = f" (backup: {change.backup})" if change.backup else ""
    click.echo(f"{done} the agent-zot skill {path}{backup}. Claude Code loads it in its next session.")


def _program(search_path: str | None) -> str:
    """How an agent's shell reaches this installation: ``agent-zot`` when that is on PATH, else the
    script beside this Python (a virtual environment not activated)."""
    if shutil.which("agent-zot", path=search_path):
        return "agent-zot"
    beside = Path(sys.executable).absolute().parent / "agent-zot"
    return str(beside) if beside.is_file() else "agent-zot"


def _library(state: State, home: Path) -> tuple[Path | None, str]:
    """The library `status` would use; none found is fine (the server looks again each time it starts)."""
    from agent_zot.zotero.discovery import discover_library

    explicit = state.settings.zotero_data_dir
    try:
        found = discover_library(explicit, home=home)
    except LibraryNotFoundError:
        if explicit is not None:
            raise  # a wrong --library must not end up in the clients' configuration
        return None, ""
    return found.data_dir.expanduser().resolve(), found.how


def _report(
    changes: list[SetupChange],
    entry: ServerEntry,
    library: Path | None,
    how: str,
    dry_run: bool,
    remove: bool,
) -> None:
    if not remove:
        click.echo(f"Server: {shlex.join([entry.command, *entry.args])}")
        click.echo(
            f"Library: {library} ({how})"
            if library
            else "Library: none found, so the entry names none: the server looks for one each time it starts "
            "and serves the demo library until it finds one (--library PATH names one)."
        )
        click.echo(
            "Optional models (BGE-M3 search, a reranker, an NLI stance judge): `agent-zot models` lists "
            "them; nothing is downloaded unless you install one."
        )
    for change in changes:
        click.echo(_line(change, dry_run), err=change.action == "error")
        if dry_run and change.changes:
            click.echo(change.diff(), nl=False)
    if dry_run:
        click.echo("Dry run: nothing was written.")
    elif any(c.changes and c.action != "error" for c in changes):
        click.echo(f"Restart the client to {'unload' if remove else 'load'} {changes[0].name}.")


def _line(change: SetupChange, dry_run: bool) -> str:
    label, name, path = change.client.label, change.name, change.path
    if change.action == "error":
        return f"{label}: error: {change.error}"
    if change.action == "unchanged":
        return f"{label}: {name} is already set up in {path}; nothing to change."
    if change.action == "absent":
        return f"{label}: no {name} entry in {path}; nothing to remove."
    verb, done, prep = _VERBS[change.action]
    via = f" with `{' && '.join(shlex.join(c) for c in change.commands)}`" if change.commands else ""
    if dry_run:
        return f"{label}: would {verb} {name} {prep} {path}{via}."
    backup = f" (backup: {change.backup})" if change.backup else ""
    return f"{label}: {done} {name} {prep} {path}{via}{backup}."
