"""Pick a vector store implementation by name.

The engines are imported only when asked for, so importing this module costs nothing (qdrant-client alone
takes a noticeable part of a second, which the MCP server should not pay at startup).
"""

from __future__ import annotations

from typing import Any

from agent_zot.errors import ConfigError
from agent_zot.index.store import VectorStore

STORE_KINDS = ("edge", "qdrant")


def open_store(kind: str, **options: Any) -> VectorStore:
    """A store of ``kind``: "edge" (``EdgeStore(path, ...)``) or "qdrant" (``QdrantStore(url, path=..., ...)``).

    ``options`` are the class's constructor arguments. Nothing is opened yet: call ``open_or_create``.
    """
    if kind == "edge":
        from agent_zot.index.store_edge import EdgeStore

        return EdgeStore(**options)
    if kind == "qdrant":
        from agent_zot.index.store_qdrant import QdrantStore

        return QdrantStore(**options)
    raise ConfigError(
        f"Unknown vector store {kind!r}.",
        hint=f"Use one of: {', '.join(STORE_KINDS)}.",
    )
