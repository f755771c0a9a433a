"""Fetching a model named by its Hugging Face id (`embedder_model = "BAAI/bge-m3"`) once, into agent-zot's
data folder, with progress on stderr; from then on it is a local folder and nothing is downloaded again.

The hub's documented HTTP API is used directly (`GET /api/models/{id}/revision/{rev}` lists the files,
`GET /{id}/resolve/{rev}/{file}` serves one) rather than huggingface_hub's downloader, because agent-zot sets
HF_HUB_OFFLINE for every model it loads (nothing may reach for the hub behind the user's back), and that
switch also disables huggingface_hub's own downloads in the same process. Each file is written beside its
target and renamed when complete and of the announced size; a manifest written last marks the folder
complete, so an interrupted fetch starts again from the files still missing. A file the hub lists with a
SHA-256 (its large files) is checked against it.
"""

from __future__ import annotations

import fnmatch
import hashlib
import json
import re
import sys
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import IO

import httpx

from agent_zot.errors import AgentZotError

MANIFEST = ".agent-zot-fetched.json"
# What the BGE-M3 code path loads: config, tokenizer, weights (one format), the sparse and colbert heads.
WANTED = ("*.json", "*.model", "*.pt", "*.safetensors", "pytorch_model.bin", "vocab.txt", "merges.txt")
SKIPPED = ("onnx/*", "imgs/*", "*.onnx", "*.onnx_data", "*.msgpack", "*.h5", "tf_model*", "flax_model*")
_HUB_ID = re.compile(r"^[\w.-]+/[\w.-]+$")
CHUNK = 1 << 20


class ModelFetchError(AgentZotError):
    """A model could not be fetched; nothing half-written is left as if complete."""


def is_hub_id(name: str) -> bool:
    """ "BAAI/bge-m3" is a hub id; an existing folder, an absolute or ~ path is not."""
    return bool(_HUB_ID.match(name)) and not Path(name).expanduser().exists()


def cached_model_dir(data_dir: Path, hub_id: str) -> Path:
    return data_dir / "models" / hub_id.replace("/", "--")


def ensure_model(
    hub_id: str,
    data_dir: Path,
    *,
    hub_url: str,
    revision: str = "main",
    progress: IO[str] | None = None,
    setting: str = "embedder_model",
) -> Path:
    """The local folder of ``hub_id``, fetched first when it is not complete yet. ``setting`` is the one
    that takes a local folder of this model instead (named in the message when the hub cannot be reached)."""
    folder = cached_model_dir(data_dir, hub_id)
    if (folder / MANIFEST).is_file():
        return folder
    out = progress if progress is not None else sys.stderr
    base = hub_url.rstrip("/")
    with httpx.Client(timeout=httpx.Timeout(30.0, read=120.0), follow_redirects=True) as client:
        listed = _listing(client, base, hub_id, revision, setting)
        files = sorted(listed)
        folder.mkdir(parents=True, exist_ok=True)
        total = len(files)
        for number, name in enumerate(files, 1):
            report = partial(_report, out, number, total, name)
            _fetch_file(client, f"{base}/{hub_id}/resolve/{revision}/{name}", folder / name, report)
            _check_digest(folder / name, listed[name])
    (folder / MANIFEST).write_text(
        json.dumps({"id": hub_id, "revision": revision, "files": files}), encoding="utf-8"
    )
    out.write(f"Fetched {hub_id} into {folder}\n")
    return folder


def _listing(
    client: httpx.Client, base: str, hub_id: str, revision: str, setting: str
) -> dict[str, str | None]:
    """The files to fetch, each with the SHA-256 the hub states for it (large files stored in LFS), if any."""
    try:
        response = client.get(f"{base}/api/models/{hub_id}/revision/{revision}", params={"blobs": "true"})
    except httpx.HTTPError as exc:
        raise ModelFetchError(
            f"Cannot reach {base} to fetch {hub_id}: {exc}.",
            hint="Connect to the internet once, set model_hub_url to a mirror, or download the model yourself "
            f"and set {setting} to its folder.",
        ) from exc
    if response.status_code in (401, 403, 404):
        raise ModelFetchError(
            f"{base} has no model {hub_id!r} (HTTP {response.status_code}).",
            hint=f"Check the id (e.g. {hub_id}) or set {setting} to a local folder.",
        )
    response.raise_for_status()
    siblings = {
        s.get("rfilename", ""): (s.get("lfs") or {}).get("sha256")
        for s in response.json().get("siblings", [])
    }
    files = {
        name: digest
        for name, digest in siblings.items()
        if any(fnmatch.fnmatch(name, p) for p in WANTED)
        and not any(fnmatch.fnmatch(name, p) for p in SKIPPED)
    }
    if any(name.endswith(".safetensors") for name in files):  # one copy of the weights is enough
        files.pop("pytorch_model.bin", None)
    if "config.json" not in files:
        raise ModelFetchError(f"{hub_id} has no config.json: it is not a model agent-zot can load.")
    return files


def _check_digest(path: Path, expected: str | None) -> None:
    """A file whose SHA-256 differs from what the hub states is deleted: the next run fetches it again."""
    if not expected:
        return
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(CHUNK), b""):
            digest.update(block)
    if digest.hexdigest() != expected:
        path.unlink(missing_ok=True)
        raise ModelFetchError(
            f"{path.name} arrived damaged (its SHA-256 is not the one the hub states).",
            hint="Run the command again to fetch it anew.",
        )


def _fetch_file(client: httpx.Client, url: str, target: Path, report: Callable[[int, int], None]) -> None:
    target.parent.mkdir(parents=True, exist_ok=True)
    partial = target.with_name(target.name + ".part")
    try:
        with client.stream("GET", url) as response:
            response.raise_for_status()
            size = int(response.headers.get("Content-Length") or 0)
            if target.is_file() and size and target.stat().st_size == size:
                return  # fetched by an earlier, interrupted run
            done = 0
            with partial.open("wb") as fh:
                for chunk in response.iter_bytes(CHUNK):
                    fh.write(chunk)
                    done += len(chunk)
                    report(done, size)
    except httpx.HTTPError as exc:
        partial.unlink(missing_ok=True)
        raise ModelFetchError(
            f"Fetching {url} failed: {exc}.", hint="Run the command again to resume."
        ) from exc
    if size and done != size:
        partial.unlink(missing_ok=True)
        raise ModelFetchError(f"{url} ended after {done:,} of {size:,} bytes.", hint="Run the command again.")
    partial.replace(target)


def _report(out: IO[str], number: int, total: int, name: str, done: int, size: int) -> None:
    shown = f"{done / 1e6:,.1f}/{size / 1e6:,.1f} MB" if size else f"{done / 1e6:,.1f} MB"
    end = "\n" if size and done >= size else ""
    out.write(f"\r[{number}/{total}] {name}: {shown}{end}")
    out.flush()
