"""`agent-zot doctor`: check each part and say how to fix what is wrong."""

from __future__ import annotations

import os
import sqlite3
import sys
from pathlib import Path

from agent_zot.config import Settings, default_config_path
from agent_zot.errors import AgentZotError
from agent_zot.index.embed import MULTILINGUAL_EMBEDDERS
from agent_zot.index.rerank import rerank_status
from agent_zot.services.context import AppContext
from agent_zot.services.upkeep.doctor_ocr import ocr_check
from agent_zot.services.upkeep.doctor_report import Check
from agent_zot.services.upkeep.doctor_stack import stack_checks
from agent_zot.services.upkeep.unread import partly_read, unread_check
from agent_zot.text import has_cjk
from agent_zot.zotero.connection import file_state, read_consistently
from agent_zot.zotero.generation import journal_mode, zotero_generation
from agent_zot.zotero.models import Library
from agent_zot.zotero.schema import inspect_schema


def run_checks(ctx: AppContext, config_file: Path | None = None) -> list[Check]:

    checks = [
        _python(),
        _config(config_file),
        _embedding_model(ctx.settings),
        _reranker(ctx.settings),
        _optional_models(ctx.settings),
        *stack_checks(ctx.settings),
    ]
    try:
        source = ctx.source()
    except AgentZotError as exc:
        checks.append(Check("library", "fail", exc.message, exc.hint or ""))
        return [*checks, _writable("data directory", ctx.settings.data_dir)]
    if source.is_demo:
        checks.append(
            Check(
                "library",
                "warn",
                f"No Zotero library found; using the demo library {source.db_path}.",
                "Set zotero_data_dir in the config or AGENT_ZOT_ZOTERO_DATA_DIR, or pass --library.",
            )
        )
    else:
        checks.append(Check("library", "ok", f"{source.db_path} ({source.how})"))
    checks.append(_lock_state(source.db_path))
    try:
        library = ctx.library()
        checks.append(_generation(source.db_path))
    except AgentZotError as exc:
        checks.append(Check("read", "fail", exc.message, exc.hint or ""))
        return checks
    checks.append(
        Check(
            "read",
            "warn" if library.warnings else "ok",
            f"{len(library.items)} items read in {(ctx.last_load_seconds or 0) * 1000:.0f} ms"
            + (f"; {' '.join(library.warnings)}" if library.warnings else ""),
        )
    )
    checks.append(_attachments(ctx))
    checks.append(_language(library, ctx.settings))
    checks.append(_writable("data directory", ctx.settings.data_dir))
    checks.append(_writable("export directory", ctx.settings.export_dir))
    checks.append(_index_integrity(ctx))
    checks.append(_unread_files(ctx))
    checks.append(ocr_check(ctx.settings, scanned_pages=_scanned_pages(ctx)))
    checks.append(_freshness(ctx))
    checks.append(graph_home(ctx))
    checks.append(_writes(ctx.settings))
    return checks


def _index_integrity(ctx: AppContext) -> Check:
    """The full integrity check (index/integrity.py): every point counted against the state database."""
    from agent_zot.index.integrity import check_index

    report = check_index(ctx.index_resources(), thorough=True)
    if not report.checked and report.ok:
        return Check("index", "ok", "not built yet (agent-zot update-db builds it)")
    if report.ok:
        return Check("index", "ok", report.describe())
    return Check(
        "index", "fail", f"damaged: {report.describe()}", "Run a plain `agent-zot update-db`: it repairs it."
    )


def _unread_files(ctx: AppContext) -> Check:
    """Files an update could not read or read in part, each with its reason, and how to try again."""
    resources = ctx.index_resources()
    if not resources.exists():
        return unread_check([])
    state = resources.state
    return unread_check(state.unread_files(), partly_read(state.indexed_with_reasons()))


def _scanned_pages(ctx: AppContext) -> int:
    resources = ctx.index_resources()
    return resources.state.ocr_page_count() if resources.exists() else 0


def _freshness(ctx: AppContext) -> Check:
    """Whether the index follows Zotero, and why not when background updates keep failing."""
    from agent_zot.services.watch.freshness import index_lag

    if not ctx.index_resources().exists():
        return Check("updates", "ok", "no index yet")
    lag = index_lag(ctx)
    if lag is None:
        return Check("updates", "ok", "the index is up to date with Zotero")
    if lag.failure is not None:
        return Check(
            "updates",
            "fail",
            lag.describe(),
            "Run `agent-zot update-db` to see the whole error; if it names a stuck agent-zot process, end it.",
        )
    return Check("updates", "ok" if lag.updating else "warn", lag.describe(), "Run `agent-zot update-db`.")


# Where the embedded graph stops being the better home (docs/scale.md, "The graph on disk"): its requests stay
# in tens of ms at 1.3 million edges, but graph-wide ranking (PageRank, venues) reads every edge of a kind
# into the process, and a lab's machines cannot share it.
GRAPH_SERVER_EDGES = 2_000_000


def graph_home(ctx: AppContext, *, server_edges: int = GRAPH_SERVER_EDGES) -> Check:
    """The embedded graph's size, and when (past ``server_edges``) a Neo4j server would serve it better."""
    from agent_zot.graph.model import EdgeKind, NodeKind

    if not ctx.index_resources().exists():
        return Check("graph size", "ok", "no graph yet")
    counts = ctx.graph().local.counts()
    edges = sum(counts.get(kind.value, 0) for kind in EdgeKind)
    detail = f"{counts.get(NodeKind.PAPER.value, 0)} papers, {edges} edges"
    if ctx.settings.graph_store == "neo4j":
        return Check("graph size", "ok", f"{detail}, explored in Neo4j")
    if edges <= server_edges:
        return Check("graph size", "ok", f"{detail} in the embedded graph")
    return Check(
        "graph size",
        "warn",
        f"{detail}: past {server_edges:,} edges a Neo4j server is the better home for the graph "
        "(graph-wide rankings read every edge of a kind into this process)",
        'Start Neo4j (`docker compose up -d neo4j`), set graph_store = "neo4j" and neo4j_url, then run '
        "`agent-zot graph sync`.",
    )


def _writes(settings: Settings) -> Check:
    """Which API the write modes use and why (probed read-only), or that they are off."""
    from agent_zot.services.writes.probe import describe_writes

    report = describe_writes(settings)
    return Check("writes", report.status, report.detail, report.fix)


def _embedding_model(settings: Settings) -> Check:
    """The built-in model's files are the published ones (their SHA-256 is pinned; ~0.3 s to read)."""
    from agent_zot.index.embed import EmbedderError
    from agent_zot.index.model_pins import verify_installed

    if not settings.embedder.startswith("minilm"):
        return Check("embedding model", "ok", f"{settings.embedder} (not the built-in model)")
    try:
        verify_installed()
    except EmbedderError as exc:
        return Check("embedding model", "fail", exc.message, exc.hint or "")
    return Check("embedding model", "ok", "the built-in all-MiniLM-L6-v2 files match their pinned SHA-256")


def _reranker(settings: Settings) -> Check:
    """Reranking is optional: unset is fine; set but unusable is a failure the user asked to fix."""
    on, detail = rerank_status(settings)
    if on or settings.reranker_model is None:
        return Check(
            "reranker",
            "ok",
            detail,
            "" if on else "Optional: set reranker_model to a local cross-encoder folder.",
        )
    return Check("reranker", "fail", detail, "Fix reranker_model (AGENT_ZOT_RERANKER_MODEL) or unset it.")


def _optional_models(settings: Settings) -> Check:
    from agent_zot.index.optional_models import summary

    return Check("optional models", "ok", summary(settings))


def _python() -> Check:
    ok = sys.version_info >= (3, 11)
    return Check(
        "python", "ok" if ok else "fail", sys.version.split()[0], "" if ok else "Use Python 3.11 or newer."
    )


def _config(config_file: Path | None) -> Check:
    path = config_file or default_config_path()
    if path.is_file():
        return Check("config", "ok", f"{path}")
    return Check(
        "config",
        "ok",
        f"no config file at {path}; using defaults and AGENT_ZOT_* variables",
        "Optional: create it to set zotero_data_dir, export_dir, ... (see `agent-zot config show`).",
    )


def _lock_state(db_path: Path) -> Check:
    """Is Zotero holding the database? Harmless for us, but worth saying.

    Probed with a plain read-only connection, which in rollback-journal mode creates no files; a WAL
    database is not probed because a reader there may create -shm/-wal files.
    """
    # a WAL database (Zotero 10) is never probed, -wal file or not: the probe would create -wal and -shm
    if file_state(db_path).wal_present or journal_mode(db_path) == "WAL":
        return Check("zotero lock", "ok", "Database uses a write-ahead log; agent-zot reads a private copy.")
    uri = db_path.resolve().as_uri() + "?mode=ro"
    try:
        conn = sqlite3.connect(uri, uri=True, timeout=0)
        try:
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()
        finally:
            conn.close()
    except sqlite3.OperationalError as exc:
        if "locked" in str(exc):
            return Check(
                "zotero lock",
                "ok",
                "Zotero is running and holds its database lock; agent-zot reads "
                "without taking locks, so this is fine.",
            )
        return Check("zotero lock", "warn", f"Could not probe the lock: {exc}")
    except sqlite3.DatabaseError as exc:  # truncated or not a database: say so, as a check that failed
        return Check(
            "zotero lock",
            "fail",
            f"{db_path} cannot be read as a database: {exc}.",
            "Make sure this is Zotero's zotero.sqlite (not a partial copy or backup); Zotero's own copies "
            "are zotero.sqlite.bak and zotero.sqlite.[date].bak in the same folder.",
        )
    return Check("zotero lock", "ok", "Database not locked (Zotero is probably closed).")


def _generation(db_path: Path) -> Check:
    """Which Zotero wrote the library (from its schema versions) and how it journals its commits."""
    schema = read_consistently(db_path, inspect_schema)
    generation = zotero_generation(schema) or "an unknown Zotero version"
    mode = journal_mode(db_path)
    how = "WAL (recent edits sit in zotero.sqlite-wal)" if mode == "WAL" else "rollback"
    return Check("zotero", "ok", f"{generation} library (userdata schema {schema.userdata}); journal: {how}")


def _attachments(ctx: AppContext) -> Check:
    library = ctx.library()
    with_paths = [a for a in library.attachments if a.path is not None]
    missing = [a for a in with_paths if not a.exists]
    unresolved = [
        a
        for a in library.attachments
        if a.raw_path and a.raw_path.startswith("attachments:") and a.path is None
    ]
    if unresolved:
        return Check(
            "attachments",
            "warn",
            f"{len(unresolved)} linked files use a base directory that is not known.",
            "Set linked_attachment_base_dir to Zotero's Linked Attachment Base Directory.",
        )
    if missing:
        return Check(
            "attachments",
            "warn",
            f"{len(missing)} of {len(with_paths)} attachment files are missing "
            f"on disk (e.g. {missing[0].path}).",
            "Sync file attachments in Zotero, or ignore: these items are still searchable by metadata.",
        )
    return Check("attachments", "ok", f"all {len(with_paths)} attachment files found")


CJK_SHARE_WARN = 0.2  # a fifth of the titles in Chinese or Japanese is enough to matter for search


def _language(library: Library, settings: Settings) -> Check:
    """Does the library need a multilingual embedding model? The keyword channel handles Chinese and
    Japanese by character pairs, but the default embedding model only understands English."""
    titles = [item.title for item in library.items.values() if item.title]
    share = sum(1 for title in titles if has_cjk(title)) / len(titles) if titles else 0.0
    if share < CJK_SHARE_WARN:
        return Check("language", "ok", "titles are mostly in languages the embedding model reads")
    if settings.embedder in MULTILINGUAL_EMBEDDERS:
        return Check(
            "language",
            "ok",
            f"{share:.0%} of titles in Chinese or Japanese; {settings.embedder} is multilingual",
        )
    return Check(
        "language",
        "warn",
        f"{share:.0%} of titles are in Chinese or Japanese, but the embedding model ({settings.embedder}) reads "
        "English only, so searches there rely on keywords.",
        'Set embedder = "bge-m3" (multilingual; install the bge-m3 extra) and run `agent-zot update-db --force-rebuild`.',
    )


def _writable(name: str, path: Path) -> Check:
    probe = path
    while not probe.exists() and probe.parent != probe:
        probe = probe.parent
    if os.access(probe, os.W_OK):
        return Check(name, "ok", f"{path}")
    return Check(name, "fail", f"{path} is not writable", f"Choose another folder with the {name} setting.")
