"""Which way a citation request points: ``in`` (papers citing the named one), ``out`` (what it cites) or
``both`` (its citation network). Read from the wording alone, so `agent-zot route` shows it.

The same verb points both ways depending on where the paper stands: "who cites X" (in) against "what does
X cite" (out), "papers building on X" (in) against "what does X build on" (out), "cited by whom" (in) against
"papers cited by X" (out). Each pattern below says which side the paper is on.
"""

from __future__ import annotations

import re

IN, OUT, BOTH = "in", "out", "both"

# Words that stand for "some other papers" after "cited by" / before "cite": not the named paper.
_OTHERS = (
    r"(?:who|whom|which|what|whose|anyone|anybody|anything|something|others?|other\s+\w+|later\s+\w+|newer\s+\w+"
    r"|more\s+recent\s+\w+|subsequent\s+\w+|any\s*\w*|many|few|several|how\s+many|papers?|works?|articles?"
    r"|studies|publications?|people|researchers|authors|my\s+\w+|the\s+(?:other|later)\s+\w+)"
)
_SUBJECT = r"(?:papers?|works?|articles?|studies|publications?|research|anything|everything|stuff|ones?|items?|things?)"

_IN_PATTERNS = (
    # "who cites X", "which papers cite X", "what cites X", "papers that reference X": the verb takes the paper
    rf"\b(?:who|what|which|anyone|anybody|someone|somebody|{_SUBJECT})(?:\s+(?:that|which|who|else|has|have|had|ever|also|all|actually|already|are|is|were"
    r"|might|may|in\s+(?:my|the)\s+library|of\s+mine|i\s+have|here))*\s+(?:cites?|cited|citing|references?|referenced"
    r"|referencing|mentions?|mentioned|build(?:s|ing)?\s+(?:on|upon)|built\s+(?:on|upon)|extends?|extended|extending"
    r"|follow(?:s|ed)?\s+up\s+on|uses?|used)\b(?!\s+by\b)(?!\s*(?:[?.!]|$))",
    rf"\b(?:{_SUBJECT}|anyone|anybody|someone|others)\s+(?:(?:that|which|who)\s+(?:are|is|were|was)\s+)?(?:\w+\s+)?"
    r"(?:citing|referencing|building\s+(?:on|upon)|extending)\b(?!\s*(?:[?.!]|$))",
    # "did anything cite X", "has anyone cited X", "do other papers build on X"
    rf"\b(?:does|did|do|has|have|had)\s+(?:anything|anyone|anybody|someone|somebody|any\s+\w+|other\s+\w+|{_SUBJECT}|later\s+\w+)"
    r"(?:\s+\w+){0,3}?\s+(?:cite|cited|reference|referenced|build\s+(?:on|upon)|built\s+(?:on|upon)|use|used|mention|mentioned|extend)\b",
    rf"\bcited\s+by\s+{_OTHERS}\b",
    r"\bcited\s+by\s*(?:[?.!:—–-]|$)|被\S{0,6}引用|引用(?:了)?(?:这篇|该|此)",
    r"\b(?:is|was|has\s+been|have\s+been|been|get|gets|got|being)\s+(?:\w+\s+)?(?:cited|referenced|used|built\s+(?:on|upon)|followed)\b",
    r"\bcitations?\s+(?:to|of|for|received)\b|\bcitation\s+count\b|\bhow\s+(?:many\s+times|often|much)\b[^.?!]{0,60}\bcited\b",
    r"\bcited\s+(?:how\s+many|often|much|widely|anywhere|at\s+all)\b",
    r"['’]s\s+citations\b|\bcitations\s+(?:it|this|that)\s+(?:got|gets|has|received)\b",
    r"\bforward\b|\bfollow[- ]?ups?\b|\bfollow[- ]?on\b|\bdescendants?\b|\bsuccessors?\b|\bafter\s*wards?\s+(?:work|papers)\b"
    r"|\bincoming\b|\bcited-by\b|\binfluenced\s+by\b|\bcame\s+(?:after|later)\b|\blater\s+(?:work|papers)\b",
    r"\b(?:whose|which|what)\s+(?:\w+\s+){0,2}?(?:references?|bibliograph\w*|reference\s+lists?)\s+(?:include|contain|list|have|mention)",
)
_OUT_PATTERNS = (
    # "what does X cite", "what did X reference", "what does X build on", "what is X based on"
    r"\b(?:does|did|do)\s+(?!anything|anyone|anybody|someone|somebody|any\s|other\s|papers?\s|works?\s|later\s)"
    r"[^?!]{1,80}?\b(?:cite|reference|build\s+(?:on|upon)|draw\s+on|rely\s+on|use|extend)\b",
    r"\b(?:what|which\s+\w+)\s+(?:\w+\s+){1,4}?(?:is|are|was|were)\s+(?:citing|referencing|using|building\s+on)\s*(?:[?.!,]|$)",
    r"\b(?:list\s+of\s+)?references\s+(?:that|which|it|they|this|that)\s+(?:\w+\s+){0,6}?(?:uses?|using|cites?|citing|lists?|has|contains)\b"
    r"|\blist\s+of\s+(?:its\s+|their\s+|the\s+)?references\b|参考文献|引用了?哪些|引用的(?:文献|论文)",
    r"\b(?:is|was|are|were)\b[^.?!]{1,80}?\b(?:based|built|grounded|founded)\s+(?:on|upon)\b",
    r"\b(?:references?|refs)\s+(?:of|in|from|cited|listed|used)\b|\breference\s+lists?\b|\bbibliograph\w*|\bworks?\s+cited\b"
    r"|\bsources\b|\bcited\s+(?:in|within|inside)\b|\bcited\s+by\s+(?:it|this|that|the\s+\w+\s+paper)\b",
    r"['’]s?\s+(?:\w+\s+)?(?:references|refs|reference\s+list|sources|bibliography)\b",
    r"\b(?:papers?|works?|articles?|studies|everything|anything|things?|stuff|what)\s+(?:that\s+|which\s+)?"
    r"(?:\w+\s+){0,4}?(?:cites|cited|references|referenced|refs|builds\s+(?:on|upon)|relies\s+on|draws\s+on)"
    r"(?:\s+(?:from|in)\s+(?:my|the|our)\s+(?:library|collection|zotero))?\s*(?:[?.!,;:—–]|\s-\s|$)",
    r"\bbackward\b|\boutgoing\b|\bancestors?\b|\bpredecessors?\b|\bprior\s+work\b|\bfoundations?\s+of\b"
    r"|\bwhat\s+came\s+before\b|\bbuil[dt]s?\s+(?:on|upon)\s+what\b|\bbased\s+on\s+what\b",
    r"\bcited\s+by\s+(?!" + _OTHERS + r"\b)\S",
    r"\b(?:cites|cited|references|referenced)\s+(?:what|which|whom)\b",
)
_BOTH_PATTERNS = (
    r"\b(?:co-?)?citation\s+(?:network|graph|neighbou?rhood|map|links|chains?|context|web|tree)\b"
    r"|\b(?:both|either)\s+(?:directions?|ways)\b|\bin\s+and\s+out\b|\bcites\s+and\s+(?:is\s+)?cited\b"
    r"|\bcited\s+(?:and|or)\s+(?:citing|cites)\b|\bcitations?\s+(?:both\s+)?(?:in\s+and\s+out|either\s+way)\b|\bciting\s+(?:and|or)\s+cited\b|\bcitation\s+neighbors\b",
)
_IN = [re.compile(p, re.IGNORECASE) for p in _IN_PATTERNS]
_OUT = [re.compile(p, re.IGNORECASE) for p in _OUT_PATTERNS]
_BOTH = [re.compile(p, re.IGNORECASE) for p in _BOTH_PATTERNS]
_DECISIVE = (
    (re.compile(r"\b(?:backward|outgoing|ancestors?|predecessors?)\b", re.IGNORECASE), OUT),
    (re.compile(r"\b(?:forward|incoming|descendants?|follow[- ]?ups?)\b", re.IGNORECASE), IN),
)
_CITATION_WORDS = re.compile(
    r"\bcit(?:e|es|ed|ing|ations?)\b|\breferenc\w*|\bbibliograph\w*|\bbuil[dt]s?\s+(?:on|upon)\b|\bbuilding\s+(?:on|upon)\b"
    r"|\bfollow[- ]?ups?\b|\bbased\s+on\b|\bforward\b|\bbackward\b",
    re.IGNORECASE,
)


def citation_direction(text: str) -> str | None:
    """``in``, ``out`` or ``both`` for a request about citations; None when it says nothing about them."""
    if not text:
        return None
    decisive = {way for pattern, way in _DECISIVE if pattern.search(text)}
    if len(decisive) == 1:
        return decisive.pop()
    if any(p.search(text) for p in _BOTH):
        return BOTH
    inward = any(p.search(text) for p in _IN)
    outward = any(p.search(text) for p in _OUT)
    if inward != outward:
        return IN if inward else OUT
    if inward:
        return BOTH
    return BOTH if _CITATION_WORDS.search(text) else None
