"""The report `agent-zot update-db` prints: what the update read, embedded, repaired and left for later."""

from __future__ import annotations

from typing import Any


def update_report(data: dict[str, Any]) -> str:
    """What `update-db` says when it is done, from its summary (services/upkeep/update_db.UpdateSummary)."""
    in_place = data.get("updated_in_place")
    lines = [
        f"Indexed {data['indexed']} items ({data['pages']} pages, {data['chunks']} chunks) in {data['seconds']:.1f} s; "
        + (f"{in_place} updated in place (metadata only); " if in_place else "")
        + f"{data['unchanged']} unchanged, {data['removed']} removed from the index.",
        f"Model: {data['model']}"
        + (f" on {data['engine']}" if data.get("engine") else "")
        + f"; store: {data['store']}.",
    ]
    if data.get("engine_note"):  # a lighter engine than the last run's: say once that the vectors agree
        lines.append(f"Engine: {data['engine_note']}.")
    if data.get("repaired"):
        lines.insert(0, f"Repaired the index: {data['repaired']}.")
    if pages := data.get("ocr_pages"):
        lines.append(
            f"OCR: {pages} page{'s' if pages != 1 else ''} without a text layer read in "
            f"{data['ocr_seconds']:.1f} s (worker time)."
        )
    if added := data.get("sentence_vectors_added"):
        lines.append(
            f"Sentence vectors: added to {added} item{'s' if added != 1 else ''} indexed before they were kept "
            "(from their stored text; passages are now also picked by meaning)."
        )
    if left := data.get("sentence_vectors_left"):
        lines.append(
            f"Sentence vectors: {left:,} item{'s' if left != 1 else ''} still to do; the next update-db goes on "
            "(each spends at most sentence_backfill_minutes on them)."
        )
    if reread := data.get("reread"):
        lines.append(
            f"Read again: {reread:,} item{'s' if reread != 1 else ''} whose files this release reads better than "
            "the one that indexed them (cover sheets left out, ligatures and accents mended, a page's body told "
            "from its chrome)."
        )
    if data.get("reread_left"):
        lines.append(
            "Read again: more items indexed by an earlier release are still to look at; the next update-db "
            "goes on (each reads at most text_reread_items of them again)."
        )
    notes = data.get("notes") or {}
    if any(notes.get(k) for k in ("indexed", "unchanged", "removed")):
        lines.append(
            f"Notes and annotations: {notes['indexed']} embedded, {notes['unchanged']} unchanged, "
            f"{notes['removed']} removed."
        )
    graph = data.get("graph")
    if graph and "papers_patched" in graph:
        lines.append(f"Graph: tags and collections of {graph['papers_patched']} papers updated in place.")
    elif graph:
        from agent_zot.graph.authors import authors_text

        lines.append(
            f"Graph: {graph['papers']} papers, {authors_text(graph['authors'], graph['papers'])}, "
            f"{graph['concepts']} concepts; "
            f"{graph['references']} references → {graph['citations_in_library']} citations within the library, "
            f"{graph['external_works']} cited works outside it."
        )
    if data.get("graph_error"):
        lines.append(f"Graph not updated: {data['graph_error']}")
    if data.get("optimize_skipped"):
        lines.append(f"Note: {data['optimize_skipped']} (searches work; the next run with space does it).")
    for kind, title in (("skipped", "not read from the file itself"), ("failed", "no text found")):
        if data[kind]:
            lines.append(f"{kind.capitalize()} ({len(data[kind])}), {title}:")
            lines.extend(
                f"  {e['item_key']} / {e['attachment_key']}: {e['reason']} (indexed from {e['indexed_from']})"
                for e in data[kind][:20]
            )
            if len(data[kind]) > 20:
                lines.append(f"  … {len(data[kind]) - 20} more (use --json for all)")
    return "\n".join(lines)
