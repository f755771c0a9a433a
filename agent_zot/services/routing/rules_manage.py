"""Rule tables for the management tools (collections, tags, notes) and zot_export.

Write modes (create/add/remove) are recognised even while writing is switched off, so the tool can
say "writing is disabled" instead of quietly doing a read.
"""

from __future__ import annotations

from agent_zot.identifiers import KEY_LIKE_LOWER

from .rules import Rule, has, rx
from .rules_search import MATRIX_WORD

_ADD_VERBS = r"add|put|file|save|move|copy|include|place|stick|insert|assign"
# Papers read rather than added ("what was I reading", "recently opened"): `recent` by Zotero 9's lastRead
# (services/organize/reading.py reads the sense with this same pattern).
READING = (
    r"\b(?:i|i've|i'd|we|we've)\b[^.?!]{0,25}?\b(?:read|reading|opened|opening|viewed|looked at)\b"
    r"|\b(?:recently|last|just)\s+(?:read|opened|viewed)\b|(?<![-\w])read\s+(?:recently|lately|last)\b"
)

COLLECTION_RULES: tuple[Rule, ...] = (
    rx(
        "list",
        1.5,
        r"\b(?:list|show|what|which|all|see|display|view|my)\b[^.?!]{0,25}?\b(?:sub-?)?collections\b"
        r"|\bcollection (?:tree|structure|hierarchy|names)\b|\bfolders\b|\bsub-?collections\b"
        r"|^\s*collections\s*\??\s*$",
    ),
    rx(
        "show_items",
        2.0,
        r"\b(?:items|papers|contents?|everything|articles|what(?:'s|’s| is)|whats|stuff|entries"
        r"|references)\b"
        r"[^.?!]{0,20}?\b(?:in|inside|of|within|under)\b",
    ),
    rx("show_items", 1.5, r"\bopen\b|\bbrowse\b"),
    has("show_items", 1.0, "collection"),
    rx(
        "recent",
        2.5,
        r"\brecent(?:ly)?\b|\brec[a-z]{0,3}(?:tly|lty)\b|\blately\b|\blatest\b|\bnewest\b"
        r"|\bnew (?:items|stuff|papers|additions|entries|things)\b"
        r"|\bwhat(?:'s|’s| is) new\b|\bjust added\b|\bwhat did i (?:add|save|import)\b|\badditions\b"
        r"|\badded (?:in|during|over|since|this|last|today|yesterday)\b",
    ),
    rx(
        "recent",
        3.2,
        r"\bwhat did i (?:just )?(?:add|save|import)\w*|\b(?:i|i've|i have)\s+(?:just\s+)?(?:add|added|saved|imported)\b"
        r"[^.?!]{0,30}?\b(?:since|today|yesterday|this|last|ago|recently|lately)\b"
        r"|\blast\s+(?:\d+|few|couple of)\s+(?:papers|items|articles|things|entries)\b"
        r"|\blast (?:paper|item|article|thing|entry|pdf)s? (?:i|that i|we)\b"
        r"|\b(?:dropped|put|saved|added|imported|brought)\s+(?:in(?:to)?|to) (?:the|my) (?:library|zotero)\b",
    ),
    rx("recent", 2.5, READING),
    has("recent", 1.5, "days"),
    rx(
        "create",
        3.0,
        r"\b(?:create|make|start|set up|build)\b[^.?!]{0,30}?\b(?:sub-?)?(?:collection|folder)\b"
        r"|\bnew\s+(?:sub-?)?(?:col+ec?tion|folder)\b|\b(?:create|make)\b[^.?!]{0,30}?\bcol+ec?tion\b",
    ),
    has("create", 2.0, "new_collection"),
    rx("add", 2.5, rf"^\s*(?:please\s+)?(?:can you\s+)?(?:{_ADD_VERBS})\b"),
    rx("add", 1.5, rf"\b(?:{_ADD_VERBS})\b"),
    rx(
        "remove",
        3.0,
        r"\b(?:remove|delete|drop|get rid of|unfile|detach|exclude"
        r"|take\b[^.?!]{0,30}?\bout|pull\b[^.?!]{0,30}?\bout)\b",
    ),
    # a paper named by DOI, arXiv id, PMID or ISBN is added from its registry's record; a question about
    # one ("is 10.1145/… in Thesis?") is not a request to add it
    has("import", 3.5, "identifiers"),
    rx("import", -3.0, r"^\s*(?:is|are|do|does|did|have|has|was|were|which|what|where|show|list)\b"),
)

TAG_RULES: tuple[Rule, ...] = (
    rx(
        "list",
        1.5,
        r"\b(?:list|show|what|which|all|see|display|view|my|most used|popular|frequent|common)\b[^.?!]{0,20}?"
        r"\btags\b|^\s*tags\s*\??\s*$|\btags (?:on|for|of)\b",
    ),
    rx(
        "search",
        2.5,
        r"\btagged\b|\bwith (?:the )?tags?\b|\bha(?:ve|s"
        r"|ving) (?:the )?tags?\b|\|\||\bsearch\b[^.?!]{0,15}?\btags?\b"
        r"|\b(?:find|filter)\b[^.?!]{0,30}?\btag",
    ),
    has("search", 2.0, "tag_expression"),
    rx("search", 3.0, r"\btag:[^\s]+|\b(?:or|and)\s+tag\b"),
    rx(
        "add",
        3.0,
        r"^\s*(?:please\s+)?(?:can you\s+)?(?:tag|label|mark|flag)\b(?!\s+(?:list|cloud|overview|names)\b)",
    ),
    rx(
        "add",
        2.5,
        r"\b(?:add|apply|attach|assign|put|give)\b[^.?!]{0,20}?\btags?\b"
        r"|\btag\s+(?:it|them|these|those|this|all)\b"
        r"|\blabel\b|\bmark (?:it|them|these|those|this)\b",
    ),
    rx(
        "remove",
        3.0,
        r"\b(?:remove|delete|strip|drop|detach|clear|get rid of|take)\b[^.?!]{0,30}?\btags?\b|\buntag\w*"
        r"|\btags?\b[^.?!]{0,20}?\boff\b",
    ),
)

# One paper, named by "the X paper", "this one", "this article"...
_ONE_PAPER = (
    r"(?:(?:the|this|that|my)\s+(?:[^\s.?!,]+\s+){0,6}?(?:paper|article|study|preprint|book|chapter|pdf|one|trial)\b"
    r"|[a-z][\w'’-]+(?:\s+(?:et\s+al\.?|and\s+[a-z][\w'’-]+))?,?\s+\(?(?:19|20)\d{2}\b"
    r"|(?:this|that|it)\b(?!\s+\w+\s+(?:about|on)\b))"
)

# ... unless the request writes one ("add a note to the GFS paper")
_NOT_WRITING = r"^(?!.*\b(?:add|create|write|new|make|jot|attach|append|leave|put|record)\b)[^\n]*?"

NOTE_RULES: tuple[Rule, ...] = (
    rx("list_notes", 1.2, r"\bnotes?\b"),
    rx("list_notes", 1.5, r"\bwhat did i (?:write|note)\b|\bmy notes (?:on|for|about)\b|\bchild notes\b"),
    has("list_notes", 1.0, "item_keys"),
    rx(
        "list_annotations",
        2.5,
        r"\bannotat(?:e|es|ed|ions?)\b|\bhighlight\w*|\bunderlin\w*"
        r"|\bpdf comments?\b|\bcomments? (?:in|on) the pdf\b"
        r"|\bmarked up\b|\bmark-?ups?\b",
    ),
    has("list_annotations", 2.0, "color"),  # only annotations have colours
    rx(
        "search",
        2.8,
        r"\b(?:search|grep|look through|find|query"
        r"|scan)\b[^.?!]{0,25}?\b(?:notes?|annotations?|highlights?)\b"
        r"|\b(?:notes?|annotations?)\s+(?:that\s+|which\s+)?(?:mention|mentions|mentioning|containing|contain"
        r"|contains|about|with the word|referring|discussing|talking about|talk about|talks about)\b"
        r"|\bwhich\b[^.?!]{0,12}?\bnotes\b"
        r"|\bdid i (?:write|note) (?:anything|something)\b|\bwhere did i (?:write|note|mention)\b",
    ),
    # "where did I jot down ideas on X", "my highlights that mention Y", "serch my notes for Z"
    rx(
        "search",
        3.2,
        r"\bwhere\s+(?:did|have)\s+i\b|\bwhere i (?:have |had )?(?:written|wrote|noted|jotted|highlighted)\b|\bdid i\s+(?:\w+\s+)?(?:annotate|highlight|comment|note|write)\w*\s+"
        r"(?:anything|something)\b|\bs[aeiou]{0,2}r[aeiou]{0,2}ch\b[^.?!]{0,20}?\b(?:notes?|annotations?|highlights?|comments?)\b"
        r"|\bnot(?:ed|ing) (?:something|anything|down)\b|\bwhere was (?:it|that)\b"
        r"|\b(?:notes?|nots|annotat\w*|h[io]g?h?l[io]g?h?t\w*|comments?|passages)\b[^.?!]{0,40}?\b(?:mention\w*|regarding|concerning"
        rf"|on the (?!pdf\b)|about|on)\s+(?!{KEY_LIKE_LOWER})(?=['‘\"]?[a-z])",
    ),
    rx(
        "create",
        3.0,
        r"^(?!\s*(?:what|which|where|when|did|do|have|show|list|find)\b)[^\n]*?"  # a question about notes lists them
        r"(?:\b(?:add|create|write|make|jot|attach|append|leave|put|record)\b[^.?!]{0,40}?\bnote\b"
        r"|\bnew note\b|\bjot down\b)",
    ),
    has("create", 2.5, "note_text"),
    # notes or highlights OF one named paper are a listing, not a search: "my notes on the GFS paper",
    # "show the annotations in this one"
    rx(
        "list_notes",
        3.4,
        rf"{_NOT_WRITING}\bnotes?\b[^.?!]{{0,20}}?\b(?:on|in|for|from|of|to)\s+{_ONE_PAPER}",
    ),
    rx(
        "list_annotations",
        2.6,
        rf"{_NOT_WRITING}\b(?:annotat\w*|highlight\w*|underlin\w*|mark-?ups?)\b[^.?!]{{0,20}}?\b(?:on|in|for|from|of|to)"
        rf"\s+{_ONE_PAPER}",
    ),
)

# Annotation words, not a file's name ("highlights.json").
_ANNOTATION_WORDS = r"\b(?:annotations?|annotated|highlights?|highlighted|highlighting|underlines?|underlined|comments)\b(?!\.)"

# "review matrix", "evidence table", "for each paper ...": the questions × papers table of zot_summarize
_MATRIX_WORDS = (
    r"\b(?:review|evidence|extraction|comparison|literature)\s+(?:table|matrix|grid|sheet)s?\b"
    rf"|{MATRIX_WORD}|\bdata extraction\b|\b(?:for|of) (?:each|every) (?:paper|study|article|trial)\b"
)

EXPORT_RULES: tuple[Rule, ...] = (
    # a file extension is the most explicit signal there is
    rx("bibtex", 5.0, r"\.bib(?:tex)?\b"),
    rx("markdown", 5.0, r"\.(?:md|markdown)\b"),
    rx("csljson", 5.0, r"\.(?:csl)?json\b"),
    rx("graphml", 5.0, r"\.graphml\b"),
    rx("bibtex", 2.5, r"\bbib(?:la)?tex\b|\bbib\b|\blatex\b|\boverleaf\b|\bbibliography file\b|\bnatbib\b"),
    rx(
        "markdown", 2.5, r"\bmarkdown\b|\bmd\b|\bobsidian\b|\blogseq\b|\bnotion\b|\breadable\b|\bplain text\b"
    ),
    rx("csljson", 2.5, r"\bcsl[- ]?json\b|\bcsl\b|\bjson\b|\bciteproc\b|\bpandoc\b"),
    rx("graphml", 2.5, r"\bgraph\s?ml\b|\bgephi\b|\bcytoscape\b|\byed\b|\bnetworkx\b"),
    rx("graphml", 1.8, r"\bgraph\b|\bnetwork\b"),
    # annotations and notes as data rows: a .csv, a spreadsheet, annotation or note words with a data format;
    # annotation words alone lose to a Markdown or BibTeX word or file (Markdown carries annotations too)
    rx("annotations", 5.0, r"\.csv\b"),
    rx("annotations", 2.5, r"\bcsv\b|\bspreadsheets?\b|\bexcel\b|\blibreoffice\b|\bgoogle sheets\b"),
    rx("annotations", 2.0, _ANNOTATION_WORDS),
    rx(
        "annotations",
        6.0,
        rf"(?:{_ANNOTATION_WORDS}|\bnotes?\b(?!\.))(?=.*\b(?:json|csv|data|rows?|records?|spreadsheets?)\b)",
    ),
    # a review package for a second, sceptical reader of a draft (beats a ".md" name: it is Markdown too)
    rx(
        "review",
        6.0,
        r"\breview(?:er'?s?)? (?:package|bundle|pack|kit|file)\b|\bfor (?:a |the |my )?(?:sceptical |skeptical "
        r"|critical |second )?(?:reviewer|referee)s?\b|\bevidence (?:package|bundle|dossier)\b",
    ),
    # a review matrix: the same questions of every paper (beats a ".csv" or ".md" name: it is written as both)
    rx("matrix", 6.5, _MATRIX_WORDS),
)
