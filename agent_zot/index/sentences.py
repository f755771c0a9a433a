"""The sentences of a chunk: where they end, which are headings or stubs, how much of one reads as prose,
their BM25 against a question, and what a question asks within the paper it names. passages.py builds
passages from them; the matrix, the claim check and the cited-work view split text the same way."""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Sequence
from functools import lru_cache

from agent_zot.index.sparse import Bm25Encoder
from agent_zot.index.store import SparseVector
from agent_zot.ingest.headings import names_no_section
from agent_zot.ingest.sentence_roles import CJK_CAPTION_LINES

SENTENCE_AVG_TERMS = 14.0  # BM25 length normalisation for sentences rather than chunks

_PUNCTUATION = ".,;:()[]\"'“”‘’!?"

# A sentence ends at . ! ? (optionally closed by a quote or bracket) before whitespace and a capital, digit,
# quote or bracket; a blank line or a short heading-like line also ends one.
# Chinese and Japanese end a sentence at 。！？ with no space or capital after it (a closing quote stays with it).
_BOUNDARY = re.compile(
    r"(?<=[.!?])[\"”’')\]]?\s+(?=[A-Z0-9\"“‘(\[])|\n[^\S\n]*\n|(?<=[。！？])[”’」』）]?\s*(?=[^\s”’」』）])"
)
# "e.g. The", "Fig. 3", "et al. 2019", "vs. B": not sentence ends.
_ABBREVIATIONS = re.compile(
    r"(?:\b(?:e\.g|i\.e|et al|etc|vs|cf|Fig|Figs|Eq|Eqs|Sec|Tab|No|Nos|Dr|Mr|Ms|Prof|approx|resp|al|ca|Ch|pp|p|vol)"
    r"|\b[A-Z])\.$",
    re.IGNORECASE,
)
_HEADING_LINE = re.compile(r"\n(\d+(?:\.\d+)*\.?\s+[A-Z][^\n.!?]{2,60})\n")
NUMBERED_HEADING = re.compile(
    r"^\d+(?:\.\d+)*\.?\s+[A-Z][^\n.!?]{2,60}$"
)  # a sentence that is a numbered heading
_STUB_WORDS = 6  # a line this short with no end mark is a running title or a label, not a statement


def is_stub(sentence: str) -> bool:
    """A fragment that says nothing on its own ("Lo et al. - 2020 - S2ORC" above an abstract; a number or
    marks alone, "17." left by a contents line, ". . .", a table's row of numbers): kept out of passages,
    as headings are."""
    if not _A_WORD.search(sentence):
        return True
    return not sentence.rstrip().endswith(
        (".", "!", "?", ":", ";", '"', "”", ")", "。", "！", "？", "：", "；")
    ) and (len(re.findall(r"\w+", sentence)) < _STUB_WORDS)


_A_WORD = re.compile(r"[^\W\d_]{2}")  # two letters in a row: a sentence without is no statement


def names_a_section(sentence: str) -> bool:
    """Whether a sentence kept out of passages (see ``is_stub``) may cite those after it: it has words
    ("2.", "[34]." have none), is no line broken off a list ("Ludi Wang ,"), no author or affiliation line,
    no publisher's stamp and no line that opens with a quantity."""
    number = _LEADING_NUMBER.match(sentence)
    return (
        _A_WORD.search(sentence) is not None
        and _CAPTION_NAME.match(sentence) is None
        and not sentence.rstrip().endswith(",")
        and not names_no_section(sentence)
        and (number is None or int(number.group(1)) <= _MAX_SECTION_NUMBER)  # "125 Hz, 125 samples …"
    )


_LEADING_NUMBER = re.compile(r"(\d{1,6})\b")
# A figure's or table's caption set on its own line ("图 5.4 微动开关", "Fig．18 Robot off the ground") names no
# section: the sentences after it are still its section's.
_CAPTION_NAME = re.compile(r"\s*(?:(?:fig(?:ure)?|tab(?:le)?)\s*[.．]?\s*\d|[图表圖]\s*\d)", re.IGNORECASE)
_MAX_SECTION_NUMBER = 20


# "In the study that used a deep belief network on ICU recordings, how many subjects were used for
# training?": the words before the comma say which paper, the question after it what to find in it.
_ASKING = r"(?:how|what|which|why|when|where|who|whose|whom|did|does|do|is|are|was|were|can|could|has|have|had|should|would)"
_FOCUS = re.compile(
    r"^(?:in|for|according\s+to|on|with|from|across|using|within|among|regarding|about|of)\b"
    rf"(?P<naming>[^?]{{12,}}?),\s+(?P<focus>{_ASKING}\b.{{8,}})$",
    re.IGNORECASE | re.DOTALL,
)
# "For a given linear gain that stabilizes the linearization, what ...?": a clause opened by an indefinite
# article sets a condition of the question; it names no paper.
_INDEFINITE = re.compile(r"\s*(?:a|an|any|some|each|every)\b", re.IGNORECASE)
# "When all beats from the MIMIC subjects were pooled, how strongly did ...?": what looked like a trailing
# clause naming the paper holds the question itself.
_ASKED_AFTER = re.compile(r",\s+(?:how|what|why|when|where|who|whom)\b", re.IGNORECASE)
# A focus that opens with a relative clause ("which updated 450 ephemerides using ground data, ...") and
# asks after a later comma: "which"/"who" followed by a question word's clause is the paper's description.
_RELATIVE_THEN_ASKED = re.compile(
    r"^(?P<clause>(?:which|who|whose|that)\b[^?]{8,}?),\s+"
    r"(?P<asked>(?:what|how|why|which|when|where|who|whom|whose)\b[^,]{8,}.*)$",
    re.IGNORECASE | re.DOTALL,
)
# The nouns a question names a piece of work by ("the arm-worn ECG/PPG study", "the reanalysis of ...").
_WORK_NOUNS = (
    r"study|studies|paper|work|article|survey|review|overview|report|patent|analysis|reanalysis|experiment"
    r"|trial|project|approach|method|model|system|framework|design|example|illustration|problem|result|dataset"
    r"|database|catalog|catalogue|program|programme|investigation|evaluation|benchmark|thesis|book|chapter"
    r"|device|proof-of-concept|implementation|simulation|package|tool|pipeline|algorithm"
)
_WORK = rf"(?:{_WORK_NOUNS})"
# "How was X preprocessed in the accelerometer/gyroscope-augmented BP study?": a question that ends by
# naming its paper, with a "the" phrase headed by a work noun ("... study", "... model built on ECG"), or
# describing what it studied by a relative clause ("among the 450 planets whose ephemerides were ...");
# a ", and why?", ", in terms of ..." or the infinitive an "it" stands for ("why is it a problem, according to
# the ... study, to let one person's recordings recur?") after it still belongs to what is asked.
_TRAILING = re.compile(
    rf"^(?P<asked>{_ASKING}\b.{{8,}}?)\s*,?\s+"
    r"(?:in|among|across|within|from|for|of|on|according\s+to|using)\s+(?P<naming>(?:the|this|that|these|those)\s+"
    rf"(?:[^?,]*?\b{_WORK}\b(?:\s+(?:built|based|that|which|whose|with|using|of|on|for|from|where|who)\b[^?]*?)?"
    r"|[^?]*?\b(?:whose|that|which|who)\b[^?]*?))"
    r"\s*(?P<rest>,\s*(?:and|or|in\s+terms\s+of|to\s+(?!(?:the|a|an|this|its)\b)\w+)\b[^?]*)?\??$",
    re.IGNORECASE | re.DOTALL,
)


_QUESTION = re.compile(
    r"\?\s*$|^(?:how|what|which|why|when|where|who|whom|whose|did|does|do|is|are|was|were|can|could|has|have)\b",
    re.IGNORECASE,
)


def asks_a_question(query: str) -> bool:
    """Whether ``query`` asks something (a question mark, a question word first, or a clause naming the
    paper before one) rather than naming a topic."""
    query = query.strip()
    return bool(_QUESTION.search(query)) or focus_of(query) != query


@lru_cache(maxsize=256)
def focus_of(query: str) -> str:
    """What a question asks within the paper it names: the question without the clause that only says
    which paper, leading ("In the ImageNet CNN paper, why was ...") or trailing ("... in the
    accelerometer-augmented BP study?", "... among the 450 planets whose ephemerides were updated?"), or
    with the description that names it inside the question read as "it" ("How did the camera-based blood
    pressure study with an intra-arterial reference damp ...?" asks "How did it with an intra-arterial
    reference damp ...?"); else the whole query. Inside the right paper the naming words match every
    passage and drown the words of what is asked."""
    focus, naming = split_question(query)
    if naming is None and _QUESTION.search(query.strip()):
        return " ".join(_NAMING_HEAD.sub(" it ", query).split())
    return focus


@lru_cache(maxsize=256)  # one request reads its question several times (kind, focus, per paper)
def split_question(query: str) -> tuple[str, str | None]:
    """(what the question asks, the words that name its paper), the second None when no clause names one."""
    text = " ".join(query.split())
    match = _FOCUS.match(text)
    if match and not _INDEFINITE.match(match.group("naming")):
        focus, naming = match.group("focus"), match.group("naming").strip()
        if relative := _RELATIVE_THEN_ASKED.match(focus):
            # "In the third release of the network, which folded in TESS light curves, what shortcoming ...?":
            # a relative clause still describing the paper, the question after it
            return relative.group("asked"), f"{naming}, {relative.group('clause')}"
        return focus, naming
    match = _TRAILING.match(text)
    if match and not _ASKED_AFTER.search(match.group("naming")):
        if _holds_main_verb(match.group("naming")) or _OWNERS.search(match.group("asked")):
            # the words after the break still describe the paper, but what is asked needs all of them
            return query, match.group("naming")
        asked = f"{match.group('asked')}{match.group('rest') or ''}".rstrip(" ,")
        return f"{asked}?", match.group("naming")
    return query, None


# A finite verb of the question's own clause ("... do the authors leave for future work", "... is used to
# conclude"), not one inside a relative clause that describes the paper ("whose ephemerides were updated").
_AUXILIARY = re.compile(
    r"\b(?:do|does|did|is|are|was|were|has|have|had|can|could|will|would)\b", re.IGNORECASE
)
_RELATIVE = re.compile(r"\b(?:whose|that|which|who|whom|where)\b", re.IGNORECASE)


# "What do the authors of the ... study suggest to ...?": the "of" phrase names whose authors they are, and
# the question's own verb follows it, inside what looked like the naming clause ("What do the authors?").
_OWNERS = re.compile(
    r"\b(?:authors?|researchers?|writers?|team|creators?|designers?|developers?|editors?|investigators?)$",
    re.IGNORECASE,
)


def _holds_main_verb(naming: str) -> bool:
    """Whether what looked like the clause naming the paper holds the question's own verb: then it is what
    is asked ("What extension of the small-gain condition do the authors leave for future work?" does not
    name "the ... work"; "When all beats from the MIMIC subjects were pooled, how ...?" opens with a time
    clause, not a question word)."""
    verb = _AUXILIARY.search(naming)
    if verb is None:
        return False
    relative = _RELATIVE.search(naming, 0, verb.start())
    return relative is None


# A paper named by a description anywhere in a question ("Why were the volunteers in the one-arm ECG and PPG
# band study made to pedal ...?", "What do the authors of the two-stage clustering and belief-network identity
# study blame ...?"): a "the" phrase headed by a work noun (more nouns than the trailing clause's, plurals
# too), with words before the noun (a comma between two of them) and what follows it to the next break, at
# most 14 words: a relative clause, a preposition or a participle ("the three-learner study estimating BP
# from PPG"), stopping before the question's own verb ("the ... study did ..."); or the noun alone with what
# follows it ("the work on ...", "the survey of ..."), or the authors and what they did.
_NAMED_WORK = (
    rf"(?:{_WORK_NOUNS}|textbook|text|handbook|monograph|manual|note|edition|toolkit|comparison|app|network"
    r"|regressor|estimator|classifier|controller|prototype|refresh|proof of concept)(?:e?s)?"
)
_NOT_A_MODIFIER = (
    r"(?:the|a|an|of|in|for|on|by|to|from|with|at|its|their|his|her|our|my|what|which|how|why|when|where|who"
    r"|do|does|did|is|are|was|were|has|have|had|can|could|would|will|should)"
)
_QUESTION_VERB = r"(?:do|does|did|is|are|was|were|has|have|had|can|could|would|will|should|may|might|must)"
_NAMED_TAIL_WORDS = rf"(?:\s+(?!{_QUESTION_VERB}\b)[^\s?,;]+){{1,14}}"
_NAMED = re.compile(
    r"\b(?:the|this|that|its)\s+(?:"
    # "the applied, less mathematical learning textbook", "the three-learner study estimating BP from PPG"
    rf"(?:(?!{_NOT_A_MODIFIER}\b)[^\s?,;]+,?\s+){{1,10}}{_NAMED_WORK}\b"
    r"(?:\s+(?:(?:that|which|who|whose|with|on|of|for|from|built|based|using|where|behind|about|adapted|written"
    rf"|comparing|estimating|applying|combining)\b|\w+ing\b){_NAMED_TAIL_WORDS})?"
    # "the work on globally stabilizing controllers", "the survey of deep learning on ECG": the noun alone,
    # named by what follows it
    rf"|{_NAMED_WORK}\s+(?:on|about|of|that|which|whose)\b{_NAMED_TAIL_WORDS}"
    # "the authors who turn fingertip oximeter traces into continuous arterial waveforms"
    rf"|(?:authors?|researchers?|team)\s+(?:who|that|whose)\b{_NAMED_TAIL_WORDS}"
    ")",
    re.IGNORECASE,
)


# The head of a description naming a paper inside a question, the part `focus_of` reads as "it": a document
# noun after words that describe it ("the free-living wrist-PPG study", "the introductory statistical learning
# textbook", "the survey of"), or another work noun after three such words or more ("the 2012 ImageNet
# convolutional network"; "the test dataset" or "the proposed method" is what is asked about, not a name).
# What follows the noun is left: where a description ends and the question goes on is not known (`_NAMED`
# guesses it for matching the paper, greedily). On the dev questions' own papers this put the answering
# sentence among the best 12 windows for 281 instead of 279 and the best 6 for 258 instead of 251.
_DOCUMENT_NOUNS = (
    r"(?:study|studies|paper|work|article|survey|review|overview|report|thesis|dissertation|book|textbook|text"
    r"|handbook|monograph|manual|note|edition)(?:e?s)?"
)
_DESCRIBING_WORD = rf"(?:(?!{_NOT_A_MODIFIER}\b)[^\s?,;]+,?\s+)"
_NAMING_HEAD = re.compile(
    rf"\b(?:the|this)\s+(?:{_DESCRIBING_WORD}{{1,10}}{_DOCUMENT_NOUNS}|{_DESCRIBING_WORD}{{3,10}}{_NAMED_WORK})\b"
    rf"|\b(?:the|this)\s+{_DOCUMENT_NOUNS}\s+(?:on|about|of)\b",
    re.IGNORECASE,
)


def naming_phrase(query: str) -> str | None:
    """The words of a question that say which paper it asks about: its naming clause (``split_question``),
    else the longest description of a piece of work in it ("the neurocritical-care arterial pressure
    study"); None when it names none. Which paper it describes is matched by these words alone: the rest
    of the question asks what is in the paper, and drowns them."""
    naming = split_question(query)[1]
    if naming:
        return naming
    found = [m.group(0) for m in _NAMED.finditer(" ".join(query.split()))]
    return max(found, key=lambda phrase: len(phrase.split())) if found else None


def sentence_spans(text: str, breaks: Sequence[tuple[int, int]] = ()) -> list[tuple[int, int]]:
    """(start, end) offsets of the sentences of ``text``, whitespace trimmed; numbered headings on their own
    line ("2.4 Assembling the corpus"), the spans ``breaks`` (other heading lines) and a Chinese caption on
    its own line ("图 4.1 静态目标击打", ``CJK_CAPTION_LINES``) are kept apart from the sentences around them."""
    cuts = [0, *(offset for span in breaks for offset in span)]
    for match in _BOUNDARY.finditer(text):
        if _ABBREVIATIONS.search(text[max(0, match.start() - 8) : match.start()]):
            continue
        cuts.append(match.end())
    for match in _HEADING_LINE.finditer(text):
        cuts += [match.start(1), match.end(1)]
    if any(mark in text for mark in "．图表圖"):  # a Chinese caption on its own line is no sentence's
        for match in CJK_CAPTION_LINES.finditer(text):
            cuts += [match.start(), match.end()]
    cuts.append(len(text))
    ordered = sorted(set(cuts))
    spans = []
    for start, end in itertools.pairwise(ordered):
        piece = text[start:end]
        left = len(piece) - len(piece.lstrip())
        right = len(piece.rstrip())
        if right > left:
            spans.append((start + left, start + right))
    return spans


class SentenceScorer:
    """BM25 of sentences against one question, with IDF from the sentences being compared; ``rarity``
    raises each term's IDF to that power (1.0: plain BM25)."""

    def __init__(self, question: str, encoder: Bm25Encoder | None = None, *, rarity: float = 1.0) -> None:
        self.encoder = encoder or Bm25Encoder(avg_len=SENTENCE_AVG_TERMS)
        self.terms = set(self.encoder.encode_query(question).indices)
        self.rarity = rarity

    def score(self, sentences: Sequence[str]) -> list[float]:
        return self.matches(sentences)[0]

    def matches(
        self, sentences: Sequence[str], vectors: Sequence[SparseVector] | None = None
    ) -> tuple[list[float], list[set[int]], dict[int, float]]:
        """Each sentence's score and the question's terms it holds, and the IDF of every question term
        (a term no sentence holds gets the highest). ``vectors``: the sentences already encoded by this
        scorer's encoder."""
        total = len(sentences)
        if not self.terms or not sentences:
            return [0.0] * total, [set() for _ in sentences], {}
        if vectors is None:
            vectors = self.encoder.encode_documents(list(sentences))
        weights = [
            {i: v for i, v in zip(vec.indices, vec.values, strict=True) if i in self.terms} for vec in vectors
        ]
        frequency = dict.fromkeys(self.terms, 0)
        for found in weights:
            for term in found:
                frequency[term] += 1
        idf = {t: math.log(1 + (total - n + 0.5) / (n + 0.5)) for t, n in frequency.items()}
        weight = idf if self.rarity == 1.0 else {t: value**self.rarity for t, value in idf.items()}
        scores = [sum(weight[t] * w for t, w in found.items()) for found in weights]
        return scores, [set(found) for found in weights], idf


def prose_share(sentence: str) -> float:
    """How much of a sentence reads as words: 1.0 for prose, low for table cells, running titles and
    affiliations; short fragments count as less than prose."""
    tokens = sentence.split()
    stripped = (t.strip(_PUNCTUATION) for t in tokens)
    words = sum(1 for t in stripped if len(t) > 1 and t.isalpha())
    return min(1.0, words / 8) * words / max(1, len(tokens))
