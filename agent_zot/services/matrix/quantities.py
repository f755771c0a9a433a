"""The number a review-matrix cell reports: value and unit parsed from the cell's sentence with quantulum3,
so a column of sample sizes, doses or accuracies can be sorted and compared.

quantulum3 finds quantities in running text (ranges, "$15/hour", "37 °C", "500 mg"); its optional unit
classifier is a pickled scikit-learn model that newer scikit-learn releases cannot load, so it is switched
off and quantulum3's dictionary disambiguation is used (no downloads, no training). Chosen over pint on the
labelled sentences of scripts/data/matrix_quantities.jsonl (scripts/bench_matrix.py --quantities): pint
parses units well once a unit is cut out, but it does not find quantities in a sentence.

On top of quantulum3: a number glued to k/M/B ("31k", "380.5M", "25B") is a count with a multiplier, not
kelvin, metres or bytes; "seconds" is time, not an angle; a plain count takes the noun that follows it as
its unit ("120 patients"); the column's question picks which of a sentence's quantities answers it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from typing import Any

from agent_zot.services.routing.scan import words

__all__ = ["Quantity", "answer_quantity", "asks_quantity", "find_quantities"]

# A column asks for a number: how many / how much, or a measured thing.
_QUANTITY_WORDS = re.compile(
    r"\b(?:how\s+(?:many|much|large|long|big|fast|often|high|low|small|far|old|hot|cold|heavy)"
    r"|numbers?\s+of|sample\s+sizes?|sizes?|n\b|counts?|amounts?|doses?|dosages?|concentrations?"
    r"|temperatures?|accuracy|precision|recall|f1|auc|sensitivity|specificity|percentages?|percent|share"
    r"|proportions?|fractions?|ratios?|rates?|durations?|follow-?up|length|weight|mass|age|mean|median"
    r"|average|speed|costs?|prices?|wages?|scores?|values?|volume|pressure|frequency|years?|months?"
    r"|weeks?|days?|hours?|minutes?|seconds?|participants|patients|subjects|respondents)\b",
    re.IGNORECASE,
)

# Which kind of quantity a question wants, by its words: (pattern, quantulum3 entity names, unit names).
_WANTS: tuple[tuple[re.Pattern[str], frozenset[str], frozenset[str]], ...] = tuple(
    (re.compile(pattern, re.IGNORECASE), frozenset(entities), frozenset(units))
    for pattern, entities, units in (
        (r"\btemperature|\bhot\b|\bcold\b|°", ("temperature",), ()),
        (r"\bdos(?:e|es|age)|\bconcentration|\bmass\b|\bweight", ("mass", "unknown", "concentration"), ()),
        (
            r"\bpercent|\bshare\b|\bproportion|\bfraction|\baccuracy|\bprecision|\brecall|\bsensitivity"
            r"|\bspecificity|\brate\b",
            ("percentage",),
            (),
        ),
        (r"\bhow long\b|\bduration|\bfollow-?up|\bsurvival|\btime\b|\bage\b|\bold\b", ("time",), ()),
        (r"\bwage|\bcost|\bprice|\bpaid\b|\bsalary|\bfee", ("currency", "unknown"), ()),
        (r"\bwavelength|\blength\b|\bdistance|\bhow far\b", ("length",), ()),
        (
            r"\bhow many\b|\bnumber of\b|\bsample size|\bparticipants|\bpatients|\bsubjects|\bcount\b"
            r"|\bsize\b|\bn\b",
            ("dimensionless",),
            (),
        ),
    )
)
_SCALED = re.compile(r"^[+-]?\d[\d,.]*\s?(k|K|M|B|bn)$")
_SCALES = {"k": 1e3, "K": 1e3, "M": 1e6, "B": 1e9, "bn": 1e9}
_RANGE = re.compile(r"\d\s*(?:-|–|—|to)\s*[+-]?\d")
_NOUN = re.compile(r"\s*\)?\s*([A-Za-z][A-Za-z-]{2,})")
_NOT_NOUNS = words(
    "and or of to in on at for with from by the a an was were is are than per vs versus each who which that "
    "had has have most more less least what how many much"
)
_WORD = re.compile(r"[a-z][a-z-]+")
_NEAR = 40  # characters before a quantity in which a question word counts as naming it
ANSWERS = 2.0  # a quantity answers when it is of the kind asked for or counts what the question names
_YEAR = re.compile(r"^(?:18|19|20)\d\d$")
_FIXED_UNITS = {"second of arc": ("second", "time")}  # "5 seconds" is time in papers, not an angle


@dataclass(frozen=True, slots=True)
class Quantity:
    """A number from a sentence: ``value`` (the low end of a range, with ``value_max``), its unit
    (a count takes the noun after it: "patients"; "" when none), and the words it was read from."""

    value: float
    unit: str
    surface: str
    kind: str  # quantulum3's entity: "mass", "time", "temperature", "dimensionless", "percentage", ...
    value_max: float | None = None
    start: int = 0  # where the surface starts in the text

    def to_dict(self) -> dict[str, Any]:
        row: dict[str, Any] = {"value": _tidy(self.value), "unit": self.unit, "text": self.surface}
        if self.value_max is not None:
            row["value_max"] = _tidy(self.value_max)
        return row

    def describe(self) -> str:
        number = f"{_tidy(self.value)}" + (f"–{_tidy(self.value_max)}" if self.value_max is not None else "")
        return f"{number} {self.unit}".strip()


def asks_quantity(question: str) -> bool:
    """Whether a column asks for a number (sample size, dose, accuracy, how many, ...)."""
    return bool(_QUANTITY_WORDS.search(question))


def answer_quantity(question: str, text: str) -> Quantity | None:
    """The quantity of ``text`` that answers ``question``: of the kind the question asks for (a dose wants
    a mass, a share a percentage, a sample size a count), counting what the question names ("how many
    participants" → "4814 participants"), and close after one of the question's words; the first wins
    ties."""
    found = find_quantities(text)
    if not found:
        return None
    wanted = next(((e, u) for pattern, e, u in _WANTS if pattern.search(question)), None)
    terms = {_stem(w) for w in _WORD.findall(question.lower()) if w not in _NOT_NOUNS and len(w) > 2}
    lowered = text.lower()

    def score(quantity: Quantity) -> float:
        points = 0.0
        if wanted is not None and (quantity.kind in wanted[0] or quantity.unit in wanted[1]):
            points += 2.0
        if quantity.unit and _stem(quantity.unit.lower()) in terms:
            points += 2.0
        else:  # "temperature to a range of 0.25 to 0.5": named just before it
            before = lowered[max(0, quantity.start - _NEAR) : quantity.start]
            points += 1.0 if any(_stem(w) in terms for w in _WORD.findall(before)) else 0.0
        return points

    best = max(found, key=score)  # max keeps the first of equals
    # No number rather than a wrong one: the quantity must be of the kind asked for, or counted in the
    # question's own words ("→ 1 INTRODUCTION", a reference number or a year answers nothing).
    return best if score(best) >= ANSWERS else None


def find_quantities(text: str) -> list[Quantity]:
    """Every quantity quantulum3 reads in ``text``, with the corrections in the module's docstring."""
    parser = _parser()
    found: list[Quantity] = []
    for parsed in parser.parse(text):
        surface = parsed.surface.strip()
        value, unit, kind = float(parsed.value), str(parsed.unit.name), str(parsed.unit.entity.name)
        scaled = _SCALED.match(surface)
        if scaled:
            number = float(re.sub(r"[^\d.+-]", "", surface)) * _SCALES[scaled.group(1)]
            value, unit, kind = number, "dimensionless", "dimensionless"
        unit, kind = _FIXED_UNITS.get(unit, (unit, kind))
        value_max = None
        if parsed.uncertainty is not None and _RANGE.search(surface):
            value, value_max = value - float(parsed.uncertainty), value + float(parsed.uncertainty)
        if unit == "dimensionless":
            unit, kind = _count_noun(text, parsed.span[1]), "dimensionless"
            if not unit and value_max is None and _YEAR.match(surface):
                continue  # "Beltagy et al. - 2019": a year, not an amount
        elif unit == "percentage":
            unit, kind = "percent", "percentage"
        found.append(Quantity(value, unit, surface, kind, value_max, parsed.span[0]))
    return found


def _count_noun(text: str, end: int) -> str:
    """The noun a count counts ("200 processors" → "processors"), or "" (not "aged", "most")."""
    match = _NOUN.match(text, end)
    if not match:
        return ""
    word = match.group(1)
    if word.lower() in _NOT_NOUNS or word.lower().endswith(("ed", "ly", "est", "ing")):
        return ""
    return word


def _stem(word: str) -> str:
    return word.removesuffix("s") if len(word) > 3 else word


def _tidy(value: float) -> float | int:
    rounded = round(value, 6)
    return int(rounded) if rounded == int(rounded) and abs(rounded) < 1e15 else rounded


@cache
def _parser() -> Any:
    """quantulum3's parser with the scikit-learn classifier off (its pickle needs an old scikit-learn)."""
    from quantulum3 import classifier, parser

    classifier.USE_CLF = False
    return parser
