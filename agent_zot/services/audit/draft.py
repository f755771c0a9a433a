"""A draft as the audit reads it: the original text, what kind of source it is (LaTeX, Markdown, plain), and
a *masked* copy of the same length in which everything that is not prose (markup, math, code, comments,
citations, the reference list) is blanked out. Every offset found in the masked copy is an offset in the
original, so the report can name lines and the patch can edit the exact characters.
"""

from __future__ import annotations

import re
from collections import Counter
from dataclasses import dataclass, field

from agent_zot.errors import InvalidArgumentError
from agent_zot.services.audit.citations import Citation, find_citations

MAX_DRAFT_CHARS = 1_000_000  # about 150,000 words: a whole thesis; a longer text is audited in parts
_CONTROL = re.compile(r"[\x00-\x08\x0b\x0e-\x1f\x7f]")

_LATEX_HINT = re.compile(
    r"\\(?:documentclass|begin\{document\}|(?:sub)*section\*?\{|[a-zA-Z]*cite[a-zA-Z]*\*?\s*[\[{]|emph\{)"
)
_REFERENCES_HEADING = re.compile(
    r"^(?:#{1,6}\s*)?(?:\d+\.?\s*)?(?:references|bibliography|works\s+cited|literature\s+cited|reference\s+list)"
    r"\s*:?\s*$",
    re.IGNORECASE | re.MULTILINE,
)


@dataclass(slots=True)
class Draft:
    text: str
    kind: str  # "latex" | "markdown" | "plain"
    masked: str
    citations: list[Citation]
    unexpanded: Counter[str] = field(default_factory=Counter)  # LaTeX macros the audit could not expand

    def line_of(self, offset: int) -> int:
        return self.text.count("\n", 0, offset) + 1


def checked_text(text: str | None) -> str:
    """The draft's text, refused with a reason when it is empty, binary or too long to audit at once."""
    if text is None or not text.strip():
        raise InvalidArgumentError(
            "The draft is empty.",
            hint="Pass the draft's text (Markdown, LaTeX or plain), or a file path to the CLI.",
        )
    if "\x00" in text or len(_CONTROL.findall(text[:20_000])) > 0.01 * min(len(text), 20_000):
        raise InvalidArgumentError(
            "This looks like binary data, not a draft.",
            hint="Give the text of a .md, .tex or .txt file (export a Word document as Markdown or text first).",
        )
    if len(text) > MAX_DRAFT_CHARS:
        raise InvalidArgumentError(
            f"The draft is {len(text):,} characters long; one audit reads at most {MAX_DRAFT_CHARS:,}.",
            hint="Audit it a chapter or section at a time.",
        )
    return text.replace("\r\n", "\n").replace("\r", "\n")


def decode_file(raw: bytes) -> str:
    """A draft file's bytes as text: UTF-8 (with or without a byte-order mark), else Latin-1 for older
    editors; NUL bytes mean binary data."""
    if b"\x00" in raw[:20_000]:
        raise InvalidArgumentError(
            "This file looks like binary data, not a draft.",
            hint="Give a .md, .tex or .txt file (export a Word document as Markdown or text first).",
        )
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def read_draft(text: str | None) -> Draft:
    cleaned = checked_text(text)
    kind = (
        "latex"
        if _LATEX_HINT.search(cleaned)
        else ("markdown" if re.search(r"\[@|^#{1,6}\s", cleaned, re.M) else "plain")
    )
    masker = _Masker(cleaned)
    if kind == "latex":
        masker.latex_structure()
    else:
        masker.markdown()
    masker.references_section()
    citations = find_citations(cleaned, kind, masker.masked)
    for citation in citations:
        masker.blank(citation.start, citation.end)
    if kind == "latex":
        masker.latex_commands()
    return Draft(cleaned, kind, "".join(masker.chars), citations, masker.unexpanded)


class _Masker:
    """Blanks spans of a copy of the text, keeping newlines so that lines and offsets stay put."""

    def __init__(self, text: str) -> None:
        self.text = text
        self.chars = list(text)
        self.unexpanded: Counter[str] = Counter()

    def blank(self, start: int, end: int, *, boundary: bool = False) -> None:
        for i in range(start, end):
            if self.chars[i] != "\n":
                self.chars[i] = " "
        if boundary and end - start >= 2:  # a heading or an environment ends the sentence before it
            self.chars[start] = self.chars[start + 1] = "\n"

    def blank_all(self, pattern: re.Pattern[str], *, boundary: bool = False) -> None:
        for match in pattern.finditer(self.text):
            self.blank(match.start(), match.end(), boundary=boundary)

    def masked(self, start: int, end: int) -> bool:
        return all(c in " \n" for c in self.chars[start:end])

    def references_section(self) -> None:
        """The reference list at the end is not prose to audit."""
        # The last such heading: a "References" section title earlier in the text is rarer.
        heading = next(reversed(list(_REFERENCES_HEADING.finditer(self.text))), None)
        if heading is not None and heading.start() > len(self.text) // 3:
            self.blank(heading.start(), len(self.text), boundary=True)

    # -- Markdown and plain text ------------------------------------------------------------------

    def markdown(self) -> None:
        self.blank_all(re.compile(r"\A---\n.*?\n(?:---|\.\.\.)\n", re.S))  # YAML front matter
        self.blank_all(re.compile(r"^(`{3,}|~{3,}).*?^\1[ \t]*$", re.S | re.M), boundary=True)  # code blocks
        self.blank_all(re.compile(r"<!--.*?-->", re.S))
        self.blank_all(re.compile(r"`[^`\n]+`"))
        self.blank_all(re.compile(r"^#{1,6}\s.*$", re.M), boundary=True)  # headings
        self.blank_all(re.compile(r"^[ \t]*\|.*\|[ \t]*$", re.M), boundary=True)  # table rows
        self.blank_all(re.compile(r"^[ \t]*(?:[-*+]|\d+[.)])[ \t]+", re.M), boundary=True)  # list markers
        self.blank_all(re.compile(r"!\[[^\]]*\]\([^)]*\)"))  # images
        self.blank_all(re.compile(r"(?<=\])\([^)\s]*\)"))  # link targets
        self.blank_all(re.compile(r"^\[[^\]]+\]:\s+\S+.*$", re.M))  # reference-style link definitions
        self.blank_all(re.compile(r"https?://\S+"))
        self.blank_all(re.compile(r"\$\$.*?\$\$|(?<![\\$])\$[^$\n]+\$", re.S))  # Pandoc math

    # -- LaTeX ----------------------------------------------------------------------------------

    def latex_structure(self) -> None:
        """Preamble, comments, non-prose environments, math, headings: blanked before citations are
        looked for (a citation in a comment is not one)."""
        begin = self.text.find("\\begin{document}")
        if begin >= 0:
            self.blank(0, begin + len("\\begin{document}"))
        end = self.text.find("\\end{document}")
        if end >= 0:
            self.blank(end, len(self.text))
        self.blank_all(re.compile(r"(?<!\\)%.*$", re.M))  # comments
        skipped = "|".join(_SKIPPED_ENVIRONMENTS)
        self.blank_all(re.compile(rf"\\begin\{{({skipped})\*?\}}.*?\\end\{{\1\*?\}}", re.S), boundary=True)
        self.blank_all(re.compile(r"\$\$.*?\$\$|\\\[.*?\\\]|\\\(.*?\\\)|(?<![\\$])\$[^$]+?\$", re.S))
        self.blank_all(re.compile(r"\\(?:begin|end)\{[^}]*\}(?:\[[^\]]*\])?"), boundary=True)
        heading = "|".join(_HEADING_COMMANDS)
        self.blank_all(re.compile(rf"\\(?:{heading})\*?(?:\[[^\]]*\])?\{{[^{{}}]*\}}"), boundary=True)
        dropped = "|".join(_DROPPED_COMMANDS)
        self.blank_all(re.compile(rf"\\(?:{dropped})\*?(?:\[[^\]]*\])*(?:\{{[^{{}}]*\}})?"))
        self.blank_all(re.compile(r"\\item\b(?:\[[^\]]*\])?"), boundary=True)

    def latex_commands(self) -> None:
        """The remaining commands go (their arguments stay as prose); unknown ones are counted."""
        for match in re.finditer(r"\\([a-zA-Z@]+)\*?", self.text):
            if self.masked(match.start(), match.end()):
                continue
            name = match.group(1)
            if "cite" not in name and name not in _KNOWN_COMMANDS:
                self.unexpanded["\\" + name] += 1
            self.blank(match.start(), match.end())  # the command goes; its {argument} stays as text
        self.blank_all(re.compile(r"\\\\|\\[,;:!> ]"))  # line breaks and spacing commands
        for match in re.finditer(r"[{}~]|\\(?=[%&$#_])", self.text):
            if self.chars[match.start()] in "{}~\\":
                self.chars[match.start()] = " "


_SKIPPED_ENVIRONMENTS = (
    "equation",
    "align",
    "alignat",
    "gather",
    "multline",
    "eqnarray",
    "displaymath",
    "math",
    "verbatim",
    "lstlisting",
    "minted",
    "tabular",
    "tabularx",
    "thebibliography",
    "tikzpicture",
    "comment",
)
_HEADING_COMMANDS = (
    "part",
    "chapter",
    "section",
    "subsection",
    "subsubsection",
    "paragraph",
    "subparagraph",
    "title",
    "author",
    "date",
)
# Commands whose argument is not prose (labels, references, files, URLs).
_DROPPED_COMMANDS = (
    "label",
    "ref",
    "eqref",
    "cref",
    "Cref",
    "autoref",
    "pageref",
    "url",
    "includegraphics",
    "bibliography",
    "bibliographystyle",
    "addbibresource",
    "input",
    "include",
    "printbibliography",
    "newcommand",
    "renewcommand",
    "usepackage",
    "hypersetup",
    "vspace",
    "hspace",
)
# Commands that are markup around prose or layout; anything else is reported as not expanded.
_KNOWN_COMMANDS = frozenset(
    {
        *_HEADING_COMMANDS,
        *_DROPPED_COMMANDS,
        "emph",
        "textbf",
        "textit",
        "texttt",
        "textsc",
        "textrm",
        "textsf",
        "underline",
        "footnote",
        "caption",
        "href",
        "maketitle",
        "tableofcontents",
        "centering",
        "noindent",
        "newline",
        "par",
        "item",
        "hline",
        "small",
        "large",
        "Large",
        "footnotesize",
        "normalsize",
        "bf",
        "it",
        "em",
        "ldots",
        "dots",
        "LaTeX",
        "TeX",
        "etal",
        "ie",
        "eg",
        "abstract",
        "keywords",
        "appendix",
        "clearpage",
        "newpage",
        "medskip",
        "bigskip",
        "smallskip",
        "and",
        "thanks",
        "mbox",
        "ensuremath",
        "textsuperscript",
        "textsubscript",
        "begin",
        "end",
    }
)


# A sentence ends at . ! ? (a closing quote or bracket may follow) before whitespace, or at a blank line.
_BOUNDARY = re.compile(r"(?<=[.!?])[\"”’')\]]?(?=\s)|\n[^\S\n]*\n")
_ABBREVIATION = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Figs|Eq|Eqs|Sec|Tab|No|Dr|Mr|Ms|Prof|approx|resp|al|ca|Ch|pp|p|vol)"
    r"|\b[A-Z])\.$",
    re.IGNORECASE,
)


@dataclass(slots=True)
class Sentence:
    start: int  # offsets in the draft (the sentence's first and one past its last character)
    end: int
    prose: str  # the words, without markup or citations
    citations: list[Citation] = field(default_factory=list)


def sentences_of(draft: Draft) -> list[Sentence]:
    """The draft's sentences with the citations inside them. A citation left after the full stop
    ("... works. [@a]") belongs to the sentence before it, as does any piece holding no words."""
    found: list[Sentence] = []
    start = 0
    for boundary in _BOUNDARY.finditer(draft.masked):
        end = boundary.end()
        if not boundary.group().startswith("\n"):  # after . ! ?: unless an abbreviation ends there
            before = draft.masked[max(start, end - 12) : end].rstrip("\"”’')]")
            if _ABBREVIATION.search(before.split()[-1] if before.split() else ""):
                continue
        _add(found, draft, start, end)
        start = end
    _add(found, draft, start, len(draft.text))
    by_start = iter(sorted(draft.citations, key=lambda c: c.start))
    pending = next(by_start, None)
    for index, sentence in enumerate(found):
        while pending is not None and pending.start < sentence.end:
            owner = found[index - 1] if index and pending.start < sentence.start else sentence
            owner.citations.append(pending)
            pending = next(by_start, None)
    if pending is not None and found:
        found[-1].citations.append(pending)
        found[-1].citations.extend(by_start)
    return found


def _add(found: list[Sentence], draft: Draft, start: int, end: int) -> None:
    prose = re.sub(r"\s+(?=[.,;:!?](?:\s|$))", "", " ".join(draft.masked[start:end].split()))
    text = draft.text[start:end]
    lead = len(text) - len(text.lstrip())
    trail = len(text) - len(text.rstrip())
    start, end = start + lead, end - trail
    if end <= start:
        return
    if not re.search(r"[^\W\d_]{2}", prose):  # no words: a citation or markup between sentences
        if found:
            found[-1].end = max(found[-1].end, end)
        return
    found.append(Sentence(start, end, prose))
