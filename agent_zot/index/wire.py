"""The messages agent-zot processes exchange over the shared index's socket (index/shared.py).

Each message is a 4-byte length and a JSON document. JSON has no tuples, sets or dataclasses, and the store
Protocol returns all three (``points`` a tuple, ``existing_ids`` a set, searches ``Hit``s), so these travel
tagged (``{"__t": "set", "v": [...]}``) and arrive as the type they left as. numpy arrays and scalars travel
as lists and numbers. Anything else is refused while the message is built, with a ``WireError`` naming the
value and where it sits: a reply that cannot be sent is answered as an error, never as silence (which the
caller would read as an owner that does not answer).
"""

from __future__ import annotations

import dataclasses
import json
import socket
import struct
from typing import Any

from agent_zot.index.store import Hit, IndexInfo, Point, SearchFilter, SearchRequest, SparseVector

TAG = "__t"
_HEADER = struct.Struct("!I")
MAX_MESSAGE = 512 * 1024 * 1024
_PLAIN = (str, int, float, bool, type(None))
_VALUE_TYPES: dict[str, type] = {
    cls.__name__: cls for cls in (Point, SparseVector, SearchFilter, SearchRequest, Hit, IndexInfo)
}
_CONTAINERS = {"tuple": tuple, "set": set, "frozenset": frozenset}


class WireError(TypeError):
    """A value that cannot cross between processes, or a message that does not decode."""


def encode(value: Any, where: str = "message") -> Any:
    """``value`` as JSON-ready data; raises ``WireError`` for a type that cannot cross."""
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, list):
        return [v if isinstance(v, _PLAIN) else encode(v, f"{where}[{i}]") for i, v in enumerate(value)]
    if isinstance(value, dict):
        fields = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise WireError(
                    f"{where} has a {type(key).__name__} key ({key!r}); only text keys can be sent"
                )
            fields[key] = encode(item, f"{where}[{key!r}]")
        return {TAG: "dict", "v": fields} if TAG in fields else fields
    if isinstance(value, (tuple, set, frozenset)):
        name = next(name for name, cls in _CONTAINERS.items() if isinstance(value, cls))
        return {TAG: name, "v": [encode(v, f"{where}[{i}]") for i, v in enumerate(value)]}
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        name = type(value).__name__
        if _VALUE_TYPES.get(name) is not type(value):
            raise WireError(f"{where} is a {name}, which is not one of the index's value types")
        fields = {
            f.name: encode(getattr(value, f.name), f"{where}.{f.name}") for f in dataclasses.fields(value)
        }
        return {TAG: name, **fields}
    tolist = getattr(value, "tolist", None)
    if callable(tolist) and type(value).__module__ == "numpy":  # arrays and scalars
        return encode(tolist(), where)
    raise WireError(f"{where} is a {type(value).__module__}.{type(value).__qualname__}, which cannot be sent")


def decode(value: Any) -> Any:
    """The value ``encode`` was given (numpy values come back as lists and numbers)."""
    if isinstance(value, list):
        return [v if isinstance(v, _PLAIN) else decode(v) for v in value]
    if not isinstance(value, dict):
        return value
    kind = value.get(TAG)
    if kind is None:
        return {k: decode(v) for k, v in value.items()}
    if kind == "dict":
        return {k: decode(v) for k, v in value["v"].items()}
    if kind in _CONTAINERS:
        return _CONTAINERS[kind](decode(v) for v in value["v"])
    cls = _VALUE_TYPES.get(kind)
    if cls is None:
        raise WireError(
            f"a message holds an unknown type {kind!r} (agent-zot processes of different versions?)"
        )
    fields = {k: decode(v) for k, v in value.items() if k != TAG}
    try:
        return cls(**fields)
    except TypeError as exc:
        raise WireError(
            f"a message holds a {kind} that does not fit this version of agent-zot: {exc}"
        ) from exc


def frame(message: dict[str, Any]) -> bytes:
    """The bytes of one message; raises ``WireError`` before anything is sent."""
    try:
        data = json.dumps(encode(message), separators=(",", ":"), allow_nan=True).encode("utf-8")
    except ValueError as exc:  # e.g. a lone surrogate in a text
        raise WireError(f"the message cannot be written as JSON: {exc}") from exc
    if len(data) > MAX_MESSAGE:
        raise WireError(f"the message is {len(data):,} bytes, over the limit of {MAX_MESSAGE:,}")
    return _HEADER.pack(len(data)) + data


def send(sock: socket.socket, message: dict[str, Any]) -> None:
    sock.sendall(frame(message))


def receive(sock: socket.socket) -> dict[str, Any]:
    """The next message. A broken stream raises ``ConnectionError``; a whole message that does not decode
    raises ``WireError`` and leaves the stream usable for the next one."""
    (size,) = _HEADER.unpack(_receive_exactly(sock, _HEADER.size))
    if size > MAX_MESSAGE:
        raise ConnectionError("message too large")
    body = _receive_exactly(sock, size)
    try:
        message = decode(json.loads(body))
    except (ValueError, KeyError) as exc:  # JSONDecodeError is a ValueError
        raise WireError(f"a message could not be read: {exc}") from exc
    if not isinstance(message, dict):
        raise WireError(f"a message is a {type(message).__name__}, not an object")
    return message


def _receive_exactly(sock: socket.socket, size: int) -> bytes:
    chunks, remaining = [], size
    while remaining:
        chunk = sock.recv(min(remaining, 1 << 20))
        if not chunk:
            raise ConnectionError("connection closed")
        chunks.append(chunk)
        remaining -= len(chunk)
    return b"".join(chunks)
