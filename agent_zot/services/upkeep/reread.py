"""Files an earlier release read otherwise than this one, read again a few at a time.

A release that reads files better (a repository's cover sheet left out, a font's symbol read as the
ligature it stands for, TeX's accents joined) helps an existing index only where a file changes, unless the
library is rebuilt (hours for a large one). The index keeps the page texts each file was read into, and the
rules a release added apply to those as they do to a file's own text, or are told from a PDF's text layer
beside them (ingest/text_version.py): an update finds the files whose text this release would store
differently and reads only those again, as it reads a changed file. At most ``text_reread_items`` a run,
and the look stops after ``SCAN_SECONDS``; the next update goes on where it stopped, and once every file
has been looked at, the index records the text version and later updates do not look.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path

from agent_zot.ingest.text_version import TEXT_VERSION, StoredPdf, reads_differently
from agent_zot.state.index import AttachmentRecord, IndexState

VERSION_META = "text_version"  # the text version of every stored file, once all were looked at
SCAN_META = "text_scan_after"  # the last item the unfinished look got to (items in key order)
# The look reads every stored page once, and a PDF's text layer for a rule told from it (text version 2:
# 4 s for the 64 PDFs of the four shared libraries, about two hours for a 100,000-PDF library, spread over
# the updates that follow); a run spends at most this long on it and the next goes on where it stopped.
SCAN_SECONDS = 120.0


@dataclass(slots=True)
class Reread:
    """What one update reads again for this release's reading, and how far the look got."""

    items: set[str] = field(default_factory=set)  # items to read again in this run
    through: bool = True  # every item was looked at (or none needed to be)
    last: str = ""  # the last item looked at, where the next run goes on when not ``through``
    since: int = TEXT_VERSION  # the text version the stored files were read at


def to_reread(
    state: IndexState,
    most: int,
    *,
    files: Callable[[], Mapping[str, Path]] | None = None,
    seconds: float = SCAN_SECONDS,
    clock: Callable[[], float] = time.monotonic,
) -> Reread:
    """The items whose stored text this release would read differently, at most ``most`` (0: none, and the
    look is not made), looking through the stored pages for at most ``seconds``. ``files``: what gives each
    attachment's file by key (asked only when there is something to look for), for the rules told from a
    PDF pdfium read (without it, from stored text only)."""
    since = int(state.get_meta(VERSION_META) or 0)
    if since >= TEXT_VERSION or most <= 0:
        return Reread()  # nothing to look for, or not to be looked for: nothing recorded either
    after = state.get_meta(SCAN_META) or ""
    found = Reread(through=False, last=after, since=since)
    stop = clock() + seconds
    paths = files() if files is not None else None
    for item_key in sorted(state.attachments_by_item()):
        if item_key <= after:
            continue
        if len(found.items) >= most or clock() > stop:
            return found
        if any(
            reads_differently(
                [p.text for p in state.pages_of(record.attachment_key)], since, _pdf(record, paths)
            )
            for record in state.attachments_of(item_key)
        ):
            found.items.add(item_key)
        found.last = item_key
    found.through = True
    return found


def _pdf(record: AttachmentRecord, files: Mapping[str, Path] | None) -> StoredPdf | None:
    """The stored document's PDF, when pdfium read it and its file is at hand."""
    path = files.get(record.attachment_key) if files is not None and record.source == "pdfium" else None
    return StoredPdf(path, record.references_page) if path is not None and path.is_file() else None


def record(state: IndexState, done: Reread) -> None:
    """After a run that read ``done.items`` again: the text version once every item was looked at, else
    where the next run's look goes on."""
    if done.since >= TEXT_VERSION:
        return
    if done.through:
        state.set_meta(VERSION_META, str(TEXT_VERSION))
        state.set_meta(SCAN_META, "")
    else:
        state.set_meta(SCAN_META, done.last)
