"""The test suite's own layout: the `slow` marker the fast local loop leaves out, the README's two test
commands, and one way to skip on ../shared/data. Cheap: files are read, nothing is run."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

import pytest

from tests.conftest import REPO_ROOT, SHARED_DATA, require_shared

FAST = '.venv/bin/pytest -m "not slow"'


def _markers() -> dict[str, str]:
    options = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    lines = options["tool"]["pytest"]["ini_options"]["markers"]
    return {line.split(":", 1)[0].split("(")[0].strip(): line.split(":", 1)[1].strip() for line in lines}


def test_the_slow_marker_is_registered_with_a_description(pytestconfig: pytest.Config) -> None:
    assert _markers().get("slow"), "pyproject.toml [tool.pytest.ini_options] markers must describe `slow`"
    registered = [line.split(":", 1)[0].strip() for line in pytestconfig.getini("markers")]
    assert "slow" in registered and any(name.startswith("shared_data") for name in registered)


def test_the_readme_names_the_full_suite_and_the_fast_loop() -> None:
    readme = (REPO_ROOT / "README.md").read_text(encoding="utf-8")
    ci = (REPO_ROOT / ".ci" / "run").read_text(encoding="utf-8")
    # CI runs the README's test command, the whole suite, exactly as written there.
    assert re.search(r"^\.venv/bin/pytest$", ci, re.MULTILINE)
    assert re.search(r"&& \.venv/bin/pytest\n", readme), "the README's test command is the whole suite"
    assert FAST in readme, f"the README must name the fast local loop: {FAST}"


def test_a_missing_shared_path_skips_saying_which_and_how_to_get_it() -> None:
    missing = SHARED_DATA / "no-such-folder"
    with pytest.raises(pytest.skip.Exception) as skipped:
        require_shared(missing)
    reason = str(skipped.value)
    assert "../shared/data/no-such-folder not found" in reason and "CI provides them" in reason


def test_test_files_skip_on_shared_data_only_through_conftest() -> None:
    """No test builds the ../shared/data path or skips on it by itself: conftest's SHARED_DATA and
    require_shared (or the shared_data(path) marker) say why, the same way everywhere."""
    offenders = []
    for path in sorted((REPO_ROOT / "tests").rglob("*.py")):
        if path.name in ("conftest.py", Path(__file__).name):
            continue
        text = path.read_text(encoding="utf-8")
        if re.search(r'"shared"\s*/\s*"data"', text) or re.search(r"skip\w*\([^)]*shared", text, re.I):
            offenders.append(str(path.relative_to(REPO_ROOT / "tests")))
    assert offenders == []


def test_the_suite_runs_in_parallel_by_module_with_a_per_test_timeout() -> None:
    """`.venv/bin/pytest` alone runs on every core, a module's tests on one worker (so its module-scoped
    fixtures, most of them an indexed library, are built once), and stops a hung test by name."""
    options = tomllib.loads((REPO_ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    ini = options["tool"]["pytest"]["ini_options"]
    addopts = dict(option.split("=", 1) for option in ini["addopts"].split() if "=" in option)
    # the long spellings: conftest accepts them as no-ops under -p no:xdist (pytest keeps -n for itself)
    assert addopts.get("--numprocesses") in ("auto", "logical") and addopts.get("--dist") == "loadfile"
    # an ini value, not --timeout in addopts, so that -p no:timeout stays usable too
    assert int(ini.get("timeout", 0)) > 0
    dev = options["project"]["optional-dependencies"]["dev"]
    assert any(d.startswith("pytest-xdist") for d in dev) and any(d.startswith("pytest-timeout") for d in dev)


def test_test_files_live_in_package_folders_that_mirror_the_package() -> None:
    """Test files sit in folders by layer or tool (tests/graph/, tests/services/search/, ...), never at the
    top, and every folder with Python files is a package: tests import each other as `tests.<folder>.<module>`,
    and two folders may hold files of the same name."""
    tests = REPO_ROOT / "tests"
    assert sorted(p.name for p in tests.glob("test_*.py")) == []
    folders = {p.parent for p in tests.rglob("*.py") if "__pycache__" not in p.parts}
    assert sorted(str(f.relative_to(tests)) for f in folders if not (f / "__init__.py").exists()) == []
    assert len(folders) > 8
