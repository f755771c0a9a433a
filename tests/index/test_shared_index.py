"""Two servers and an indexer on one embedded index, as real processes."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from agent_zot.errors import AgentZotError
from agent_zot.index.shared import SharedIndex
from tests.index.index_peer import DIM, make_point, open_index, vector

REPO = Path(__file__).resolve().parents[2]


class Peer:
    def __init__(self, folder: Path) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "tests.index.index_peer", str(folder)],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )

    def ask(self, **command: object) -> dict:
        assert self.proc.stdin and self.proc.stdout
        self.proc.stdin.write(json.dumps(command) + "\n")
        self.proc.stdin.flush()
        line = self.proc.stdout.readline()
        assert line, f"peer exited with {self.proc.poll()}"
        return json.loads(line)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.ask_exit()

    def ask_exit(self) -> None:
        assert self.proc.stdin
        self.proc.stdin.write(json.dumps({"op": "exit"}) + "\n")
        self.proc.stdin.flush()
        self.proc.wait(timeout=30)


@pytest.fixture
def peers(tmp_path: Path):
    started: list[Peer] = []

    def start() -> Peer:
        peer = Peer(tmp_path / "index")
        started.append(peer)
        return peer

    yield start
    for peer in started:
        if peer.proc.poll() is None:
            peer.proc.kill()
            peer.proc.wait()


@pytest.mark.slow
def test_two_servers_and_an_indexer_share_one_index(peers) -> None:
    desktop, code = peers(), peers()
    assert desktop.ask(op="count") == {"count": 0}  # first to ask becomes the owner
    assert code.ask(op="count") == {"count": 0}
    owners = [desktop.ask(op="owner")["owner"], code.ask(op="owner")["owner"]]
    assert sorted(owners) == [False, True]

    indexer = peers()
    assert indexer.ask(op="upsert", start=0, stop=40) == {"ok": True}
    # both servers see the new points at once, without a restart
    assert desktop.ask(op="count") == {"count": 40} and code.ask(op="count") == {"count": 40}
    assert desktop.ask(op="search", seed=17) == {"top": "ITEM0017"}
    assert code.ask(op="search", seed=17) == {"top": "ITEM0017"}
    indexer.stop()


@pytest.mark.slow
def test_when_the_owner_is_killed_another_process_takes_over(peers) -> None:
    first, second = peers(), peers()
    first.ask(op="upsert", start=0, stop=25)
    assert first.ask(op="owner") == {"owner": True}
    assert second.ask(op="count") == {"count": 25}
    first.proc.send_signal(signal.SIGKILL)  # no clean shutdown at all
    first.proc.wait()
    assert second.ask(op="count") == {"count": 25}  # nothing lost; the shard reopened by the new owner
    assert second.ask(op="owner") == {"owner": True}
    third = peers()
    third.ask(op="upsert", start=25, stop=30)
    assert second.ask(op="count") == {"count": 30} and third.ask(op="search", seed=27) == {"top": "ITEM0027"}


def test_in_one_process_a_second_handle_is_a_client(tmp_path: Path) -> None:
    owner, client = open_index(tmp_path), open_index(tmp_path)
    try:
        client.upsert([make_point(n) for n in range(5)])
        assert client.is_owner or owner.is_owner
        assert (
            owner.count() == 5
            and client.search(vector(3), None, limit=1)[0].payload["item_key"] == "ITEM0003"
        )
    finally:
        owner.close()
        client.close()


def test_owner_file_is_private_and_removed_on_close(tmp_path: Path) -> None:
    index: SharedIndex = open_index(tmp_path)
    index.count()
    owner_file = tmp_path / "owner.json"
    assert owner_file.stat().st_mode & 0o777 == 0o600
    index.close()
    assert not owner_file.exists()


@pytest.mark.slow
def test_a_client_closing_leaves_the_owner_reachable_for_the_next(tmp_path: Path) -> None:
    """A client's close once removed the owner's announcement, so every later process (update-db
    started by the watcher, a second server) found the index "held by a process that does not answer"."""
    owner = open_index(tmp_path)
    owner.upsert([make_point(n) for n in range(3)])
    first, later = open_index(tmp_path), open_index(tmp_path)
    try:
        assert first.count() == 3 and not first.is_owner
        first.close()
        assert (tmp_path / "owner.json").is_file()
        assert later.count() == 3 and not later.is_owner
    finally:
        later.close()
        owner.close()


@pytest.mark.slow
def test_taking_over_an_index_this_process_never_opened(tmp_path: Path) -> None:
    """A server whose requests all went to the owner (update-db) takes over when it exits: it opens the
    store as it was created, instead of answering "not open" to everyone."""
    from agent_zot.index.store_edge import EdgeStore

    owner = open_index(tmp_path)
    owner.upsert([make_point(n) for n in range(3)])
    server = SharedIndex(tmp_path, lambda: EdgeStore(tmp_path / "shard"))  # as agent-zot builds it: unopened
    try:
        assert server.count() == 3 and not server.is_owner
        owner.close()
        assert server.count() == 3 and server.is_owner
        assert server.search(vector(2), None, limit=1)[0].payload["item_key"] == "ITEM0002"
    finally:
        server.close()
        owner.close()


def test_an_error_in_the_owner_reaches_the_client_with_its_type_and_hint(tmp_path: Path) -> None:
    from agent_zot.index.store import IndexMismatchError

    owner, client = open_index(tmp_path), open_index(tmp_path)
    try:
        owner.count()  # this handle owns the index; the other one is a client
        assert owner.is_owner and not client.is_owner
        with pytest.raises(IndexMismatchError) as mismatch:
            client.open_or_create(model="another-model", dense_dim=DIM, sparse="bm25")
        assert mismatch.value.hint  # the owner's advice arrives, not only its message
        with pytest.raises(ValueError, match="unknown fusion"):  # as it would be raised in one process
            client.search(vector(1), None, limit=1, fusion="bogus")
    finally:
        owner.close()
        client.close()


def test_a_failure_in_the_owner_is_reported_at_once_not_as_a_busy_index(tmp_path: Path) -> None:
    from agent_zot.index.shared import IndexOwnerError
    from agent_zot.index.store_edge import EdgeStore

    def unopened() -> EdgeStore:
        (tmp_path / "shard").mkdir(parents=True, exist_ok=True)
        return EdgeStore(tmp_path / "shard")  # never opened: every call fails inside the owner

    owner, client = SharedIndex(tmp_path, unopened), SharedIndex(tmp_path, unopened)
    try:
        with pytest.raises(RuntimeError):
            owner.count()
        assert owner.is_owner
        with pytest.raises(IndexOwnerError, match="EdgeStore is not open") as failed:
            client.count()
        assert "doctor" in (failed.value.hint or "")
    finally:
        owner.close()
        client.close()


def test_a_client_rewrites_payloads_and_deletes_one_kind_through_the_owner(tmp_path: Path) -> None:
    """update-db's in-place metadata updates, run while a server owns the index."""
    from agent_zot.index.store import SearchFilter

    owner, client = open_index(tmp_path), open_index(tmp_path)
    try:
        owner.upsert([make_point(n) for n in range(4)])
        assert owner.is_owner and not client.is_owner
        client.set_payloads({"ITEM0001": {"tags": ["retagged"], "title": "New"}})
        hits = owner.get_by_item("ITEM0001")
        assert hits and all(h.payload["tags"] == ["retagged"] and h.payload["title"] == "New" for h in hits)
        assert owner.count(SearchFilter(tags=("retagged",))) == len(hits)
        client.delete_items(["ITEM0001", "ITEM0002"], kinds=["nonesuch"])
        assert owner.count() == 4  # no point of that kind: nothing deleted
        kind = hits[0].payload["kind"]
        client.delete_items(["ITEM0001"], kinds=[kind])
        assert owner.get_by_item("ITEM0001") == [] and owner.count() == 3
    finally:
        owner.close()
        client.close()


def test_a_store_that_fails_to_open_leaves_the_index_free_for_the_next_try(tmp_path: Path) -> None:
    """E.g. a disk with no room to open the store: the caller gets the error, and neither it nor another
    process is locked out once there is room."""
    from agent_zot.index.space import DiskFullError
    from agent_zot.index.store_edge import EdgeStore

    attempts: list[int] = []

    def factory() -> EdgeStore:
        attempts.append(1)
        if len(attempts) == 1:
            raise DiskFullError("The disk is full; opening the full-text index needs about 70 MB.")
        (tmp_path / "shard").mkdir(parents=True, exist_ok=True)
        store = EdgeStore(tmp_path / "shard")
        store.open_or_create(model="test-model", dense_dim=DIM, sparse="bm25")
        return store

    index, other = SharedIndex(tmp_path, factory), open_index(tmp_path)
    try:
        with pytest.raises(DiskFullError):
            index.count()
        assert not index.is_owner
        other.upsert([make_point(n) for n in range(2)])  # another process can own it now
        assert other.is_owner and index.count() == 2
    finally:
        index.close()
        other.close()


@pytest.mark.slow
def test_a_call_arriving_while_the_owner_closes_is_not_served_by_a_closed_store(tmp_path: Path) -> None:
    """The soak's failure: a client's open connection outlived its owner's store; the `open_or_create` it
    sent while the owner was closing reopened the store in the closing process, which then let go of the
    index while still holding the engine's lock, and the next process found it "open in another
    agent-zot process". The owner drops such a call instead, and the client takes the index over."""
    owner, client = open_index(tmp_path), open_index(tmp_path)
    owner.upsert([make_point(n) for n in range(3)])
    assert client.count() == 3 and not client.is_owner  # a connection to the owner is open now
    answers: list[object] = []

    def ask() -> None:
        try:
            answers.append(client.open_or_create(model="test-model", dense_dim=DIM, sparse="bm25"))
        except AgentZotError as exc:
            answers.append(exc)

    store = owner._local
    assert store is not None
    close_store = store.close

    def close_then_get_a_call() -> None:  # the call comes in while the owner still holds the index
        close_store()
        threading.Thread(target=ask).start()
        time.sleep(0.3)

    store.close = close_then_get_a_call  # type: ignore[method-assign]
    later = open_index(tmp_path)
    try:
        owner.close()
        deadline = time.monotonic() + 30
        while not answers and time.monotonic() < deadline:
            time.sleep(0.05)
        assert [getattr(a, "points", a) for a in answers] == [3] and client.is_owner
        assert later.count() == 3 and not later.is_owner
    finally:
        later.close()
        client.close()
