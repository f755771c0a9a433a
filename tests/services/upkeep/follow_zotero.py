"""For the tests of the index following Zotero: a library that changes the way Zotero changes it, and
`agent-zot watch` as a real process whose report lines a test reads with a deadline."""

from __future__ import annotations

import os
import queue
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.demo_pdf import write_text_pdf

FIRST = "Glacier mass balance is measured with stakes drilled into the ice every spring."
ADDED = "Sourdough fermentation depends on lactic acid bacteria and wild yeasts in the starter."


class ZoteroStandIn:
    """A library that changes the way Zotero changes it: rows written into the same zotero.sqlite file (its
    header counter, size and time move, the inode stays) and new files under storage/."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.builder = ZoteroLibraryBuilder(folder, shape="z7", seed=11)
        self.first = self.add_paper("Measuring glaciers", FIRST)
        self.db = self.builder.build()

    def add_paper(self, title: str, text: str) -> str:
        key = self.builder.add_item("journalArticle", title=title, creators=[("Ada", "Lovelace")])
        attachment = self.builder.add_attachment(key, filename="paper.pdf", content=None)
        write_text_pdf(self.folder / "storage" / attachment / "paper.pdf", title, [text] * 6)
        return key

    def commit(self) -> None:
        """Write the new state of the library over the old bytes, in place."""
        staging = self.folder.parent / f"{self.folder.name}-staging"
        self.builder.data_dir = staging
        try:
            fresh = self.builder.build().read_bytes()
        finally:
            self.builder.data_dir = self.folder
        with self.db.open("r+b") as fh:
            fh.write(fresh)
            fh.truncate()


class WatchProcess:
    """`agent-zot watch` in its own process group (so a test can end it with its update-db child); its report
    lines are read by a thread, so a watcher that stays silent fails the test instead of hanging it."""

    def __init__(self, library: Path, env: dict[str, str], *, interval: float = 0.2) -> None:
        command = [
            sys.executable,
            "-m",
            "agent_zot",
            "--library",
            str(library),
            "watch",
            "--interval",
            str(interval),
        ]
        self.proc = subprocess.Popen(
            command,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            start_new_session=True,
            preexec_fn=ctrl_c_as_in_a_terminal,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        self.errors: list[str] = []
        threading.Thread(target=self._pump, args=(self.proc.stdout, self.lines.put), daemon=True).start()
        threading.Thread(target=self._pump, args=(self.proc.stderr, self.errors.append), daemon=True).start()

    @staticmethod
    def _pump(stream: object, put: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            put(line)  # type: ignore[operator]

    def next_report(self, timeout: float) -> str:
        """The next line watch prints for an update; a failure it reports ends the wait at once."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            failed = [line for line in self.errors if "update failed" in line]
            if failed:
                raise AssertionError(f"watch reported a failed update: {failed[0]}")
            try:
                return self.lines.get(timeout=0.2)
            except queue.Empty:
                continue
        raise AssertionError(
            f"watch reported nothing in {timeout:g} s; it wrote:\n{''.join(self.errors)[-3000:]}"
        )

    def stop(self) -> None:
        """Ctrl-C, as in a terminal; its process group is killed if it does not end within a minute."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGINT)
            try:
                self.proc.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()


def ctrl_c_as_in_a_terminal() -> None:
    # A test run started in the background by a non-interactive shell inherits SIGINT ignored, and Python
    # keeps it ignored: the watcher would never see the test's Ctrl-C.
    signal.signal(signal.SIGINT, signal.SIG_DFL)
