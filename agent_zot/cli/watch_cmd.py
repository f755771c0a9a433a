"""`agent-zot watch`, and the background updater `serve` runs: the index follows Zotero
(agent_zot.services.watch.watcher)."""

from __future__ import annotations

import sys
import threading
import time
from collections.abc import Callable
from functools import partial
from typing import TYPE_CHECKING

import click

from agent_zot.cli.common import _guard
from agent_zot.errors import AgentZotError

if TYPE_CHECKING:
    from agent_zot.cli.common import State
    from agent_zot.services.context import AppContext
    from agent_zot.services.watch.watcher import UpdateOutcome, Watcher


def update_command(state: State, ctx: AppContext) -> list[str]:
    """The update process's command line for this library and config, run by the watcher as a child
    process that stays for the next update (services/upkeep/update_worker.py)."""
    command = [sys.executable, "-m", "agent_zot", "--library", str(ctx.source().data_dir)]
    if state.config_file is not None:
        command += ["--config", str(state.config_file.resolve())]
    return [*command, "update-worker"]


def make_watcher(
    state: State, ctx: AppContext, interval: float, on_update: Callable[[UpdateOutcome], None] | None = None
) -> Watcher:
    from agent_zot.services.upkeep.update_worker import UpdateWorker
    from agent_zot.services.watch.watcher import Watcher

    return Watcher(
        ctx.source().db_path,
        ctx.settings.data_dir,
        UpdateWorker(update_command(state, ctx)),
        interval=interval,
        on_update=on_update,
        pause=partial(ctx.wait_for_quiet, others=0),  # a server's requests go first
    )


def start_background_updates(state: State, ctx: AppContext) -> threading.Event | None:
    """`serve`'s updater: only for a real library that has an index (building the first one is a choice
    the user makes with update-db, it can take long)."""
    from agent_zot.services.watch.watcher import start_watcher

    try:
        if ctx.source().is_demo or not ctx.index_resources().exists():
            return None
    except AgentZotError:
        return None  # no library: the first tool call reports it
    _, stop = start_watcher(make_watcher(state, ctx, ctx.settings.watch_interval_s))
    return stop


@click.command()
@click.option(
    "--interval",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds between two looks at the library (default: watch_interval_s from the config).",
)
@click.pass_obj
def watch(state: State, interval: float | None) -> None:
    """Keep the index up to date: update it whenever Zotero's database or storage changes (Ctrl-C stops).
    Only one watcher (or serve) per data folder updates; the others wait and take over if it stops."""
    try:
        ctx = state.context(follows_library=True)
        ctx.source()  # a missing library is reported now, not at the first poll
    except AgentZotError as exc:
        click.echo(f"Error: {exc}", err=True)
        sys.exit(2)
    every = interval or state.settings.watch_interval_s
    watcher = make_watcher(state, ctx, every, on_update=_report)
    click.echo(f"Watching {ctx.source().db_path} every {every:g} s (Ctrl-C stops).", err=True)
    stop = threading.Event()
    waiting = False
    try:
        while not stop.is_set():
            watcher.poll()
            if not watcher.election.elected and not waiting:
                click.echo(
                    "Another agent-zot process is updating this index; waiting to take over.", err=True
                )
            waiting = not watcher.election.elected
            stop.wait(every)
    except KeyboardInterrupt:
        pass
    finally:
        watcher.close()
        ctx.close()


def _report(outcome: UpdateOutcome) -> None:
    stamp = time.strftime("%H:%M:%S")
    if not outcome.ok:
        click.echo(f"{stamp} update failed: {outcome.error}", err=True)
        return
    s = outcome.summary
    in_place = f"updated in place {s['updated_in_place']}, " if s.get("updated_in_place") else ""
    seconds = s.get("seconds")
    took = float(seconds) if isinstance(seconds, int | float) else 0.0
    click.echo(
        f"{stamp} indexed {s.get('indexed', 0)}, {in_place}removed {s.get('removed', 0)}, "
        f"unchanged {s.get('unchanged', 0)} ({took:.1f} s)"
    )


@click.command(name="update-worker", hidden=True)
@click.option(
    "--idle-exit",
    type=click.FloatRange(min=0.1),
    default=None,
    help="Seconds without a request after which the process exits (default: 600).",
)
@click.pass_obj
@_guard
def update_worker(state: State, idle_exit: float | None) -> None:
    """The watcher's update process: one `update-db --background` per line on stdin, each answered with
    one JSON line, models, graph memo and open index kept between them (services/upkeep/update_worker.py)."""
    from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
    from agent_zot.services.upkeep.update_worker import IDLE_EXIT_S, serve_updates

    state.in_background()
    ctx = state.context(follows_library=True)
    ctx.source()  # a missing library is reported now, with update-db's words and exit code
    options = UpdateOptions(parser=ctx.settings.parser, wait=False, thorough_check=False)

    def update() -> dict[str, object]:
        # The index stays open between updates: reopening the store cost 0.65 s of each (5,000 items).
        # While this process owns it, it answers other processes' calls, as update-db did while it ran.
        return update_index(ctx.library(), ctx.index_resources(), options, graph=ctx.graph()).to_dict()

    try:
        serve_updates(update, sys.stdin, sys.stdout, idle_exit_s=idle_exit or IDLE_EXIT_S)
    except KeyboardInterrupt:  # Ctrl-C in the terminal reaches the watcher's child too: stop quietly
        pass
    finally:
        ctx.close()
