"""The one registration shape for backends (agent_zot/backends.py), checked over every table the package
declares: found by reading the source, so a new table is checked without being named here."""

from __future__ import annotations

import ast
import importlib
import importlib.util
import json
import subprocess
import sys

import pytest

from agent_zot.backends import Backends
from agent_zot.errors import AgentZotError, ConfigError
from tests.conftest import REPO_ROOT

PACKAGE = REPO_ROOT / "agent_zot"


def _declared_tables() -> list[tuple[str, str]]:
    """(module, name) of every module-level ``NAME = Backends(...)`` / ``NAME: Backends[T] = Backends(...)``."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in tree.body:
            value = node.value if isinstance(node, ast.Assign | ast.AnnAssign) else None
            if not (isinstance(value, ast.Call) and isinstance(value.func, ast.Name)):
                continue
            if value.func.id != "Backends":
                continue
            target = node.targets[0] if isinstance(node, ast.Assign) else node.target
            assert isinstance(target, ast.Name)
            parts = path.relative_to(REPO_ROOT).with_suffix("").parts
            module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
            found.append((module, target.id))
    return found


TABLES = _declared_tables()


def _table(module: str, name: str) -> Backends[object]:
    table = getattr(importlib.import_module(module), name)
    assert isinstance(table, Backends)
    return table


def test_the_five_kinds_of_backend_are_chosen_through_a_table() -> None:
    assert {name for _, name in TABLES} >= {
        "VECTOR_STORES",
        "EMBEDDERS",
        "OCR_ENGINES",
        "GRAPH_STORES",
        "JUDGES",
    }


@pytest.mark.parametrize(("module", "name"), TABLES, ids=[name for _, name in TABLES])
def test_every_name_resolves_and_an_unknown_one_lists_the_choices(module: str, name: str) -> None:
    table = _table(module, name)
    assert table.names
    assert all(importlib.util.find_spec(m) for m in table.modules())
    for entry in table.names:
        assert table.canonical(f" {entry.upper()} ") == entry
        assert callable(table.loader(entry))
    for alias, entry in table.aliases.items():
        assert alias in table.choices() and entry in table.names
        assert table.canonical(alias) == entry
    with pytest.raises(AgentZotError) as raised:
        table.create("no-such-backend")
    message = str(raised.value)
    assert f"Unknown {table.what} 'no-such-backend'" in message
    assert all(choice in message for choice in table.choices())


@pytest.mark.parametrize(("module", "name"), TABLES, ids=[name for _, name in TABLES])
def test_importing_a_table_imports_none_of_its_backends(module: str, name: str) -> None:
    code = f"""
import json, sys
import {module} as owner
table = owner.{name}
print(json.dumps([m for m in table.modules() if m in sys.modules]))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert json.loads(out.stdout) == []


def test_the_shape_itself_aliases_options_and_its_error() -> None:
    made: list[tuple[object, ...]] = []

    def plain(size: int, *, label: str = "") -> str:
        made.append((size, label))
        return f"plain {size}{label}"

    table: Backends[str] = Backends(
        "widget", {"plain": plain, "path": "pathlib:PurePosixPath"}, aliases={"old": "plain"}
    )
    assert table.create("OLD", 3, label="x") == "plain 3x"
    assert str(table.create("path", "a", "b")) == "a/b"  # a string entry is imported on use
    assert "old" in table and "nope" not in table
    with pytest.raises(ConfigError, match="Invalid option for widget 'plain'"):
        table.create("plain", 3, colour="red")
    assert made == [(3, "x")]  # a bad option is refused before anything is built
    with pytest.raises(ConfigError, match=r"Choose one of: old, path, plain\."):
        table.canonical("gadget")
    with pytest.raises(ValueError, match="alias"):
        Backends("widget", {"plain": plain}, aliases={"old": "missing"})
