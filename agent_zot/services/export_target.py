"""Where an export writes: the format a file name asks for, the path checked and kept inside the export
folder (unless absolute paths are allowed), and the file written beside its target and renamed, so a failed
export never leaves half a file behind."""

from __future__ import annotations

import os
import re
import tempfile
from datetime import date
from pathlib import Path

from agent_zot.config import Settings
from agent_zot.errors import ExportError, InvalidArgumentError
from agent_zot.services.resolve.scope import LibraryScope
from agent_zot.services.response import clip

FORMAT_EXTENSIONS = {
    ".bib": "bibtex",
    ".bibtex": "bibtex",
    ".json": "csljson",
    ".csljson": "csljson",
    ".md": "markdown",
    ".markdown": "markdown",
    ".graphml": "graphml",
    ".csv": "annotations",  # annotations and notes as rows; their .json comes with the annotations mode
}
DEFAULT_EXTENSION = {"bibtex": ".bib", "csljson": ".json", "markdown": ".md", "graphml": ".graphml"}


def format_for(path: str | None, requested: str | None) -> str:
    """The export format: the file extension decides; else the requested format; else BibTeX."""
    if path:
        suffix = Path(path).suffix.lower()
        if suffix in FORMAT_EXTENSIONS:
            return FORMAT_EXTENSIONS[suffix]
    return requested or "bibtex"


MAX_NAME_CHARS = 255  # one path component, as most file systems allow


def _process_umask() -> int:
    current = os.umask(0o022)  # read it once, at import (setting it briefly is unsafe once threads run)
    os.umask(current)
    return current


_UMASK = _process_umask()


def check_path(path: str) -> None:
    """Refuse what no file system takes or what agent-zot cannot write, before touching the disk."""
    shown = clip(path, 80)
    if "\x00" in path:
        raise InvalidArgumentError(
            f"The path {shown!r} contains a NUL character.", hint="Give a plain file name."
        )
    longest = max((len(part) for part in re.split(r"[\\/]", path)), default=0)
    if longest > MAX_NAME_CHARS:
        raise InvalidArgumentError(
            f"A file or folder name in {shown!r} is {longest} characters long; the limit is {MAX_NAME_CHARS}.",
            hint="Use a shorter name.",
        )
    suffix = Path(path.strip()).suffix.lower()
    if suffix and suffix not in FORMAT_EXTENSIONS and not path.rstrip().endswith(("/", os.sep)):
        raise InvalidArgumentError(
            f"agent-zot does not write {suffix} files.",
            hint="Use .bib (BibTeX), .json (CSL-JSON), .md (Markdown), .csv (annotations) or .graphml, or "
            "a folder name ending in / for one Markdown file per item.",
        )


def resolve_target(settings: Settings, path: str | None, fmt: str, scope: LibraryScope) -> Path:
    """Where to write: under export_dir, unless absolute paths are explicitly allowed."""
    if path:
        check_path(path)
    export_dir = settings.export_dir.expanduser().resolve()
    raw = path.strip() if path else _default_name(scope, fmt)
    candidate = Path(raw).expanduser()
    target = (candidate if candidate.is_absolute() else export_dir / candidate).resolve()
    if not target.is_relative_to(export_dir) and not settings.allow_absolute_export_paths:
        raise ExportError(
            f"Refusing to write {target}: it is outside the export folder {export_dir}.",
            hint="Use a path relative to the export folder, or set allow_absolute_export_paths = true "
            "(AGENT_ZOT_ALLOW_ABSOLUTE_EXPORT_PATHS) to allow other locations.",
        )
    return target


def _default_name(scope: LibraryScope, fmt: str) -> str:
    label = scope.collection or (scope.search if scope.search else "library")
    slug = re.sub(r"[^\w]+", "-", label.casefold()).strip("-")[:60] or "export"
    return f"{slug}-{date.today():%Y%m%d}{DEFAULT_EXTENSION[fmt]}"


def write_review(settings: Settings, path: str | None, body: str, *, overwrite: bool) -> Path:
    """Write a review package (Markdown) under the export folder."""
    if path and Path(path.strip()).suffix.lower() not in ("", ".md", ".markdown"):
        raise InvalidArgumentError(
            f"A review package is Markdown; {Path(path).suffix} does not fit.", hint="Name it e.g. review.md."
        )
    target = resolve_target(settings, path or f"review-{date.today():%Y%m%d}.md", "markdown", LibraryScope())
    if target.suffix == "":
        target = target.with_suffix(".md")
    return write_file(target, body, overwrite)


def write_file(target: Path, content: str, overwrite: bool) -> Path:
    if target.exists() and not overwrite:
        raise ExportError(
            f"{target} already exists.", hint="Pass overwrite=true to replace it, or pick another name."
        )
    if target.exists() and target.is_dir():
        raise ExportError(f"{target} is a folder.", hint="Give a file name such as refs.bib.")
    target.parent.mkdir(parents=True, exist_ok=True)
    # Write beside the target and rename, so a failed export never leaves half a file behind.
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=".agent-zot-", suffix=target.suffix)
    try:
        with os.fdopen(fd, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(content)
        # mkstemp makes the file private (0600); an export is an ordinary file, readable as the umask allows.
        Path(tmp).chmod(0o666 & ~_UMASK)
        Path(tmp).replace(target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise ExportError(f"Could not write {target}: {exc.strerror or exc}.") from exc
    return target
