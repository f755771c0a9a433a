"""The role of a section, from its heading: one table every consumer shares.

A heading's kind is decided at indexing (stored as the chunk payload's ``section_kind``) and recomputed by
the same function where an older index lacks it. Consumers that answer from a paper's own argument
(summaries, targeted answers, the claim check) never use ``EXCLUDED`` kinds: thanks, reference lists and
author biographies share the paper's words but state none of its findings.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from functools import lru_cache
from typing import Any

KINDS = (
    "abstract",
    "introduction",
    "background",
    "methods",
    "results",
    "discussion",
    "limitations",
    "conclusion",
    "acknowledgements",
    "references",
    "appendix",
    "biography",
    "body",
)
EXCLUDED = frozenset({"acknowledgements", "references", "biography"})

# Checked in order; each pattern must match the whole heading text (number and case already gone).
_PATTERNS: tuple[tuple[str, str], ...] = (
    ("acknowledgements", r"acknowledge?ments?|funding|funding (?:sources|information)"),
    ("references", r"references?(?: and notes)?|bibliography|works cited|literature cited|citations"),
    (
        "biography",
        r"(?:about the )?authors?(?: biograph(?:y|ies)| information| bios?)?|biograph(?:y|ies)|"
        r"author biograph(?:y|ies)|(?:the )?authors'? (?:profiles?|biograph(?:y|ies))",
    ),
    (
        "appendix",
        r"(?:appendix|appendices|annex|supplement(?:ary|al)?(?: materials?| information| data)?)"
        r"(?:\s+[a-z0-9]{1,2}\b)?.*",
    ),
    ("abstract", r"abstract|summary|executive summary"),
    ("introduction", r"introduction(?: and motivation)?|motivation|overview"),
    (
        "background",
        r"background(?: and related work)?|related work|prior work|previous work|literature review|"
        r"preliminaries",
    ),
    ("limitations", r"limitations?(?: and future work)?|threats to validity|future work|open problems"),
    (
        "methods",
        r"methods?|methodology|materials and methods|methods and materials|experimental (?:setup|design)|"
        r"study design|implementation|approach|design|system design|data(?: collection)?|datasets?",
    ),
    ("results", r"results?(?: and discussion)?|evaluation|experiments?|experimental results|findings"),
    ("discussion", r"discussion|general discussion"),
    ("conclusion", r"conclusions?(?: and future work)?|concluding remarks|summary and conclusions?"),
)
_KIND_OF = tuple((kind, re.compile(pattern)) for kind, pattern in _PATTERNS)
# "3.2", "IV.", "A." or "Appendix"-less letters before the words; "Section 5:" too.
_NUMBER = re.compile(r"^(?:section\s+)?(?:\d{1,2}(?:\.\d{1,2}){0,3}|[ivx]{1,5}|[a-h])[.:)]?\s+")

# An author biography without a heading: "Jeffrey Dean (jeff@google.com) is a Google Fellow ...",
# "Sanjay Ghemawat is a Distinguished Engineer at Google.", or "He received his Ph.D. from ...".
_ROLE = (
    r"(?i:professor|fellow|engineer|scientist|researcher|lecturer|student|candidate|director|"
    r"manager|architect|postdoc\w*|member of (?:the )?technical staff|faculty member)"
)
_BIO_START = re.compile(
    r"[A-Z][a-z]+(?: [A-Z]\.)?(?: [A-Z][a-z'-]+){1,2}(?: \([^)]{0,60}\))? is (?:a|an|the|currently a)\b"
    r"[^.]{0,80}?\b" + _ROLE + r"\b"
)
_BIO_DEGREE = re.compile(
    r"(?:He|She|They) (?:received|earned|holds|obtained|completed) (?:his|her|their|a|an)\b[^.]{0,40}?"
    r"\b(?:Ph\.? ?D|B\.? ?S|M\.? ?S|B\.? ?A|M\.? ?A|M\.? ?Eng|doctorate|degree|bachelor|master)"
)


@lru_cache(maxsize=8192)
def section_kind(heading: str | None) -> str:
    """The kind of section ``heading`` opens ("5. Acknowledgments" -> "acknowledgements", "Appendix A"
    -> "appendix", "3.3 Fault Tolerance" -> "body"): one of ``KINDS``."""
    if not heading:
        return "body"
    words = " ".join(heading.split()).lower().rstrip(" .:")
    words = _NUMBER.sub("", words, count=1) if not words.startswith(("appendix", "annex")) else words
    words = words.replace("&", "and")
    for kind, pattern in _KIND_OF:
        if pattern.fullmatch(words):
            return kind
    return "body"


def reads_as_biography(sentence: str) -> bool:
    """A sentence that opens or states an author biography (a name, a role and an employer, or a degree
    received): biographies often follow the references with no heading of their own."""
    text = " ".join(sentence.split())
    return bool(_BIO_START.match(text) or _BIO_DEGREE.match(text))


def payload_kind(payload: Mapping[str, Any]) -> str:
    """A chunk's stored section kind, or (an index written before kinds were stored) its section's."""
    return payload.get("section_kind") or section_kind(payload.get("section"))
