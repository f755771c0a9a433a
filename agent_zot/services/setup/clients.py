"""`agent-zot setup`: add (or remove) the agent-zot server in the MCP configuration of Claude Desktop,
Claude Code, Cursor and VS Code.

Every edit is planned first as before/after text, so `--dry-run` shows exactly what would be written and
a second run finds nothing to do. Only strict JSON is rewritten: a file with comments (VS Code allows them)
would lose them, so it is refused with its line and column instead. Before a file changes, a copy of it is
written beside it; the new text then replaces the old in one os.replace, so a crash leaves either.
"""

from __future__ import annotations

import difflib
import re
import shlex
import shutil
import subprocess
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any, Literal

from agent_zot.config import ENV_PREFIX
from agent_zot.errors import AgentZotError
from agent_zot.services.setup.client_files import (
    ClientConfigError,
    dump_like,
    parse_config,
    read_config,
    write_atomic,
    write_backup,
)

Action = Literal["add", "update", "unchanged", "remove", "absent", "error"]
PathRule = Callable[[Path, str, Mapping[str, str]], Path]  # (home, system, environ) -> path
CLI_TIMEOUT_S = 60
_NAME = re.compile(r"^[A-Za-z0-9_-]+$")  # what Claude Code accepts as a server name

__all__ = ["CLIENTS", "ClientConfigError", "ServerEntry", "SetupChange", "apply_setup", "plan_setup"]


def _app_data(home: Path, system: str, environ: Mapping[str, str]) -> Path:
    """The per-user folder where Electron apps (Claude Desktop, VS Code) keep their settings."""
    if system == "Darwin":
        return home / "Library" / "Application Support"
    if system == "Windows":
        return Path(environ["APPDATA"]) if environ.get("APPDATA") else home / "AppData" / "Roaming"
    xdg = environ.get("XDG_CONFIG_HOME", "")
    return Path(xdg) if xdg and Path(xdg).is_absolute() else home / ".config"


def claude_code_dir(home: Path, system: str, environ: Mapping[str, str]) -> Path:
    """Claude Code's own folder (its skills, settings): ~/.claude, or CLAUDE_CONFIG_DIR when set."""
    return Path(environ["CLAUDE_CONFIG_DIR"]) if environ.get("CLAUDE_CONFIG_DIR") else home / ".claude"


def _claude_code_file(home: Path, system: str, environ: Mapping[str, str]) -> Path:
    # ~/.claude.json sits beside ~/.claude, but inside CLAUDE_CONFIG_DIR when that is set.
    folder = environ.get("CLAUDE_CONFIG_DIR")
    return (Path(folder) if folder else home) / ".claude.json"


@dataclass(frozen=True, slots=True)
class Client:
    """One MCP client: where its configuration is and what its server entries look like."""

    key: str
    label: str
    config_path: PathRule
    marker: PathRule  # a folder that exists once the client is installed
    servers_key: str = "mcpServers"
    typed: bool = False  # entries carry "type": "stdio"
    cli: str | None = None  # an executable that edits the file itself; preferred when it is on PATH
    jsonc: bool = False  # the client accepts comments in the file


CLIENTS: tuple[Client, ...] = (
    Client(
        "claude-desktop",
        "Claude Desktop",
        lambda h, s, e: _app_data(h, s, e) / "Claude" / "claude_desktop_config.json",
        lambda h, s, e: _app_data(h, s, e) / "Claude",
    ),
    Client("claude-code", "Claude Code", _claude_code_file, claude_code_dir, typed=True, cli="claude"),
    Client("cursor", "Cursor", lambda h, s, e: h / ".cursor" / "mcp.json", lambda h, s, e: h / ".cursor"),
    Client(
        "vscode",
        "VS Code",
        lambda h, s, e: _app_data(h, s, e) / "Code" / "User" / "mcp.json",
        lambda h, s, e: _app_data(h, s, e) / "Code" / "User",
        servers_key="servers",
        typed=True,
        jsonc=True,
    ),
)
CLIENT_KEYS = tuple(c.key for c in CLIENTS)


@dataclass(frozen=True, slots=True)
class ServerEntry:
    """How a client launches this installation: command, arguments and environment."""

    command: str
    args: tuple[str, ...]
    env: dict[str, str] = field(default_factory=dict)


def setting_variables(environ: Mapping[str, str]) -> dict[str, str]:
    """The AGENT_ZOT_* settings this shell sets (a data folder, a Qdrant URL, a model folder), as set: a
    client starts the server without the shell's environment, and would otherwise use another index."""
    from agent_zot.config import Settings

    names = {f"{ENV_PREFIX}{name.upper()}" for name in Settings.model_fields} - {
        f"{ENV_PREFIX}ZOTERO_DATA_DIR"
    }
    return {key: value for key, value in sorted(environ.items()) if key in names}


def server_entry(
    executable: Path,
    system: str,
    *,
    library: Path | None,
    config_file: Path | None,
    settings: Mapping[str, str] | None = None,
) -> ServerEntry:
    """The installed `agent-zot` script beside ``executable`` (the interpreter running now), or that
    interpreter with ``-m agent_zot`` when there is no script (a source checkout run with python -m).
    ``settings`` are AGENT_ZOT_* variables to pass on (setting_variables)."""
    script = executable.parent / ("agent-zot.exe" if system == "Windows" else "agent-zot")
    env = dict(settings or {})
    if library is not None:
        env[f"{ENV_PREFIX}ZOTERO_DATA_DIR"] = str(library)
    if config_file is not None:
        env["AGENT_ZOT_CONFIG"] = str(config_file)  # the CLI's --config variable, not a setting
    if script.is_file():
        return ServerEntry(str(script), ("serve",), env)
    return ServerEntry(str(executable), ("-m", "agent_zot", "serve"), env)


@dataclass(frozen=True, slots=True)
class SetupChange:
    """One client's planned (then applied) edit; ``before``/``after`` are None for an absent file."""

    client: Client
    path: Path
    name: str
    action: Action
    before: str | None = None
    after: str | None = None
    commands: tuple[tuple[str, ...], ...] = ()  # run instead of writing the file (the client's own CLI)
    backup: Path | None = None
    error: str | None = None

    @property
    def changes(self) -> bool:
        return self.action in ("add", "update", "remove")

    def diff(self) -> str:
        def lines(text: str | None) -> list[str]:
            return [ln if ln.endswith("\n") else ln + "\n" for ln in (text or "").splitlines(keepends=True)]

        if not self.changes:
            return ""
        label = str(self.path)
        return "".join(difflib.unified_diff(lines(self.before), lines(self.after), label, label))

    def to_dict(self) -> dict[str, Any]:
        return {
            "client": self.client.key,
            "label": self.client.label,
            "path": str(self.path),
            "name": self.name,
            "action": self.action,
            "commands": [shlex.join(c) for c in self.commands],
            "backup": str(self.backup) if self.backup else None,
            "error": self.error,
            "diff": self.diff(),
        }


def detect_clients(
    home: Path, system: str, environ: Mapping[str, str], which: Callable[..., str | None] = shutil.which
) -> list[Client]:
    """The clients that look installed: their folder or file exists (or, for Claude Code, its CLI)."""
    found = []
    for client in CLIENTS:
        if (
            client.marker(home, system, environ).is_dir()
            or client.config_path(home, system, environ).is_file()
            or (client.cli and which(client.cli, path=environ.get("PATH")))
        ):
            found.append(client)
    return found


def plan_setup(
    entry: ServerEntry,
    *,
    home: Path,
    system: str,
    environ: Mapping[str, str],
    clients: Sequence[str] = (),
    name: str = "agent-zot",
    remove: bool = False,
    which: Callable[..., str | None] = shutil.which,
) -> list[SetupChange]:
    """What to change for each chosen client (``clients``, or every detected one); a client whose file
    cannot be read or parsed gets an "error" change and the others go on."""
    if not _NAME.match(name):
        raise AgentZotError(f"Invalid server name {name!r}: use letters, digits, - and _ only.")
    chosen = (
        [c for c in CLIENTS if c.key in clients] if clients else detect_clients(home, system, environ, which)
    )
    if not chosen:
        places = "; ".join(
            f"{c.label} ({c.marker(home, system, environ)}" + (f" or `{c.cli}` on PATH)" if c.cli else ")")
            for c in CLIENTS
        )
        raise AgentZotError(
            f"No MCP client found. Looked for {places}.",
            hint=f"Pick one with --client ({', '.join(CLIENT_KEYS)}); its configuration file is then created.",
        )
    changes = []
    for client in chosen:
        path = client.config_path(home, system, environ)
        cli = which(client.cli, path=environ.get("PATH")) if client.cli else None
        try:
            changes.append(_plan_one(client, path, entry, name, remove, cli))
        except ClientConfigError as exc:
            changes.append(SetupChange(client, path, name, "error", error=str(exc)))
    return changes


def _plan_one(
    client: Client, path: Path, entry: ServerEntry, name: str, remove: bool, cli: str | None
) -> SetupChange:
    before = read_config(path)
    data = parse_config(path, before, jsonc=client.jsonc)
    servers = data.get(client.servers_key, {})
    if not isinstance(servers, dict):
        raise ClientConfigError(
            f'"{client.servers_key}" in {path} is not an object; the file was left untouched.',
            hint="Fix it by hand, then run agent-zot setup again.",
        )
    current = servers.get(name)
    if remove:
        if current is None:
            return SetupChange(client, path, name, "absent", before, before)
        action: Action = "remove"
        servers = {k: v for k, v in servers.items() if k != name}
    else:
        wanted = _merged(current, entry, client.typed)
        if wanted == current:
            return SetupChange(client, path, name, "unchanged", before, before)
        action = "update" if current is not None else "add"
        servers = {**servers, name: wanted}  # an updated entry keeps its place
    after = dump_like(before, {**data, client.servers_key: servers})
    commands = _cli_commands(cli, action, name, servers.get(name)) if cli else ()
    return SetupChange(client, path, name, action, before, after, commands)


def _merged(current: object, entry: ServerEntry, typed: bool) -> dict[str, Any]:
    """Our command, args and variables over the existing entry: keys and variables the user added stay."""
    merged: dict[str, Any] = dict(current) if isinstance(current, dict) else {}
    if typed:
        merged["type"] = "stdio"
    merged["command"] = entry.command
    merged["args"] = list(entry.args)
    env = merged.get("env")
    env = {**(env if isinstance(env, dict) else {}), **entry.env}
    if env or "env" in merged:
        merged["env"] = env
    return merged


def _cli_commands(cli: str, action: Action, name: str, wanted: Any) -> tuple[tuple[str, ...], ...]:
    remove = (cli, "mcp", "remove", "--scope", "user", name)
    if action == "remove":
        return (remove,)
    env = [part for k, v in wanted.get("env", {}).items() for part in ("-e", f"{k}={v}")]
    # The name goes before -e: -e takes several values and would swallow a name that follows it.
    add = (cli, "mcp", "add", "--scope", "user", name, *env, "--", wanted["command"], *wanted["args"])
    return (remove, add) if action == "update" else (add,)


def apply_setup(
    changes: Sequence[SetupChange], *, environ: Mapping[str, str], now: datetime | None = None
) -> list[SetupChange]:
    """Make the planned changes, each file backed up first; a failure is recorded on its change."""
    stamp = (now or datetime.now()).strftime("%Y%m%dT%H%M%S")
    return [_apply_one(change, stamp, environ) if change.changes else change for change in changes]


def _apply_one(change: SetupChange, stamp: str, environ: Mapping[str, str]) -> SetupChange:
    backup: Path | None = None
    try:
        if read_config(change.path) != change.before:
            raise ClientConfigError(
                f"{change.path} changed since it was read; nothing was written.", hint="Run setup again."
            )
        if change.before is not None:
            backup = write_backup(change.path, stamp)
        if not change.commands:
            write_atomic(change.path, change.after or "")
            return replace(change, backup=backup)
        for argv in change.commands:
            _run(argv, environ)
        return replace(change, backup=backup, after=read_config(change.path))
    except ClientConfigError as exc:
        kept = f" The file as it was is in {backup}." if backup else ""
        return replace(change, action="error", backup=backup, error=f"{exc}{kept}")


def _run(argv: Sequence[str], environ: Mapping[str, str]) -> None:
    shown = shlex.join(argv)
    try:
        done = subprocess.run(
            list(argv), capture_output=True, text=True, timeout=CLI_TIMEOUT_S, env=dict(environ), check=False
        )
    except subprocess.TimeoutExpired as exc:
        raise ClientConfigError(f"`{shown}` did not finish within {CLI_TIMEOUT_S} s.") from exc
    except OSError as exc:
        raise ClientConfigError(f"Could not run `{shown}`: {exc.strerror or exc}.") from exc
    if done.returncode != 0:
        said = (done.stderr or done.stdout).strip().splitlines()
        raise ClientConfigError(
            f"`{shown}` failed (exit {done.returncode})" + (f": {said[-1]}" if said else ".")
        )
