"""Which Zotero wrote this database, and how it journals: from the `version` table and the file header
(userdata versions per release: docs/research/zotero-10-local-api.md §2)."""

from __future__ import annotations

from pathlib import Path

from agent_zot.zotero.schema import SchemaInfo

LAST_READ_SINCE = 124  # userdata migration 124 (Zotero 9) added itemAttachments.lastRead
_ZOTERO10 = 126  # 126-129 are the steps of 10.0 (normalized columns, fulltext.sqlite, clientVersion)
_ZOTERO7 = 121  # Zotero 6 ends at 120
_ZOTERO8_GLOBAL_SCHEMA = 41  # 7.x and 8.x share userdata 123; 8.0 ships global schema 41 (7.0.32 has 40)


def zotero_generation(schema: SchemaInfo) -> str:
    """ "Zotero 10", "Zotero 9", … as far as the database tells; "" when it has no userdata version."""
    userdata = schema.userdata
    if userdata is None:
        return ""
    if userdata >= _ZOTERO10:
        return "Zotero 10"
    if userdata >= LAST_READ_SINCE:
        return "Zotero 9"
    if userdata >= 123 and schema.versions.get("globalSchema", 0) >= _ZOTERO8_GLOBAL_SCHEMA:
        return "Zotero 8"
    if userdata >= _ZOTERO7:
        return "Zotero 7"
    if schema.has("itemAnnotations"):  # annotations in the database arrived with Zotero 6
        return "Zotero 6"
    return "Zotero 5" if userdata >= 95 else "older than Zotero 5"


def journal_mode(db_path: Path) -> str:
    """ "WAL" when the header says write-ahead logging (bytes 18 and 19 are 2; Zotero 10), else "rollback"."""
    with db_path.open("rb") as fh:
        header = fh.read(20)
    return "WAL" if header[18:20] == b"\x02\x02" else "rollback"
