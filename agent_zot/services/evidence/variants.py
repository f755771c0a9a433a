"""Refutation variants of a claim: the sub-queries a researcher runs to find what argues against it.

Mechanical rewrites, no model: the claim with its negation removed or added, with its direction reversed
("increases" → "decreases"), as "no effect", as "fails to", and with contrast words. Each finds passages
the claim itself ranks low (a paper reporting "no reduction in mortality" shares few words with "X
reduces mortality"); evidence mode records which variant found each passage.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from agent_zot.text import STOPWORDS


@dataclass(frozen=True, slots=True)
class Variant:
    name: str
    text: str


_NEGATION = re.compile(r"\b(?:not|no|never|cannot|n't)\b|n't\b", re.IGNORECASE)
_AUXILIARY = re.compile(
    r"\b(is|are|was|were|can|could|does|do|did|has|have|had|will|would|may|might|should|must)\b",
    re.IGNORECASE,
)
# Direction words and their opposites (both ways), the contrasts claims in science most often turn on.
_OPPOSITES = {
    "increase": "decrease",
    "increases": "decreases",
    "increased": "decreased",
    "increasing": "decreasing",
    "higher": "lower",
    "more": "less",
    "greater": "smaller",
    "larger": "smaller",
    "positive": "negative",
    "positively": "negatively",
    "improves": "worsens",
    "improved": "worsened",
    "improve": "worsen",
    "promotes": "inhibits",
    "promote": "inhibit",
    "promoted": "inhibited",
    "activates": "suppresses",
    "activate": "suppress",
    "activated": "suppressed",
    "enhances": "reduces",
    "enhance": "reduce",
    "enhanced": "reduced",
    "up-regulates": "down-regulates",
    "upregulates": "downregulates",
    "upregulated": "downregulated",
    "up-regulated": "down-regulated",
    "raises": "lowers",
    "gain": "loss",
    "benefit": "harm",
    "beneficial": "harmful",
    "effective": "ineffective",
    "better": "worse",
    "faster": "slower",
    "outperforms": "underperforms",
    "prevents": "causes",
    "protects": "harms",
    "accelerates": "delays",
    "extends": "shortens",
}
_OPPOSITES |= {v: k for k, v in list(_OPPOSITES.items()) if v not in _OPPOSITES}
_WORD = re.compile(r"[\w'-]+")
# Verbs claims in science turn on; the first one found is the claim's main verb ("Aspirin reduces ...",
# "Biomaterials lack ..."). A list, not a tagger: a plural noun ("cells") must never pass for a verb.
_CLAIM_VERBS = [
    "reduce",
    "increase",
    "decrease",
    "cause",
    "prevent",
    "improve",
    "induce",
    "inhibit",
    "promote",
    "affect",
    "predict",
    "regulate",
    "enhance",
    "activate",
    "suppress",
    "require",
    "protect",
    "lower",
    "raise",
    "correlate",
    "contribute",
    "lead",
    "result",
    "mediate",
    "block",
    "impair",
    "alter",
    "drive",
    "delay",
    "accelerate",
    "extend",
    "shorten",
    "stimulate",
    "trigger",
    "worsen",
    "lack",
    "contain",
    "express",
    "bind",
    "encode",
    "modulate",
    "control",
    "limit",
    "determine",
    "reflect",
    "depend",
    "occur",
    "exist",
    "show",
    "reveal",
    "outperform",
    "confer",
    "facilitate",
    "exhibit",
    "associate",
    "interact",
    "target",
    "repress",
    "elevate",
    "attenuate",
    "restore",
    "deplete",
    "produce",
    "develop",
    "remain",
    "play",
    "correspond",
    "differ",
    "vary",
    "respond",
    "benefit",
    "harm",
    "kill",
    "cure",
    "treat",
    "reverse",
    "slow",
    "decline",
    "rise",
    "fall",
    "persist",
    "predispose",
]


def _third_person(verb: str) -> str:
    if verb.endswith("y") and verb[-2:-1] not in "aeiou":
        return verb[:-1] + "ies"
    if verb.endswith(("s", "sh", "ch", "x", "z", "o")):
        return verb + "es"
    return verb + "s"


_VERB_FORMS = {_third_person(v): (v, "does") for v in _CLAIM_VERBS} | {v: (v, "do") for v in _CLAIM_VERBS}


def refutation_variants(claim: str) -> list[Variant]:
    """The claim first, then the variants that differ from it (at most five)."""
    claim = " ".join(claim.split())
    found = [Variant("claim", claim)]
    for name, text in (
        ("negated", _negated(claim)),
        ("opposite", _opposite(claim)),
        ("no effect", f"no effect no association no difference {_keywords(claim)}"),
        ("fails", _fails(claim)),
        ("contrast", f"however in contrast {claim}"),
    ):
        if text and text.casefold() != claim.casefold() and all(v.text != text for v in found):
            found.append(Variant(name, text))
    return found


def _negated(claim: str) -> str:
    """Negation removed when the claim has one, else "not" after its first auxiliary verb, else "does
    not" before its main verb ("Aspirin does not reduce ..."), else "not" in front."""
    if _NEGATION.search(claim):
        return " ".join(_NEGATION.sub(" ", claim).split())
    auxiliary = _AUXILIARY.search(claim)
    if auxiliary:
        return f"{claim[: auxiliary.end()]} not{claim[auxiliary.end() :]}"
    verb = _main_verb(claim)
    if verb is not None:
        base, does = _VERB_FORMS[verb.group().lower()]
        return f"{claim[: verb.start()]}{does} not {base}{claim[verb.end() :]}"
    return f"not {claim}"


def _fails(claim: str) -> str:
    """ "Aspirin fails to reduce ..." when the main verb is found, else the claim's words after "fails to"."""
    verb = _main_verb(claim) if not _NEGATION.search(claim) else None
    if verb is not None:
        base, auxiliary = _VERB_FORMS[verb.group().lower()]
        fails = "fails" if auxiliary == "does" else "fail"
        return f"{claim[: verb.start()]}{fails} to {base}{claim[verb.end() :]}"
    return f"fails to {_keywords(claim)} did not"


def _main_verb(claim: str) -> re.Match[str] | None:
    """The first claim verb after the first word (the subject comes first)."""
    return next(
        (m for m in _WORD.finditer(claim) if m.start() > 0 and m.group().lower() in _VERB_FORMS), None
    )


def _opposite(claim: str) -> str:
    """The last direction word swapped for its opposite (one swap: "Higher BMI increases mortality" →
    "Higher BMI decreases mortality", where two swaps would say the same again); "" when there is none."""
    found = [m for m in _WORD.finditer(claim) if m.group().lower() in _OPPOSITES]
    if not found:
        return ""
    last = found[-1]
    other = _OPPOSITES[last.group().lower()]
    other = other.capitalize() if last.group()[:1].isupper() else other
    return f"{claim[: last.start()]}{other}{claim[last.end() :]}"


def _keywords(claim: str) -> str:
    return " ".join(
        w for w in _WORD.findall(claim) if w.lower() not in STOPWORDS and not _NEGATION.fullmatch(w)
    )
