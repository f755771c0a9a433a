"""Read, rewrite and back up an MCP client's JSON configuration file without losing anything in it.

The file is rewritten in its own style (indent, line endings, byte-order mark, final newline) so that the
diff shows only the entry that changed; keys keep their order. Anything that cannot be carried over
faithfully (comments, duplicate keys, text that is not UTF-8) is refused and the file left as it is.
"""

from __future__ import annotations

import json
import os
import re
import stat
import tempfile
from pathlib import Path
from typing import Any

from agent_zot.errors import AgentZotError

BOM = "\ufeff"
_INDENT = re.compile(r"\n([ \t]+)\S")


class ClientConfigError(AgentZotError):
    """A client's configuration file cannot be read, parsed or written."""


class _DuplicateKeyError(ValueError):
    pass


def read_config(path: Path) -> str | None:
    """The file's text, or None when it does not exist."""
    try:
        raw = path.read_bytes()
    except (FileNotFoundError, NotADirectoryError):
        return None
    except OSError as exc:
        raise ClientConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise ClientConfigError(f"{path} is not UTF-8 text; it was left untouched.") from exc


def _no_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise _DuplicateKeyError(key)  # json.loads would keep only the last one: rewriting loses data
        out[key] = value
    return out


def parse_config(path: Path, text: str | None, *, jsonc: bool = False) -> dict[str, Any]:
    """The top-level object (empty for an absent or blank file); errors name the line and column."""
    body = (text or "").removeprefix(BOM)
    if not body.strip():
        return {}
    hint = "Fix the file (or move it aside), then run agent-zot setup again."
    if jsonc:
        hint = (
            "This client accepts comments and trailing commas, but agent-zot rewrites only strict JSON so that "
            "nothing in the file is lost: remove them, or add the entry by hand."
        )
    try:
        data = json.loads(body, object_pairs_hook=_no_duplicates)
    except json.JSONDecodeError as exc:
        raise ClientConfigError(
            f"{path} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg}); "
            "it was left untouched.",
            hint=hint,
        ) from exc
    except _DuplicateKeyError as exc:
        raise ClientConfigError(
            f'{path} has the key "{exc}" twice in one object; it was left untouched.', hint=hint
        ) from exc
    if not isinstance(data, dict):
        raise ClientConfigError(
            f"The top level of {path} is {type(data).__name__}, not a JSON object; it was left untouched.",
            hint=hint,
        )
    return data


def dump_like(before: str | None, data: dict[str, Any]) -> str:
    """``data`` as JSON in the style of ``before`` (two-space indent and a final newline for a new file)."""
    before = before or ""
    match = _INDENT.search(before)
    indent: int | str = 2
    if match:
        indent = "\t" if match.group(1).startswith("\t") else len(match.group(1))
    text = json.dumps(data, indent=indent, ensure_ascii=False)
    if not before.strip() or before.endswith("\n"):
        text += "\n"
    if "\r\n" in before:
        text = text.replace("\n", "\r\n")
    return BOM + text if before.startswith(BOM) else text


def _write_error(folder: Path, exc: OSError) -> ClientConfigError:
    return ClientConfigError(
        f"Cannot write to {folder}: {exc.strerror or exc}; nothing was changed there.",
        hint="Check the folder's permissions, or run setup as the user who runs the client.",
    )


def write_backup(path: Path, stamp: str) -> Path:
    """Copy ``path`` byte for byte to ``<name>.agent-zot-backup-<stamp>`` (never over an earlier backup),
    with the same permissions: a client's file can hold tokens."""
    try:
        raw = path.read_bytes()
        mode = stat.S_IMODE(path.stat().st_mode)
    except OSError as exc:
        raise ClientConfigError(f"Cannot read {path}: {exc.strerror or exc}.") from exc
    for n in range(1, 100):
        target = path.with_name(f"{path.name}.agent-zot-backup-{stamp}" + (f"-{n}" if n > 1 else ""))
        try:
            fd = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_BINARY", 0), mode)
        except FileExistsError:
            continue
        except OSError as exc:
            raise _write_error(path.parent, exc) from exc
        with os.fdopen(fd, "wb") as fh:
            fh.write(raw)
        return target
    raise ClientConfigError(f"Too many agent-zot backups of {path} made at {stamp}.")


def write_atomic(path: Path, text: str) -> None:
    """Replace the file in one step (temporary file in the same folder, then os.replace); through a
    symbolic link, the file it points to is replaced, so a dotfiles link stays a link."""
    target = path.resolve() if path.is_symlink() else path
    folder = target.parent
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except FileExistsError as exc:
        raise ClientConfigError(
            f"Cannot create the folder {folder}: a file of that name is in the way; nothing was changed."
        ) from exc
    except OSError as exc:
        raise _write_error(folder, exc) from exc
    mode = stat.S_IMODE(target.stat().st_mode) if target.exists() else None
    try:
        fd, tmp = tempfile.mkstemp(dir=folder, prefix=f".{target.name}.", suffix=".tmp")
    except OSError as exc:
        raise _write_error(folder, exc) from exc
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())
        if mode is not None:
            Path(tmp).chmod(mode)  # mkstemp makes 0600; keep what the user had
        Path(tmp).replace(target)
    except OSError as exc:
        Path(tmp).unlink(missing_ok=True)
        raise _write_error(folder, exc) from exc
