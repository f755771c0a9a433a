"""The number that answers a review question, read from a sentence: a count of what the question counts
("approximately 1800 machines", "657 PPG waveform segments"), or a measure of the kind it asks for ("500
mg" for a dose). No number rather than a wrong one: never a year, a section, reference, figure or page
number, a model number ("2524 switch"), a rate, a dimension, an average or a bound.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterator

from agent_zot.services.matrix.quantities import Quantity, answer_quantity, asks_quantity
from agent_zot.services.paper_reading.questions import MACHINE_NOUNS, PEOPLE_NOUNS, QuestionKind, stem
from agent_zot.services.routing.scan import words
from agent_zot.text import SPELLED_NUMBER, spelled_scaled, spelled_value

__all__ = ["count_in", "counts_in", "exact", "has_number", "measure_in", "the_only_count"]

# A number (with its scale), then within a few words the counted noun: "1800 machines", "24 healthy subjects".
_NUMBER = re.compile(
    r"(?<![\w.\[/-])(?P<n>\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?)(?:\s*(?P<scale>k|K|thousand|million)\b)?(?![\d.,]*\d)"
)
# Spelled out with no scale word, a count is read only of people: "ten participants", not "two cases" or
# "three clusters"; "ten thousand machines" is a count of anything.
_SPELLED_NOUNS = PEOPLE_NOUNS - {"case", "control"}
_FOLLOWING = re.compile(r"[A-Za-z][A-Za-z-]*")
COUNT_WINDOW = 4  # words after the number in which the counted noun may come
# What follows a number that is no count: a unit, a rate, a percentage, a range's other end.
_NOT_A_COUNT = re.compile(
    r"\s*(?:%|percent|°|[-–]\s*\d|/|[<>=]|per\b|hz\b|khz|mhz|ghz|ms\b|s\b|sec|min\b|mmhg|mm\b|cm\b|kg\b|mg\b|db\b"
    r"|h\b|hours?\b|minutes?\b|seconds?\b|days?\b|weeks?\b|months?\b|years?\b|-(?:hour|day|year|minute)"
    r"|bits?\b|bytes?\b|kb\b|mb\b|gb\b|tb\b|x\b|×|times\b|fold\b|th\b|st\b|nd\b|rd\b|\)|\.\s|:)",
    re.IGNORECASE,
)
_SCALES = {"k": 1e3, "thousand": 1e3, "million": 1e6}
_LABEL_BEFORE = re.compile(
    r"(?:\b(?:fig(?:ure)?s?|tables?|sections?|sec|eqs?|equations?|steps?|stages?|phases?|versions?|v|no|chapter"
    r"|algorithm|appendix|case|class|layer|level|type|group|model|lines?)\.?|[\[(]|[\d\]]\s*,)\s*$",
    re.IGNORECASE,
)
_NOT_EXACT = re.compile(
    r"\b(?:on\s+average|average|mean|median|at\s+least|at\s+most|up\s+to|more\s+than|less\s+than"
    r"|fewer\s+than|over|under|nearly|almost)\b",
    re.IGNORECASE,
)
_CLAUSE_START = re.compile(r"[,;:(]")
_INTRODUCER_WORDS = 3  # the last words of the clause before, which may qualify the number ("on average,")
_CODE = re.compile(r"<-|>>>|\bR>|^\s*[$#]\s")  # a console or script line set in the text
_WORLD = re.compile(r"\b(?:million|billion)\b", re.IGNORECASE)
_DIMENSION_BEFORE = re.compile(r"[×x]\s*$")
_PHRASE_END = re.compile(r"[;:()\[\],]|\.\s")
# Words between a number and a counted noun that make it something else: "64 hidden nodes", "3 output units".
_NOT_COUNTED = words(
    "hidden input output sensor leaf child parent graph tree layer neural network hour hours minute minutes day days "
    "week weeks month months year years second seconds groups kinds types categories classes"
)
# Words just after a count that make it a network's size, not a count of machines: "40 nodes h2 40 nodes
# Input Layer", "64 units in the hidden layer".
_NETWORK_AFTER = words("hidden layer layers neuron neurons input output")
_RATE = re.compile(r"\s*(?:/|per\b|each\s+(?:second|minute|hour|day))", re.IGNORECASE)
_BEFORE_YEAR = re.compile(r"\b(?:in|since|by|from|until|during|of|before|after)\s+$", re.IGNORECASE)
_WORDS_NOT_NUMBERS = re.compile(r"^(?:\d+(?:\.\d+)*\s+[A-Z][a-z]+)")  # "2 Related Work", a heading
_YEAR = re.compile(r"^(?:19|20)\d\d$")
_DIGIT = re.compile(r"\d")
# "the 9 papers", not "RTX A6000 GPUs", nor a modifier: "10,000 4-core machines" counts 10,000 machines.
_NEXT_NUMBER = re.compile(r"(?<!\w)\d(?![\d.,]*-[A-Za-z])")
# A number hyphenated to a word modifies the noun after it ("4-processor machines", "16-node"): no count.
_MODIFIER = re.compile(r"-[A-Za-z]")
# "each machine has 16 cores", "every participant completed 12 trials": a figure per item, not a total
# ("each of the 24 subjects" is a total).
_PER_ITEM = re.compile(r"\b(?:each|every|per)\s+(?!of\b)([A-Za-z]+)", re.IGNORECASE)
_SENTENCE_END = re.compile(r"[.!?]\s")


def has_number(text: str) -> bool:
    """Whether ``text`` holds a number that is not a year."""
    return any(not _YEAR.match(m.group("n")) for m in _NUMBER.finditer(text))


def count_in(text: str, kind: QuestionKind) -> Quantity | None:
    """The count in ``text`` of what the question counts ("approximately 1800 machines", "657 PPG waveform
    segments"): the counted noun within a few words after the number. Never a year, a rate ("125
    samples/s"), a percentage, a reference or section number, or a number before a singular noun ("2524
    switch" is a model)."""
    return next(counts_in(text, kind), None)


def counts_in(text: str, kind: QuestionKind) -> Iterator[Quantity]:
    """Every count in ``text`` of what the question counts, in reading order (see ``count_in``)."""
    if _WORDS_NOT_NUMBERS.match(text) and len(text) < 60:
        return
    for match, value in _numbers(text):
        raw = match.group(0)
        after = text[match.end() :]
        if _NOT_A_COUNT.match(after) or _MODIFIER.match(after):
            continue
        if _YEAR.match(raw) and _BEFORE_YEAR.search(text[max(0, match.start() - 8) : match.start()]):
            continue  # "in 2019 patients were enrolled"
        if _LABEL_BEFORE.search(text[max(0, match.start() - 12) : match.start()]):
            continue  # "Figure 3 nodes", "Section 4 presents", "[12]"
        if value != int(value) or value < 2:
            continue  # "0.8 points" is a measure; a lone "1" is far more often a label than a count
        if _DIMENSION_BEFORE.search(text[max(0, match.start() - 3) : match.start()]):
            continue  # "32 × 32 images"
        phrase = _PHRASE_END.split(after[:60], maxsplit=1)[0]  # "8 male and 2 female; 8 PhD students"
        phrase = _NEXT_NUMBER.split(phrase, maxsplit=1)[0]  # "126 citations over the 9 papers": citations
        following = _FOLLOWING.findall(phrase)[:COUNT_WINDOW]
        noun = _counted_noun(following, kind, single=False)
        if noun is None or any(w.lower() in _NOT_COUNTED for w in following[: following.index(noun)]):
            continue
        if (
            match.re is SPELLED_NUMBER
            and stem(noun) not in _SPELLED_NOUNS
            and not spelled_scaled(match.group(0))
        ):
            continue  # "two nodes", "three cases", "two runs": prose more often than a count
        if _per_item(text[: match.start()], kind):
            continue
        if stem(noun) in MACHINE_NOUNS and any(
            w.lower() in _NOT_COUNTED
            for w in _FOLLOWING.findall(text[max(0, match.start() - 40) : match.start()])
        ):
            continue  # "hidden layers consisting of 40, 40 and 10 nodes"
        end = match.end() + after.find(noun) + len(noun)
        if _RATE.match(text[end:]):
            continue  # "125 samples/s", "30 frames per second"
        if any(w.lower() in _NETWORK_AFTER for w in _FOLLOWING.findall(text[end : end + 40])):
            continue
        yield Quantity(value, noun.lower(), text[match.start() : end], "dimensionless", None, match.start())


def _numbers(text: str) -> list[tuple[re.Match[str], float]]:
    """The numbers of ``text`` in reading order, with their values: digits (with a scale, "5 k") and
    counts spelled out ("twenty-four")."""
    found = []
    for match in _NUMBER.finditer(text):
        value = float(match.group("n").replace(",", ""))
        scale = match.group("scale")
        found.append((match, value * _SCALES[scale.lower()] if scale else value))
    found += [(match, float(spelled_value(match.group(0)))) for match in SPELLED_NUMBER.finditer(text)]
    return sorted(found, key=lambda pair: pair[0].start())


def _per_item(before: str, kind: QuestionKind) -> bool:
    """Whether the clause before a number gives it per item of a counted thing ("each machine has 16
    cores"), so it is no total. Per item of anything else ("each experiment ran on 32 servers") it is."""
    clause = _CLAUSE_START.split(_SENTENCE_END.split(before)[-1])[-1]
    carriers = kind.nouns | PEOPLE_NOUNS | MACHINE_NOUNS
    return any(stem(m.group(1)) in carriers for m in _PER_ITEM.finditer(clause))


def _counted_noun(words: list[str], kind: QuestionKind, *, single: bool) -> str | None:
    """The first counted noun among the words after a number, in the number's grammatical number: a
    plural ("657 PPG waveform segments" counts segments, not the waveform), or a singular after one."""
    for position, word in enumerate(words):
        if stem(word) not in kind.nouns:
            continue
        plural = word.lower() != stem(word) or word.lower().endswith(("people", "men", "data"))
        if plural or (single and position == 0):  # "1 machine", not "1 The Root Node"
            return word
    return None


def the_only_count(text: str, kind: QuestionKind) -> bool:
    """Whether ``text`` counts the question's things once: "six subjects were used for training and the
    remaining 24 for testing" gives no single answer, so no value."""
    return len(list(itertools.islice(counts_in(text, kind), 2))) == 1


def measure_in(question: str, kind: QuestionKind, text: str) -> Quantity | None:
    """For a question that asks for a measure (a dose, an accuracy), the quantity that fits it, if any."""
    if kind.name == "count" or not _DIGIT.search(text) or not asks_quantity(question):
        return None
    return answer_quantity(question, text)


def exact(text: str, quantity: Quantity) -> bool:
    """Whether a number is reported as it is: not an average or a bound ("on average 15", "on average, a
    bytecode takes about 35 cycles", "at least 256"), not a world statistic ("17.3 million people"), not
    one part of a breakdown in brackets ("(8 male and 2 female; 8 PhD students, 1 postdoc)"), not a line
    of code ("R> readData(...) Read 181063 items")."""
    before = text[: quantity.start]
    clauses = _CLAUSE_START.split(before)
    clause = clauses[-1]
    if len(clauses) > 1:  # "... shows that on average, a bytecode takes 35 cycles"
        clause = " ".join(clauses[-2].split()[-_INTRODUCER_WORDS:]) + " " + clause
    if _NOT_EXACT.search(clause) or _WORLD.search(quantity.surface) or _CODE.search(text):
        return False
    return before.count("(") <= before.count(")")
