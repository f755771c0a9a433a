"""The watcher's update process, kept running between updates.

A watcher (`watch`, `serve`'s auto-update) runs each update in a child process at low priority, so the
update never holds a server's interpreter. Starting a fresh `update-db` for every edit paid the process's
start (imports, the embedding model, the graph's memo) each time: about 2.5 s of a 3.8 s title edit on a
5,000-item library. The child now stays: `agent-zot update-worker` reads one line per update on stdin and
answers one JSON line on stdout, keeping its models, the graph memo and the open index in memory. It exits
after a while with nothing to do (its memory and the index go back) or when its stdin closes; the next
update starts a new one.

Killing it at any point is safe, as it is for update-db: the next run finishes the work.
"""

from __future__ import annotations

import contextlib
import json
import logging
import queue
import subprocess
import threading
from collections import deque
from collections.abc import Callable, Iterator, Mapping, Sequence
from typing import IO, Any

from agent_zot.errors import AgentZotError
from agent_zot.services.watch.watcher import UPDATE_TIMEOUT_S, UpdateOutcome

log = logging.getLogger(__name__)

IDLE_EXIT_S = 600.0  # a worker with nothing to do for this long exits and frees its memory
REQUEST = "update\n"
_ERROR_LINES = 40  # the end of a dead worker's log, for its failure's reason


# -- the watcher's side --------------------------------------------------------------------------


class UpdateWorker:
    """Runs updates in one long-lived child process (``command`` is `agent-zot ... update-worker`),
    started on the first update and again whenever it has gone away."""

    def __init__(
        self,
        command: Sequence[str],
        *,
        timeout_s: float = UPDATE_TIMEOUT_S,
        env: Mapping[str, str] | None = None,
    ) -> None:
        self.command = list(command)
        self.timeout_s = timeout_s
        self.env = dict(env) if env is not None else None  # None: this process's environment
        self._proc: subprocess.Popen[str] | None = None
        self._replies: queue.Queue[str | None] = queue.Queue()
        self._log: deque[str] = deque(maxlen=_ERROR_LINES)
        self.started = 0  # processes started, for tests and benchmarks

    def __call__(self) -> UpdateOutcome:
        for attempt in (1, 2):
            try:
                pipe = _stdin(self._running())
                pipe.write(REQUEST)
                pipe.flush()
            except OSError as err:  # it exited since the last update (idle, killed): one new try
                self._stop()
                if attempt == 2:
                    return UpdateOutcome(False, {}, f"the update process could not be started: {err}")
                continue
            outcome = self._reply()
            if outcome is not None:
                return outcome
            # it left, idle, just as the request came: a new one takes it
        return UpdateOutcome(False, {}, "the update process exited without updating")

    def close(self) -> None:
        """End the worker: its stdin closes and it exits; stopped if it does not within seconds."""
        self._stop()

    def _running(self) -> subprocess.Popen[str]:
        if self._proc is not None and self._proc.poll() is None:
            return self._proc
        self._stop()
        # Each process has its own: a dead one's pipe, closing late, must not speak for the new one
        replies: queue.Queue[str | None] = queue.Queue()
        self._replies, self._log = replies, deque(maxlen=_ERROR_LINES)
        proc = subprocess.Popen(
            self.command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            bufsize=1,
            env=self.env,
        )
        self.started += 1
        # Both pipes are drained all along: a full pipe would stall the worker
        _drain(proc.stdout, replies.put, then=lambda: replies.put(None))
        _drain(proc.stderr, self._log.append)
        self._proc = proc
        return proc

    def _reply(self) -> UpdateOutcome | None:
        """The worker's answer; None when it exited cleanly without one (its idle exit)."""
        try:
            line = self._replies.get(timeout=self.timeout_s)
        except queue.Empty:
            self._stop()
            return UpdateOutcome(False, {}, f"the update took over {self.timeout_s:.0f} s and was stopped")
        if line is None:
            code = None
            with contextlib.suppress(subprocess.TimeoutExpired):
                code = self._proc.wait(timeout=10) if self._proc is not None else None
            reason = next((s for s in reversed(self._log) if s.strip()), f"it exited with {code}")
            self._stop()
            return None if code == 0 else UpdateOutcome(False, {}, reason.strip())
        try:
            reply = json.loads(line)
        except json.JSONDecodeError:
            return UpdateOutcome(False, {}, f"the update process answered {line[:200]!r}")
        if reply.get("ok"):
            return UpdateOutcome(True, dict(reply.get("summary") or {}))
        return UpdateOutcome(False, {}, str(reply.get("error") or "the update failed"))

    def _stop(self) -> None:
        proc, self._proc = self._proc, None
        if proc is None:
            return
        with contextlib.suppress(OSError):
            _stdin(proc).close()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _drain(
    stream: IO[str] | None, keep: Callable[[str], None], then: Callable[[], None] | None = None
) -> None:
    def run() -> None:
        assert stream is not None
        with contextlib.suppress(OSError, ValueError):  # closed under it when the worker is stopped
            for line in stream:
                keep(line)
        if then is not None:
            then()

    threading.Thread(target=run, name="agent-zot-update-worker-pipe", daemon=True).start()


# -- the worker's side ---------------------------------------------------------------------------


def serve_updates(
    update: Callable[[], dict[str, Any]],
    requests: IO[str],
    replies: IO[str],
    *,
    idle_exit_s: float = IDLE_EXIT_S,
) -> int:
    """Run ``update`` once per line read from ``requests``, answering each with one JSON line; return
    the number run when ``requests`` ends or stays silent for ``idle_exit_s``. A user error is an answer
    (``{"ok": false, "error": ...}``) and the worker goes on; anything else ends it."""
    done = 0
    for _ in _lines(requests, idle_exit_s):
        try:
            reply: dict[str, Any] = {"ok": True, "summary": update()}
        except AgentZotError as exc:
            reply = {"ok": False, "error": str(exc)}
        replies.write(json.dumps(reply) + "\n")
        replies.flush()
        done += 1
    return done


def _lines(stream: IO[str], idle_exit_s: float) -> Iterator[str]:
    """The lines of ``stream`` until it ends or none comes for ``idle_exit_s`` (read by a thread, as
    waiting on a pipe with a timeout has no portable call)."""
    lines: queue.Queue[str | None] = queue.Queue()
    _drain(stream, lines.put, then=lambda: lines.put(None))
    while True:
        try:
            line = lines.get(timeout=idle_exit_s)
        except queue.Empty:
            log.info("no update asked for %.0f s; the update process exits", idle_exit_s)
            return
        if line is None:
            return
        yield line


def _stdin(proc: subprocess.Popen[str]) -> IO[str]:
    """The worker's request pipe (always there: it is started with stdin=PIPE)."""
    if proc.stdin is None:
        raise OSError("the update process has no request pipe")
    return proc.stdin
