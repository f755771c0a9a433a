"""Property-based fuzzing of every argument of every tool, through the in-memory MCP client.

Arguments are generated from each tool's request model (services/catalog.py): plausible values, hostile
ones (NUL bytes, huge numbers, 5,000-character strings, path tricks, other scripts) and wrong types. The
invariant: every call ends in an answer or in an error the assistant can read; never an unhandled error
(fastmcp's masked "Error calling tool"), never a hang; the library's bytes never change (the session-wide
database guard in conftest.py checks that).

CI runs AGENT_ZOT_FUZZ_EXAMPLES (default 150) calls per tool; a nightly-size run sets it to 1500, which
makes more than 10,000 calls over the seven tools.
"""

from __future__ import annotations

import asyncio
import json
import os
import time
import types
import typing
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastmcp import Client
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from agent_zot.config import Settings
from agent_zot.mcp.server import build_server
from agent_zot.services.catalog import SPECS
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database

pytestmark = pytest.mark.slow

EXAMPLES = int(os.environ.get("AGENT_ZOT_FUZZ_EXAMPLES", "150"))
# Where to write call counts and latencies (for docs/performance.md); unset in CI.
REPORT = os.environ.get("AGENT_ZOT_FUZZ_REPORT")
_SECONDS: dict[str, list[float]] = {}
_ERRORS: dict[str, int] = {}
CALL_TIMEOUT_S = 60
MASKED = "Error calling tool"

HOSTILE_TEXT = [
    "",
    " ",
    "\x00",
    "a\x00b.bib",
    "x" * 5000,
    "../../../../etc/passwd",
    "/etc/passwd",
    "~/.ssh/id_rsa",
    "🙂🙃",
    "深度学习 图像识别",
    "ABCD2345",
    "10.1234/some.doi",
    "arXiv:2101.00001",
    "a || b, -c",
    "%s %d {0} {}",
    "' OR 1=1 --",
    "<script>alert(1)</script>",
    "Smith et al. (2021)",
    "papers by Lo since 2019 in the Thesis collection tagged nlp",
    "what does my library cite most that I don't have",
    "C:\\Windows\\system32",
    "out.exe",
    "notes/",
    "the S2ORC paper",
    "what does SciBERT find about scientific text?",
    "Kyle Lo",
    "citation recommendation",
    "list my collections",
    "papers tagged to-read",
]
HOSTILE_INTS = [0, -1, 1, 2, 3, 200, 201, 10**9, -(10**12), 2**63]


def _text() -> st.SearchStrategy[str]:
    hostile = st.sampled_from(HOSTILE_TEXT)
    return st.one_of(hostile, hostile, hostile, st.text(max_size=60))  # mostly the known-hard values


def _value(annotation: Any) -> st.SearchStrategy[Any]:
    """Values for a field's type, plus hostile ones and sometimes a value of the wrong type."""
    origin = typing.get_origin(annotation)
    if origin in (typing.Union, types.UnionType):  # "not given" is covered by leaving the field out
        return st.one_of(*(_value(arg) for arg in typing.get_args(annotation) if arg is not type(None)))
    if origin is typing.Literal:
        return st.sampled_from([*typing.get_args(annotation), "bogus", ""])
    if origin is list:
        return st.lists(_text(), max_size=4)
    if annotation is type(None):
        return st.none()
    if annotation is bool:
        return st.booleans()
    if annotation is int:
        return st.one_of(st.sampled_from(HOSTILE_INTS), st.integers(-1000, 1000))
    if annotation is str:
        return _text()
    return st.none()


def arguments_for(spec: Any) -> st.SearchStrategy[dict[str, Any]]:
    fields = {
        name: st.one_of(_value(info.annotation), st.sampled_from([None, 12345, ["x"], {"k": 1}]))
        for name, info in spec.request.model_fields.items()
    }
    names = sorted(fields)
    # One argument alone reaches deeper (nothing else fails validation first); several test how they mix.
    alone = st.sampled_from(names).flatmap(lambda name: fields[name].map(lambda value: {name: value}))
    return st.one_of(alone, st.fixed_dictionaries({}, optional=fields))


@pytest.fixture(scope="module")
def connected(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[asyncio.AbstractEventLoop, Client]]:
    root = tmp_path_factory.mktemp("fuzz")
    db = guard_database(ensure_demo_library(root / "library"))
    base = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    ctx = AppContext(base, home=root / "home")
    update_index(ctx.library(), ctx.index_resources(), UpdateOptions(), graph=ctx.graph())  # index and graph
    loop = asyncio.new_event_loop()
    client = Client(build_server(ctx))
    loop.run_until_complete(client.__aenter__())
    yield loop, client
    loop.run_until_complete(client.__aexit__(None, None, None))
    loop.close()
    ctx.close()


def _check(result: Any, tool: str, arguments: dict[str, Any]) -> None:
    text = "\n".join(block.text for block in result.content if hasattr(block, "text"))
    assert text.strip(), (tool, arguments)
    assert MASKED not in text, f"unhandled error in {tool} for {arguments!r}"
    error = (result.structured_content or {}).get("error")
    if result.is_error and error is not None:  # an error raised on purpose carries its message and type
        assert error.get("message") and error.get("type"), (tool, arguments)


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_every_argument_of_every_tool_gets_an_answer_or_a_clear_error(
    connected: tuple[asyncio.AbstractEventLoop, Client], spec: Any
) -> None:
    loop, client = connected

    @settings(
        max_examples=EXAMPLES,
        deadline=None,
        derandomize=True,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
        database=None,
    )
    @given(arguments=arguments_for(spec))
    def one_call(arguments: dict[str, Any]) -> None:
        call = client.call_tool(spec.name, arguments, raise_on_error=False)
        started = time.perf_counter()
        result = loop.run_until_complete(asyncio.wait_for(call, CALL_TIMEOUT_S))
        _SECONDS.setdefault(spec.name, []).append(time.perf_counter() - started)
        _ERRORS[spec.name] = _ERRORS.get(spec.name, 0) + bool(result.is_error)
        _check(result, spec.name, arguments)

    one_call()
    if REPORT:
        _write_report(Path(REPORT))


def _write_report(path: Path) -> None:
    def p95(values: list[float]) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, round(0.95 * (len(ordered) - 1)))]

    rows = {
        tool: {"calls": len(v), "clear_errors": _ERRORS.get(tool, 0), "p95_ms": round(p95(v) * 1000, 1)}
        for tool, v in _SECONDS.items()
    }
    path.write_text(json.dumps(rows, indent=1), encoding="utf-8")


WRONG_TYPES: list[Any] = [None, 12345, -1, 2**63, ["x"], {"k": 1}, True, "", "\x00"]


def hard_values(annotation: Any) -> list[Any]:
    """Every known-hard value for a field of this type, and values of the wrong type."""
    found: list[Any] = list(WRONG_TYPES)
    for arg in typing.get_args(annotation) or (annotation,):
        if arg is str or typing.get_origin(arg) is list:
            found += HOSTILE_TEXT if arg is str else [[v] for v in HOSTILE_TEXT]
        elif arg is int:
            found += HOSTILE_INTS
        elif typing.get_origin(arg) is typing.Literal:
            found += [*typing.get_args(arg), "bogus"]
    return found


@pytest.mark.parametrize("spec", SPECS, ids=[spec.name for spec in SPECS])
def test_each_argument_alone_with_every_hard_value(
    connected: tuple[asyncio.AbstractEventLoop, Client], spec: Any
) -> None:
    loop, client = connected
    for name, info in spec.request.model_fields.items():
        for value in hard_values(info.annotation):
            arguments = {name: value}
            call = client.call_tool(spec.name, arguments, raise_on_error=False)
            _check(loop.run_until_complete(asyncio.wait_for(call, CALL_TIMEOUT_S)), spec.name, arguments)
