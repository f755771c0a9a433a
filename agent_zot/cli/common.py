"""What every `agent-zot` command shares: the group's State, JSON output, and user errors as messages."""

from __future__ import annotations

import functools
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from agent_zot.config import Settings, load_settings
from agent_zot.errors import AgentZotError

if TYPE_CHECKING:
    from agent_zot.services.context import AppContext


class State:
    """What the group options decided, built lazily so `--help` never touches a library."""

    def __init__(
        self, config_file: Path | None, library: Path | None, *, config_named_by: str = "--config"
    ) -> None:
        self.config_file = config_file
        self.config_named_by = (
            config_named_by  # "--config" or "AGENT_ZOT_CONFIG": what to fix when it is wrong
        )
        self.library = library
        self._settings: Settings | None = None

    @property
    def settings(self) -> Settings:
        if self._settings is None:
            self._settings = load_settings(
                self.config_file, named_by=self.config_named_by, zotero_data_dir=self.library
            )
        return self._settings

    def override(self, **values: Any) -> None:
        """Settings for this run only, over what the config and the environment say."""
        self._settings = self.settings.model_copy(update=values)

    def in_background(self) -> None:
        """A watcher's update: low priority and one parse worker, so the user's other work comes first."""
        if hasattr(os, "nice"):  # POSIX; on Windows the run keeps normal priority
            os.nice(10)
        self.override(index_workers=1)

    def context(self, *, follows_library: bool = False) -> AppContext:
        """``follows_library``: a long-running process, re-reading only what each edit changed."""
        # Imported here so that `--help` and `route` stay fast.
        from agent_zot.services.context import AppContext

        return AppContext(self.settings, follows_library=follows_library)


def _set_library(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    state = ctx.find_object(State)
    if value is not None and state is not None:
        state.library, state._settings = value, None


def _set_config(ctx: click.Context, _param: click.Parameter, value: Path | None) -> None:
    state = ctx.find_object(State)
    if value is not None and state is not None:
        state.config_file, state.config_named_by, state._settings = value, "--config", None


def accept_group_options_anywhere(group: click.Group) -> None:
    """Let ``--library`` and ``--config`` follow any command too (``agent-zot update-db --library PATH``),
    not only stand before it: people type them where they type every other option. Given in both places,
    the one after the command wins."""
    for command in group.commands.values():
        if isinstance(command, click.Group):
            accept_group_options_anywhere(command)
            continue
        names = {name for param in command.params for name in param.opts}
        if "--library" not in names:
            command.params.append(
                click.Option(
                    ["--library"],
                    type=click.Path(path_type=Path),
                    expose_value=False,
                    callback=_set_library,
                    hidden=True,  # documented once, on the group
                )
            )
        if "--config" not in names:
            command.params.append(
                click.Option(
                    ["--config"],
                    type=click.Path(path_type=Path, dir_okay=False),
                    expose_value=False,
                    callback=_set_config,
                    hidden=True,
                )
            )


def _emit(data: Any, text: str, as_json: bool) -> None:
    click.echo(json.dumps(data, ensure_ascii=False, indent=2, default=str) if as_json else text)


def _guard(fn: Callable[..., None]) -> Callable[..., None]:
    """User errors print their message and exit 2, never a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except AgentZotError as exc:
            click.echo(f"Error: {exc}", err=True)
            sys.exit(2)

    return wrapper


# `mode` is what the route calls the mode (`route.mode`); the tools take it as `force_mode`.
_ARGUMENT_ALIASES = {"mode": "force_mode"}


def tool_arguments(pairs: tuple[str, ...]) -> dict[str, Any]:
    """``NAME=VALUE`` pairs (`--arg`); a value that reads as JSON (7, ["a"], true) is taken as that, else
    as text. The tool's request model checks them, as it checks an MCP call's."""
    arguments: dict[str, Any] = {}
    for pair in pairs:
        name, sep, value = pair.partition("=")
        name = name.strip()
        if not sep or not name:
            raise click.BadParameter(f"{pair!r} is not NAME=VALUE", param_hint="--arg")
        try:
            parsed: Any = json.loads(value)
        except json.JSONDecodeError:
            parsed = value
        arguments[_ARGUMENT_ALIASES.get(name, name)] = parsed
    return arguments


json_option = click.option("--json", "as_json", is_flag=True, help="Print machine-readable JSON.")


def read_draft_file(path: Path) -> str:
    """A draft to audit, from a file or stdin ("-"), decoded as `agent-zot audit` reads it."""
    from agent_zot.errors import InvalidArgumentError
    from agent_zot.services.audit.draft import MAX_DRAFT_CHARS, decode_file

    if str(path) == "-":
        raw = sys.stdin.buffer.read(MAX_DRAFT_CHARS * 4 + 1)
    else:
        try:
            with path.open("rb") as fh:
                raw = fh.read(MAX_DRAFT_CHARS * 4 + 1)
        except OSError as exc:
            raise InvalidArgumentError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    return decode_file(raw)


def read_json_list(path: Path) -> list[Any]:
    """A JSON list from a file (verdicts for a review package)."""
    from agent_zot.errors import InvalidArgumentError

    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise InvalidArgumentError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise InvalidArgumentError(f"{path} is not JSON: {exc}.") from exc
    if not isinstance(data, list):
        raise InvalidArgumentError(f"{path} holds no JSON list.", hint='Write [{"item_key": …}, …].')
    return data
