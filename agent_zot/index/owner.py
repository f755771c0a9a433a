"""Which Zotero library an index was built from: recorded by each update, and an index built from another
library refused (its answers would name items this library lacks)."""

from __future__ import annotations

from pathlib import Path

from agent_zot.errors import AgentZotError
from agent_zot.state.index import IndexState
from agent_zot.zotero.models import Library


class OtherLibraryError(AgentZotError):
    """The index was built from another Zotero library than the one configured now."""


def record_library(state: IndexState, library: Library) -> None:
    """Note in the index which library it was built from."""
    state.set_meta("library", library.identity)
    state.set_meta("library_path", str(library.db_path))


def check_library(state: IndexState, library: Library) -> None:
    """Refuse an index built from another library: its answers would name items this library lacks."""
    check_identity(state, library.identity, library.db_path)


def check_identity(state: IndexState, identity: str, db_path: Path) -> None:
    """`check_library` for a library known by its identity alone (read before the library itself)."""
    recorded = state.get_meta("library")
    if recorded and identity and recorded != identity:
        built_from = state.get_meta("library_path") or recorded
        raise OtherLibraryError(
            f"The index in {state.path.parent} was built from another Zotero library ({built_from}); "
            f"the library now is {db_path}.",
            hint="Rebuild it for this library with `agent-zot update-db --force-rebuild`, or give each "
            "library its own data_dir (AGENT_ZOT_DATA_DIR).",
        )
