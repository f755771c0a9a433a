"""Decide what `update-db` must do: which items changed, how much of each, and which left the library.

Every change is classified by what it touches, so it costs what changed:

- ``full``: the item is new, its set of indexable attachments changed, or a file's content changed. Its
  files are parsed and every chunk embedded again.
- ``metadata``: what the metadata point's text says (title, authors, venue, year, abstract) changed. Only
  that one point is embedded again; every other point gets the new payload in place.
- ``payload``: only what points carry beside their text changed (tags, collections, creators' last names),
  or only Zotero's version stamp moved. Payloads are rewritten in place; nothing is embedded.

The item fingerprint keeps the parts apart to tell these cases: Zotero's version and dateModified, a hash
of the metadata text and a hash of the payload fields. File changes are judged by size and mtime first;
when those moved, the content hash decides, so a file Zotero merely touched is not parsed again.
"""

from __future__ import annotations

import functools
import hashlib
import sys
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from agent_zot.index.chunking import has_own_words, metadata_text
from agent_zot.index.store import item_payload
from agent_zot.zotero.models import Attachment, Item, Library


def is_indexable(attachment: Attachment) -> bool:
    return attachment.is_document


FULL, METADATA, PAYLOAD = "full", "metadata", "payload"
_FORMAT = "f2"  # fingerprints written before the parts were kept apart have no such prefix
LIBRARY_STAMP = "library_stamp"  # state meta: the library_stamp of the last complete update


def _digest(text: str) -> str:
    return hashlib.sha1(text.encode("utf-8"), usedforsecurity=False).hexdigest()[:16]


def _graph_fields(item: Item) -> str:
    """What the knowledge graph reads from an item beside its text, tags and collections: identifiers
    that match citations, every creator with its role, related items."""
    creators = ";".join(f"{c.creator_type}:{c.full_name}" for c in item.creators)
    relations = ";".join(sorted(f"{r.predicate} {r.target_uri}" for r in item.relations))
    return "\x1f".join([item.doi, item.item_type, item.venue, str(item.year or ""), creators, relations])


def text_fingerprint(item: Item) -> str:
    """A hash of the item's metadata text: what its metadata point and its graph facts are made from. An
    item with no words of its own has no point, so its text hashes as empty: an index written while such
    items had an "Untitled" point sees them changed once, and its next update removes the point."""
    return f"t{_digest(metadata_text(item) if has_own_words(item) else '')}"


def creators_fingerprint(item: Item) -> str:
    """A hash of every creator's name and role (keyphrase extraction leaves names out)."""
    return f"c{_digest(';'.join(f'{c.creator_type}:{c.full_name}' for c in item.creators))}"


def item_fingerprint(item: Item) -> str:
    """``f2|v<version>|<dateModified>|t<metadata text>|p<payload fields>|g<graph fields>`` (hashes)."""
    payload = item_payload(item)
    fields = "\x1f".join(f"{key}={payload[key]!r}" for key in sorted(payload))
    graph = _digest(_graph_fields(item))
    return (
        f"{_FORMAT}|v{item.version}|{item.date_modified}|{text_fingerprint(item)}|p{_digest(fields)}|g{graph}"
    )


@functools.cache
def _fingerprint_code() -> str:
    """A hash of the modules whose code shapes an item's fingerprint: a new release that changes them
    must compare every item again, even in an unchanged library."""
    from agent_zot.index import chunking, store
    from agent_zot.zotero import venues  # the venue as the metadata text writes it

    digest = hashlib.sha1(usedforsecurity=False)
    for module in (sys.modules[__name__], chunking, store, venues):
        digest.update(Path(str(module.__file__)).read_bytes())
    return digest.hexdigest()[:12]


def library_stamp(library: Library) -> str:
    """What an update records of the snapshot it indexed: the database's state and read options, and
    the fingerprinting code. A library read later with the same stamp has the same item metadata, so
    its items need not be fingerprinted again (``plan_update(changed_since_indexed=...)``). Empty for a
    library built in memory (never equal to a recorded stamp)."""
    return _stamp(library.read_stamp)


def _stamp(read_stamp: str) -> str:
    return f"{_FORMAT}|{_fingerprint_code()}|{read_stamp}" if read_stamp else ""


def changed_since_indexed(recorded: str | None, library: Library) -> frozenset[str] | None:
    """The keys of the items whose metadata may differ from the snapshot the state ``recorded`` (see
    :func:`library_stamp`): none when ``library`` is that snapshot, those an incremental read found
    changed when it was read on top of it (``Library.lineage``); None when it is not known."""
    if not recorded:
        return None
    if library_stamp(library) == recorded:
        return frozenset()
    return next((keys for stamp, keys in library.lineage if _stamp(stamp) == recorded), None)


def indexed_as_is(recorded: str | None, library: Library) -> bool:
    """Whether ``library`` is the snapshot whose :func:`library_stamp` the state ``recorded``."""
    return changed_since_indexed(recorded, library) == frozenset()


def _parts(fingerprint: str) -> list[str] | None:
    parts = fingerprint.split("|")
    return parts if len(parts) == 6 and parts[0] == _FORMAT else None


def metadata_scope(old: str, new: str) -> tuple[str, bool]:
    """How much of an indexed item whose files are unchanged must be redone (``old != new``): the scope,
    and whether only its tags and collections changed, which the graph patches in place."""
    old_parts, new_parts = _parts(old), _parts(new)
    if old_parts is None or new_parts is None or old_parts[3] != new_parts[3]:
        return METADATA, False
    return PAYLOAD, old_parts[5] == new_parts[5]


def _stat_part(path: Path | None) -> str:
    if path is None:
        return "none"
    try:
        stat = path.stat()
    except OSError:
        return "none"
    return f"{stat.st_size}:{stat.st_mtime_ns}"


def file_hash(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()[:32]


def attachment_fingerprint(attachment: Attachment, previous: str | None = None) -> str:
    """``file:<size>:<mtime>:<sha256>``, or the full-text cache's stat, or ``missing``.

    The hash is computed only when size or mtime differ from ``previous``; when they moved but the hash
    did not, the new fingerprint still equals the old in its hash, which :func:`same_content` accepts.
    """
    if attachment.exists and attachment.path is not None:
        stat = _stat_part(attachment.path)
        if previous and previous.startswith(f"file:{stat}:"):
            return previous
        return f"file:{stat}:{file_hash(attachment.path)}"
    if attachment.fulltext_cache is not None:
        return f"cache:{_stat_part(attachment.fulltext_cache)}"
    return "missing"


def same_content(old: str | None, new: str) -> bool:
    if old is None:
        return False
    if old == new:
        return True
    # file:<size>:<mtime>:<hash> - a touched file with the same bytes is the same content
    return (
        old.startswith("file:") and new.startswith("file:") and old.rsplit(":", 1)[1] == new.rsplit(":", 1)[1]
    )


@dataclass(slots=True)
class ItemWork:
    item: Item
    fingerprint: str
    attachments: list[tuple[Attachment, str]]  # (attachment, its new fingerprint)
    reason: str  # "new", "metadata changed", "file changed", "forced", ...
    scope: str = FULL  # FULL | METADATA | PAYLOAD: how much must be redone (see the module docstring)
    graph_local: bool = False  # only tags and collections changed: the graph is patched, not rebuilt


@dataclass(slots=True)
class UpdatePlan:
    work: list[ItemWork] = field(default_factory=list)
    unchanged: int = 0
    removed: list[str] = field(default_factory=list)  # item keys to delete from the index

    @property
    def full(self) -> list[ItemWork]:
        """Items whose files are parsed and chunks embedded again."""
        return [w for w in self.work if w.scope == FULL]

    @property
    def in_place(self) -> list[ItemWork]:
        """Items updated in place: their payloads, and the metadata point where its text changed."""
        return [w for w in self.work if w.scope != FULL]


def plan_update(
    library: Library,
    indexed_items: dict[str, str],
    indexed_attachments: dict[str, str],
    attachments_by_item: dict[str, set[str]],
    *,
    force: bool = False,
    only: Iterable[str] | None = None,
    limit: int | None = None,
    fulltext: bool = True,
    retry: Iterable[str] = (),
    changed_since_indexed: frozenset[str] | None = None,
) -> UpdatePlan:
    """Compare the library with what the state database recorded.

    A metadata-only run (``fulltext=False``) looks at item metadata alone, so it neither re-parses files
    nor keeps re-indexing items whose files it did not parse. A forced run redoes every item in full.
    Items in ``retry`` (whose files could not be read) are read again even when nothing changed.
    ``changed_since_indexed``: the library is the snapshot the last complete update indexed, but for
    these items (see :func:`changed_since_indexed`), so any other indexed item's recorded fingerprint
    stands for its metadata without hashing it again; its files are still compared.
    """
    again = set(retry) if fulltext else set()
    plan = UpdatePlan()
    wanted = {k.upper() for k in only} if only else None
    for key, item in library.items.items():
        if wanted is not None and key not in wanted:
            continue
        as_indexed = changed_since_indexed is not None and key not in changed_since_indexed
        known = indexed_items.get(key) if as_indexed and not force else None
        # a fingerprint of an older format is compared again, to be rewritten in this one
        fingerprint = known if known is not None and _parts(known) else item_fingerprint(item)
        files = [
            (a, attachment_fingerprint(a, indexed_attachments.get(a.key)))
            for a in item.attachments
            if is_indexable(a)
        ]
        if force:
            reason: str | None = "forced"
        elif fulltext:
            reason = _change_reason(
                key, fingerprint, files, indexed_items, indexed_attachments, attachments_by_item
            )
        else:
            reason = _metadata_reason(key, fingerprint, indexed_items)
        if reason is None and key in again:
            reason = "files not read before"
        if reason is None:
            plan.unchanged += 1
            continue
        entry = ItemWork(item, fingerprint, files, reason)
        if reason == "metadata changed":
            entry.scope, entry.graph_local = metadata_scope(indexed_items[key], fingerprint)
        plan.work.append(entry)
    if wanted is None:
        plan.removed = sorted(set(indexed_items) - set(library.items))
    # papers read lately (Zotero 9+), then the newest, are searchable first
    plan.work.sort(key=lambda w: (w.item.last_read, w.item.date_added), reverse=True)
    if limit is not None:
        plan.work = plan.work[:limit]
    return plan


def _metadata_reason(key: str, fingerprint: str, indexed_items: dict[str, str]) -> str | None:
    if key not in indexed_items:
        return "new"
    return "metadata changed" if indexed_items[key] != fingerprint else None


def _change_reason(
    key: str,
    fingerprint: str,
    files: list[tuple[Attachment, str]],
    indexed_items: dict[str, str],
    indexed_attachments: dict[str, str],
    attachments_by_item: dict[str, set[str]],
) -> str | None:
    if (reason := _metadata_reason(key, fingerprint, indexed_items)) == "new":
        return reason
    if {a.key for a, _ in files} != attachments_by_item.get(key, set()):
        return "attachments changed"
    for attachment, new in files:
        if not same_content(indexed_attachments.get(attachment.key), new):
            return "file changed"
    return reason
