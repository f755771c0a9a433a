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

from agent_zot.ingest.headings import CJK_CHAPTER_MARK, cjk_compact
from agent_zot.text import has_cjk

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

# A heading the whole-heading patterns miss names a kind by its head words: "Study limitations",
# "Discussion and conclusions" (the first that names a kind wins), "Proposed method for estimating BP".
# Excluded kinds have none here: a near miss must never leave content out.
_HEADS: tuple[tuple[str, str], ...] = (
    ("introduction", r"introduction|motivation"),
    (
        "background",
        r"background|preliminar(?:y|ies)|related [a-z-]+|literature(?: review| survey| study)?|"
        r"(?:prior|previous) (?:work|works|studies|research)|state of the art",
    ),
    ("limitations", r"limitations?|shortcomings|caveats|threats to validity|future [a-z]+|open problems"),
    (
        "methods",
        r"methods?|methodolog(?:y|ies)|materials?|approach(?:es)?|procedures?|set-?up|settings?|"
        r"datasets?|design|implementation|participants",
    ),
    ("results", r"results?|evaluations?|experiments?|findings"),
    ("discussion", r"discussions?|implications"),
    ("conclusion", r"conclusions?|(?:concluding|final|closing) remarks|outlook"),
)
_HEAD_AT_END = tuple((kind, re.compile(rf"(?:(?P<pre>.*) )?(?:{head})")) for kind, head in _HEADS)
_HEAD_THEN_OF = tuple(
    (kind, re.compile(rf"(?:(?P<pre>[a-z-]+) )?(?:{head}) (?:of|for|on|in|from|with|to) (?P<rest>.+)"))
    for kind, head in _HEADS
)
_CONJUNCTS = re.compile(r"\s*(?:,|\band\b|\bor\b|/)\s*")
_LEADING = re.compile(r"^(?:the|our|this|a|an) ")
_HEADING_WORDS = 7
_WORD = re.compile(r"[a-z0-9-]*[a-z][a-z0-9-]*")  # a name or a term ("s2orc", "k-fold"), not a number
_MODIFIER_WORDS = 3
# Words a heading's modifiers never are, a sentence's often: "We now present the results."
_NOT_MODIFIER = re.compile(
    r"i|we|you|he|she|it|its|they|their|these|those|there|here|is|are|was|were|be|been|being|ha[sd]|have|"
    r"do|does|did|not|no|see|shows?|shown|presents?|reports?|describes?|all|some|more|most|such|than|then|"
    r"also|can|may|will|would|should|of|in|on|for|from|with|to|by|at|as|into|over|under|between|without"
)
# "3.2", "IV.", "A." or "Appendix"-less letters before the words; "Section 5:" too.
_NUMBER = re.compile(r"^(?:section\s+)?(?:\d{1,2}(?:\.\d{1,2}){0,3}|[ivx]{1,5}|[a-h])[.:)]?\s+")

# A Chinese heading names its kind by a word anywhere in it ("实验结果与分析", "系统设计与实现"); the first
# kind that matches wins. A chapter's own summary ("本章小结") is no conclusion of the paper.
_CJK_KINDS = tuple(
    (kind, re.compile(pattern))
    for kind, pattern in (
        # simplified Chinese, then traditional Chinese and Japanese forms
        ("acknowledgements", "致谢|鸣谢|致謝|謝辞"),
        ("references", "参考文献|參考文獻"),
        ("biography", "作者简介|作者簡介"),
        ("appendix", "^(?:附录|附錄|付録)"),
        ("abstract", "摘要|要旨|^概要$"),
        ("introduction", "引言|绪论|前言|緒論|はじめに|序論|緒言"),
        ("background", "研究现状|相关工作|文献综述|理论基础|基础理论|相关技术|関連研究|研究現状|相關工作"),
        ("conclusion", "结论|结语|总结|結論|結語|總結|おわりに|まとめ"),
        ("limitations", "不足|局限|限界"),
        ("methods", "实验设计|实验方案|方法|设计|实现|建模|模型|算法|手法|設計|實現|実装"),
        ("results", "实验|结果|仿真|测试|验证|评估|性能|実験|實驗|結果|評価|評估"),
        ("discussion", "讨论|討論|考察"),
    )
)
_CJK_NUMBER = re.compile(
    rf"^(?:{CJK_CHAPTER_MARK}|\d{{1,2}}(?:[.．]\d{{1,2}}){{0,3}}[.．]?|[一二三四五六七八九十]{{1,3}}、)"
)

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
    -> "appendix", "Discussion and conclusions" -> "discussion", "3.3 Fault Tolerance" -> "body"): one of
    ``KINDS``. The whole-heading patterns decide first; a short heading they miss is read by its head words."""
    if not heading:
        return "body"
    if has_cjk(heading):
        return _cjk_kind(heading)
    words = " ".join(heading.split()).lower().rstrip(" .:")
    words = _NUMBER.sub("", words, count=1) if not words.startswith(("appendix", "annex")) else words
    words = words.replace("&", "and")
    for kind, pattern in _KIND_OF:
        if pattern.fullmatch(words):
            return kind
    return _kind_by_head(words)


def _cjk_kind(heading: str) -> str:
    """The kind of a Chinese heading (see ``_CJK_KINDS``); "body" for a chapter's own summary."""
    words = _CJK_NUMBER.sub("", cjk_compact(heading), count=1)
    if words.startswith("本章"):
        return "body"
    return next((kind for kind, pattern in _CJK_KINDS if pattern.search(words)), "body")


def _kind_by_head(words: str) -> str:
    """The kind a short heading names by the head words of one of its parts (see ``_HEADS``), or "body"."""
    if ":" in words:  # "Discussion: a comparison of ..." is a discussion; "Case study: ..." names none
        words = words.split(":", 1)[0].strip()
    if not words or len(words.split()) > _HEADING_WORDS:
        return "body"
    for conjunct in _CONJUNCTS.split(words):
        part = _LEADING.sub("", conjunct)
        kind = next((k for k, pattern in _KIND_OF if pattern.fullmatch(part)), None)
        if kind is not None and kind not in EXCLUDED:
            return kind
        kind = _named_by_head(part)
        if kind is not None:
            return kind
    return "body"


def _named_by_head(part: str) -> str | None:
    """The kind of one part of a heading: a kind word at its end after at most a few modifiers
    ("k-fold cross validation results"), or one modifier at most before it and what it is of after it
    ("proposed method for estimating bp")."""
    for kind, pattern in _HEAD_AT_END:
        match = pattern.fullmatch(part)
        if match and _modifiers(match["pre"], _MODIFIER_WORDS):
            return kind
    for kind, pattern in _HEAD_THEN_OF:
        match = pattern.fullmatch(part)
        if match and _modifiers(match["pre"], 1) and _modifiers(_LEADING.sub("", match["rest"]), 4):
            return kind
    return None


def _modifiers(words: str | None, most: int) -> bool:
    """Whether ``words`` (none at all is fine) can qualify a heading's head: a few words, none of them a
    pronoun, verb or preposition a sentence would have."""
    if not words:
        return True
    split = words.split()
    return (
        len(split) <= most
        and all(_WORD.fullmatch(w) for w in split)
        and not any(_NOT_MODIFIER.fullmatch(w) for w in split)
    )


def reads_as_biography(sentence: str) -> bool:
    """A sentence that opens or states an author biography (a name, a role and an employer, or a degree
    received): biographies often follow the references with no heading of their own."""
    text = " ".join(sentence.split())
    return bool(_BIO_START.match(text) or _BIO_DEGREE.match(text))


def payload_kind(payload: Mapping[str, Any]) -> str:
    """A chunk's stored section kind, or its section's where none is stored (an index written before kinds
    were) or the stored one is "body": the stored kind is its heading's, so an index written before a
    heading rule named more kinds gets them without a rebuild."""
    stored = payload.get("section_kind")
    return stored if stored and stored != "body" else section_kind(payload.get("section"))
