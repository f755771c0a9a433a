"""Things that point into the library: keys, DOIs, arXiv ids, file paths, collections, tags, note text."""

from __future__ import annotations

import re
from typing import Any

from agent_zot.errors import InvalidArgumentError
from agent_zot.identifiers import ITEM_KEY, parse_identifiers
from agent_zot.zotero.colors import COLOR_WORDS

from .scan import HAS_DIGIT, QUOTED, Scan, clean_value

_DOI_RE = re.compile(r"(?i:\b(?:doi:\s*|https?://(?:dx\.)?doi\.org/))?\b(10\.\d{4,9}/[^\s\"'<>]+)")
# New-style ids are YYMM.NNNNN; checking the month keeps most decimals out.
_ARXIV_RE = re.compile(
    r"(?i:\barxiv:\s*|(?:https?://)?(?:www\.)?arxiv\.org/(?:abs|pdf)/)?"
    r"(?<![\w.])(\d{2}(?:0[1-9]|1[0-2])\.\d{4,5}(?:v\d{1,2})?)(?!\w)(?!\.\d)"
)
_ARXIV_OLD_RE = re.compile(r"(?i:\barxiv:\s*)([a-z-]+(?:\.[A-Z]{2})?/\d{7}(?:v\d{1,2})?)", re.IGNORECASE)

EXTENSION_FORMATS: dict[str, str] = {
    "bib": "bibtex",
    "bibtex": "bibtex",
    "md": "markdown",
    "markdown": "markdown",
    "json": "csljson",
    "csljson": "csljson",
    "graphml": "graphml",
    "csv": "annotations",
}
# A file name or path ending in an export extension, with the "to"/"as" before it.
_PATH_RE = re.compile(
    r"(?i:\b(?:to|as|into|in|at)\s+)?(?<![\w/.~-])"
    r"((?:[A-Za-z]:)?[\w~./\\-]*[\w-]\.(bib|bibtex|md|markdown|json|csljson|graphml|csv))(?![\w.])",
    re.IGNORECASE,
)

# Collection names: a few tokens, none of them a function word, ending before a clause boundary.
_NAME_STOP = (
    r"in|into|on|about|that|which|is|are|was|a|an|the|my|our|your|with|from|to|for|and|or|as|by|since|after"
    r"|before|between|under|inside|within|called|named|tagged|collection|collections|folder|folders"
    r"|sub-?collections?|please|so|because|then|too|now|it|them|this|these|those"
)
_CTOK = rf"(?!(?i:{_NAME_STOP})(?![^\s,;?!]))[^\s,;?!\"“”]+"
_CNAME = rf"{_CTOK}(?:\s+{_CTOK}){{0,4}}"
_END = (
    r"(?=\s*$|\s*[,;?!.](?:\s|$)|\s+(?i:and|with|for|please|so"
    r"|because|then|too|now|as|by|since|tagged|collection|folder)\b)"
)
_COLL = r"(?i:(?:sub-?)?(?:collection|folder))"
# "the data collection period", "the five-stage collection process": a study's collecting, not a Zotero
# collection (a library holding a "Data" collection would otherwise have the search confined to it). Lower
# case only: "the collection Methods" names one.
_NOT_A_COMPOUND = (
    r"(?!\s+(?:period|periods|process|procedures?|protocols?|stages?|phases?|campaigns?|sites?|efforts?"
    r"|methods?|steps?|tools?|devices?|setup|system|times?|windows?|dates?|rates?|strateg(?:y|ies)|instruments?"
    r"|forms?|sheets?|kits?|points?|areas?|trips?|seasons?|programm?e?s?|teams?|sessions?|schemes?|rounds?"
    r"|design|platform|software|app|interval|duration|frequency|pipeline)\b)"
)
_COLLECTION_RES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        # "my Kalman filter collection (卡尔曼滤波器)": the name in brackets is the collection's own spelling
        rf"(?:(?i:my|the|our)\s+{_CNAME}\s+)?{_COLL}\s*[(（]([^()（）]{{1,60}})[)）]",
        rf"{_COLL}\s+(?i:(?:called|named|titled)\s+)?({QUOTED})",
        rf"({QUOTED})\s+{_COLL}\b",
        rf"(?i:\b(?:(?:in|into|to|from|of|on|for|under|out\s+of)\s+(?:(?:my"
        rf"|the|our)\s+)?|(?:my|the|our)\s+))({_CNAME})\s+{_COLL}\b{_NOT_A_COMPOUND}",
        rf"\b{_COLL}(?:\s+(?i:called|named|titled)\s+|\s*:\s*|{_NOT_A_COMPOUND}\s+)({_CNAME}){_END}",
    )
)
# The whole library as a request's scope: "my whole library", "the entire citation graph", "across all my
# papers", "all my papers' citation network". Words that scope a request, never its topic.
_OWN = r"(?:(?:all\s+(?:of\s+)?)?(?:my|our|the)\s+)"
_WHOLE_THING = r"(?:(?:citation|reference)\s+)?(?:graph|network|map)|library|zotero|collection"
_ALL_PAPERS = r"(?:papers|library|zotero|items)"
_WHOLE_LIBRARY_RE = re.compile(
    r"(?:\b(?:across|in|of|over|throughout|from|for|within)\s+)?"
    rf"(?:\b(?:(?:the|my|our)\s+)?(?:whole|entire|complete|full)\s+(?:{_WHOLE_THING})"
    rf"(?:\s+(?:of|in|across|for)\s+{_OWN}(?:whole\s+|entire\s+)?{_ALL_PAPERS})?"
    rf"|\ball\s+(?:of\s+)?(?:my|our|the)\s+{_ALL_PAPERS}(?:['’]s?\s+(?:{_WHOLE_THING}))?"
    rf"|\b(?:the\s+)?(?:citation|reference)\s+(?:graph|network|map)\s+(?:of|for|across)\s+{_OWN}"
    rf"(?:whole\s+|entire\s+)?{_ALL_PAPERS})\b",
    re.IGNORECASE,
)


def extract_whole_library(scan: Scan, params: dict[str, Any]) -> None:
    """A request about the whole library ("the whole citation graph of my library"): ``whole_library``,
    and the words cut from the topic, so that they are never searched for as a field."""
    found = list(_WHOLE_LIBRARY_RE.finditer(scan.masked))
    if found:
        params["whole_library"] = True
        scan.consume(m.span() for m in found)


# Collections tool only: "add X to Reading list", "remove X from Reading list", "show items in X".
_TARGET_RE = re.compile(
    rf"(?i:\b(?:to|into|in|from|out\s+of|under|of|inside"
    rf"|within)\s+(?:(?:my|the|our)\s+)?)({QUOTED}|{_CNAME}){_END}"
)
# Collections tool only, the whole query: "show me Thesis", "open 'Lab Meeting'".
_SHOW_NAMED_RE = re.compile(
    r"^\s*(?i:(?:please\s+)?(?:show|open|display|view|browse)(?:\s+me)?\s+(?:the\s+)?)"
    rf"((?=[A-Z0-9\"'“‘]){QUOTED}|(?=[A-Z0-9]){_CNAME})\s*[?.!]?\s*$"
)
_NEW_COLLECTION_RE = re.compile(
    r"(?i:\b(?:create|make|add|start|set\s+up|new"
    r"|build)\b)(?:\s+(?i:a|an|the|new|me|another|empty|top-level))*"
    rf"\s*{_COLL}(?:\s+(?i:called|named|titled)|\s*:)?\s*({QUOTED}|{_CNAME})"
    rf"(?:{_END}|(?=\s+(?i:under|inside|in|within|beneath|below)\b))"
)
_NOT_COLLECTIONS = frozenset(
    {"library", "my library", "zotero", "tree", "structure", "hierarchy", "names", "list"}
)

_TAG_STOP = (
    r"the|a|an|these|this|those|them|it|all|every|my|on|in|for|of|to|from|with|about|and|or|not|but|do|does"
    r"|did|i|you|is|are|have|has|that|which|like|used|please|papers?|items?|as|by|called|named|matching"
    r"|containing|so|then|off|onto|list|cloud|overview|names"
)
_TTOK = rf"(?:{QUOTED}|(?!(?i:{_TAG_STOP})(?![\w\-/:#+]))[\w#][\w\-/:.#+]*)"
_TLIST = rf"{_TTOK}(?:\s*(?:,|&|\b(?i:and|or)\b)\s*{_TTOK}){{0,5}}"
_TAG_RES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        rf"(?i:\b(?:search|find|look\s+up)\s+(?:(?:my|the)\s+)?tags?\s+(?:for|matching|like))\s+({_TLIST})",
        rf"(?i:\btagged(?:\s+(?:with|as))?|\bwith\s+(?:the\s+)?tags?|\bhav(?:e|ing)\s+(?:the\s+)?tags?"
        rf"|\btags?(?:\s+(?:called|named))?)\s+(?i:(?:both|either|all\s+of|any\s+of)\s+)?({_TLIST})",
        rf"(?i:\b(?:tag|label|mark|flag)\b)[^.;!?\n]{{0,60}}?\s(?i:with|as)\s+({_TLIST})",
        rf"(?i:\bthe)\s+({_TTOK})\s+(?i:tag)\b",
        rf"({QUOTED})\s+(?i:tag)\b",
    )
)
_TAG_SEPARATOR_RE = re.compile(r"\s*(?:,|&|\b(?i:and|or)\b)\s*")
_TOKEN_RE = re.compile(r"\S+")
# Connectives people type inside tag expressions ("a || b but not -c"); not tags themselves.
_NOT_TAGS = frozenset({"and", "or", "not", "but", "without", "except"})
_TAG_TRIGGER_RE = re.compile(r"(?i:^(?:tagged|tags?|tag:)$)")
_LEADING_DASH_RE = re.compile(r"(?:^|(?<=\s))-[\w#]")

_HAS_COLLECTION_WORD = re.compile(r"(?i:collection|folder)")
_HAS_TAG_WORD = re.compile(r"(?i:tag|label|mark|flag)")
# The labelling verbs of `_TAG_RES`'s third form (not "tag", which also opens the second's "tag draft"),
# and the words before one that make it the user's own: "I" or "we" among the three words before it ("did
# I mark", "we flag"), or a command ("please label", "then mark", a request that opens with the verb).
_LABEL_VERB_RE = re.compile(r"(?i:(?:label|mark|flag)\b)")
_THE_USER = frozenset({"i", "i've", "i'd", "we", "we've", "me"})
_COMMAND_BEFORE = frozenset({"please", "and", "then", "also", "now"})

_NOTE_CREATE_RE = re.compile(
    r"(?i:\b(?:add|create|write|new|jot|attach|append|make|leave|put|record|save)\b|^\s*note\b)"
)
_NOTE_TEXT_RES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        r"(?i:\b(?:saying|that\s+says|which\s+says|says|with\s+(?:the\s+)?(?:text|content|body)|reading))\b"
        r"\s*:?\s*(\S.*)",
        r"(?i:\breminding\s+me|\bto\s+remind\s+me)\s+(\S.*)",
        r"(?i:\b(?:note|jot\s+down|write(?:\s+down)?|add|append|record))\b[^:\n]{0,80}:\s*(\S.*)",
        rf"(?i:\bnote)\b[^\"“'‘\n]{{0,40}}?({QUOTED})",
        rf"(?i:\b(?:write|add|put|save|record))\s+({QUOTED})\s+(?i:as\s+(?:a\s+)?note)",
    )
)


# Annotation colours: a colour word next to what it colours ("red highlights", "what did I mark in green",
# "coloured yellow"), or a hex. A colour word elsewhere is topic ("notes about red blood cells").
_COLOR = "|".join(COLOR_WORDS)
_COLOR_RES: tuple[re.Pattern[str], ...] = tuple(
    re.compile(p)
    for p in (
        rf"(?i:\b({_COLOR})\s+)(?i:highlight|annotation|underline|mark|comment|note|sticky|one|passage)",
        rf"(?i:\b(?:highlight|annotat|underlin|mark|comment|colou?r)\w*\b[^.?!,;]{{0,40}}?"
        rf"(\b(?:in|with|using)\s+(?:the\s+)?(?:colou?r\s+)?({_COLOR})\b))",
        rf"(?i:(\bcolou?r(?:ed)?\s*[:=]?\s*({_COLOR})\b))",
        rf"(?i:(\b({_COLOR})[- ]colou?red\b))",
        r"(?<![\w#])(#[0-9a-fA-F]{6}|#[0-9a-fA-F]{3})(?!\w)",
    )
)
# A paper named by title words in a notes request: "in the SciBERT paper", "on the Watts Strogatz article".
_NOT_TITLE = r"same|other|first|last|previous|next|new|latest|whole|entire|original|current|each|every|one"
_PAPER_RE = re.compile(
    r"(?i:\b(?:in|on|from|of|for|about|within)\s+(?:the|my|this|that)\s+)"
    rf"((?!(?i:{_NOT_TITLE})\b)[^\s,;?!]+(?:\s+[^\s,;?!]+){{0,5}}?)"
    r"\s+(?i:paper|article|pdf|preprint|book|study)\b"
)


def extract_color(scan: Scan, params: dict[str, Any]) -> None:
    """An annotation colour as the user said it (a name, an alias or a hex; parsed by zotero/colors.py)."""
    for pattern in _COLOR_RES:
        m = pattern.search(scan.masked)
        if m:  # the last group is the colour; the first is what to cut from the topic
            params["color"] = m.group(pattern.groups).lower()
            scan.consume([m.span(1)])
            return


def extract_paper_title(scan: Scan, params: dict[str, Any]) -> None:
    """Title words of the paper a notes request is about; resolved against the library by the tool."""
    m = _PAPER_RE.search(scan.masked)
    if m and m.group(1).strip():
        params["paper"] = clean_value(m.group(1))
        scan.consume([m.span()])


def extract_identifiers(scan: Scan, params: dict[str, Any]) -> None:
    """DOI first (its digits would otherwise look like an arXiv id or years), then arXiv ids, then keys."""
    if not HAS_DIGIT.search(scan.masked):
        return
    m = _DOI_RE.search(scan.masked)
    if m:
        doi = m.group(1).rstrip(".,;:)]}")
        params["doi"] = doi
        scan.consume([(m.start(), m.start(1) + len(doi))])
    m = _ARXIV_RE.search(scan.masked) or _ARXIV_OLD_RE.search(scan.masked)
    if m:
        params["arxiv_id"] = m.group(1)
        scan.consume([m.span()])
    keys: list[str] = []
    spans: list[tuple[int, int]] = []
    for m in ITEM_KEY.finditer(scan.masked):
        if m.group(0) not in keys:
            keys.append(m.group(0))
        spans.append(m.span())
    scan.consume(spans)
    if keys:
        params["item_keys"] = keys[:50]


def extract_registry_ids(query: str, params: dict[str, Any]) -> None:
    """Every DOI, arXiv id, PMID and ISBN of a request to add papers (the import mode looks them up)."""
    if not HAS_DIGIT.search(query):
        return
    try:
        found = parse_identifiers(query)
    except InvalidArgumentError:
        params["identifiers"] = []  # a malformed ISBN: the import mode names it when it runs
        return
    if found:
        params["identifiers"] = [ident.label for ident in found]


def extract_path(scan: Scan, params: dict[str, Any]) -> None:
    if "." not in scan.masked:
        return
    m = _PATH_RE.search(scan.masked)
    if m:
        params["path"] = m.group(1)
        params["path_format"] = EXTENSION_FORMATS[m.group(2).lower()]
        scan.consume([m.span()])


def _valid_collection(name: str) -> bool:
    return bool(name) and name.lower() not in _NOT_COLLECTIONS


def extract_collections(scan: Scan, params: dict[str, Any], *, collections_tool: bool) -> None:
    if not collections_tool and not _HAS_COLLECTION_WORD.search(scan.masked):
        return
    if collections_tool:
        m = _NEW_COLLECTION_RE.search(scan.masked)
        if m and _valid_collection(clean_value(m.group(1))):
            params["new_collection"] = clean_value(m.group(1))
            scan.consume([m.span()])
    patterns = (*_COLLECTION_RES, _TARGET_RE, _SHOW_NAMED_RE) if collections_tool else _COLLECTION_RES
    for pattern in patterns:
        for m in pattern.finditer(scan.masked):
            name = clean_value(m.group(1))
            if _valid_collection(name):
                params["collection"] = name
                scan.consume([m.span()])
                return


def extract_tags(scan: Scan, params: dict[str, Any]) -> None:
    if "||" in scan.masked or _LEADING_DASH_RE.search(scan.masked):
        _extract_tag_expression(scan, params)
    if "tags" in params or not _HAS_TAG_WORD.search(scan.masked):
        return
    for pattern in _TAG_RES:
        m = pattern.search(scan.masked)
        if m and not _someone_elses_label(scan.masked, m):
            tags = _split_tags(m.group(1))
            if tags:
                params["tags"] = tags
                scan.consume([m.span()])
                return


def _someone_elses_label(text: str, m: re.Match[str]) -> bool:
    """A labelling verb whose subject is not the user ("the authors flag ... as worth studying", "a reviewer
    flagged my sentence as unsupported", "which regions do they label as high risk"): what a paper or person
    calls something, not a tag of the library."""
    verb = _LABEL_VERB_RE.match(text, m.start())
    if verb is None:
        return False
    said = [w.strip(",;:").casefold() for w in text[: m.start()].split()[-3:]]
    return bool(said) and not (_THE_USER.intersection(said) or said[-1] in _COMMAND_BEFORE)


def _split_tags(raw: str) -> list[str]:
    parts = _TAG_SEPARATOR_RE.split(raw)
    tags = [clean_value(p) for p in parts]
    return [t for t in dict.fromkeys(tags) if t]


def _extract_tag_expression(scan: Scan, params: dict[str, Any]) -> None:
    """Take the raw boolean tag expression: from a tag cue (or its first operand) to its last operand."""
    tokens = [(m.start(), m.end(), m.group(0)) for m in _TOKEN_RE.finditer(scan.masked)]
    marked = [
        i for i, (_, _, t) in enumerate(tokens) if t == "||" or (len(t) > 1 and t[0] == "-" and t[1] != "-")
    ]
    for i, (_, _, t) in enumerate(tokens):
        if t == "||":
            marked.extend(j for j in (i - 1, i + 1) if 0 <= j < len(tokens))
    if not marked:
        return
    first, last = min(marked), max(marked)
    trigger = next((i for i in range(first - 1, -1, -1) if _TAG_TRIGGER_RE.match(tokens[i][2])), None)
    if trigger is not None:
        first = min(first, trigger + 1)
    start = tokens[trigger][0] if trigger is not None else tokens[first][0]
    expression = scan.masked[tokens[first][0] : tokens[last][1]].strip(" ,.;?!")
    params["tag_expression"] = expression
    positives = [
        clean_value(t) for _, _, t in tokens[first : last + 1] if t != "||" and not t.startswith("-")
    ]
    positives = [t for t in dict.fromkeys(positives) if t and t.lower() not in _NOT_TAGS]
    if positives:
        params["tags"] = positives
    scan.consume([(start, tokens[last][1])])


def extract_note_text(scan: Scan, params: dict[str, Any]) -> None:
    """Text to write into a new note; masked early so its words never become authors or years."""
    if not _NOTE_CREATE_RE.search(scan.masked):
        return
    for pattern in _NOTE_TEXT_RES:
        m = pattern.search(scan.masked)
        if m:
            text = clean_value(m.group(1)) if m.group(1)[0] in "\"'“‘" else m.group(1).strip()
            if text:
                params["note_text"] = text
                scan.consume([m.span()])
                return
