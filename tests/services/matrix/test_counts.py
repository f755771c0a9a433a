"""The number a review-matrix cell shows: a count of what its question counts, reported as the paper's own
exact figure, or nothing."""

from __future__ import annotations

import pytest

from agent_zot.services.matrix.counts import count_in, exact, the_only_count
from agent_zot.services.paper_reading.questions import classify

PEOPLE = classify("How many participants or subjects took part?")
MACHINES = classify("How many machines, servers or processors are used in the experiments or deployment?")
DATA = classify("How large is the data set (how many records, samples, documents or examples)?")


def value(text: str, kind=PEOPLE) -> float | None:
    """The cell's value for ``text``: a count that is also exact, else None."""
    found = count_in(text, kind)
    return found.value if found is not None and exact(text, found) else None


@pytest.mark.parametrize(
    ("text", "kind", "want"),
    [
        ("The study enrolled 24 healthy subjects aged 20 to 30.", PEOPLE, 24),
        ("In total, 24 subjects took part in both sessions.", PEOPLE, 24),
        ("We ran the jobs on a cluster of approximately 1800 machines.", MACHINES, 1800),
        ("Each experiment ran on 32 servers in one rack.", MACHINES, 32),
        ("A total of 657 PPG waveform segments were kept after filtering.", DATA, 657),
        ("The corpus holds 4,539 documents with their summaries.", DATA, 4539),
        ("The dataset was recorded from 32 cases in one hospital.", PEOPLE, 32),
        ("Ten healthy subjects were involved in this study.", PEOPLE, 10),
        ("This study was carried out in three healthy male individuals.", PEOPLE, 3),
        ("Twenty-four volunteers wore the band for a week.", PEOPLE, 24),
        ("The models are trained on 2 RTX A6000 GPUs of an internal cluster.", MACHINES, 2),
        ("We recruited 27 dyads of teachers and students.", PEOPLE, 27),  # a unit of people
        ("The build ran on 16 cores.", classify("how many cores were used?"), 16),  # parts, when asked
    ],
)
def test_a_count_of_what_the_question_counts_is_the_value(text: str, kind, want: float) -> None:
    assert value(text, kind) == want


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("In 2019 patients were recruited from two hospitals.", PEOPLE),  # a year
        ("Section 4 subjects the design to a stress test.", PEOPLE),  # a section number
        ("as reported in [3, 12 subjects] before", PEOPLE),  # a reference list
        ("The 2524 switch connects each rack.", MACHINES),  # a model number before a singular noun
        ("Signals were sampled at 125 samples/s from each lead.", DATA),  # a rate
        ("Images of 32 × 32 pixels were used.", DATA),  # a dimension
        ("On average 15 participants attended each workshop.", PEOPLE),  # an average
        ("Each job used at least 256 machines.", MACHINES),  # a bound
        # a network's size, not machines: "h1 40 nodes ... Input Layer"
        (
            "The classifier is given by: h1 40 nodes h2 40 nodes h3 10 nodes Input Layer Output Layer",
            MACHINES,
        ),
        # the average comes in the clause before the number
        ("Dividing the time by the bytecodes shows that on average, a bytecode executes in 35 cycles.", DATA),
        # one part of a breakdown in brackets, not how many took part
        ("We sampled participants (mean age: 28.3; 8 male and 2 female; 8 PhD students, 1 postdoc).", PEOPLE),
        # a console line set in the text
        ('The data is read via R> psi <- readData("psi.txt") Read 181063 items into memory.', DATA),
        # spelled out, only people are counted: prose says "two cases" and "three clusters" all the time
        ("The other two cases are straightforward.", PEOPLE),
        ("Given two nodes of the graph, a path joins them.", MACHINES),
        ("We expect the tool to appeal to two groups of users.", PEOPLE),  # it counts groups
        ("The prototype server has 16 cores and 64 GB of memory.", MACHINES),  # parts of a machine
    ],
)
def test_no_number_rather_than_a_wrong_one(text: str, kind) -> None:
    assert value(text, kind) is None


def test_the_counted_noun_belongs_to_its_own_number() -> None:
    found = count_in("This gave a total of 126 citations over the 9 papers tested.", DATA)
    assert found is not None and found.value == 9 and found.unit == "papers"  # not "126 papers"


def test_a_sentence_with_two_counts_of_its_things_gives_no_single_value() -> None:
    split = "After filtering, 53000 samples were used for training, while the testing data comprised 9000 samples."
    assert not the_only_count(split, DATA)
    assert the_only_count("After filtering, 53000 samples were used for training.", DATA)


@pytest.mark.parametrize(
    ("text", "kind", "want"),
    [
        # a count spelled with a scale word counts any noun, and a hyphenated number modifies the noun after it
        ("We use a cluster of ten thousand 4-processor machines", MACHINES, 10000),
        ("We use a cluster of 10,000 4-core machines", MACHINES, 10000),
        ("fifteen participants took part", PEOPLE, 15),
        ("A dozen volunteers wore the band.", PEOPLE, 12),
        ("The study enrolled one hundred and twenty participants.", PEOPLE, 120),
        ("Jobs ran on two thousand machines in three data centres.", MACHINES, 2000),
        ("We ran the job on 64 eight-core servers.", MACHINES, 64),
    ],
)
def test_number_words_count_and_a_modifier_leaves_the_count_to_the_number_before(
    text: str, kind, want: float
) -> None:
    assert value(text, kind) == want


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("each machine has 16 cores", MACHINES),  # a figure per machine, not how many machines
        ("Every node holds 8 GPUs and 512 GB of memory.", MACHINES),
        ("Each participant completed 12 trials in one session.", DATA),  # per person, not the trials' total
        ("The experiments use 16-node clusters.", MACHINES),  # a modifier with no count before it
        ("We used 4-processor machines throughout.", MACHINES),
    ],
)
def test_a_figure_per_item_or_a_modifier_is_no_count(text: str, kind) -> None:
    assert value(text, kind) is None


def test_a_total_before_each_is_still_a_count() -> None:
    assert value("Each of the 24 subjects completed two sessions.", PEOPLE) == 24
    assert value("24 subjects each completed 12 trials.", PEOPLE) == 24
