"""The one Settings object: defaults < TOML config file < ``AGENT_ZOT_*`` environment < command-line flags."""

from __future__ import annotations

import ipaddress
import textwrap
import tomllib
from contextvars import ContextVar
from pathlib import Path
from typing import Any, Literal

import platformdirs
import tomli_w
from pydantic import Field, SecretStr, ValidationError
from pydantic.fields import FieldInfo
from pydantic_settings import BaseSettings, PydanticBaseSettingsSource, SettingsConfigDict

from agent_zot.errors import ConfigError

APP_NAME = "agent-zot"
ENV_PREFIX = "AGENT_ZOT_"
_MASK = "********"

# The parsed config file for the Settings being built (set only inside load_settings).
_file_values: ContextVar[dict[str, Any] | None] = ContextVar("agent_zot_file_values", default=None)


def default_config_path() -> Path:
    """Per platform: ~/.config/agent-zot/config.toml, ~/Library/Application Support/agent-zot/..., %APPDATA%..."""
    return Path(platformdirs.user_config_dir(APP_NAME, appauthor=False)) / "config.toml"


class _TomlValues(PydanticBaseSettingsSource):
    """Feeds the already-parsed config file into pydantic-settings at its place in the priority order."""

    def get_field_value(self, field: FieldInfo, field_name: str) -> tuple[Any, str, bool]:
        return (_file_values.get() or {}).get(field_name), field_name, False

    def __call__(self) -> dict[str, Any]:
        return dict(_file_values.get() or {})


class Settings(BaseSettings):
    """Everything a user can configure. Each field can be set in config.toml or as AGENT_ZOT_<NAME>."""

    model_config = SettingsConfigDict(env_prefix=ENV_PREFIX, extra="forbid", validate_default=True)

    zotero_data_dir: Path | None = Field(
        default=None,
        description="Zotero data directory (the folder holding zotero.sqlite) or the zotero.sqlite file itself. "
        "Found automatically when unset.",
    )
    linked_attachment_base_dir: Path | None = Field(
        default=None,
        description="Zotero's 'Linked Attachment Base Directory', for linked files stored as relative paths. "
        "Read from Zotero's preferences when unset.",
    )
    include_trash: bool = Field(default=False, description="Also show items that are in Zotero's trash.")
    library_ids: list[int] | None = Field(
        default=None,
        description="Zotero libraryIDs to read (1 is My Library; groups follow). Unset: My Library and all groups.",
    )
    demo_when_missing: bool = Field(
        default=True,
        description="When no Zotero library is found, serve a small built-in demo library instead of failing.",
    )
    data_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_data_dir(APP_NAME, appauthor=False)),
        description="Where agent-zot keeps its own state (index, graph, demo library). Never inside Zotero's folder.",
    )
    export_dir: Path = Field(
        default_factory=lambda: Path(platformdirs.user_documents_dir()) / "agent-zot-exports",
        description="Exports are written under this folder; relative export paths are resolved against it.",
    )
    allow_absolute_export_paths: bool = Field(
        default=False, description="Allow exports to absolute paths outside export_dir."
    )
    embedder: str = Field(
        default="minilm",
        description="Embedding model: minilm (built in, offline), minilm-st, minilm-onnx, ollama, bge-m3. "
        "Changing it needs `agent-zot update-db --force-rebuild`.",
    )
    embedder_model: str | None = Field(
        default=None,
        description="For ollama: the model name (e.g. nomic-embed-text). For bge-m3: a local model folder, or "
        "a Hugging Face id (default BAAI/bge-m3) fetched once into the data folder.",
    )
    bge_m3_int8: bool = Field(
        default=True,
        description="embedder = bge-m3 without a GPU: export the model once to ONNX and run it INT8-quantized "
        "(2.3x faster, cosine 0.9999 to fp32 on the test checkpoint). False runs the fp32 model through "
        "FlagEmbedding.",
    )
    model_hub_url: str = Field(
        default="https://huggingface.co",
        description="Where a model named by its Hugging Face id is fetched from (once), e.g. a mirror.",
    )
    ollama_url: str = Field(
        default="http://127.0.0.1:11434", description="Ollama server URL (embedder=ollama)."
    )
    reranker_model: Path | None = Field(
        default=None,
        description="A local cross-encoder folder that reranks search results. No cross-encoder ships on "
        "PyPI, so reranking is off unless you point this at one.",
    )
    stance: Literal["auto", "client", "nli", "ollama", "none"] = Field(
        default="auto",
        description="Who judges whether a passage supports or contradicts a claim (zot_search mode evidence). "
        "auto: nli when nli_model is set, else nobody: the answer is a worksheet the assistant judges, and "
        "zot_export review checks its verdicts. nli: a local NLI cross-encoder (nli_model). ollama: "
        "stance_model on the Ollama server. client (opt-in): the MCP client's own model, asked once per claim "
        "by a multi round-trip request (SEP-2322, MCP 2026-07-28); sampling is deprecated (SEP-2577) and "
        "Claude Desktop, Claude Code and VS Code never offer it. none: passages come back unjudged.",
    )
    stance_max_tokens: int = Field(
        default=1200,
        ge=50,
        le=8000,
        description="The most tokens the client's model may spend judging one claim's passages (stance = "
        "client).",
    )
    stance_timeout_s: float = Field(
        default=120.0,
        gt=0,
        le=3600,
        description="A client's judgement (stance = client) that takes longer than this is not used: the "
        "passages come back unjudged, with the worksheet.",
    )
    nli_model: Path | None = Field(
        default=None,
        description="A local NLI cross-encoder folder (labels entailment, contradiction, neutral) that judges "
        "stance. None ships on PyPI and nothing is downloaded.",
    )
    stance_model: str = Field(default="llama3.2", description="Ollama chat model for stance = ollama.")
    rerank_candidates: int = Field(
        default=50, ge=1, le=1000, description="How many fused search candidates the reranker rescores."
    )
    vector_store: Literal["edge", "qdrant"] = Field(
        default="edge",
        description="edge: Qdrant's engine embedded in agent-zot (no server). qdrant: a Qdrant server at qdrant_url.",
    )
    qdrant_url: str | None = Field(default=None, description="Qdrant server URL when vector_store = qdrant.")
    qdrant_api_key: SecretStr | None = Field(default=None, description="Qdrant server API key. Shown masked.")
    qdrant_shard_number: int | None = Field(
        default=None,
        ge=1,
        description="Shards of a new collection on a Qdrant cluster (distributed mode); unset = Qdrant's default.",
    )
    qdrant_replication_factor: int | None = Field(
        default=None,
        ge=1,
        description="Copies of each shard on a Qdrant cluster (distributed mode); unset = Qdrant's default.",
    )
    search_fusion: Literal["rrf", "dbsf", "dense", "sparse"] = Field(
        default="rrf",
        description="How zot_search combines dense and keyword (sparse) retrieval; dense/sparse use one channel.",
    )
    graph_store: Literal["networkx", "neo4j"] = Field(
        default="networkx",
        description="networkx: the graph embedded in agent-zot's state database. neo4j: a Neo4j (Bolt) server.",
    )
    neo4j_url: str = Field(default="bolt://127.0.0.1:7687", description="Bolt URL of the Neo4j server.")
    neo4j_user: str = Field(default="neo4j", description="Neo4j user name.")
    neo4j_password: SecretStr | None = Field(default=None, description="Neo4j password. Shown masked.")
    neo4j_database: str | None = Field(
        default=None, description="Neo4j database name (server default if unset)."
    )
    concept_extractor: Literal["yake", "ollama"] = Field(
        default="yake",
        description="yake: local keyphrase statistics. ollama: an LLM on the Ollama server (concept_model).",
    )
    concept_model: str = Field(
        default="llama3.2", description="Ollama chat model for concept_extractor = ollama."
    )
    hnsw_m: int = Field(default=16, ge=4, le=128, description="HNSW graph degree of the vector index.")
    hnsw_ef_construct: int = Field(
        default=100,
        ge=8,
        le=1024,
        description="HNSW build-time search width (higher: better recall, slower build).",
    )
    quantization: str | None = Field(
        default="int8",
        description="Scalar quantization of dense vectors: int8 (4x smaller, default) or none.",
    )
    parser: Literal["pdfium", "docling"] = Field(
        default="pdfium", description="PDF text extraction: pdfium (fast, default) or docling."
    )
    ocr: Literal["auto", "tesseract", "rapidocr", "off"] = Field(
        default="auto",
        description="OCR of PDF pages with no usable text layer (scanned papers) during update-db, a few "
        "seconds a page: tesseract (the system's tesseract-ocr with English data; the most accurate), "
        "rapidocr (ONNX models installed from PyPI), auto (tesseract when installed, else rapidocr) or off.",
    )
    index_workers: int | None = Field(
        default=None,
        ge=1,
        le=64,
        description="Processes that parse attachments (and extract graph keyphrases) in parallel during "
        "update-db. Default: one per usable CPU, at most 4 (parsing outpaces embedding).",
    )
    embed_threads: int | None = Field(
        default=None,
        ge=1,
        le=256,
        description="CPU threads the embedding model uses. Default: every CPU this process may use.",
    )
    embed_device: Literal["auto", "cpu", "cuda", "mps"] = Field(
        default="auto",
        description="Where the embedding model indexes: auto (a CUDA or Apple GPU when torch sees one, else "
        "the CPU), cpu, cuda or mps. MiniLM's queries run on the CPU (its ONNX copy) either way.",
    )
    sentence_backfill_minutes: float = Field(
        default=10.0,
        ge=0,
        description="How long one update-db spends, at most, giving sentence vectors to items indexed before "
        "agent-zot kept them (about 45 chunks a second on a CPU: hours for a 100,000-item library); the rest "
        "go on at the next update. 0 leaves them without (passages are then picked by words and chunks).",
    )
    text_reread_items: int = Field(
        default=200,
        ge=0,
        description="How many files, at most, one update-db reads again because this release reads their text "
        "better than the release that indexed them (a repository's cover sheet left out, ligatures and "
        "accents mended, a page's body told from its chrome); found from the stored page texts and the PDFs' "
        "text layers, the rest go on at the next update. 0 leaves them as they were read (a file is read "
        "again when it changes, or with --force-rebuild).",
    )
    parse_timeout_s: float = Field(
        default=120.0,
        gt=0,
        description="A file still parsing after this many seconds is skipped and reported. Pages read by OCR "
        "do not count: each has ocr_page_timeout_s.",
    )
    ocr_page_timeout_s: float = Field(
        default=300.0,
        gt=0,
        description="One scanned page still being read by OCR after this many seconds is skipped and named; the "
        "file's other pages are kept (`status` counts it as partly read; `update-db --retry-failed` reads it "
        "again).",
    )
    progress_interval_s: float = Field(
        default=5.0,
        gt=0,
        le=10,
        description="update-db prints a progress line at least this often (seconds), naming the file and page "
        "being read.",
    )
    parse_memory_mb: int = Field(
        default=2048, ge=256, description="Memory cap per parsing process; a file needing more is skipped."
    )
    chunk_tokens: int = Field(
        default=256, ge=32, le=8192, description="Chunk size in embedding-model tokens."
    )
    chunk_overlap_tokens: int = Field(
        default=32, ge=0, le=1024, description="Overlap between consecutive chunks."
    )
    zotero_api_key: SecretStr | None = Field(
        default=None,
        description="Zotero web API key, for changing the library through Zotero (write tools). Shown masked.",
    )
    writes_enabled: bool = Field(
        default=False,
        description="Let the write modes (create/add/remove collections, tags, notes) change the library "
        "through Zotero's API. Off: they only say how to enable them. zotero.sqlite is never written.",
    )
    zotero_library_id: str | None = Field(
        default=None,
        pattern=r"^\d+$",
        description="Library to change through the web API: your numeric user ID (zotero.org/settings/keys) "
        "or a group ID (with zotero_library_type = group).",
    )
    zotero_library_type: Literal["user", "group"] = Field(
        default="user", description="Whether zotero_library_id is a user ID or a group ID."
    )
    zotero_api_url: str = Field(
        default="https://api.zotero.org", description="Base URL of the Zotero web API used for writes."
    )
    zotero_local_api: bool = Field(
        default=False,
        description="Try Zotero's local API (the running Zotero app) first for writes; when it refuses "
        "writes, the web API is used if configured.",
    )
    zotero_local_api_url: str = Field(
        default="http://127.0.0.1:23119/api", description="Base URL of Zotero's local API."
    )
    registry_doi_url: str = Field(
        default="https://doi.org",
        description="DOI resolver asked for a paper's metadata (CSL-JSON by content negotiation) when "
        "you add it by DOI.",
    )
    registry_crossref_url: str = Field(
        default="https://api.crossref.org",
        description="Crossref REST API, asked for a DOI's metadata when the DOI resolver cannot answer.",
    )
    registry_arxiv_url: str = Field(
        default="https://export.arxiv.org/api",
        description="arXiv API, asked when you add a paper by arXiv id.",
    )
    registry_pubmed_url: str = Field(
        default="https://eutils.ncbi.nlm.nih.gov/entrez/eutils",
        description="PubMed E-utilities, asked when you add a paper by PMID.",
    )
    registry_openlibrary_url: str = Field(
        default="https://openlibrary.org", description="Open Library, asked when you add a book by ISBN."
    )
    registry_mailto: str | None = Field(
        default=None,
        description="Your e-mail address, sent to the registries (User-Agent mailto; PubMed's email) as "
        "Crossref and NCBI ask of clients, so they can reach you instead of blocking.",
    )
    registry_timeout_s: float = Field(
        default=20.0, gt=0, le=300, description="Seconds to wait for one registry answer."
    )
    zotero_local_authorize_timeout_s: float = Field(
        default=300.0,
        gt=0,
        description="How long `agent-zot authorize` (or a first local write) waits for you to answer "
        "Zotero's authorization dialog; Zotero itself never gives up on it.",
    )
    http_host: str = Field(
        default="127.0.0.1", description="Address `agent-zot serve --transport http` binds."
    )
    http_port: int = Field(
        default=8765, ge=1, le=65535, description="Port for `agent-zot serve --transport http`."
    )
    http_token: SecretStr | None = Field(
        default=None,
        description="Bearer token clients of `serve --transport http` must send (Authorization: Bearer "
        "...). Required to bind a non-loopback address, and for write modes over HTTP. Shown masked.",
    )
    http_allowed_hosts: list[str] = Field(
        default_factory=list,
        description="Host header values the HTTP server accepts besides localhost, 127.0.0.1 and the bind "
        "address (e.g. a DNS name behind a proxy, 'zotero.lab.example:8765'); any other Host is refused.",
    )
    http_allowed_origins: list[str] = Field(
        default_factory=list,
        description="Browser origins the HTTP server accepts besides its own (e.g. 'https://app.example'); "
        "requests from any other Origin are refused.",
    )
    auto_update: bool = Field(
        default=True,
        description="`serve` keeps an existing index up to date: when Zotero's database or storage changes, "
        "it runs the incremental update in a low-priority background process (one per data folder).",
    )
    watch_interval_s: float = Field(
        default=10.0, ge=0.1, description="Seconds between two looks at the library (`serve`, `watch`)."
    )
    warm_up: bool = Field(
        default=True,
        description="`serve` loads the query model and the index and reads the library in the background "
        "as soon as it has started, so the first question is answered at once.",
    )
    log_level: str = Field(
        default="WARNING", description="Logging level on stderr (DEBUG, INFO, WARNING, ERROR)."
    )

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return init_settings, env_settings, _TomlValues(settings_cls)

    def masked(self) -> dict[str, Any]:
        """Effective values, JSON/TOML-ready, with secrets replaced by a mask."""
        out: dict[str, Any] = {}
        for name in type(self).model_fields:
            value = getattr(self, name)
            if isinstance(value, SecretStr):
                out[name] = _MASK
            elif isinstance(value, Path):
                out[name] = str(value)
            else:
                out[name] = value
        return out

    def to_toml(self) -> str:
        """The effective configuration as TOML, each setting under a comment saying what it does (unset
        values are left out; secrets masked)."""
        blocks = []
        for name, value in self.masked().items():
            if value is None:
                continue
            described = type(self).model_fields[name].description or ""
            comment = "".join(f"# {line}\n" for line in textwrap.wrap(described, 100))
            blocks.append(comment + tomli_w.dumps({name: value}))
        return "\n".join(blocks)


def set_config_values(path: Path, values: dict[str, Any]) -> None:
    """Write ``values`` into the config file at ``path``: a setting already there is replaced on its own
    line, a new one is appended; comments and every other line stay as they are. Each value is checked
    against Settings first, and the file is replaced whole (never left half-written)."""
    unknown = sorted(set(values) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(f"Unknown setting(s): {', '.join(unknown)}.")
    path = path.expanduser()
    lines = path.read_text(encoding="utf-8").splitlines() if path.is_file() else []
    rendered = {
        key: tomli_w.dumps({key: str(v) if isinstance(v, Path) else v}).strip() for key, v in values.items()
    }
    for index, line in enumerate(lines):
        key = line.split("=", 1)[0].strip()
        if "=" in line and key in rendered:
            lines[index] = rendered.pop(key)
    lines += list(rendered.values())
    text = "\n".join(lines) + "\n"
    try:
        Settings(**{**_toml_or_fail(text, path)})
    except ValidationError as exc:
        raise ConfigError(_describe(exc, path)) from exc
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".part")
    partial.write_text(text, encoding="utf-8")
    partial.replace(path)


def _toml_or_fail(text: str, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise ConfigError(f"{path} would not be valid TOML: {exc}.", hint="Fix the file by hand.") from exc


def load_settings(
    config_file: Path | None = None, *, named_by: str = "--config", **overrides: Any
) -> Settings:
    """Build Settings from the config file (explicit or default location), the environment and overrides.
    ``named_by`` is what named an explicit file (the --config option or the AGENT_ZOT_CONFIG variable),
    for the message when it is missing."""
    explicit = config_file is not None
    path = (config_file or default_config_path()).expanduser()
    values = _read_config_file(path, required=explicit, named_by=named_by)
    token = _file_values.set(values)
    try:
        return Settings(**{k: v for k, v in overrides.items() if v is not None})
    except ValidationError as exc:
        raise ConfigError(
            _describe(exc, path), hint=f"Fix the value in {path} or the AGENT_ZOT_* variable."
        ) from exc
    finally:
        _file_values.reset(token)


def _read_config_file(path: Path, *, required: bool, named_by: str = "--config") -> dict[str, Any]:
    if not path.is_file():
        if required:
            fix = "drop --config" if named_by == "--config" else f"unset {named_by} (or point it at the file)"
            raise ConfigError(
                f"Config file {path} (named by {named_by}) does not exist.", hint=f"Create it or {fix}."
            )
        return {}
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise ConfigError(f"Cannot read config file {path}: {exc}.") from exc
    unknown = sorted(set(data) - set(Settings.model_fields))
    if unknown:
        raise ConfigError(
            f"Unknown setting(s) in {path}: {', '.join(unknown)}.",
            hint="Valid settings: " + ", ".join(Settings.model_fields) + ".",
        )
    return data


def _describe(exc: ValidationError, path: Path) -> str:
    problems = []
    for error in exc.errors():
        name = ".".join(str(p) for p in error["loc"]) or "settings"
        problems.append(f"{name} ({ENV_PREFIX}{name.upper()}): {error['msg']}")
    return f"Invalid configuration (config file: {path}): " + "; ".join(problems) + "."


def is_loopback(host: str) -> bool:
    """Whether ``host`` (the `http_host` setting) is this machine only: "localhost", 127.0.0.0/8 or ::1.
    Only such a host may be served without a token."""
    if host.casefold() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False
