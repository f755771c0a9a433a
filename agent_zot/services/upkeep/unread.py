"""Files an update could not read, or read only in part, as `status` and `doctor` tell them: how many
failed, and for each reason what would let the file be read (the setting and its variable), or, for a file
that no retry can read (a link to a web page, a file missing from disk), what to do instead.

A file is read in part when it is indexed but a limit a setting raises cut it short: an OCR'd page over its
budget skipped, or Zotero's cached text standing in for a file that ran out of time or memory. Its reason
is one a retry can help with, so `update-db --retry-failed` reads it again like a file that failed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence

from agent_zot.config import ENV_PREFIX
from agent_zot.ingest import PAGES_OVER_BUDGET
from agent_zot.services.response import plural
from agent_zot.services.upkeep.doctor_report import Check
from agent_zot.state.index import AttachmentRecord

SHOWN_UNREAD = 5  # files named, with their reasons
RETRY = "`agent-zot update-db --retry-failed`"


def _setting(name: str) -> str:
    return f"{name} ({ENV_PREFIX}{name.upper()})"


# (how the reason starts, what lets the file be read, whether reading it again can help); the reasons are
# ingest's own words (ingest/pool.py, ingest/extract.py)
_ADVICE: tuple[tuple[str, str, bool], ...] = (
    ("timed out after", f"raise {_setting('parse_timeout_s')}", True),
    (PAGES_OVER_BUDGET, f"raise {_setting('ocr_page_timeout_s')}", True),
    ("exceeded memory limit", f"raise {_setting('parse_memory_mb')}", True),
    ("parser worker did not start", "run it when the machine is less busy", True),
    (
        "no file (a link to a web page)",
        "a link has no file to read: save the page as a snapshot in Zotero",
        False,
    ),
    ("file missing", "the file is not where Zotero says: restore or relink it in Zotero", False),
    ("no file", "attach the file in Zotero", False),
)


def _entry(reason: str) -> tuple[str, bool] | None:
    return next(((said, again) for start, said, again in _ADVICE if reason.startswith(start)), None)


def advice(reason: str) -> str | None:
    """What would let a file not read for ``reason`` be read, or what to do instead; None when nothing is
    known beyond the reason itself."""
    found = _entry(reason)
    return found[0] if found else None


def retryable(reason: str) -> bool:
    """Whether reading the file again can help (not for a link, or a file missing from disk)."""
    found = _entry(reason)
    return found[1] if found else True


def described(reason: str) -> str:
    said = advice(reason)
    return f"{reason} ({said})" if said else reason


def partly_read(records: Sequence[AttachmentRecord]) -> list[AttachmentRecord]:
    """Of indexed files with a reason (``IndexState.indexed_with_reasons``), those a limit cut short: the
    reason is a known one a retry with the setting raised can help with."""
    return [r for r in records if r.status == "indexed" and r.reason and (_entry(r.reason) or ("", False))[1]]


def _named(records: Sequence[AttachmentRecord]) -> str:
    named = "; ".join(
        f"{r.attachment_key} of {r.item_key}: {described(r.reason or 'no text')}"
        for r in records[:SHOWN_UNREAD]
    )
    more = (
        f"; and {len(records) - SHOWN_UNREAD} more (`agent-zot status --json`)"
        if len(records) > SHOWN_UNREAD
        else ""
    )
    return named + more


def unread_check(records: Sequence[AttachmentRecord], partial: Sequence[AttachmentRecord] = ()) -> Check:
    """doctor's line on the files not read (counted: failed, metadata only) and those read in part, each
    named with its reason and what would let it finish; a retry is offered only when it can help."""
    if not records and not partial:
        return Check("files", "ok", "every file an update tried was read whole")
    failed = sum(r.status == "failed" for r in records)
    said = []
    if records:
        said.append(
            f"{len(records)} file(s) not read ({failed} failed, {len(records) - failed} metadata only), "
            f"their items searchable by metadata only: {_named(records)}"
        )
    if partial:
        said.append(f"{len(partial)} partly read, the rest of their text indexed: {_named(partial)}")
    again = len(partial) + sum(retryable(r.reason or "") for r in records)
    fix = (
        f"{RETRY} reads the {again} that can be read again (after the change named, freeing memory, "
        "installing OCR, or upgrading agent-zot)."
        if again
        else "A retry cannot read these: do what each says in Zotero."
    )
    return Check("files", "warn", ". ".join(said), fix)


def files_note(unread: Sequence[dict[str, str]], partial: Sequence[dict[str, str]] = ()) -> str:
    """status's words on the files not read and those read in part: counted, the commonest reasons with
    what lets them finish, and the retry when it can help."""
    said = ""
    if unread:
        failed = sum(f["status"] == "failed" for f in unread)
        again = any(retryable(f["reason"]) for f in unread)
        then = f"then {RETRY} reads them again" if again else "a retry cannot read them"
        said += f"{plural(len(unread), 'file')} not read ({failed} failed: {_reasons(unread)}; {then}); "
    if partial:
        said += f"{plural(len(partial), 'file')} partly read ({_reasons(partial)}; then {RETRY} reads them whole); "
    return said


def _reasons(files: Sequence[dict[str, str]]) -> str:
    """The three commonest kinds of reason, counted, each with what lets the file finish."""
    reasons = Counter(_short(f["reason"]) for f in files)
    example = {_short(f["reason"]): f["reason"] for f in reversed(files)}  # the first of each kind
    return "; ".join(f"{n} {described(example[short])}" for short, n in reasons.most_common(3))


def _short(reason: str) -> str:
    """The kind of a reason (its known start), so that like reasons are counted together."""
    found = next((start for start, _, _ in _ADVICE if reason.startswith(start)), None)
    return found or reason
