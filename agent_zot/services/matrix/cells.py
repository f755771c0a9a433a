"""The candidates of a review-matrix cell: up to four short, page-cited places in one paper that answer
one question, for the assistant to choose from.

Every sentence of the paper's indexed pages is a candidate (a paper has a few hundred; scoring them all
costs milliseconds, and the answer to "how many machines" is often in a sentence no retrieved chunk
opened with). Each is scored by:

- its words against the question and the words papers answer that kind of question with (BM25, IDF over
  the paper's own sentences, so a word the paper uses everywhere says little);
- the rank of the indexed chunks holding it, for the question (the dense, paraphrase-tolerant signal);
- how an answer of the question's kind reads (questions.py): a count is a number next to the thing
  counted, a problem statement says "we address …", a limitation "however … does not";
- where it is: problem and method statements sit in the abstract and introduction, limitations late;
  a sentence in a related-work section is about other papers, and a heading or a table row is no answer.

The best sentences become candidates (with the next sentence when one alone is a fragment), at most one
per place, so the candidates are different readings of the paper. What each signal is worth depends on
the question's kind (weights.py: one column of fitted weights a kind), and a cell offers a fourth
candidate when it scores close to the first: candidates are cut to fit the page, so a fourth costs
characters of the others, not of the page.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from agent_zot.index.retrieval import search_papers
from agent_zot.index.sentences import SENTENCE_AVG_TERMS, prose_share
from agent_zot.index.sparse import Bm25Encoder
from agent_zot.index.store import SearchFilter
from agent_zot.services.context import AppContext
from agent_zot.services.matrix.counts import count_in, exact, has_number, measure_in, the_only_count
from agent_zot.services.matrix.quantities import Quantity, asks_quantity
from agent_zot.services.matrix.weights import weights_of
from agent_zot.services.paper_reading.questions import QuestionKind, classify, telling_words
from agent_zot.services.paper_reading.roles import ANSWERED_BY, FRONT, Sentence, excluded, paper_sentences
from agent_zot.services.routing.scan import words

__all__ = ["Candidate", "PaperText", "candidates", "chunk_ranks", "query_of"]

MAX_CANDIDATES = 4
CHUNKS = 8  # the question's best chunks in the paper, for the rank signal
_SECTIONS = (
    "front",
    "abstract",
    "introduction",
    "methods",
    "results",
    "discussion",
    "conclusion",
    "limitations",
)
# Section kinds that neither answer a question kind nor speak against it: a count or the data is often
# stated in the abstract too.
_NEUTRAL: dict[str, frozenset[str]] = {
    "count": frozenset({"abstract", FRONT, "appendix"}),
    "data": frozenset({"abstract", FRONT, "appendix"}),
    "method": frozenset({"introduction", "appendix"}),
    "problem": frozenset({"appendix"}),
    "result": frozenset({"appendix"}),
    "limitation": frozenset({"results", "appendix"}),
}
MIN_SCORE = 0.6  # below this the cell is "not found"
ALTERNATIVE = 0.7  # a second or later candidate is shown when it scores this share of the first
MEASURED_FIRST = 12  # a measure question reads the quantities of this many of its best sentences
# Features of a sentence whatever the question (PaperText.static), computed once per paper.
_STATIC = ("prose", "front_matter", "related_work", "roadmap", "prior", "figure", "title")
_SETUP_KINDS = frozenset({"methods", "results"})
FRAGMENT_CHARS = 70  # a shorter sentence takes the next one along
MAX_SENTENCE_CHARS = 600

# The front matter and page furniture: affiliations, addresses, dates, licences. No answer is in them.
_FRONT_MATTER = re.compile(
    r"@\w|https?://|www\.|\bdoi\s*[:.]?\s*10\.\d|doi\.org|\barXiv:\s*\d|©|\b[Cc]opyright\b|\bCorrespond"
    r"|\b(?:University|Universit[àäéy]|Institute|Department|Faculty|School\s+of|Laborator(?:y|ies|oire))\b"
    r"|\b(?:Received|Accepted|Published|Revised)\b:?\s*(?:\d|[A-Z][a-z]+\s+\d)|\blicen[cs]ed?\b|\bKeywords\b"
    r"|\bIndex\s+Terms\b|\b(?:supported|funded)\s+(?:in\s+part\s+)?by\b|\bgrants?\s+(?:no\.?|number|[A-Z]{2,}\d)"
    r"|\backnowledge?ments?\b|\bwe\s+thank\b"
)
_WORD = re.compile(r"[a-z]+")
_EARLY = frozenset({"abstract", "introduction", "background", FRONT})
_LATE = frozenset({"discussion", "conclusion", "limitations"})
_RELATED = ("related work", "prior work", "previous work", "literature review")
_REFERENCE = re.compile(r"\[\d+(?:[,–-]\s*\d+)*\]")
# About other papers: "Smith et al. [12] used ...", "(Jones et al., 2019) showed".
_CITES_OTHERS = re.compile(
    r"\b[A-Z][a-z]+\s+et\s+al\.?\s*(?:\[\d+|\(\d{4}|,?\s*\d{4})|\[\d+(?:[,–-]\s*\d+)*\]\s+(?:used|proposed|showed"
    r"|presented|introduced|developed|reported|applied)"
)
_OWN_WORK = re.compile(
    r"\b(?:we|our|us|(?:this|the\s+present|the\s+current|the\s+proposed)\s+(?:paper|work|article|study|research"
    r"|thesis|chapter|letter|note|survey|review|report))\b",
    re.IGNORECASE,
)
_PRIOR_WORK = re.compile(
    r"\b(?:(?:have|has|had)\s+been\s+(?:proposed|reported|developed|studied|investigated|introduced|applied|used"
    r"|explored|presented)|(?:previous|prior|earlier|existing|recent|other|conventional|traditional)\s+(?:studies"
    r"|works?|research|approaches|methods|papers|techniques|literature)|in\s+the\s+literature|were\s+(?:also\s+)?"
    r"reported|(?:many|several|some|various|numerous)\s+(?:studies|researchers|authors|approaches|methods|works))\b",
    re.IGNORECASE,
)
_ROADMAP = re.compile(
    r"\b(?:(?:in\s+)?sections?\s+\d|(?:the\s+)?(?:rest|remainder|outline)\s+of\s+(?:this|the)\s+(?:paper|article)"
    r"|(?:is|are)\s+organi[sz]ed\s+as\s+follows|this\s+(?:paper|article)\s+is\s+organi[sz]ed)",
    re.IGNORECASE,
)
_FIGURE = re.compile(r"^(?:as\s+(?:shown|seen)\s+in\s+)?(?:fig(?:ure)?\.?|table)\s*\d+", re.IGNORECASE)
_TOTAL = re.compile(
    r"\b(?:a\s+total\s+of|in\s+total|total(?:ly|ling)?|overall|consist(?:s|ed|ing)?\s+of"
    r"|compris\w+|contain\w*|collected\s+from|recruited|enrolled|yield\w*|obtained)\b",
    re.IGNORECASE,
)
_MEASURED = re.compile(
    r"±|\d\s?%|\b(?:mae|rmse|mse|accuracy|error|auc|f1|precision|recall|correlation|sensitivity|specificity"
    r"|speed-?up|faster|mmhg)\b[^.]{0,40}\d|\d[^.]{0,20}\b(?:mmhg|times\s+faster)\b",
    re.IGNORECASE,
)
# The paper's own setup: "we recruited", "were collected", "our experiments ran on".
_OWN_SETUP = re.compile(
    r"\b(?:we\s+(?:\w+ly\s+)?(?:used|use|recruited|collected|enrolled|ran|run|deployed|evaluated|gathered|obtained"
    r"|selected|sampled|recorded|analy[sz]ed|included|interviewed|surveyed|trained|tested|conducted|built)"
    r"|(?:were|was)\s+(?:\w+ly\s+)?(?:recruited|collected|enrolled|used|included|selected|sampled|recorded"
    r"|gathered|interviewed|surveyed|deployed)|our\s+(?:experiments?|study|cluster|testbed|data\s*set|sample))\b",
    re.IGNORECASE,
)
# What the work is evaluated on: "validated using two datasets", "illustrated in two examples", "the signals
# were acquired from 30 patients", "the dataset consists of".
_EVALUATED = re.compile(
    r"\b(?:(?:evaluat|validat|tested|test\s+(?:it|them|our|the)|assess|verif|illustrat|benchmark)\w*\s+(?:\w+\s+){0,3}?"
    r"(?:on|using|with|through|in|against|by|from)\b|(?:data|signals?|recordings?|measurements?|images?|samples?"
    r"|records?|observations?|light\s*curves?)\s+(?:were|was|are|is)\s+(?:\w+ly\s+)?(?:collected|acquired|obtained"
    r"|extracted|recorded|measured|gathered|downloaded|drawn|taken|sampled)|(?:data\s*set|database|corpus|benchmark"
    r"|suite|sample)\s+(?:\w+\s+){0,2}?(?:consists?|contains?|comprises?|includes?|was\s+(?:collected|built|drawn))"
    r"|numerical\s+(?:simulations?|examples?|experiments?)|examples?\s+(?:illustrat|show|demonstrat)\w*"
    r"|simulations?\s+(?:results|study|is\s+based|were\s+(?:run|performed|conducted)))",
    re.IGNORECASE,
)
_SMALL_WORDS = words(
    "a an and as at by for from in of on or the to with via into over under using without vs versus de la von van der"
)
_CAPITALISED = re.compile(r"[^\W\d_][\w'’-]*")
TITLE_SHARE = 0.6  # a title or an author list: this share of its words capitalised
_FUTURE = re.compile(
    r"\b(?:future\s+(?:work|research|study|studies)|we\s+plan|will\s+be\s+(?:needed|required)"
    r"|further\s+(?:work|research|testing|studies)|is\s+(?:needed|required))\b",
    re.IGNORECASE,
)


@dataclass(slots=True)
class PaperText:
    """One paper's indexed pages as sentences, with their BM25 vectors: built once per row of a matrix."""

    attachment_key: str | None  # None for an abstract
    sentences: list[Sentence]
    encoder: Bm25Encoder = field(default_factory=lambda: Bm25Encoder(avg_len=SENTENCE_AVG_TERMS))
    _vectors: list[dict[int, float]] | None = None
    _static: list[dict[str, float]] | None = None

    @classmethod
    def of(cls, attachment_key: str | None, pages: list[tuple[int | None, str]]) -> PaperText:
        return cls(attachment_key, paper_sentences(pages))

    def abstract_order(self) -> dict[int, int]:
        """The first sentences of the paper's abstract (or its opening, when no heading says where the
        abstract is), by their place in it: problem statements and main results open a paper."""
        opening = [
            s
            for s in self.sentences
            if s.kind in (FRONT, "abstract") and not _FRONT_MATTER.search(s.text) and not _first_page_title(s)
        ]
        return {s.index: n for n, s in enumerate(opening[:8])}

    def static(self) -> list[dict[str, float]]:
        """What each sentence is, whatever the question: its place, how much of it is prose, and whether it
        is front matter, about other work, the paper's outline, about a figure, its own statement."""
        if self._static is None:
            last = max(1, len(self.sentences) - 1)
            self._static = []
            for sentence in self.sentences:
                text = sentence.text
                early, late = _place(sentence, sentence.index / last)
                self._static.append(
                    {
                        "early": early,
                        "late": late,
                        "prose": prose_share(text),
                        "front_matter": float(
                            bool(_FRONT_MATTER.search(text)) and sentence.page in (None, 1)
                        ),
                        "related_work": float(_about_others(sentence)),
                        "cites": float(bool(_REFERENCE.search(text) or _CITES_OTHERS.search(text))),
                        "roadmap": float(bool(_ROADMAP.search(text))),
                        "prior": float(bool(_PRIOR_WORK.search(text))),
                        "figure": float(bool(_FIGURE.match(text))),
                        "own": float(bool(_OWN_WORK.search(text))),
                        "number": float(has_number(text)),
                        "title": float(_first_page_title(sentence)),
                    }
                )
        return self._static

    def vectors(self) -> list[dict[int, float]]:
        if self._vectors is None:
            encoded = self.encoder.encode_documents([s.text for s in self.sentences])
            self._vectors = [dict(zip(v.indices, v.values, strict=True)) for v in encoded]
        return self._vectors

    def lexical(self, query: str) -> list[float]:
        """BM25 of every sentence against ``query``, IDF from this paper's sentences, scaled to 0..1."""
        terms = set(self.encoder.encode_query(query).indices)
        vectors = self.vectors()
        if not terms or not vectors:
            return [0.0] * len(vectors)
        frequency: dict[int, int] = {}
        for vector in vectors:
            for term in terms & vector.keys():
                frequency[term] = frequency.get(term, 0) + 1
        total = len(vectors)
        idf = {t: math.log(1 + (total - n + 0.5) / (n + 0.5)) for t, n in frequency.items()}
        scores = [sum(idf[t] * vector[t] for t in terms & vector.keys()) for vector in vectors]
        top = max(scores, default=0.0) or 1.0
        return [s / top for s in scores]


@dataclass(slots=True)
class Candidate:
    text: str
    page: int | None  # None: from the abstract
    score: float
    quantity: Quantity | None = None
    focus: int = 0  # where in the text the answer starts (a count, a cue), for a cut excerpt


def query_of(question: str) -> str:
    """What is searched for a question: its words and the words papers answer its kind with."""
    return f"{question} {classify(question).expansion}".strip()


def candidates(
    paper: PaperText,
    question: str,
    ranked: dict[int, float] | None = None,
    *,
    limit: int = MAX_CANDIDATES,
    alternative: float = ALTERNATIVE,
) -> list[Candidate]:
    """Up to ``limit`` places in ``paper`` that answer ``question``, best first ([] when none does): the
    second and later only when they score ``alternative`` of the first. ``ranked``: each sentence's
    chunk-rank signal (``chunk_ranks``); none for an abstract."""
    sentences = paper.sentences
    if not sentences:
        return []
    kind = classify(question)
    signals = features(paper, question, ranked, measures=False)
    telling = telling_words(question)
    weights = weights_of(kind.name)
    scored = [
        (sum(weights[name] * value for name, value in values.items()), sentence, count)
        for sentence, (values, count) in zip(sentences, signals, strict=True)
        if not excluded(sentence.kind, kind.name) and _answers(kind, sentence.text, values, count, telling)
    ]
    scored.sort(key=lambda entry: (-entry[0], entry[1].index))
    if kind.name != "count" and asks_quantity(question):
        scored = _with_measures(scored, question, kind, weights["measure"])
    chosen: list[Candidate] = []
    taken: set[int] = set()
    for score, sentence, count in scored:
        if score < MIN_SCORE or len(chosen) == limit or (chosen and score < alternative * chosen[0].score):
            break
        if sentence.index in taken:
            continue
        text, used = _window(sentences, sentence)
        if not _distinct(text, chosen):
            continue
        taken.update(used)
        taken.update({sentence.index - 1, sentence.index + 1})
        # a count was read from the sentence, a measure from the whole candidate: each is checked in its own
        source = sentence.text if count is not None or sentence.text == text else text
        found = count if source is sentence.text else measure_in(question, kind, text)
        focus = _focus(text, kind, found, max(0, text.find(source)))
        reported = found if found is not None and _own_value(sentence, source, found, kind) else None
        # (a number that is not the paper's own answer to report still says where the candidate's answer is)
        chosen.append(Candidate(text, sentence.page, round(score, 3), reported, focus))
    return chosen


def _with_measures(
    scored: list[tuple[float, Sentence, Quantity | None]], question: str, kind: QuestionKind, weight: float
) -> list[tuple[float, Sentence, Quantity | None]]:
    """The best sentences of a measure question ("what dose", "what accuracy") with the quantity each
    holds, and its weight added: parsing quantities is the slow part, so only the MEASURED_FIRST best are
    read, which is where a measure that answers sits."""
    head, tail = scored[:MEASURED_FIRST], scored[MEASURED_FIRST:]
    read = []
    for score, sentence, _ in head:
        quantity = measure_in(question, kind, sentence.text)
        read.append((score + (weight if quantity is not None else 0.0), sentence, quantity))
    read.sort(key=lambda entry: (-entry[0], entry[1].index))
    return read + tail


def features(
    paper: PaperText, question: str, ranked: dict[int, float] | None = None, *, measures: bool = True
) -> list[tuple[dict[str, float], Quantity | None]]:
    """Each sentence's features for ``question`` (the names of ``weights.FEATURES``), and the count or measure it
    holds; ``measures=False`` leaves the measure of a measure question unread (``_with_measures``)."""
    kind = classify(question)
    lexical = paper.lexical(query_of(question))
    ranked = ranked or {}
    opening = paper.abstract_order() if kind.name in ("problem", "method", "result") else {}
    found = []
    for sentence, matched, static in zip(paper.sentences, lexical, paper.static(), strict=True):
        text = sentence.text
        if kind.name == "count":
            count = count_in(text, kind)
        else:
            count = measure_in(question, kind, text) if measures else None
        role, off_role = _role(kind, sentence)
        counted = kind.name == "count" and count is not None
        values = (
            {
                "role": role,
                "off_role": off_role,
                "setup": float(counted and (sentence.kind in _SETUP_KINDS or bool(_OWN_SETUP.search(text)))),
                "cites": float(counted and static["cites"] > 0),
                "lexical": matched,
                "chunk": ranked.get(sentence.index, 0.0),
                "cue": float(kind.cues is not None and bool(kind.cues.search(text))),
                "early": kind.early * static["early"],
                "late": kind.late * static["late"],
                "count": float(kind.name == "count" and count is not None),
                "measure": float(kind.name != "count" and count is not None),
                "total": float(kind.name == "count" and count is not None and bool(_TOTAL.search(text))),
                "number": float(kind.name == "count" and count is None and static["number"] > 0),
                "measured": float(kind.name == "result" and bool(_MEASURED.search(text))),
                "opening": 1 / (1 + opening[sentence.index]) ** 0.5 if sentence.index in opening else 0.0,
                "off_kind": float(_off_kind(kind, text)),
                "own": float(kind.name != "count" and static["own"] > 0),
                "evaluated": float(kind.name == "data" and bool(_EVALUATED.search(text))),
                "abstract_data": float(kind.name == "data" and sentence.kind in (FRONT, "abstract")),
                "future": float(kind.name == "limitation" and bool(_FUTURE.search(text))),
            }
            | {f"in_{name}": float(sentence.kind == name) for name in _SECTIONS}
            | {name: static[name] for name in _STATIC}
        )
        found.append((values, count))
    return found


def title_like(text: str) -> bool:
    """Whether a sentence reads as a title or an author list: most of its words (not "of", "and") are
    capitalised, as no sentence of prose is."""
    named = [w for w in _CAPITALISED.findall(text) if w.lower() not in _SMALL_WORDS]
    return len(named) >= 4 and sum(w[0].isupper() for w in named) >= TITLE_SHARE * len(named)


def front_matter(text: str) -> bool:
    """Whether a sentence holds front matter or page furniture (an affiliation, an address, a licence)."""
    return bool(_FRONT_MATTER.search(text))


def word_stems(text: str) -> set[str]:
    """The words of a sentence as a question's telling words are matched: lower case, three letters or
    more, cut to six (a crude stem: "collected" and "collection" agree)."""
    return {w[:6] for w in _WORD.findall(text.lower()) if len(w) > 2}


def chunk_ranks(ctx: AppContext, item_key: str, question: str, paper: PaperText) -> dict[int, float]:
    """Each sentence's best rank among the question's best chunks in the paper, as (k + 1) / (k + rank)."""
    sentences = paper.sentences
    found = search_papers(
        ctx.index(),
        query_of(question),
        limit=1,
        search_filter=SearchFilter(item_keys=(item_key,), kinds=("chunk",)),
        passages_per_paper=CHUNKS,
        detail="full",
    )
    chunks = [" ".join(p.text.split()) for p in (found[0].passages if found else [])]
    ranks: dict[int, float] = {}
    for rank, chunk in enumerate(chunks, 1):
        prior = (CHUNKS + 1) / (CHUNKS + rank)
        for sentence in sentences:
            if sentence.index not in ranks and sentence.text[:80] in chunk:
                ranks[sentence.index] = prior
    return ranks


def _place(sentence: Sentence, position: float) -> tuple[float, float]:
    """Whether a sentence is early in the paper (front, abstract, introduction) and whether it is late
    (discussion, conclusion); by its position where its section's kind is unknown."""
    unknown = sentence.kind == "body"
    early = sentence.kind in _EARLY or (unknown and position < 0.1)
    late = sentence.kind in _LATE or (unknown and position > 0.85)
    return float(early), float(late)


def _first_page_title(sentence: Sentence) -> bool:
    """A title or author block: a title-like sentence of the paper's front (its first page)."""
    return sentence.kind in (FRONT, "abstract") and sentence.page in (None, 1) and title_like(sentence.text)


def _about_others(sentence: Sentence) -> bool:
    """A sentence of a related-work section, or one that cites another paper as its subject."""
    return sentence.section.startswith(_RELATED) or bool(_CITES_OTHERS.search(sentence.text))


def _role(kind: QuestionKind, sentence: Sentence) -> tuple[float, float]:
    """(in a section of a kind that answers the question, in a recognised section of another kind); a
    sentence under no recognised heading is neither, and is placed by position."""
    answering = ANSWERED_BY.get(kind.name)
    if answering is None or sentence.kind == "body":
        return 0.0, 0.0
    if sentence.kind in answering:
        return 1.0, 0.0
    return 0.0, float(sentence.kind not in _NEUTRAL.get(kind.name, ()))


def _distinct(text: str, chosen: list[Candidate]) -> bool:
    """Whether ``text`` is not the same as, or within, or around, a candidate already chosen."""
    plain = _plain(text)
    return all(plain not in _plain(c.text) and _plain(c.text) not in plain for c in chosen)


def _plain(text: str) -> str:
    return " ".join(_WORD.findall(text.lower()))


def _window(sentences: list[Sentence], sentence: Sentence) -> tuple[str, list[int]]:
    """The sentence, with the next one on its page when it alone is a fragment."""
    used = [sentence.index]
    text = sentence.text
    following = sentence.index + 1
    if (
        len(text) < FRAGMENT_CHARS
        and following < len(sentences)
        and sentences[following].page == sentence.page
        and not excluded(sentences[following].kind, "")
    ):
        text = f"{text} {sentences[following].text}"
        used.append(following)
    return text, used


def _answers(
    kind: QuestionKind, text: str, values: dict[str, float], count: Quantity | None, telling: set[str]
) -> bool:
    """Whether a sentence can answer at all, so that a paper that never speaks of the question's subject
    answers "not found": a count question needs the count; a review question its kind's cues, a word of the
    question or of its kind's expansion, or a place where its kind is answered (a problem statement need
    say no "problem"); any other question one of its telling words."""
    if kind.name == "count":
        return count is not None
    if telling & word_stems(text):
        return True
    return kind.name != "other" and any(
        values[name] > 0 for name in ("cue", "lexical", "role", "opening", "evaluated")
    )


def _own_value(sentence: Sentence, text: str, quantity: Quantity, kind: QuestionKind) -> bool:
    """Whether a number may be reported as the cell's value: not about cited work ("dataset [109]
    comprises 112120 images"), not an average or a bound ("on average 15", "at least 256"), not a world
    statistic ("17.3 million people"), not one of several counts of the same things ("six subjects for
    training, the remaining 24 for testing")."""
    if _about_others(sentence) or _REFERENCE.search(text) or _CITES_OTHERS.search(text):
        return False
    if kind.name == "count" and not the_only_count(text, kind):
        return False
    return exact(text, quantity)


def _focus(text: str, kind: QuestionKind, quantity: Quantity | None, offset: int) -> int:
    """Where the answer starts in a candidate: its number (found ``offset`` characters in), else the words
    that mark its kind."""
    if quantity is not None:
        return offset + quantity.start
    cue = kind.cues.search(text) if kind.cues is not None else None
    return cue.start() if cue else 0


def _off_kind(kind: QuestionKind, text: str) -> bool:
    """A sentence of the other kind: plans for future work are not a result."""
    return kind.name == "result" and bool(_FUTURE.search(text))
