"""Pick a vector store implementation by name.

The engines are imported only when asked for, so importing this module costs nothing (qdrant-client alone
takes a noticeable part of a second, which the MCP server should not pay at startup).
"""

from __future__ import annotations

from typing import Any

from agent_zot.backends import Backends
from agent_zot.errors import ConfigError
from agent_zot.index.store import VectorStore

VECTOR_STORES: Backends[VectorStore] = Backends(
    "vector store",
    {"edge": "agent_zot.index.store_edge:EdgeStore", "qdrant": "agent_zot.index.store_qdrant:QdrantStore"},
    error=ConfigError,
)


def open_store(kind: str, **options: Any) -> VectorStore:
    """A store of ``kind``: "edge" (``EdgeStore(path, ...)``) or "qdrant" (``QdrantStore(url, path=..., ...)``).

    ``options`` are the class's constructor arguments. Nothing is opened yet: call ``open_or_create``.
    """
    return VECTOR_STORES.create(kind, **options)
