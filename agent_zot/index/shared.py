"""Several processes, one embedded index.

Qdrant's embedded engine lets one process open a shard. A researcher runs agent-zot from Claude Desktop
and Claude Code at once and runs `update-db` while both are open, so the first process that needs the
index becomes its *owner*: it takes an exclusive OS file lock (released by the OS when the process dies,
however it dies), opens the store, and serves the store's methods to other agent-zot processes over a
loopback socket. The others find the owner's port and a random token in ``owner.json`` (readable only by
the user) and forward their calls. When the owner exits, the next call finds the socket closed, and the
caller takes the lock and becomes the owner. Writers go through the owner too, so every process sees new
points as soon as they are written, with no restart and no copies.

Messages are length-prefixed JSON (index/wire.py); only the store's own value types cross (points, sparse
vectors, filters, hits, and the sets and tuples its methods return).
"""

from __future__ import annotations

import contextlib
import functools
import json
import logging
import os
import secrets
import socket
import socketserver
import struct
import threading
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path
from typing import Any

from agent_zot.errors import AgentZotError
from agent_zot.index import wire
from agent_zot.index.store import (
    Hit,
    IndexInfo,
    Point,
    SearchFilter,
    SearchRequest,
    SparseVector,
    VectorStore,
)
from agent_zot.index.wire import WireError
from agent_zot.locks import open_lock_file, try_lock, unlock

log = logging.getLogger(__name__)

_CONNECT_TIMEOUT_S = 2.0
_CALL_TIMEOUT_S = 600.0
_TAKEOVER_ATTEMPTS = 20
_POLL_S = 0.1
# Every store method crosses, except close (each process closes its own handle).
_METHODS = frozenset(name for name in vars(VectorStore) if not name.startswith("_")) - {"close"}


class IndexBusyError(AgentZotError):
    """Another process owns the index and could not be reached."""


# -- errors that cross ---------------------------------------------------------------------------


class IndexOwnerError(AgentZotError):
    """The process that owns the index failed on a call made for another process."""


_CALLER_ERRORS: tuple[type[Exception], ...] = (ValueError, TypeError, KeyError)
_BUG_HINT = "Run `agent-zot doctor`; if it persists, rebuild with `agent-zot update-db --force-rebuild`."


def _error_types() -> dict[str, type[Exception]]:
    found: dict[str, type[Exception]] = {cls.__name__: cls for cls in _CALLER_ERRORS}
    pending: list[type[AgentZotError]] = [AgentZotError]
    while pending:
        cls = pending.pop()
        found[cls.__name__] = cls
        pending += cls.__subclasses__()
    return found


def _remote_error(reply: dict[str, Any]) -> Exception:
    """The owner's error as the type it had there: `IndexMismatchError` stays one, with its hint."""
    message, hint = str(reply["error"]), reply.get("hint")
    cls = _error_types().get(str(reply.get("kind")), AgentZotError)
    if not issubclass(cls, AgentZotError):
        return cls(message)
    try:
        return cls(message, hint=hint)
    except TypeError:  # a subclass with required extra fields (candidates, ...)
        return AgentZotError(message, hint=hint)


def _owner_failure(method: object, what: str) -> dict[str, Any]:
    return {
        "error": f"The index failed on {method} ({what}).",
        "hint": _BUG_HINT,
        "kind": IndexOwnerError.__name__,
    }


# -- the owner's side -------------------------------------------------------------------------


class _Handler(socketserver.BaseRequestHandler):
    server: _OwnerServer

    def handle(self) -> None:
        sock: socket.socket = self.request
        try:
            hello = wire.receive(sock)
            if not secrets.compare_digest(str(hello.get("token", "")), self.server.token):
                return
            wire.send(sock, {"ok": True})
            while True:
                sock.sendall(self.server.answer(sock))
        except (ConnectionError, OSError, WireError, struct.error):
            return


class _OwnerServer(socketserver.ThreadingTCPServer):
    daemon_threads = True
    allow_reuse_address = False

    def __init__(self, store: VectorStore, lock: threading.Lock) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.store = store
        self.store_lock = lock
        self.token = secrets.token_hex(16)
        self.retired = False

    def retire(self) -> None:
        """Answer no call from now on. Connections outlive `shutdown` (each has its own thread), and a call
        reaching a closed store would reopen it (``open_or_create``) in a process that no longer owns the
        index, or fail; refused, the caller sees the connection drop and takes the index over."""
        with self.store_lock:  # after the call in progress, if any
            self.retired = True

    def answer(self, sock: socket.socket) -> bytes:
        """The reply to the next request on ``sock``, framed. Every request is answered: a caller that
        hears nothing retries for seconds and then reports the index as held by a process that does not
        answer, hiding the real cause."""
        try:
            request = wire.receive(sock)
        except WireError as exc:
            return wire.frame(_owner_failure("a request", str(exc)))
        reply = self.dispatch(request)
        try:
            return wire.frame(reply)
        except WireError as exc:
            log.error("the index could not send its answer to %s: %s", request.get("method"), exc)
            return wire.frame(_owner_failure(request.get("method"), f"its answer could not be sent: {exc}"))

    def dispatch(self, request: dict[str, Any]) -> dict[str, Any]:
        method = request.get("method")
        if method not in _METHODS:
            return {"error": f"unknown method {method!r}"}
        with self.store_lock:  # the engine is used from one thread at a time
            if self.retired:
                raise ConnectionAbortedError("the index is being handed over")  # the handler drops the line
            return self._call_store(method, request)

    def _call_store(self, method: str, request: dict[str, Any]) -> dict[str, Any]:
        try:
            result = getattr(self.store, method)(*request.get("args", []), **request.get("kwargs", {}))
        except AgentZotError as exc:
            return {"error": exc.message, "hint": exc.hint, "kind": type(exc).__name__}
        except _CALLER_ERRORS as exc:  # a bad call: the caller raises the same type, as it would locally
            return {"error": str(exc), "kind": type(exc).__name__}
        except Exception as exc:
            # The boundary to other processes: answer every call. A dropped connection would make the
            # caller retry for seconds and then report a busy index.
            log.exception("the index failed on %s for another process", method)
            return _owner_failure(method, f"{type(exc).__name__}: {exc}")
        return {"result": result}


# -- the handle every process uses ------------------------------------------------------------


class SharedIndex:
    """A VectorStore for any number of processes over one embedded store folder.

    ``factory`` opens the real store; it is only called in the process that owns the index.
    """

    def __init__(self, folder: Path, factory: Callable[[], VectorStore]) -> None:
        self.folder = folder
        self._factory = factory
        self._lock_file: Any = None
        self._local: VectorStore | None = None
        self._server: _OwnerServer | None = None
        self._store_lock = threading.Lock()
        self._conn: socket.socket | None = None
        self._conn_lock = threading.Lock()
        self._open_params: dict[str, Any] | None = None  # re-applied if this process takes over

    @property
    def is_owner(self) -> bool:
        return self._local is not None

    # Each VectorStore method forwards through _call.
    def open_or_create(self, **kwargs: Any) -> IndexInfo:
        info = self._call("open_or_create", **kwargs)
        self._open_params = kwargs
        return info

    def upsert(self, points: list[Point]) -> None:
        self._call("upsert", list(points))

    def delete_items(self, item_keys: list[str], *, kinds: Sequence[str] = ()) -> None:
        self._call("delete_items", list(item_keys), kinds=list(kinds))

    def set_payloads(self, updates: Mapping[str, Mapping[str, Any]]) -> None:
        self._call("set_payloads", {key: dict(fields) for key, fields in updates.items()})

    def delete_attachments(self, attachment_keys: list[str]) -> None:
        self._call("delete_attachments", list(attachment_keys))

    def search(self, dense: Any, sparse: SparseVector | None, **kwargs: Any) -> list[Hit]:
        return self._call("search", dense, sparse, **kwargs)

    def search_batch(self, requests: Sequence[SearchRequest]) -> list[list[Hit]]:
        return self._call("search_batch", list(requests))

    def count(self, filter: SearchFilter | None = None) -> int:
        return self._call("count", filter)

    def get_by_item(self, item_key: str) -> list[Hit]:
        return self._call("get_by_item", item_key)

    def points_per_item(self) -> dict[str, int]:
        return self._call("points_per_item")

    def existing_ids(self, ids: Sequence[str]) -> set[str]:
        return self._call("existing_ids", list(ids))

    def payloads(self, ids: Sequence[str]) -> dict[str, dict[str, Any]]:
        return self._call("payloads", list(ids))

    def points(self, *, offset: str | None = None, limit: int = 256) -> tuple[list[Point], str | None]:
        return self._call("points", offset=offset, limit=limit)

    def optimize(self) -> None:
        self._call("optimize")

    def disk_size_bytes(self) -> int:
        return self._call("disk_size_bytes")

    def drop(self) -> None:
        self._call("drop")

    def close(self) -> None:
        """Stop serving (if owner) and release the lock; other processes then take over."""
        if self._server is not None:
            self._server.retire()
            self._server.shutdown()
            self._server.server_close()
            self._server = None
        if self._local is not None:
            with self._store_lock:
                self._local.close()
            self._local = None
        if self._lock_file is not None:
            # Only the owner withdraws the announcement: a client removing it would leave the owner
            # unreachable for every process that starts afterwards.
            with contextlib.suppress(OSError):
                (self.folder / "owner.json").unlink()
            unlock(self._lock_file)
            self._lock_file.close()
            self._lock_file = None
        self._drop_connection()

    # -- routing a call ----------------------------------------------------------------------

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        for attempt in range(_TAKEOVER_ATTEMPTS):
            if self._local is not None or self._try_become_owner():
                with self._store_lock:
                    return getattr(self._local, method)(*args, **kwargs)
            try:
                return self._remote(method, args, kwargs)
            except (ConnectionError, OSError, TimeoutError) as exc:
                log.debug("index owner unreachable (%s); retrying", exc)
                self._drop_connection()
                time.sleep(min(0.05 * (attempt + 1), 0.5))
        raise IndexBusyError(
            f"The index in {self.folder} is held by another process{self._owner_pid()} that does not answer.",
            hint="If an agent-zot process is stuck, end it; the index is released when it exits.",
        )

    def _try_become_owner(self) -> bool:
        self.folder.mkdir(parents=True, exist_ok=True)
        handle = open_lock_file(self.folder / "owner.lock")
        if not try_lock(handle):
            handle.close()
            return False
        local = None
        try:
            local = self._open_local()
        finally:
            if local is None:  # e.g. no room to open it: the next call (or process) tries again
                unlock(handle)
                handle.close()
        self._local, self._lock_file = local, handle
        self._server = _OwnerServer(self._local, self._store_lock)
        # A short poll: closing waits for it (a 0.5 s default made every short update-db 0.3 s slower)
        serve = functools.partial(self._server.serve_forever, poll_interval=_POLL_S)
        threading.Thread(target=serve, name="agent-zot-index-owner", daemon=True).start()
        _write_private_json(
            self.folder / "owner.json",
            {
                "host": "127.0.0.1",
                "port": self._server.server_address[1],
                "token": self._server.token,
                "pid": os.getpid(),
            },
        )
        log.info("this process now owns the index in %s", self.folder)
        return True

    def _open_local(self) -> VectorStore:
        local = self._factory()
        opened = False
        try:
            if self._open_params is not None:
                local.open_or_create(**self._open_params)
            elif hasattr(local, "open_existing"):
                # Taking over before this process opened the store itself (its requests went to the old
                # owner): open it as it was created, or the requests other processes send would find it shut.
                info = local.open_existing()
                if info is not None:
                    self._open_params = {
                        "model": info.model,
                        "dense_dim": info.dense_dim,
                        "sparse": info.sparse,
                    }
            opened = True
        finally:
            if not opened:
                local.close()
        return local

    def _owner_pid(self) -> str:
        with contextlib.suppress(OSError, ValueError, TypeError, KeyError):
            return (
                f" (pid {int(json.loads((self.folder / 'owner.json').read_text(encoding='utf-8'))['pid'])})"
            )
        return ""

    def _remote(self, method: str, args: tuple[Any, ...], kwargs: dict[str, Any]) -> Any:
        request = wire.frame(
            {"method": method, "args": list(args), "kwargs": kwargs}
        )  # a bad value fails here
        with self._conn_lock:
            sock = self._connection()
            sock.settimeout(_CALL_TIMEOUT_S)
            sock.sendall(request)
            try:
                reply = wire.receive(sock)
            except WireError as exc:
                raise IndexOwnerError(
                    f"The index's answer to {method} could not be read: {exc}", hint=_BUG_HINT
                ) from exc
        if "error" in reply:
            raise _remote_error(reply)
        return reply.get("result")

    def _connection(self) -> socket.socket:
        if self._conn is not None:
            return self._conn
        try:
            owner = json.loads((self.folder / "owner.json").read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError) as exc:
            raise ConnectionError("owner not announced yet") from exc
        sock = socket.create_connection((owner["host"], owner["port"]), timeout=_CONNECT_TIMEOUT_S)
        wire.send(sock, {"token": owner["token"]})
        if not wire.receive(sock).get("ok"):
            sock.close()
            raise ConnectionError("owner refused the token")
        self._conn = sock
        return sock

    def _drop_connection(self) -> None:
        if self._conn is not None:
            with contextlib.suppress(OSError):
                self._conn.close()
            self._conn = None


def _write_private_json(path: Path, data: dict[str, Any]) -> None:
    tmp = path.with_suffix(".tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w", encoding="utf-8") as fh:
        json.dump(data, fh)
    tmp.replace(path)
