"""The seven tools, each declared once: description, typed request with its real defaults, modes (the
first is the default; write modes say what they change), which route parameters fill arguments the
caller left out, and which arguments pick a mode (over the query's words, unless they name a mode that
takes the argument too: its `shared` modes).

How to add a mode: add a `Mode` to the tool's tuple, a branch in its package's `tool.py` (listed in
services/tools.py), rules in its routing table (services/routing/rules_*.py) and an example to
tests/data/routing_queries.jsonl.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import PurePath
from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agent_zot.services.response import MAX_LIMIT
from agent_zot.services.spec import (
    MODE_DESCRIPTION,
    Access,
    Implied,
    Mode,
    ToolRequest,
    ToolSpec,
    modes_literal,
)


def _limit(default: int, what: str = "results") -> Any:  # Any, as pydantic's Field() is typed
    return Field(default, ge=1, le=MAX_LIMIT, description=f"Max {what}.")


MAX_DAYS = 36_500  # the longest "recent" window, a century

ItemKeys = Annotated[list[str] | None, Field(description="Items to change.")]

SEARCH_MODES = (
    Mode("fast"),
    Mode("entity"),
    Mode("graph"),
    Mode("metadata"),
    Mode("comprehensive"),
    Mode("evidence"),
)


class SearchRequest(ToolRequest):
    authors: list[str] | None = Field(None, description="Only papers by these authors.")
    year_min: int | None = Field(None, description="Published in or after this year.")
    year_max: int | None = Field(None, description="Published up to this year.")
    collection: str | None = Field(None, description="Only this collection (and below).")
    tags: list[str] | None = Field(None, description="Only items with any of these tags.")
    item_type: str | None = Field(None, description="Item type, e.g. journalArticle.")
    limit: int = _limit(10, "papers")
    detail: Literal["sentences", "full"] = Field(
        "sentences", description="Passages: best sentences or whole chunks."
    )
    force_mode: modes_literal(SEARCH_MODES) = Field(None, description=MODE_DESCRIPTION)  # type: ignore[valid-type]


SUMMARIZE_MODES = (
    Mode("quick"),
    Mode("targeted"),
    Mode("comprehensive"),
    Mode("full"),
    Mode("figures"),
    Mode("audit"),
    Mode("matrix"),
)


class SummarizeRequest(ToolRequest):
    item_key: str | None = Field(None, description="The paper; else named in the query.")
    pages: str | None = Field(None, description="Full text: pages '3' or '3-5'.")
    offset: int | None = Field(None, description="Full text: page; matrix: row.")
    max_tokens: int | None = Field(None, description="Size budget of the answer.")
    draft: str | None = Field(None, description="Audit: the draft's text.")
    figure: str | None = Field(None, description="'Figure 3', 'Table 2' or 'page 4' (image).")
    questions: list[str] | None = Field(None, description="Matrix columns.")
    collection: str | None = Field(None, description="Matrix rows: collection.")
    tags: list[str] | None = Field(None, description="Matrix rows: any tag.")
    item_keys: list[str] | None = Field(None, description="Matrix rows: these.")
    search: str | None = Field(None, description="Matrix rows: best for words.")
    force_mode: modes_literal(SUMMARIZE_MODES) = Field(None, description=MODE_DESCRIPTION)  # type: ignore[valid-type]


EXPLORE_MODES = (
    Mode("related"),
    Mode("citation"),
    Mode("influence"),
    Mode("content_similarity"),
    Mode("collaboration"),
    Mode("concept"),
    Mode("temporal"),
    Mode("venue"),
    Mode("comprehensive"),
)


class ExploreRequest(ToolRequest):
    item_key: str | None = Field(None, description="The paper to start from.")
    author: str | None = Field(None, description="The author to start from.")
    concept: str | None = Field(None, description="Concept or topic (a filter).")
    year_min: int | None = Field(None, description="Temporal: first year.")
    year_max: int | None = Field(None, description="Temporal: last year.")
    hops: int | None = Field(None, ge=1, le=3, description="Citation 1-3, collaboration 1-2.")
    direction: Literal["out", "in", "both"] | None = Field(None, description="out = cites.")
    limit: int = _limit(15)
    force_mode: modes_literal(EXPLORE_MODES) = Field(None, description=MODE_DESCRIPTION)  # type: ignore[valid-type]


COLLECTION_MODES = (
    Mode("list"),
    Mode("show_items"),
    Mode("recent"),
    Mode("create", writes="creating collections"),
    Mode("add", writes="adding items to collections"),
    Mode("remove", writes="removing items from collections"),
    Mode("import", writes="adding papers by identifier"),
)


class CollectionsRequest(ToolRequest):
    collection: str | None = Field(None, description="Name, path (A/B) or key.")
    item_keys: ItemKeys = None
    days: int | None = Field(None, ge=1, le=MAX_DAYS, description="Recent: last N days.")
    recursive: bool = Field(False, description="With sub-collections.")
    identifiers: list[str] | None = Field(None, description="DOIs, arXiv ids, PMIDs or ISBNs.")
    tags: list[str] | None = Field(None, description="Import: tags.")
    limit: int = _limit(20)
    force_mode: modes_literal(COLLECTION_MODES) = Field(None, description=MODE_DESCRIPTION)  # type: ignore[valid-type]


TAG_MODES = (
    Mode("list"),
    Mode("search"),
    Mode("add", writes="adding tags"),
    Mode("remove", writes="removing tags"),
)


class TagsRequest(ToolRequest):
    tags: str | list[str] | None = Field(
        None, description='Tags: "a || b" = a or b; "-c" = not c; commas = and.'
    )
    item_keys: ItemKeys = None
    limit: int = _limit(50)
    force_mode: modes_literal(TAG_MODES) = Field(None, description=MODE_DESCRIPTION)  # type: ignore[valid-type]


NOTE_MODES = (
    Mode("list_notes"),
    Mode("list_annotations"),
    Mode("search"),
    Mode("create", writes="creating notes"),
)


class NotesRequest(ToolRequest):
    item_key: str | None = Field(None, description="Key or title words; a new note's parent.")
    collection: str | None = Field(None, description="Only this collection (and below).")
    tags: list[str] | None = Field(None, description="Any of these tags (own or the item's).")
    color: str | None = Field(None, description="Annotation colour: name or hex.")
    note: str | None = Field(None, description="Text of a new note (Markdown).")
    limit: int = _limit(20)
    force_mode: modes_literal(NOTE_MODES) = Field(None, description=MODE_DESCRIPTION)  # type: ignore[valid-type]


EXPORT_MODES = (
    Mode("bibtex"),
    Mode("markdown"),
    Mode("csljson"),
    Mode("graphml"),
    Mode("review"),
    Mode("annotations"),
    Mode("matrix"),
)


class FilledCell(BaseModel):
    # One review-matrix cell as the assistant filled it, cited to the page (none: the abstract) and the words
    # it rests on; ``question`` is its column (1 for Q1). No descriptions: the matrix answer says the form.
    model_config = ConfigDict(extra="forbid", frozen=True)

    item_key: str
    question: int = Field(ge=1)
    answer: str
    value: float | None = None
    page: int | None = Field(None, ge=1)
    quote: str


class PassageVerdict(BaseModel):
    # The assistant's stance on one passage of a claim check, as the worksheet asks for it (no description
    # here: the schema goes to the assistant with every tool list). ``claim`` picks the draft's claim;
    # ``judge`` is who gave it: the assistant unless a view sends what the person in it chose.
    model_config = ConfigDict(extra="forbid", frozen=True)

    claim: str | None = None
    item_key: str
    page: int | None = None
    quote: str
    stance: Literal["supports", "contradicts", "unrelated"]
    reason: str
    judge: Literal["assistant", "person"] = "assistant"


class ExportRequest(ToolRequest):
    path: str | None = Field(
        None, description=".bib .json .md .csv pick the format; a folder: one .md per item."
    )
    collection: str | None = Field(None, description="This collection and below.")
    item_keys: list[str] | None = Field(None, description="These items.")
    search: str | None = Field(None, description="Items with these metadata words.")
    tags: list[str] | None = Field(None, description="Items with any of these tags.")
    overwrite: bool = Field(False, description="Replace an existing file.")
    node_types: list[str] | None = Field(None, description="GraphML node types.")
    max_nodes: int | None = Field(None, ge=1, description="GraphML: node cap.")
    draft: str | None = Field(None, description="Review: draft or claims, one per line.")
    verdicts: list[PassageVerdict] | None = Field(None, description="Review: your verdicts.")
    questions: list[str] | None = Field(None, description="Matrix columns.")
    cells: list[FilledCell] | None = Field(None, description="Matrix: filled cells.")
    force_mode: modes_literal(EXPORT_MODES) = Field(None, description=MODE_DESCRIPTION)  # type: ignore[valid-type]


def _extension_of(mode: str) -> Callable[[Any], bool]:
    """Whether a path's extension asks for ``mode``, by the export's one table of extensions."""

    def fits(path: Any) -> bool:
        from agent_zot.services.export_target import FORMAT_EXTENSIONS  # loaded on use, not at startup

        return isinstance(path, str) and FORMAT_EXTENSIONS.get(PurePath(path.strip()).suffix.lower()) == mode

    return fits


SPECS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="zot_search",
        description="Find papers: hybrid full-text search with page-cited sentences, metadata listings (authors, "
        "years,\ncollection, tags), or evidence for and against a claim. More of one paper: zot_summarize.",
        request=SearchRequest,
        modes=SEARCH_MODES,
        access=Access.READ,
        fills={"limit": "limit"},
    ),
    ToolSpec(
        name="zot_summarize",
        description="One paper (key, DOI, citation key or title words): overview, page-cited answers, aspect "
        "summary,\nfull text by pages, figures and tables (images or rows); a draft's citation audit; a review "
        "matrix.",
        request=SummarizeRequest,
        modes=SUMMARIZE_MODES,
        access=Access.READ,
        fills={"collection": "collection", "tags": "tags"},
        implies=(
            Implied("draft", "audit"),
            Implied("questions", "matrix"),
            Implied("collection", "matrix"),
            Implied("tags", "matrix"),
            Implied("item_keys", "matrix"),
            Implied("search", "matrix"),
            Implied("pages", "full"),
            Implied("offset", "full", shared=("matrix",)),
            Implied("figure", "figures"),
        ),
    ),
    ToolSpec(
        name="zot_explore_graph",
        description="Knowledge graph of citations (from reference lists), co-authors, concepts and venues: "
        "citation\nchains, influence, related or similar papers, collaborators, concepts over time, venues.",
        request=ExploreRequest,
        modes=EXPLORE_MODES,
        access=Access.READ,
        fills={"limit": "limit", "direction": "direction"},
        implies=(
            Implied("author", "collaboration", shared=("comprehensive",)),
            Implied("concept", "concept", shared=("influence", "venue", "temporal", "comprehensive")),
            Implied("direction", "citation", shared=("comprehensive",)),
            Implied("year_min", "temporal"),
            Implied("year_max", "temporal"),
        ),
    ),
    ToolSpec(
        name="zot_manage_collections",
        description="Zotero collections: tree, items, recent items; create (A/B nested), add/remove items; "
        "import\npapers by DOI/arXiv/PMID/ISBN (needs writes enabled). Fuzzy names.",
        request=CollectionsRequest,
        modes=COLLECTION_MODES,
        access=Access.REMOVE,
        fills={
            "collection": "collection",
            "item_keys": "item_keys",
            "days": "days",
            "limit": "limit",
            "identifiers": "identifiers",
            "tags": "tags",
        },
        implies=(
            Implied("days", "recent"),
            Implied("collection", "show_items", shared=("recent", "create", "add", "remove", "import")),
            Implied("identifiers", "import"),
        ),
    ),
    ToolSpec(
        name="zot_manage_tags",
        description="Zotero tags: list with counts, find items by tags (a || b, -c), or add/remove tags on "
        "items\n(literal names; needs writes enabled).",
        request=TagsRequest,
        modes=TAG_MODES,
        access=Access.REMOVE,
        fills={"item_keys": "item_keys", "limit": "limit"},
        implies=(Implied("tags", "search", shared=("add", "remove")),),
    ),
    ToolSpec(
        name="zot_manage_notes",
        description="Zotero notes and PDF annotations: list them, search them by meaning, or create a child "
        "note from\nMarkdown (needs writes enabled).",
        request=NotesRequest,
        modes=NOTE_MODES,
        access=Access.WRITE,
        fills={"limit": "limit", "collection": "collection", "tags": "tags", "color": "color"},
        implies=(Implied("note", "create"), Implied("color", "list_annotations", shared=("search",))),
    ),
    ToolSpec(
        name="zot_export",
        description="Files in the export folder: items as BibTeX, CSL-JSON or Markdown; annotations and notes as "
        "CSV/JSON\nrows; the knowledge graph as GraphML (Gephi); a draft's review package; a review matrix.",
        request=ExportRequest,
        modes=EXPORT_MODES,
        access=Access.FILES,
        fills={"path": "path", "collection": "collection", "item_keys": "item_keys", "tags": "tags"},
        implies=(
            Implied("draft", "review"),
            Implied("verdicts", "review"),
            Implied("questions", "matrix"),
            Implied("cells", "matrix"),
            # The file name's extension decides the format (export_target.py), so the route says so too.
            Implied("path", "bibtex", when=_extension_of("bibtex")),
            Implied("path", "csljson", shared=("annotations",), when=_extension_of("csljson")),
            Implied("path", "markdown", shared=("review", "matrix"), when=_extension_of("markdown")),
            Implied("path", "graphml", when=_extension_of("graphml")),
            Implied("path", "annotations", shared=("matrix",), when=_extension_of("annotations")),
        ),
    ),
)

BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in SPECS}
TOOL_MODES: dict[str, tuple[str, ...]] = {spec.name: spec.mode_names for spec in SPECS}
WRITE_MODES: dict[str, dict[str, str]] = {spec.name: spec.write_modes for spec in SPECS if spec.write_modes}
