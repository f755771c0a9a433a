"""Find the user's Zotero data directory, and read the two Zotero preferences agent-zot needs.

Order: an explicit path (``--library``, config file or ``AGENT_ZOT_ZOTERO_DATA_DIR``), then a custom data
directory set in Zotero's preferences (prefs.js in a Zotero profile), then ``~/Zotero`` (Zotero 5+'s
default on every platform), then the data folder inside a Zotero profile (Zotero 4 and older setups).
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path

import platformdirs

from agent_zot.errors import LibraryNotFoundError

DB_NAME = "zotero.sqlite"
_PREF_LINE = re.compile(r'user_pref\("([^"]+)",\s*(.+)\);\s*$')


@dataclass(slots=True)
class ZoteroPrefs:
    """The preferences agent-zot reads from the newest prefs.js it finds."""

    data_dir: Path | None = None
    base_attachment_path: Path | None = None
    source: Path | None = None


@dataclass(slots=True)
class Discovery:
    data_dir: Path
    db_path: Path
    how: str  # which rule found it, shown by `status` and `doctor`
    searched: list[str] = field(default_factory=list)


def profile_roots(home: Path | None = None) -> list[Path]:
    """Where Zotero keeps its profile folders on each platform (only existing ones matter)."""
    home = home or Path.home()
    return [
        home / ".zotero" / "zotero",  # Linux
        home / "Library" / "Application Support" / "Zotero" / "Profiles",  # macOS
        Path(platformdirs.user_data_dir("Zotero", "Zotero", roaming=True)) / "Profiles",  # Windows
        home / "snap" / "zotero-snap" / "common" / ".zotero" / "zotero",  # Linux snap
        home / ".var" / "app" / "org.zotero.Zotero" / ".zotero" / "zotero",  # Linux flatpak
    ]


def read_zotero_prefs(home: Path | None = None) -> ZoteroPrefs:
    """Parse prefs.js of the most recently used Zotero profile; empty prefs when none is found."""
    candidates = [p for root in profile_roots(home) if root.is_dir() for p in root.glob("*/prefs.js")]
    if not candidates:
        return ZoteroPrefs()
    newest = max(candidates, key=lambda p: p.stat().st_mtime)
    prefs = _parse_prefs(newest.read_text(encoding="utf-8", errors="replace"))
    result = ZoteroPrefs(source=newest)
    data_dir = prefs.get("extensions.zotero.dataDir")
    if prefs.get("extensions.zotero.useDataDir") is True and isinstance(data_dir, str):
        result.data_dir = Path(data_dir)
    base = prefs.get("extensions.zotero.baseAttachmentPath")
    if isinstance(base, str) and base:
        result.base_attachment_path = Path(base)
    return result


def _parse_prefs(text: str) -> dict[str, object]:
    prefs: dict[str, object] = {}
    for line in text.splitlines():
        match = _PREF_LINE.match(line.strip())
        if not match:
            continue
        name, raw = match.groups()
        try:
            prefs[name] = json.loads(raw)  # prefs.js values are JS literals; JSON covers ours
        except json.JSONDecodeError:
            continue
    return prefs


def _as_db(path: Path) -> Path | None:
    """Accept a data directory or the sqlite file itself."""
    path = path.expanduser()
    if path.is_file():
        return path
    if (path / DB_NAME).is_file():
        return path / DB_NAME
    return None


def discover_library(explicit: Path | None = None, *, home: Path | None = None) -> Discovery:
    """Locate zotero.sqlite, or raise an error that lists every place that was searched."""
    searched: list[str] = []
    if explicit is not None:
        db = _as_db(explicit)
        if db is None:
            raise LibraryNotFoundError(
                f"No Zotero database at {explicit} (expected a folder containing {DB_NAME}, or the file).",
                hint="Zotero shows its data directory under Settings → Advanced → Files and Folders.",
            )
        return Discovery(db.parent, db, "configured path", [str(explicit)])

    prefs = read_zotero_prefs(home)
    candidates: list[tuple[Path, str]] = []
    if prefs.data_dir is not None:
        candidates.append((prefs.data_dir, f"custom data directory in {prefs.source}"))
    candidates.append(((home or Path.home()) / "Zotero", "default data directory"))
    for root in profile_roots(home):
        if root.is_dir():
            candidates.extend(
                (profile / "zotero", "legacy profile data directory") for profile in root.iterdir()
            )
    for path, how in candidates:
        searched.append(str(path))
        db = _as_db(path)
        if db is not None:
            return Discovery(db.parent, db, how, searched)
    raise LibraryNotFoundError(
        "No Zotero library found. Looked in: " + "; ".join(searched) + ".",
        hint="Pass --library PATH, set AGENT_ZOT_ZOTERO_DATA_DIR, or set zotero_data_dir in the config file "
        "(Zotero shows its data directory under Settings → Advanced → Files and Folders).",
    )
