"""A one-line progress display on stderr: rewritten in place on a terminal, a line every few seconds otherwise
(update-db's heartbeat re-reports at least every ``progress_interval_s``, so a line comes that often)."""

from __future__ import annotations

import time
from typing import TextIO

from agent_zot.services.upkeep.progress import Progress

_PLAIN_INTERVAL_S = 5.0


class ProgressLine:
    def __init__(self, stream: TextIO, interval_s: float = _PLAIN_INTERVAL_S) -> None:
        self.stream = stream
        self.interactive = stream.isatty()
        self.interval_s = interval_s
        self._last = 0.0
        self._shown = False

    def update(self, progress: Progress) -> None:
        now = time.monotonic()
        # A little under the interval: the heartbeat's own timing must not fall just short of it
        if (
            not self.interactive
            and now - self._last < self.interval_s * 0.9
            and (progress.items_done < progress.items_total or progress.notes_done < progress.notes_total)
        ):
            return
        self._last = now
        pages = f"{progress.pages}/{progress.pages_total}" if progress.pages_total else f"{progress.pages}"
        # The items' ETA says nothing about the notes embedded after them.
        eta = (
            f" · ETA {progress.eta_s:.0f} s"
            if progress.eta_s is not None and not progress.notes_total
            else ""
        )
        text = (
            f"items {progress.items_done}/{progress.items_total} · pages {pages} · "
            f"chunks {progress.chunks} · {progress.rate:.1f} items/s{eta}"
        )
        if progress.ocr_pages:
            text += f" · OCR'd pages {progress.ocr_pages}"
        if progress.notes_total:
            text += f" · notes and annotations {progress.notes_done}/{progress.notes_total}"
        if progress.reading:
            text += " · reading " + "; ".join(progress.reading)
        if progress.doing:
            text += f" · {progress.doing}"
        if self.interactive:
            self.stream.write("\r\033[K" + text)
        else:
            self.stream.write(text + "\n")
        self.stream.flush()
        self._shown = True

    def finish(self) -> None:
        if self.interactive and self._shown:
            self.stream.write("\n")
            self.stream.flush()
