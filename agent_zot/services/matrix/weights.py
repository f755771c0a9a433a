"""The weights of a review-matrix cell's sentence features (cells.features), one column per question kind
(questions.classify; "other" for a question of no known kind): what a feature is worth depends on what is
asked, since each kind is answered in its own places (a problem in the abstract's opening, a limitation in
the discussion, the data where the work says what it was evaluated on). Fitted on the dev papers of
scripts/bench_cells.py by scripts/fit_cells.py (each kind's column drawn towards the "other" column, which
is fitted on all kinds); the test third set aside. Paste its table here.
"""

from __future__ import annotations

__all__ = ["FEATURES", "weights_of"]

# What each feature is (the names of the table's rows).
FEATURES: dict[str, str] = {
    "lexical": "BM25 of the question and its kind's words, scaled to the paper's best sentence",
    "chunk": "the rank of the retrieved chunks holding it",
    "cue": "reads like an answer of the question's kind",
    "early": "in the abstract or introduction, for kinds answered there",
    "late": "in the discussion or conclusion, for kinds answered there",
    "prose": "how much of it is words (not a table row or a formula)",
    "count": "a number next to the thing counted",
    "measure": 'a quantity of the kind a measure question asks for ("what dose" -> 500 mg)',
    "total": '... said as a total ("a total of", "consisted of")',
    "number": "any other number, for a count question",
    "measured": "a measured result (±, %, an error with its number), for a result question",
    "opening": "among the first sentences of the abstract, for problem, method and result questions",
    "front_matter": "affiliations, addresses, licences",
    "off_kind": "plans for future work read as a result",
    "related_work": "about other papers",
    "roadmap": 'the paper\'s outline ("Section 4 presents ...")',
    "own": 'the paper speaks of itself ("this study", "we", "our")',
    "prior": 'of earlier work ("approaches have been proposed", "previous studies")',
    "figure": 'about a figure or table ("Figure 5 shows ...")',
    "role": "in a section of a kind that answers the question (roles.ANSWERED_BY)",
    "off_role": "in a recognised section of a kind that does not",
    "setup": 'a count stated as the paper\'s own setup ("we recruited 27 dyads")',
    "cites": 'a count in a sentence that cites other work ("[12] used 16 cores")',
    "title": "the title and author block of the first page",
    "evaluated": 'says what the work is evaluated, tested or illustrated on ("validated using two datasets")',
    "abstract_data": "in the abstract, for a data question",
    "future": "plans for future work, for a limitation question",
    "in_front": "in the front (the first page before its first heading)",
    "in_abstract": "in the abstract (its section kind)",
    "in_introduction": "in the introduction (its section kind)",
    "in_methods": "in the methods (its section kind)",
    "in_results": "in the results (its section kind)",
    "in_discussion": "in the discussion (its section kind)",
    "in_conclusion": "in the conclusion (its section kind)",
    "in_limitations": "in the limitations (its section kind)",
}

_TABLE = """
feature               other    problem     method       data      count     result limitation
lexical                2.06       2.44       2.52       1.50       2.15       2.18       2.37
chunk                  1.03       0.56       1.12       1.02       2.72       1.16      -0.20
cue                    2.35       1.36       2.52       1.94       2.35       3.41       3.00
early                  3.29       4.11       3.25       4.05       3.22       3.11       3.29
late                   1.89       1.89       1.89       1.89       1.89       2.67       2.47
prose                  1.25       2.02       1.45       0.75       0.04       1.91       2.62
count                  6.76       6.76       6.76       6.76       8.41       6.76       6.76
measure                1.99       1.99       1.99       1.99       1.99       1.99       1.99
total                  1.29       1.29       1.29       1.29       1.01       1.29       1.29
number                 2.15       2.15       2.15       2.15       2.80       2.15       2.15
measured               1.89       1.89       1.89       1.89       1.89       2.31       1.89
opening                1.19       3.98      -0.26       1.19       1.19       0.19       1.19
front_matter          -1.98      -2.06      -2.15      -2.12      -1.99      -2.03      -2.01
off_kind              -1.01      -1.01      -1.01      -1.01      -1.01      -1.34      -1.01
related_work          -1.17      -1.48      -0.97      -1.55      -1.37      -1.28       0.13
roadmap               -2.04      -2.25      -2.32      -2.15      -2.04      -2.11      -2.13
own                    1.12       1.23       1.24       0.48       1.12       2.10       1.36
prior                 -1.01      -0.45      -2.03      -1.27       0.87      -0.15      -1.64
figure                -1.16      -1.20      -1.20      -1.32      -1.34      -1.20      -1.31
role                   0.28      -0.46       1.56       0.06      -0.42       1.71       0.16
off_role              -1.04      -2.18       0.30      -1.17      -1.27      -1.76      -0.12
setup                  0.20       0.20       0.20       0.20      -0.09       0.20       0.20
cites                 -1.01      -1.01      -1.01      -1.01      -1.17      -1.01      -1.01
title                 -0.40      -0.61      -0.98       0.46      -0.55      -0.94      -0.45
evaluated              2.64       2.64       2.64       2.79       2.64       2.64       2.64
abstract_data          0.91       0.91       0.91       0.70       0.91       0.91       0.91
future                -1.43      -1.43      -1.43      -1.43      -1.43      -1.43      -2.12
in_front               0.60      -1.15       0.97       0.45       0.66       1.12       0.97
in_abstract            1.89       3.05       2.07       1.82       1.44       1.50       1.29
in_introduction       -1.00      -1.14      -0.21      -1.11      -1.24      -1.38      -0.55
in_methods             0.45       0.18       1.18       0.35       0.68       0.21       0.72
in_results             0.37       0.21       0.90       0.24      -0.57       0.70       2.71
in_discussion         -0.44      -0.52       1.72      -0.63      -0.47      -0.66      -0.94
in_conclusion          1.15       1.01       1.09       0.01       0.83       2.35       0.16
in_limitations         0.89       0.88       0.80       0.61       0.87       0.82       2.27
"""


def _parse(table: str) -> dict[str, dict[str, float]]:
    lines = [line.split() for line in table.strip().splitlines()]
    kinds = lines[0][1:]
    return {kind: {row[0]: float(row[n]) for row in lines[1:]} for n, kind in enumerate(kinds, 1)}


WEIGHTS: dict[str, dict[str, float]] = _parse(_TABLE)


def weights_of(kind: str) -> dict[str, float]:
    """The weights for a question of ``kind`` ("other"'s for a kind the table has no column for)."""
    return WEIGHTS.get(kind, WEIGHTS["other"])
