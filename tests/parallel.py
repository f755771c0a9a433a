"""How the suite runs in parallel (pytest-xdist, `--numprocesses=auto --dist=loadfile` in pyproject.toml):
how many workers, which runs stay serial, and which test files start first. Loaded by tests/conftest.py."""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

import pytest

# More workers than this wait on the longest test file (about four minutes on two cores) and only add memory.
MAX_WORKERS = 6


def pytest_addoption(parser: pytest.Parser, pluginmanager: pytest.PytestPluginManager) -> None:
    if not pluginmanager.has_plugin("xdist"):
        # pyproject's addopts asks xdist for workers; with it blocked (-p no:xdist, to debug serially)
        # those options are accepted and mean nothing, instead of failing the command line.
        parser.addoption("--numprocesses", dest="numprocesses", help="(xdist not loaded: ignored)")
        parser.addoption("--dist", dest="dist", help="(xdist not loaded: ignored)")


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
    """-n auto: one worker more than the usable CPUs (at most MAX_WORKERS). A serial run keeps a core busy
    only three quarters of its time (servers and update-db subprocesses starting, polls), which the extra
    worker fills. PYTEST_XDIST_AUTO_NUM_WORKERS, when set, decides instead."""
    if os.environ.get("PYTEST_XDIST_AUTO_NUM_WORKERS"):
        return None
    cpus = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count() or 1
    return min(cpus + 1, MAX_WORKERS)


@pytest.hookimpl(tryfirst=True)
def pytest_cmdline_main(config: pytest.Config) -> None:
    """A run of one test file stays in this process: --dist=loadfile keeps a file on one worker anyway,
    so workers would only add their start-up (seconds each). An explicit -n/--numprocesses still wins.
    Files are handed out in collection order (see pytest_collection_modifyitems), not by test count."""
    if not config.pluginmanager.has_plugin("xdist"):
        return
    config.option.loadscopereorder = False
    if any(arg.startswith(("-n", "--numprocesses")) for arg in config.invocation_params.args):
        return
    files = {Path(arg.split("::", 1)[0]).resolve() for arg in config.args}
    if len(files) == 1 and next(iter(files)).is_file():
        config.option.numprocesses = 0


def _weight(items: Iterable[pytest.Item]) -> tuple[float, int]:
    """A file's expected length, longest first: its own per-test timeout if it raised one (only the
    longest tests do), then how many of its tests are marked slow."""
    items = list(items)
    timeouts = [float(mark.args[0]) for item in items for mark in item.iter_markers("timeout") if mark.args]
    slow = sum(1 for item in items if item.get_closest_marker("slow"))
    return (-max(timeouts, default=0.0), -slow)


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """On xdist workers, the longest files first (each worker collects alike, so all agree): a four-minute
    file handed out last would run alone at the end while the other workers sit idle."""
    if not hasattr(config, "workerinput"):
        return  # a serial run keeps the usual order
    files: dict[str, list[pytest.Item]] = {}
    for item in items:
        files.setdefault(item.nodeid.split("::", 1)[0], []).append(item)
    order = sorted(files.values(), key=_weight)  # stable: equal weights keep collection order
    items[:] = [item for group in order for item in group]
