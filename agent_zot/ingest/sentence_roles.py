"""What a sentence reads as whatever heading it is under: a reference entry, thanks or back matter, a
caption, page chrome, or the paper's outline of itself. One home for these readers: the passages
(index/sections.py) and the summaries' and matrix's sentence roles (services/paper_reading/roles.py) both
decide by them, so a sentence that is never a passage is never a summary's or a cell's either.
"""

from __future__ import annotations

import re
from functools import lru_cache

from agent_zot.ingest.section_kinds import EXCLUDED, reads_as_biography
from agent_zot.text import CJK_CHARACTERS

# Roles a sentence may read as whatever its heading; with the EXCLUDED section kinds, never a passage.
CAPTION, CHROME, OUTLINE = "caption", "chrome", "outline"
UNCITED = EXCLUDED | {CAPTION, CHROME, OUTLINE}

# A reference entry left in the body (a list the ingest did not take out): "[12] A. Smith, B. Jones. ...",
# "12. Smith J, Jones K (2019) ...", "Dean, J., and Ghemawat, S. 2004. ...", "Eyring, V., Bony, S. (2016)".
_ENTRY_START = re.compile(
    r"^(?:\[\d{1,3}\]|\d{1,3}\.)\s+(?:[A-Z][\w'’-]+,?\s+(?:[A-Z]\.?\s*){1,3}[,.&]|(?:[A-Z]\.\s*)+[A-Z][\w'’-]+)"
    r"|^[A-Z][\w'’-]+,\s+(?:[A-Z]\.\s*){1,3}(?:,|&|and\b|\(?(?:19|20)\d\d)"
)
# What an entry holds and prose seldom does: a year, a venue, volume and pages.
_ENTRY_MARK = re.compile(
    r"\b(?:19|20)\d\d[a-z]?\b|\bIn\s+Proc|\bProceedings\b|\bvol\.|\bpp\.\s*\d|\bJournal\b|\bConference\b"
    r"|\bdoi\b|\bet\s+al\.|\d+\s*\(\d+\)\s*[:,]\s*\d+"
)
# "[3] J. Dean and ..." or "[3] Dean, J., ...": a bracketed number before initials and a surname opens an
# entry even where the sentence ends before its year.
_BRACKETED_ENTRY = re.compile(
    r"^\[\d{1,3}\]\s+(?:(?:[A-Z]\.\s*)+[A-Z][\w'’-]+[\s,]|[A-Z][\w'’-]+,\s+(?:[A-Z]\.\s*)+)"
)
ENTRY_PIECE_CHARS = 120  # an entry split at its full stops leaves pieces shorter than this (title, venue)

# Thanks and funding wherever printed (an unheaded last paragraph, a first-page footnote). "Supported by
# the data" is no thanks: a funder is named by a capital or by a grant, foundation, council ...
_THANKS = re.compile(
    r"\b(?:(?:[Ww]e|I)\s+(?:(?:also|further|additionally|especially|particularly|sincerely|warmly|wish\s+to"
    r"|would\s+(?:also\s+)?like\s+to)\s+)*(?:thank|are\s+(?:also\s+)?(?:very\s+)?grateful)"
    r"|[Ww]e\s+gratefully\s+acknowledge"
    r"|(?:is|are|was|were|been)\s+(?:partially\s+|partly\s+|generously\s+)?(?:supported|funded|sponsored)"
    r"\s+(?:in\s+part\s+)?by\s+(?:the\s+|a\s+|an\s+)?(?:[A-Z]|grants?\b))"
)
_FUNDING = re.compile(
    r"\b(?:grateful\s+to|(?:supported|funded|sponsored|financed)\s+(?:in\s+part\s+|partially\s+|partly\s+)?"
    r"(?:by|through|under)\b[^.]{0,80}?\b(?:grants?|foundation|fund|council|commission|agency|programme"
    r"|program|ministry|award|fellowship|NSF|NIH|ERC|DARPA|EPSRC|DFG)\b|grant\s+(?:agreement|no\.?|number)"
    r"|acknowledge?ments?\b)",
    re.IGNORECASE,
)
# A journal's back-matter statements, printed as run-in heads after the conclusion: "Author Contributions:
# Y.L. performed ...", "Conflicts of Interest: The authors declare ...". They state nothing of the findings.
_BACK_MATTER = re.compile(
    r"^(?:Author\s+Contributions?|Authors'?\s+Contributions?|Conflicts?\s+of\s+Interests?|Competing\s+Interests?"
    r"|Declaration\s+of\s+Competing\s+Interests?|Funding|Data\s+Availability(?:\s+Statement)?"
    r"|Institutional\s+Review\s+Board\s+Statement|Informed\s+Consent\s+Statement|Ethics\s+(?:Statement|Approval)"
    r"|Abbreviations|Supplementary\s+Materials)\s*[:.]",
    re.IGNORECASE,
)
# An author-contributions statement's sentences after its head, which the splitter may leave as sentences of
# their own: authors by their initials doing a part of the work ("D.A., N.H., and R.W. conceived the study"),
# or all of them approving it ("All authors approved the final manuscript.").
_INITIALS = r"[A-Z]\.(?:\s?-?[A-Z][a-z]?\.){1,3}"
_CONTRIBUTED = re.compile(
    rf"^{_INITIALS}(?:\s*,\s*{_INITIALS})*(?:,?\s+(?:and|&)\s+{_INITIALS})?\s+(?:also\s+|jointly\s+)?"
    r"(?:conceived|conceptuali[sz]ed|designed|performed|wrote|drafted|edited|revised|reviewed|supervised|led"
    r"|analy[sz]ed|collected|acquired|curated|contributed|carried\s+out|prepared|implemented|interpreted"
    r"|administered|developed|provided|secured|obtained)\b"
    r"|^All\s+authors\s+(?:have\s+)?(?:read|approved|agreed|contributed|reviewed|revised|discussed)\b.*"
    r"\b(?:manuscript|paper|article|submission|version)\b"
)

# "Figure 3: ...", "TABLE II. ...", "Fig. 2 Overview ...": a caption's opening; "Figure 3 shows ..." is
# the body talking about it. "Note: SBP refers to ..." and "Note, SBP refers to ..." are a table's note;
# "Note, however, that the model ..." is the body's.
_CAPTION_START = re.compile(
    r"^(?:Figure|FIGURE|Fig\.?|FIG\.?|Table|TABLE|Tab\.)\s*(?:[A-Z]\.?\d{1,2}|\d{1,3}[a-z]?|[IVXL]{1,6})"
    r"(?:\s*[:.|—–]|\s+[A-Z])|^Notes?\s*[:.]\s|^Note,\s+[A-Z]{2,}"
)
# A Chinese or Japanese caption's label ("图 4.1", "表 2-6", "圖 3"), and a Chinese journal's English one with a
# full-width stop ("Fig．13", "Table．2"). Such a caption has a line of its own and no sentence punctuation
# ("图 4.1 静态目标击打与动态目标击打"); "图 4.1 为系统框图。" is the body. A journal may set the Chinese title's
# number without its 图, above the English one ("4 平面五连杆模型及其参数" / "Fig．4 Planar five-link model").
_FIGURE_NUMBER = r"\d{1,3}(?:[.．-]\d{1,3}){0,2}"
_CJK_LABEL = rf"[图表圖][^\S\n]*{_FIGURE_NUMBER}"
_WIDE_LABEL = r"(?:Fig|Figure|Tab|Table)[^\S\n]*．[^\S\n]*\d{1,3}"
_CJK_TITLE = r"[^\S\n]*[^\s。，；！？][^\n。，；！？]{0,50}"
_TITLE_OVER_WIDE = rf"{_FIGURE_NUMBER}[^\S\n]*[{CJK_CHARACTERS}][^\n。，；！？]{{0,40}}?"
CJK_CAPTION_LINES = re.compile(
    rf"^(?:{_TITLE_OVER_WIDE}[^\S\n]*\n)?{_WIDE_LABEL}[^\n]*$|^{_CJK_LABEL}{_CJK_TITLE}$", re.MULTILINE
)
_CJK_CAPTION = re.compile(rf"(?:{_TITLE_OVER_WIDE}\s+)?{_WIDE_LABEL}.*|{_CJK_LABEL}{_CJK_TITLE}", re.DOTALL)
# A caption's label split off as a sentence of its own ("Table 5." then "The Pearson correlation ..."): the
# sentence after it opens the caption.
_CAPTION_LABEL = re.compile(
    r"^(?:Figure|FIGURE|Fig\.?|FIG\.?|Table|TABLE|Tab\.)\s*(?:[A-Z]\.?\d{1,2}|\d{1,3}[a-z]?|[IVXL]{1,6})\s*[.:|]?$"
)
# Page furniture: arXiv stamps, copyright and permission notices, download stamps, bare addresses, and the
# authors' e-mail and affiliation lines (a sentence holding an e-mail address is front matter, not content).
# A book's imprint page too: ISBNs, cataloguing data and the publisher's legal notices ("The publisher remains
# neutral with regard to jurisdictional claims ...", "Printed on acid-free paper").
_CHROME = re.compile(
    r"arXiv:\s?\d{4}\.\d{4,5}(?:v\d+)?|permission to make digital or hard copies|all rights (?:are )?reserved"
    r"|\b(?:e-)?IS[BS]N\b|subject to copyright|acid-free paper|neutral with regard to jurisdictional claims"
    r"|library of congress|british library|catalogu?ing[- ]in[- ]publication|general descriptive names"
    r"|registered names,? trademarks|safe to assume that the advice|(?:give a warranty|no representation),? express"
    r"|imprint is published by|copyright,? designs and patents act|copyright licensing agency"
    r"|contents lists available at|journal homepage:|article history:|received in revised form"
    r"|(?:©|\(c\)|copyright)\s*(?:\d{4}|by|the)|downloaded from|authorized licensed use|licensed under a creative"
    r"|^(?:https?://|www\.)\S+$|[\w.+-]+@[\w-]+(?:\.[\w-]+)*\.[a-z]{2,}\b|^(?:page\s+)?\d{1,4}(?:\s+of\s+\d{1,4})?$",
    re.IGNORECASE,
)


def _flat(sentence: str) -> str:
    return " ".join(sentence.split())


def opens_entry(sentence: str) -> bool:
    """A sentence that starts as a reference entry does: a number or a surname before initials."""
    return bool(_ENTRY_START.match(sentence) or _BRACKETED_ENTRY.match(sentence))


def has_entry_mark(sentence: str) -> bool:
    """A year, venue, volume or page mark: what an entry's pieces hold."""
    return bool(_ENTRY_MARK.search(sentence))


def reads_as_reference(sentence: str) -> bool:
    """A sentence that opens a reference entry: a numbered or author-initials start, and a year, venue or
    page mark (or, short, a piece of an entry split at its full stops)."""
    text = _flat(sentence)
    if _BRACKETED_ENTRY.match(text):
        return True
    return bool(_ENTRY_START.match(text)) and (len(text) < ENTRY_PIECE_CHARS or has_entry_mark(text))


# Words one of the thanks or chrome patterns needs: most sentences hold none, and a substring test is much
# cheaper than the patterns (these run on every sentence of every candidate chunk of a search).
_THANKS_WORDS = ("thank", "grateful", "acknowledg", "support", "fund", "sponsor", "financ", "grant")
_CHROME_WORDS = ("arxiv", "permission", "rights reserved", "rights are reserved", "©", "(c)", "copyright",
                 "downloaded", "licensed", "isbn", "issn", "acid-free", "jurisdictional", "library of congress",
                 "british library", "cataloging", "cataloguing", "descriptive names", "trademarks", "safe to assume",
                 "warranty", "no representation", "imprint is", "contents lists", "homepage", "article history",
                 "revised form")  # fmt: skip
_CHROME_SHORT = 24  # a bare page number, address or e-mail is at most this long ... or has these marks:
_CHROME_MARKS = ("http", "www.", "@")


def reads_as_thanks(sentence: str) -> bool:
    """Thanks, funding, or a journal's back-matter statement (author contributions, conflicts of interest,
    data availability)."""
    text = _flat(sentence)
    if _BACK_MATTER.match(text) or _CONTRIBUTED.match(text):
        return True
    lower = text.lower()
    return any(word in lower for word in _THANKS_WORDS) and bool(
        _THANKS.search(text) or _FUNDING.search(text)
    )


# A table of contents' entry: a title, dot leaders and its page number ("7.1 Philosophies . . . . . 201"); the
# sentence splitter may cut the number off after the leaders ("3.5 Illustration ........" | "45 3.6 ...").
_CONTENTS_ENTRY = re.compile(r"(?:\.\s?){5,}\s*(?:\d{1,4}\b|$)")


def reads_as_caption(sentence: str) -> bool:
    """A sentence that opens a figure's or table's caption (a Chinese one too), or a table's note."""
    text = sentence.strip()
    return bool(_CAPTION_START.match(text)) or _CJK_CAPTION.fullmatch(text) is not None


def is_caption_label(sentence: str) -> bool:
    """A caption's label standing alone ("Table 5.", "Fig. 3:"): what follows it is the caption."""
    return bool(_CAPTION_LABEL.match(sentence.strip()))


# A run of names and places: title-case words with at most one lowercase word that is not a connector.
_NAME_WORDS = re.compile(r"[^\W\d_][^\W\d_’'-]*")
_CONNECTORS = frozenset(("of", "and", "the", "for", "in", "at", "on", "an", "de", "van", "der", "von", "la", "le",
                         "du", "des", "di", "da", "del", "y", "e", "et", "al", "und", "für"))  # fmt: skip
NAME_LIST_WORDS = 12  # fewer words than this are a heading's or a title's, kept as they are


def _name_words(text: str) -> tuple[int, int, int]:
    """(words, capitalised names, lower-case words that are no connector) of ``text``."""
    words = [word for word in _NAME_WORDS.findall(text) if len(word) > 1]
    titled = sum(word[0].isupper() and word[1].islower() for word in words)
    lower = sum(
        1 for word in words if word[0].islower() and len(word) > 2 and word.lower() not in _CONNECTORS
    )
    return len(words), titled, lower


def reads_as_name_list(sentence: str) -> bool:
    """A list of names and places rather than a statement: an author and affiliation block ("Petro Feketa,
    Humberto Stein Shiromoto, Sergey Dashkovskiy, Department of Civil Engineering, University of Applied
    Sciences Erfurt …"), a book series' editors, a list of observatories. Half its words or more are
    capitalised names and at most one other is in lower case; acronyms ("PATR, PPG") count as neither. Read
    with the title above it (no full stop between them), it is the lines that hold most of its text that
    read so."""
    count, titled, lower = _name_words(sentence)
    if count < NAME_LIST_WORDS or titled < 0.5 * count:
        return False
    if lower <= 1:
        return True
    named = 0
    for line in sentence.split("\n"):
        words, names, others = _name_words(line)
        if words >= 3 and names >= 0.5 * words and others <= 1:
            named += len(line)
    return named >= 0.6 * len(sentence)


def reads_as_chrome(sentence: str) -> bool:
    """Page furniture: an arXiv stamp, a copyright or permission notice, a bare address or page number, a
    table of contents' entries, a list of names and places (the front matter's author and affiliation block,
    a series page)."""
    if _CONTENTS_ENTRY.search(sentence) or reads_as_name_list(sentence):
        return True
    text = _flat(sentence)
    lower = text.lower()
    if not (
        len(text) <= _CHROME_SHORT
        or any(word in lower for word in _CHROME_WORDS)
        or any(mark in lower for mark in _CHROME_MARKS)
    ):
        return False
    return bool(_CHROME.search(text))


# The paper telling where things are in it ("The rest of this paper is organized as follows", "Section 3
# discusses the precision of the calculator", "Finally, Section 5 summarizes ...") and its keyword lines: they
# share a question's words and answer nothing. "Section 4 shows that the error halves" states a finding
# (a "that" after the verb) and stays content.
_OUTLINE = re.compile(
    r"^(?:(?:finally|then|next|first|second|third|lastly|also|in\s+addition|furthermore|moreover),?\s+)?"
    r"(?:(?:the\s+)?(?:rest|remainder|outline|organi[sz]ation|structure)\s+of\s+(?:this|the)\s+(?:paper|article"
    r"|chapter|thesis|report|work|letter|note)\b"
    r"|(?:this|the)\s+(?:paper|article|chapter|thesis|report)\s+is\s+(?:organi[sz]ed|structured|arranged)\b"
    r"|(?:in\s+)?(?:sections?|sect\.|sec\.|chapters?|appendix)\s+[\dIVX]+(?:\.\d+)*(?:\s*(?:and|to|-|–)\s*[\dIVX]+)?"
    r"\s*,?\s+(?:we\s+)?(?:is\s+devoted|are\s+devoted|discuss|describ|present|summari|introduc|conclud|review"
    r"|detail|provid|give|outline|report|explain|deal|address|focus|contain|cover|compar|illustrat|formulat"
    r"|offer|draw|evaluat|analy[sz]|consider|examin|investigat))"
    r"|^(?:key\s*words?|index\s+terms|unified\s+astronomy\s+thesaurus\s+concepts|subject\s+headings"
    r"|jel\s+(?:codes?|classification))\s*[:—–-]",
    re.IGNORECASE,
)
_OUTLINE_WORDS = ("section", "sect.", "sec.", "chapter", "appendix", "paper", "article", "thesis", "report",
                  "work", "letter", "note", "key", "index terms", "thesaurus", "subject headings", "jel")  # fmt: skip


def reads_as_outline(sentence: str) -> bool:
    """The paper's outline of itself, or its keyword line (not one stating a finding: "... shows that")."""
    text = _flat(sentence)
    lower = text.lower()
    if not any(word in lower for word in _OUTLINE_WORDS):
        return False
    found = _OUTLINE.search(text)
    return found is not None and re.search(r"\bthat\b", text[found.end() :], re.IGNORECASE) is None


@lru_cache(maxsize=32_768)
def reading(sentence: str) -> str | None:
    """What ``sentence`` reads as whatever its heading, in the order the readings win: "references",
    "acknowledgements" (thanks, funding, back matter), CAPTION, CHROME, OUTLINE, "biography"; None for a
    sentence of the body. Cached: a search reads the same candidate sentences again and again."""
    if reads_as_reference(sentence):
        return "references"
    if reads_as_thanks(sentence):
        return "acknowledgements"
    if reads_as_caption(sentence):
        return CAPTION
    if reads_as_chrome(sentence):
        return CHROME
    if reads_as_outline(sentence):
        return OUTLINE
    return "biography" if reads_as_biography(sentence) else None
