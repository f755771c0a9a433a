"""The write of the import mode, on one Zotero route: the new items with their collection and tags in one
request, then a linked-URL attachment for each open-access PDF the registry linked."""

from __future__ import annotations

from typing import Any

from agent_zot.services.organize.add.plan import Plan, held_data, held_lines
from agent_zot.services.organize.add.registries import Found
from agent_zot.services.organize.add.zotero_json import zotero_item
from agent_zot.services.response import ToolResponse, plural
from agent_zot.services.writes.client import ZoteroWriter
from agent_zot.services.writes.collections import target_collection
from agent_zot.services.writes.common import finish
from agent_zot.services.writes.errors import RouteUnavailableError, ZoteroWriteError
from agent_zot.zotero.models import Library


def write_new(
    writer: ZoteroWriter, library: Library, plan: Plan, collection: str | None, tags: list[str]
) -> ToolResponse:
    target = target_collection(library, writer, collection) if collection else None
    payload = [
        zotero_item(found.csl, library_catalog=found.catalog)
        | {"collections": [target.key] if target else [], "tags": [{"tag": t} for t in tags]}
        for found in plan.new
    ]
    created, failed = _fates(writer.write_items(payload), len(payload))
    pdfs = _attach_pdfs(writer, {created[i]: plan.new[i] for i in created})
    added = [_added(plan.new[i], created[i], pdfs.get(created[i])) for i in sorted(created)]
    lines = [_line(a, plan.new[i].identifier.label) for i, a in zip(sorted(created), added, strict=True)]
    lines += [f"  ✗ {plan.new[i].identifier.label}: Zotero refused it ({why})" for i, why in failed.items()]
    lines += held_lines(plan)
    where = f" to {target.path} [{target.key}]" if target else ""
    tagged = f", tagged {', '.join(tags)}" if tags else ""
    headline = f"Added {plural(len(added), 'paper')}{where}{tagged} via {writer.route.label}:"
    problems = bool(failed or plan.unknown)
    data = {
        "status": ("partial" if added else "failed") if problems else "ok",
        "added": added,
        "failed": [{"identifier": plan.new[i].identifier.value, "reason": why} for i, why in failed.items()],
        **held_data(plan),
        "collection": target.to_dict() if target else None,
        "tags": tags,
    }
    return finish(writer, headline, lines, data, is_error=not added)


def _fates(response: dict[str, Any], sent: int) -> tuple[dict[int, str], dict[int, str]]:
    """Index of each sent object → its new key, and → why Zotero refused it."""
    created = {int(i): str(k) for i, k in (response.get("success") or {}).items()}
    for i, obj in (response.get("successful") or {}).items():
        if isinstance(obj, dict) and obj.get("key"):
            created.setdefault(int(i), str(obj["key"]))
    failed = {}
    for i, entry in (response.get("failed") or {}).items():
        entry = entry if isinstance(entry, dict) else {}
        failed[int(i)] = f"HTTP {entry.get('code')}: {entry.get('message') or 'failed'}"
    for i in range(sent):
        if i not in created and i not in failed:
            failed[i] = "no answer for it"
    return created, failed


def _attach_pdfs(writer: ZoteroWriter, parents: dict[str, Found]) -> dict[str, str]:
    """Parent key → the attached link, or why it is missing. The items stand even when this fails."""
    wanted = [(key, found.pdf_url) for key, found in parents.items() if found.pdf_url]
    if not wanted:
        return {}
    payload = [
        {
            "itemType": "attachment",
            "parentItem": key,
            "linkMode": "linked_url",
            "title": "Full Text PDF",
            "url": url,
            "contentType": "application/pdf",
            "tags": [],
        }
        for key, url in wanted
    ]
    try:
        created, failed = _fates(writer.write_items(payload), len(payload))
    except (RouteUnavailableError, ZoteroWriteError) as exc:
        return {key: f"not attached: {exc.message}" for key, _ in wanted}
    result = {wanted[i][0]: f"linked {wanted[i][1]}" for i in created}
    result.update({wanted[i][0]: f"not attached: {why}" for i, why in failed.items()})
    return result


def _added(found: Found, key: str, pdf: str | None) -> dict[str, Any]:
    csl = found.csl
    return {
        "key": key,
        "identifier": found.identifier.value,
        "kind": found.identifier.kind,
        "title": str(csl.get("title") or ""),
        "source": found.catalog,
        "pdf": pdf,
    }


def _line(added: dict[str, Any], label: str) -> str:
    pdf = f"; PDF {added['pdf']}" if added["pdf"] else ""
    return f"  ✓ [{added['key']}] {added['title'][:90]} ({label}, from {added['source']}){pdf}"
