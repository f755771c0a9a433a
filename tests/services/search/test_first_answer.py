"""Instant first answers: queries are embedded by an ONNX copy of the MiniLM model (exported by update-db,
checked against torch), and `serve` warms up in the background. Real model, real index, real server."""

from __future__ import annotations

import asyncio
import gc
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any

import numpy as np
import pytest
from fastmcp import Client
from fastmcp.client.transports import StdioTransport

from agent_zot.config import Settings
from agent_zot.index.embed_local import SentenceTransformerEmbedder
from agent_zot.services import tools
from agent_zot.services.context import AppContext
from agent_zot.services.resolve import match
from agent_zot.services.upkeep.warmup import start_warm_up, warm_up
from agent_zot.zotero.demo import ensure_demo_library
from tests.conftest import guard_database, index_library

QUERY = "how are citation links resolved when building a corpus of papers?"


@pytest.fixture(scope="module")
def indexed(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("first-answer")
    db = guard_database(ensure_demo_library(root / "library"))
    settings = Settings(zotero_data_dir=db.parent, data_dir=root / "state", export_dir=root / "exports")
    return index_library(settings, root / "home")


def _exports(settings: Settings) -> list[Path]:
    return sorted((settings.data_dir / "models" / "query-onnx").glob("*/model.onnx"))


@pytest.mark.slow
def test_update_db_exports_a_query_model_that_matches_torch(indexed: Settings) -> None:
    assert len(_exports(indexed)) == 1
    ctx = AppContext(indexed)
    try:
        embedder = ctx.index().embedder
        assert isinstance(embedder, SentenceTransformerEmbedder)
        from_onnx = embedder.embed_query(QUERY)
        assert embedder._model is None, "a query alone must not load the torch model"
        from_torch = embedder.embed_documents([QUERY])[0]
    finally:
        ctx.close()
    assert from_onnx.shape == from_torch.shape
    assert float(np.dot(from_onnx, from_torch)) > 0.9999


@pytest.mark.slow
def test_answers_are_the_same_with_the_onnx_and_the_torch_query_model(indexed: Settings) -> None:
    answers = []
    for kind in ("minilm", "minilm-st"):  # the same model and index; minilm-st embeds queries with torch
        ctx = AppContext(indexed.model_copy(update={"embedder": kind}))
        try:
            answer = tools.call(ctx, "zot_search", query=QUERY, limit=3)
        finally:
            ctx.close()
        # The papers and their passages' pages; scores may differ in the last float digits across CPUs.
        answers.append(
            [
                (p["key"], sorted((q["attachment_key"], q["page_start"]) for q in p.get("passages", [])))
                for p in answer.data["papers"]
            ]
        )
    assert answers[0] == answers[1] and answers[0]


@pytest.mark.slow
def test_a_damaged_export_is_replaced_by_torch_and_made_again(indexed: Settings, tmp_path: Path) -> None:
    settings = indexed.model_copy(update={"data_dir": tmp_path / "state"})
    index_library(settings, tmp_path / "home")
    (export,) = _exports(settings)
    export.write_bytes(b"not an onnx model")
    ctx = AppContext(settings)
    try:
        answer = tools.call(ctx, "zot_search", query=QUERY, limit=2)
        assert not answer.is_error and "S2ORC" in answer.text
        assert ctx.index().embedder._model is not None  # the query fell back to torch
    finally:
        ctx.close()
    # Loading torch for that query exported a good copy again, which the next process uses.
    assert export.is_file() and export.stat().st_size > 1_000_000
    ctx = AppContext(settings)
    try:
        ctx.index().embedder.embed_query(QUERY)
        assert ctx.index().embedder._model is None
    finally:
        ctx.close()


@pytest.mark.slow
def test_warm_up_loads_the_library_and_the_query_side_only(indexed: Settings) -> None:
    ctx = AppContext(indexed)
    try:
        assert warm_up(ctx) >= 0
        embedder = ctx.index().embedder
        assert ctx._library is not None and embedder._query_model is not None
        assert embedder._query_model._session is not None and embedder._model is None
        answer = tools.call(ctx, "zot_search", query=QUERY, limit=2)
        assert "S2ORC" in answer.text
    finally:
        ctx.close()


@pytest.mark.slow
def test_a_request_in_progress_goes_before_the_warm_ups_library_sized_tables(indexed: Settings) -> None:
    """Those tables take seconds at 20,000 items; built while a request ran, they held its answer back
    until they were done (the event loop that writes it shares the GIL)."""
    ctx = AppContext(indexed)
    serving, done = threading.Event(), threading.Event()

    def request() -> None:
        with ctx.request():
            serving.set()
            done.wait(60)

    requester = threading.Thread(target=request)
    requester.start()
    serving.wait(10)
    warmer = threading.Thread(target=warm_up, args=(ctx,))
    warmer.start()
    try:
        library = ctx.library()
        deadline = time.monotonic() + 60
        while ctx.index()._opened is None and time.monotonic() < deadline:
            time.sleep(0.05)  # the part a search needs is loaded while the request runs...
        time.sleep(0.5)
        assert warmer.is_alive()
        assert not match._haystacks(library)  # ...the tables that grow with the library wait
        done.set()
        warmer.join(60)
        assert len(match._haystacks(library)) == len(library.items)
    finally:
        done.set()
        requester.join(10)
        warmer.join(60)
        ctx.close()


@pytest.mark.slow
def test_a_server_starts_without_the_page_readers_and_exporters() -> None:
    """OCR (numpy, wordninja's word list), the GraphML and Markdown exports (networkx, BeautifulSoup) cost
    0.5 s of every start; they load when a page is read or an export made."""
    code = (
        "import json, sys\n"
        "import agent_zot.cli.main, agent_zot.mcp.server, agent_zot.services.tools\n"
        "heavy = ('numpy', 'wordninja', 'networkx', 'markdownify', 'bs4', 'agent_zot.ingest.ocr.pages')\n"
        "print(json.dumps([m for m in heavy if m in sys.modules]))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert json.loads(out.stdout) == []


def test_warm_up_without_an_index_or_a_library_does_not_fail(tmp_path: Path) -> None:
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    ctx = AppContext(Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state"))
    try:
        warm_up(ctx)  # no index yet: nothing to load, nothing created
        assert not (tmp_path / "state" / "models").exists()
    finally:
        ctx.close()
    missing = AppContext(Settings(zotero_data_dir=tmp_path / "nowhere", data_dir=tmp_path / "state2"))
    warm_up(missing)  # the first request reports the missing library, with its message
    missing.close()


@pytest.mark.slow
async def test_a_new_server_answers_its_first_search_from_the_full_text(indexed: Settings) -> None:
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(indexed.data_dir),
        "AGENT_ZOT_DATA_DIR": str(indexed.data_dir),
    }
    library = str(indexed.zotero_data_dir)
    transport = StdioTransport(sys.executable, ["-m", "agent_zot", "--library", library, "serve"], env=env)
    async with Client(transport) as client:
        assert len(await client.list_tools()) == 7
        result = await client.call_tool("zot_search", {"query": QUERY, "limit": 2})
    assert "[p. 1" in result.content[0].text and "S2ORC" in result.content[0].text


async def test_serve_warms_up_without_waiting_for_a_listing(tmp_path: Path) -> None:
    """The warm-up starts with the server, not when the client lists the tools: a question asked at once
    finds it under way. The client here only initializes."""
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    env = {
        "PATH": os.environ.get("PATH", ""),
        "HOME": str(tmp_path),
        "AGENT_ZOT_DATA_DIR": str(tmp_path / "state"),
        "AGENT_ZOT_LOG_LEVEL": "INFO",
    }
    log = tmp_path / "serve.log"
    args = ["-m", "agent_zot", "--library", str(db.parent), "serve"]
    with log.open("w") as sink:
        transport = StdioTransport(sys.executable, args, env=env, log_file=sink)
        async with Client(transport):
            deadline = time.monotonic() + 60
            while "warm-up done" not in log.read_text() and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
    assert "warm-up done" in log.read_text()


def test_the_warm_up_turns_the_collector_back_on(tmp_path: Path) -> None:
    """`serve` pauses the cyclic collector for its start; the warm-up's end turns it on again, with what
    the start made kept out of later collections."""
    db = guard_database(ensure_demo_library(tmp_path / "library"))
    ctx = AppContext(Settings(zotero_data_dir=db.parent, data_dir=tmp_path / "state"))
    frozen = gc.get_freeze_count()
    gc.disable()
    try:
        start_warm_up(ctx, collector_paused=True).join(60)
        assert gc.isenabled() and gc.get_freeze_count() > frozen
    finally:
        gc.unfreeze()
        gc.enable()
        ctx.close()


def _first_call_waits_for(
    monkeypatch: pytest.MonkeyPatch, owner: object, name: str
) -> tuple[list[int], threading.Event]:
    """Count the calls of ``owner.name`` (the real one runs); the first waits (up to 2 s) until the
    returned event is set, so that a second caller arrives while it runs."""
    real = getattr(owner, name)
    calls: list[int] = []
    arrived = threading.Event()

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls.append(1)
        if len(calls) == 1:
            arrived.wait(2)
        else:
            arrived.set()
        return real(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)
    return calls, arrived


@pytest.mark.slow
def test_the_integrity_check_runs_once_when_the_warm_up_and_a_request_ask_at_once(
    indexed: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_zot.index import integrity

    calls, _ = _first_call_waits_for(monkeypatch, integrity, "quick_verdict")
    ctx = AppContext(indexed)
    try:
        first = threading.Thread(target=ctx.check_integrity)
        first.start()
        while not calls:
            time.sleep(0.01)
        ctx.check_integrity()  # arrives while the first check runs: waits for its verdict
        first.join(60)
    finally:
        ctx.close()
    assert len(calls) == 1


@pytest.mark.slow
def test_a_search_during_the_warm_up_is_answered_and_the_model_loads_once(
    indexed: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    from agent_zot.index.embed_local import OnnxEmbedder

    loads, _ = _first_call_waits_for(monkeypatch, OnnxEmbedder, "_load")
    ctx = AppContext(indexed)
    try:
        warming = start_warm_up(ctx)
        while not loads:  # the warm-up is loading the query model...
            time.sleep(0.01)
        answer = tools.call(ctx, "zot_search", query=QUERY, limit=2)  # ...when the question comes
        warming.join(60)
    finally:
        ctx.close()
    assert "S2ORC" in answer.text
    assert len(loads) == 1


@pytest.mark.slow
def test_a_small_update_embeds_with_the_export_and_finds_the_same(indexed: Settings, tmp_path: Path) -> None:
    """A few changed items are embedded by the ONNX export (no torch import) into the same vectors."""
    import shutil

    from agent_zot.services.upkeep.update_db import UpdateOptions, update_index

    settings = indexed.model_copy(update={"data_dir": tmp_path / "state"})
    shutil.copytree(indexed.data_dir, settings.data_dir)
    ctx = AppContext(settings)
    try:
        before = tools.call(ctx, "zot_search", query=QUERY, limit=3).data["papers"]
        resources = ctx.index()
        resources.open()
        changed = before[0]["key"]
        resources.store.delete_items([changed])
        resources.state.forget_items([changed])  # as if the item had just been added in Zotero
        summary = update_index(ctx.library(), resources, UpdateOptions())
        embedder = resources.embedder
        assert isinstance(embedder, SentenceTransformerEmbedder)
        assert (summary.indexed, summary.engine) == (1, "onnx (cpu)")
        assert embedder._model is None, "torch was loaded for a one-item update"
        after = tools.call(ctx, "zot_search", query=QUERY, limit=3).data["papers"]
        texts = [QUERY, "Citation graphs connect papers through their reference lists."]
        by_export = embedder.embed_documents(texts)
        embedder._documents_by_export = False  # the torch model, for comparison
        by_torch = embedder.embed_documents(texts)
    finally:
        ctx.close()
    assert [p["key"] for p in after] == [p["key"] for p in before]
    assert [round(p["score"], 3) for p in after] == [round(p["score"], 3) for p in before]
    assert float((by_export * by_torch).sum(axis=1).min()) > 0.9999


# A topic with no cue for another mode: the default (fast) search of the full text
PLAIN = "a large corpus of scientific papers for text mining"


def _library_read_held(monkeypatch: pytest.MonkeyPatch) -> tuple[threading.Event, threading.Event]:
    """Hold the first read of the library once it starts (under the context's lock, as a long read at
    100,000 items does): returns (reading: set when it started, gate: set it to let the read go on)."""
    reading, gate = threading.Event(), threading.Event()
    real = AppContext._read_options

    def held(self: AppContext, source: Any) -> Any:
        reading.set()
        gate.wait(60)
        return real(self, source)

    monkeypatch.setattr(AppContext, "_read_options", held)
    return reading, gate


def _answered_within(seconds: float, ask: Any) -> Any:
    """``ask()``'s answer, or a failure when it did not come within ``seconds`` (it waited for the read)."""
    answers: list[Any] = []
    asking = threading.Thread(target=lambda: answers.append(ask()), daemon=True)
    asking.start()
    asking.join(seconds)
    assert answers, f"no answer within {seconds} s: the search waited for the library's read"
    return answers[0]


@pytest.mark.slow
def test_a_plain_search_while_the_library_is_read_is_answered_from_the_index(
    indexed: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A server's warm-up reads the library (a second at 100,000 items) after the index's query side:
    a plain search arriving meanwhile does not wait for it, names its papers as the index stores them,
    and says so; once the library is read the same question gets the same papers, without the note."""
    reading, gate = _library_read_held(monkeypatch)
    ctx = AppContext(indexed)
    warming = start_warm_up(ctx)
    try:
        assert reading.wait(60)  # the warm-up is reading the library...
        early = _answered_within(30, lambda: tools.call(ctx, "zot_search", query=PLAIN, limit=3))
        gate.set()
        warming.join(60)
        full = tools.call(ctx, "zot_search", query=PLAIN, limit=3)
    finally:
        gate.set()
        warming.join(60)
        ctx.close()
    assert early.text.startswith(
        "[Note: Answered from the index while your Zotero library is still being read"
    )
    assert early.data["library_pending"] is True
    assert "S2ORC" in early.text and "[p. 1" in early.text
    assert "library_pending" not in full.data and "still being read" not in full.text
    assert [p["key"] for p in early.data["papers"]] == [p["key"] for p in full.data["papers"]]
    assert [(p["title"], p["year"]) for p in early.data["papers"]] == [
        (p["title"], p["year"]) for p in full.data["papers"]
    ]


@pytest.mark.slow
def test_a_search_that_names_a_collection_waits_for_the_librarys_read(
    indexed: Settings, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Collections (like tags, authors, keys) are resolved against the library: such a search waits for
    the read the warm-up has under way, and is then answered in full, its filter applied."""
    reading, gate = _library_read_held(monkeypatch)
    ctx = AppContext(indexed)
    warming = start_warm_up(ctx)
    answers: list[Any] = []
    try:
        assert reading.wait(60)
        ask = threading.Thread(
            target=lambda: answers.append(
                tools.call(ctx, "zot_search", query=PLAIN, collection="Reading list", limit=3)
            )
        )
        ask.start()
        ask.join(0.5)
        assert not answers  # waiting for the library...
        gate.set()
        ask.join(60)
    finally:
        gate.set()
        warming.join(60)
        ctx.close()
    (answer,) = answers
    assert "library_pending" not in answer.data
    assert "within collection" in answer.text.splitlines()[0]


@pytest.mark.slow
def test_an_index_of_another_library_is_refused_before_the_library_is_read(
    indexed: Settings, tmp_path: Path
) -> None:
    """The check that the index is this library's reads the library's identity alone when the library
    itself is not read yet: an answer from another library's index is never given, early or not."""
    import shutil

    from agent_zot.index.owner import OtherLibraryError

    settings = indexed.model_copy(update={"data_dir": tmp_path / "state"})
    shutil.copytree(indexed.data_dir, settings.data_dir)
    ctx = AppContext(settings)
    try:
        ctx.index_resources().state.set_meta("library", "zotero-user:someone-else")
        with ctx.reading_library(), pytest.raises(OtherLibraryError):
            tools.call(ctx, "zot_search", query=PLAIN, limit=2)
        assert ctx._read is None
    finally:
        ctx.close()
