"""The import mode: papers named by identifier are looked up first (every registry, before anything is
written), the ones the library already holds are named instead, and the rest are created in one write
with their collection and tags; an open-access PDF the registry links is attached as a link (not
downloaded). The new items are indexed at once when zotero.sqlite already shows them."""

from __future__ import annotations

from agent_zot.errors import AmbiguousNameError, InvalidArgumentError, NotFoundError
from agent_zot.identifiers import HINT, Identifier, parse_given, parse_identifiers
from agent_zot.services.context import AppContext
from agent_zot.services.organize.add.arxiv import ArxivRegistry
from agent_zot.services.organize.add.doi import DoiRegistry
from agent_zot.services.organize.add.held import Holdings, identifiers_of
from agent_zot.services.organize.add.openlibrary import OpenLibraryRegistry
from agent_zot.services.organize.add.plan import Plan, held_data, held_lines
from agent_zot.services.organize.add.pubmed import PubmedRegistry
from agent_zot.services.organize.add.registries import Found, Registry, RegistryHttp
from agent_zot.services.organize.add.write import write_new
from agent_zot.services.resolve.library import resolve_collection
from agent_zot.services.response import ToolResponse, plural
from agent_zot.services.writes.item_changes import tag_names
from agent_zot.services.writes.service import run_on_routes
from agent_zot.zotero.models import Library

MAX_IDENTIFIERS = 50  # one write batch
_ADAPTERS = (DoiRegistry, ArxivRegistry, PubmedRegistry, OpenLibraryRegistry)


def add_papers(
    ctx: AppContext,
    identifiers: list[str] | None,
    query: str,
    collection: str | None,
    tags: list[str] | None,
) -> ToolResponse:
    wanted = parse_given(identifiers) if identifiers else parse_identifiers(query)
    if not wanted:
        raise InvalidArgumentError(
            "Which papers? No DOI, arXiv id, PMID or ISBN was given or found in the query.", hint=HINT
        )
    if len(wanted) > MAX_IDENTIFIERS:
        raise InvalidArgumentError(f"At most {MAX_IDENTIFIERS} papers per request; {len(wanted)} were named.")
    names = tag_names(tags) if tags else []
    library = ctx.library()
    _check_collection(library, collection)
    plan = look_up(ctx, library, wanted)
    if not plan.new:
        return _nothing_added(plan)
    response = run_on_routes(ctx.settings, lambda writer: write_new(writer, library, plan, collection, names))
    added = [a["key"] for a in response.data.get("added", [])]
    if added:
        note = index_now(ctx, added)
        response.text += "\n" + note
        response.data["indexing"] = note
    return response


def _check_collection(library: Library, name: str | None) -> None:
    """A collection name that is ambiguous in the local database fails before any registry is asked; one
    not found there may have been made since the last sync, so the API is asked when writing."""
    if not name:
        return
    try:
        resolve_collection(library, name)
    except AmbiguousNameError:
        raise
    except NotFoundError:
        return


def look_up(ctx: AppContext, library: Library, wanted: list[Identifier]) -> Plan:
    """Every registry answers before anything is written; one that cannot raises RegistryDownError."""
    plan = Plan()
    holdings = Holdings(library)
    to_ask: list[Identifier] = []
    for ident in wanted:
        keys = holdings.holding([ident])
        if keys:
            plan.held[ident] = keys
        else:
            to_ask.append(ident)
    if not to_ask:
        return plan
    http = RegistryHttp(ctx.settings)
    try:
        adapters: list[Registry] = [cls(http, ctx.settings) for cls in _ADAPTERS]
        by_kind = {adapter.kind: adapter for adapter in adapters}
        answers: dict[Identifier, Found | None] = {}
        for kind in dict.fromkeys(i.kind for i in to_ask):
            answers.update(by_kind[kind].look_up([i for i in to_ask if i.kind == kind]))
    finally:
        http.close()
    seen: dict[Identifier, Identifier] = {}  # every identifier of a new paper -> the one it was asked by
    for ident in to_ask:
        found = answers.get(ident)
        if found is None:
            plan.unknown.append(ident)
            continue
        names = identifiers_of(found.csl, ident)
        keys = holdings.holding(names)
        if keys:
            plan.held[ident] = keys
        elif any(n in seen for n in names):
            plan.same_as[ident] = next(seen[n] for n in names if n in seen)
        else:
            plan.new.append(found)
            seen.update(dict.fromkeys(names, ident))
    return plan


def _nothing_added(plan: Plan) -> ToolResponse:
    failed = bool(plan.unknown)
    parts = []
    if plan.held:
        parts.append(plural(len(plan.held), "paper") + " already in the library")
    if plan.unknown:
        parts.append(f"{len(plan.unknown)} not found")
    text = "\n".join([f"Nothing was added: {', '.join(parts)}.", *held_lines(plan)])
    data = {"status": "failed" if failed else "ok", "added": [], **held_data(plan)}
    return ToolResponse(text, data, is_error=failed)


def index_now(ctx: AppContext, keys: list[str]) -> str:
    """Index the new items' metadata now when zotero.sqlite already shows them (Zotero saved them
    itself); else say when they will be."""
    from agent_zot.services.upkeep.update_db import UpdateBusyError, UpdateOptions, update_index

    library = ctx.library()  # read again: Zotero may have committed the new items
    readable = tuple(k for k in keys if k in library.items)
    later = "the next index update (serve's auto-update, `agent-zot watch` or `agent-zot update-db`)"
    if not readable:
        return f"Indexing: zotero.sqlite does not show the new items yet; {later} indexes them."
    resources = ctx.index_resources()
    if not resources.exists():
        return "Indexing: there is no index yet; `agent-zot update-db` builds it."
    try:
        summary = update_index(
            library, resources, UpdateOptions(item_keys=readable, wait=False, thorough_check=False)
        )
    except UpdateBusyError:
        return f"Indexing: another update is running; {later} indexes them."
    done = summary.indexed + summary.updated_in_place
    return f"Indexed {plural(done, 'new item')} at once (metadata; full text when a file is attached)."
