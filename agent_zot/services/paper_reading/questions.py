"""What kind of answer a question wants (a review column, a targeted or a search question), read from its words: a count of something ("how many
machines"), the problem a paper addresses, its method, its data, its main result, its limitations, who
funded it or is thanked, or anything else. The kind decides where in a paper the answer usually is and how
its sentence reads:

- a count wants a number next to the thing counted ("approximately 1800 machines"), never a section,
  reference, year or page number;
- "what problem does it solve" wants the paper's statement of its aim ("In this paper we address …"), in
  its abstract or introduction, not any sentence that holds the word "problem";
- limitations are admitted late in a paper, in words like "however", "future work", "does not";
- who funded the work or is thanked is said in its acknowledgements (or a first-page footnote), the one
  place no other kind of question is answered from.

Papers rarely repeat a review question's words, so each kind brings the words papers answer it with
(``expansion``) for retrieval and lexical scoring, and sentence ``cues`` that mark an answer of that kind.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_zot.services.routing.scan import words

__all__ = [
    "MACHINE_NOUNS",
    "PEOPLE_NOUNS",
    "RECORD_NOUNS",
    "QuestionKind",
    "classify",
    "counted_nouns",
    "telling_words",
]


@dataclass(frozen=True, slots=True)
class QuestionKind:
    name: str  # "count" | "problem" | "method" | "data" | "result" | "limitation" | "thanks" | "other"
    expansion: str  # words papers use when they answer this kind of question
    cues: re.Pattern[str] | None  # a sentence that answers this kind reads like this
    early: float  # how much an answer sits early in the paper (abstract, introduction): 0..1
    late: float  # how much it sits late (discussion, conclusion)
    nouns: frozenset[str] = frozenset()  # for a count: the things counted, stemmed


def _cue(pattern: str) -> re.Pattern[str]:
    return re.compile(pattern, re.IGNORECASE)


_OWN = r"(?:this|the\s+present|our|the\s+proposed)\s+(?:paper|work|article|study|research|thesis|chapter|letter|note|project)"
PROBLEM = QuestionKind(
    "problem",
    "problem challenge address aim goal objective motivation difficult need limitation of existing",
    _cue(
        rf"\b(?:{_OWN}\s+(?:addresses|tackles|considers|investigates|studies|examines|explores|focuses|deals"
        r"|aims|proposes|presents|is\s+concerned)|we\s+(?:address|tackle|consider|investigate|study|examine|explore"
        r"|focus\s+on|aim|seek|set\s+out)|(?:the\s+)?(?:aim|goal|objective|purpose)\s+of\s+(?:this|our|the\s+present)"
        r"|problem\s+of|challeng\w*|(?:is|are|remains?)\s+(?:difficult|challenging|hard|expensive|costly"
        r"|time-consuming|an\s+open|unsolved|unclear|unknown|limited)|lack\s+of|there\s+is\s+(?:a|an|no)\s+need"
        r"|(?:in|with)\s+(?:this|the\s+present)\s+(?:paper|work|article|study))"
    ),
    early=1.0,
    late=0.0,
)
METHOD = QuestionKind(
    "method",
    "method approach propose technique algorithm model framework architecture design",
    _cue(
        rf"\b(?:we\s+(?:propose|present|introduce|develop|design|describe|use|employ|apply|build|train|implement"
        rf"|formulate|derive|construct|combine|compare)|{_OWN}\s+(?:proposes|proposed|presents|presented|introduces"
        r"|introduced|develops|developed|describes|described|uses|used|compares|compared|applies|applied|designs"
        r"|designed)|our\s+(?:approach|method|system|model|framework|algorithm|technique|design)|(?:is|are|was"
        r"|were)\s+(?:proposed|developed|designed|introduced|presented|constructed|implemented|built|trained"
        r"|employed)\b|(?:is|are)\s+based\s+on|consists?\s+of|(?:proposed|novel|new)\s+(?:approach|method|model"
        r"|framework|algorithm|technique|system|architecture|scheme|controller|feedback|design))"
    ),
    early=0.7,
    late=0.0,
)
DATA = QuestionKind(
    "data",
    "data dataset data set database corpus collected recorded benchmark evaluated experiments subjects",
    _cue(
        r"\b(?:data\s*sets?|databases?|corpus|corpora|benchmarks?|collected|recorded|recordings|acquired"
        r"|obtained\s+from|publicly\s+available|records\s+(?:of|from)|(?:we|were)\s+(?:use|used)\s+(?:the|a|data)"
        r"|evaluated?\s+on|experiments?\s+(?:on|with)|test\s+set|training\s+set)"
    ),
    early=0.2,
    late=0.0,
)
RESULT = QuestionKind(
    "result",
    "results show showed find found demonstrate outperforms achieved improves accuracy error performance conclusion",
    _cue(
        r"\b(?:results?\s+(?:show|shows|showed|demonstrate|indicate|suggest|reveal|confirm)|we\s+(?:show|find|found"
        r"|demonstrate|observe|obtain|achieve|conclude)|outperform\w*|achiev\w*|improv\w*|(?:reduc|increas)\w+\s+"
        r"(?:the\s+)?(?:error|accuracy|time|cost)|(?:better|higher|lower|faster)\s+than|state[-\s]of[-\s]the[-\s]art"
        r"|(?:accuracy|error|precision|recall|f1|auc|rmse|mae)\s+of|significantly|in\s+conclusion|±"
        rf"|{_OWN}\s+(?:shows|showed|demonstrates|demonstrated|reveals|revealed|proves|proved|establishes)"
        r"|(?:exhibit|yield|attain|reach)\w*\s+(?:a|an|the)?\s*(?:significantly\s+)?(?:higher|lower|better|mean"
        r"|best|accura)|(?:is|was|are|were)\s+(?:shown|proved|proven|demonstrated|established)\b)"
    ),
    early=0.6,
    late=0.6,
)
LIMITATION = QuestionKind(
    "limitation",
    "limitation limitations limited however future work drawback does not cannot only restricted weakness",
    _cue(
        r"\b(?:limitations?|limited|drawbacks?|shortcomings?|weakness\w*|caveats?|future\s+(?:work|research"
        r"|studies)|(?:does|do|did|could|can)\s*not|cannot|unable|not\s+(?:yet|able|possible|sufficient|enough"
        r"|generali[sz]e)|only\s+(?:a|on|for|with|in)|restricted|remains?\s+to\s+be|should\s+be\s+(?:further|noted)"
        r"|beyond\s+the\s+scope|small\s+(?:sample|number|data)|more\s+(?:data|work|research|subjects)\s+(?:is|are)"
        r"\s+needed)"
    ),
    early=0.0,
    late=1.0,
)
# "Who funded it?", "Which grant supported the study?", "Whom do the authors thank?": the one kind of question
# the thanks answer. Not "funds" (a fund is a topic in finance) and not "acknowledge" alone (authors
# acknowledge limitations).
THANKS = QuestionKind(
    "thanks",
    "funded supported grant foundation acknowledgements thank grateful",
    _cue(
        r"\b(?:thank\w*|grateful|gratitude|acknowledge?ments?|funded|funding|financ\w+|sponsor\w*|grants?\b"
        r"|supported\s+(?:in\s+part\s+)?by)"
    ),
    early=0.0,
    late=1.0,
)
_THANKS_QUESTION = re.compile(
    r"\b(?:fund(?:ed|ing|ers?)|grants?|sponsor\w*|financ(?:ed|ing|ial\s+support)|acknowledge?ments?|thank\w*"
    r"|gratitude|grateful|conflicts?\s+of\s+interests?|competing\s+interests?"
    r"|(?:who|whom)\b[^?]*\b(?:acknowledge[sd]?|supported|paid\s+for))\b",
    re.IGNORECASE,
)
OTHER = QuestionKind("other", "", None, early=0.0, late=0.0)
# How a sentence that gives a reason reads ("... is chosen to lower the computation load", "because ...",
# "could be caused by ..."): what a why-question is answered by, in whatever section the reason is given.
REASON_CUES = _cue(
    r"\b(?:because|due\s+to|owing\s+to|as\s+a\s+result|in\s+order\s+to|so\s+as\s+to|so\s+that|since\s+(?!\d)"
    r"|(?:the|one|main|this)\s+reasons?|this\s+is\s+why|(?:caused|explained|motivated|driven)\s+by"
    r"|attribut\w+\s+to|(?:leads?|led)\s+to|results?\s+(?:in|from)|(?:is|was|are|were)\s+(?:chosen|selected"
    r"|preferred|used|adopted)\s+(?:to|because|since|for)|to\s+(?:reduce|lower|avoid|prevent|minimi[sz]e|limit"
    r"|ensure|allow|enable|overcome|compensate|account\s+for|make\s+sure))"
)

# Things a review counts, and the words papers count them with (singular stems; plurals match).
_NOUN_GROUPS: tuple[tuple[str, ...], ...] = (
    ("participant", "subject", "patient", "volunteer", "people", "person", "individual", "user", "respondent",
     "adult", "child", "student", "worker", "man", "men", "woman", "women", "healthy", "case", "control",
     "dyad", "triad", "couple", "household"),
    ("machine", "server", "node", "computer", "processor", "host", "worker", "core", "cpu", "gpu",
     "workstation", "cluster", "pc"),
    ("record", "sample", "document", "example", "instance", "item", "image", "recording", "signal", "segment",
     "sentence", "paper", "article", "entry", "observation", "measurement", "beat", "cycle", "trial", "file",
     "utterance", "video", "frame", "pair", "question", "abstract", "star", "planet", "transit",
     "epoch", "target", "pulse", "waveform", "window", "session", "episode", "clip", "tweet", "review", "response",
     "annotation", "token", "word", "query", "photo", "photograph", "scan", "patch", "sequence", "dialogue",
     "conversation", "post", "page", "table", "graph", "edge", "task", "run", "trace", "log", "event",
     "transaction", "reading", "datum", "data point", "observation", "spectrum", "spectra", "lightcurve"),
)  # fmt: skip
PEOPLE_NOUNS, MACHINE_NOUNS, RECORD_NOUNS = (frozenset(group) for group in _NOUN_GROUPS)
# Parts of a counted thing, counted only when the question names them: "16 cores" is no number of machines.
_PARTS = frozenset({"core"})
_COUNT_QUESTION = re.compile(
    r"\bhow\s+(?:many|large|big)\b|\bnumber\s+of\b|\bsample\s+sizes?\b|\bsize\s+of\s+the\s+(?:data|sample|corpus)"
    r"|\bhow\s+much\s+data\b",
    re.IGNORECASE,
)
_COUNT_HEAD = re.compile(r"\bhow\s+many\s+(.+?)(?:\s+(?:are|were|is|was|did|do|does|took|take|have|has|had|in|of"
                         r"|for|used|participated)\b|[?.,;]|$)", re.IGNORECASE)  # fmt: skip
_DATA_SIZE = re.compile(r"\b(?:data\s*set|dataset|corpus|sample|database|how\s+much\s+data)\b", re.IGNORECASE)
_NOT_NOUNS = words("or and the a an of many total")
_KINDS: tuple[tuple[re.Pattern[str], QuestionKind], ...] = (
    (_THANKS_QUESTION, THANKS),
    (re.compile(r"\blimitations?\b|\bweakness|\bshortcoming|\bdrawback|\bcaveat|\bfuture\s+work", re.I), LIMITATION),
    (re.compile(r"\bproblem\b|\baddress\w*\b|\bmotivat|\baims?\b|\bgoals?\b|\bpurpose\b|\bobjective|\bresearch\s+question"
                r"|\bchallenge|\bwhy\b.*\bneeded", re.I), PROBLEM),
    # Not "outcome": a trial's primary outcome is what it measured, asked for by name.
    (re.compile(r"\bresults?\b|\bfindings?\b|\bfind\b|\bfound\b|\bconclu\w+|\bperformance|\bhow\s+well"
                r"|\baccura", re.I), RESULT),
    (re.compile(r"\bdata\b|\bdata\s*sets?\b|\bcorpus\b|\bbenchmarks?\b|\bevaluated\s+on\b|\bsamples?\b", re.I), DATA),
    (re.compile(r"\bmethods?\b|\bapproach\w*\b|\btechniques?\b|\bpropos\w+|\balgorithms?\b|\bhow\s+does\b"
                r"|\bframework\b|\barchitecture\b|\bmodel\b", re.I), METHOD),
)  # fmt: skip


# Words of a question that say nothing about where its answer is ("what did the paper report").
_GENERIC = words(
    "what which how who when where why was were is are did do does the a an of in on to for by with this that these "
    "paper papers study studies article work authors author report reported reports use used uses each every "
    "many much main its their it they acknowledge acknowledged"
)


def telling_words(question: str) -> set[str]:
    """The words of ``question`` that say what it is about ("funding agency" in "what was the funding
    agency?"), as cells.word_stems cuts them."""
    return {w[:6] for w in re.findall(r"[a-z]+", question.lower()) if len(w) > 2 and w not in _GENERIC}


def classify(question: str) -> QuestionKind:
    """The kind of answer ``question`` wants (a count first: "how many subjects" is a count, not data)."""
    if _COUNT_QUESTION.search(question):
        return QuestionKind(
            "count",
            "number of total",
            None,  # a count is recognised by its number next to a counted noun (cells.py)
            early=0.2,
            late=0.0,
            nouns=counted_nouns(question),
        )
    for pattern, kind in _KINDS:
        if pattern.search(question):
            return kind
    return OTHER


def counted_nouns(question: str) -> frozenset[str]:
    """What a count question counts, widened to the words papers count the same things with: "how many
    participants" also takes subjects, patients and volunteers; "how large is the data set" takes
    records, samples, documents and the like."""
    named = set()
    head = _COUNT_HEAD.search(question)
    if head:
        named = {_stem(w) for w in re.findall(r"[a-z]+", head.group(1).lower()) if w not in _NOT_NOUNS}
    else:
        after = re.search(r"\bnumber\s+of\s+([a-z -]+)", question, re.IGNORECASE)
        if after:
            named = {_stem(w) for w in after.group(1).lower().split() if w not in _NOT_NOUNS}
    nouns = set(named)
    for group in _NOUN_GROUPS:
        if named & set(group):
            nouns |= set(group) - _PARTS
    if not nouns and re.search(r"\bsample\s+sizes?\b", question, re.IGNORECASE):
        nouns |= set(_NOUN_GROUPS[0]) | set(_NOUN_GROUPS[2])  # people in a trial, records in a data set
    elif not nouns and _DATA_SIZE.search(question):
        nouns |= set(_NOUN_GROUPS[2])
    return frozenset(nouns)


def _stem(word: str) -> str:
    """Singular for the plural forms counted nouns take ("subjects", "people" stays)."""
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "xes", "ches", "shes")):  # "processes", not "cases"
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def stem(word: str) -> str:
    return _stem(word.lower())
