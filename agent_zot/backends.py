"""One shape for choosing a backend by name: the vector store, the embedder, the OCR engine, the graph store
and the stance judge each declare a ``Backends`` table beside their Protocol.

An entry is a "module:attribute" string, imported on first use (so startup stays fast and a backend module
that imports its Protocol's module makes no circle), or a callable that does its own importing. An unknown
name raises the table's user-facing error, listing the names there are.
"""

from __future__ import annotations

import importlib
import inspect
from collections.abc import Callable, Mapping
from typing import Any, Generic, TypeVar, cast

from agent_zot.errors import AgentZotError, ConfigError

T = TypeVar("T")

__all__ = ["Backends"]


class Backends(Generic[T]):
    """Backends of one kind by name: ``create(name, ...)`` makes one, importing its module only then."""

    def __init__(
        self,
        what: str,
        entries: Mapping[str, str | Callable[..., T]],
        *,
        aliases: Mapping[str, str] | None = None,
        error: type[AgentZotError] = ConfigError,
    ) -> None:
        self.what = what  # as the messages name it: "vector store", "OCR engine"
        self._entries = dict(entries)
        self._aliases = dict(aliases or {})
        self._error = error
        for alias, target in self._aliases.items():
            if target not in self._entries or alias in self._entries:
                raise ValueError(f"alias {alias!r} of {what} must name an entry, not be one")

    @property
    def names(self) -> tuple[str, ...]:
        """The canonical names, in the order they were declared."""
        return tuple(self._entries)

    @property
    def aliases(self) -> dict[str, str]:
        """Other names accepted for an entry (an older setting's value), alias -> entry."""
        return dict(self._aliases)

    def modules(self) -> list[str]:
        """The modules the "module:attribute" entries import when first used."""
        return [entry.partition(":")[0] for entry in self._entries.values() if isinstance(entry, str)]

    def choices(self) -> list[str]:
        """Every name ``create`` accepts (aliases too), sorted: what a message lists."""
        return sorted([*self._entries, *self._aliases])

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and self._key(name) in self._entries

    def _key(self, name: str) -> str:
        key = name.strip().lower()
        return self._aliases.get(key, key)

    def canonical(self, name: str) -> str:
        """The entry ``name`` stands for (an alias gives its entry's name); an unknown one raises."""
        key = self._key(name)
        if key not in self._entries:
            raise self._error(
                f"Unknown {self.what} {name!r}.", hint=f"Choose one of: {', '.join(self.choices())}."
            )
        return key

    def loader(self, name: str) -> Callable[..., T]:
        """The constructor (or factory) of ``name``, imported now if it is a "module:attribute" entry."""
        entry = self._entries[self.canonical(name)]
        if not isinstance(entry, str):
            return entry
        module_name, _, attribute = entry.partition(":")
        return cast("Callable[..., T]", getattr(importlib.import_module(module_name), attribute))

    def create(self, name: str, /, *args: Any, **options: Any) -> T:
        """A new backend of ``name`` built from ``args`` and ``options``; options its constructor does not
        take raise the table's error before anything is built."""
        make = self.loader(name)
        try:
            inspect.signature(make).bind(*args, **options)
        except TypeError as err:
            raise self._error(f"Invalid option for {self.what} {name!r}: {err}") from err
        return make(*args, **options)
