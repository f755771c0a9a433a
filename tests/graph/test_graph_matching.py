"""Matching references to library items (agent_zot.graph.matching)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_zot.graph.matching import Match, ReferenceMatcher, external_work_key, title_form
from agent_zot.graph.references import Reference, parse_reference
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.models import Creator, Item, ZoteroDate
from agent_zot.zotero.reader import load_library


def make_item(
    key: str,
    title: str,
    year: int | None,
    authors: list[str],
    **fields: str,
) -> Item:
    creators = [Creator(i, "author", last, "A.") for i, last in enumerate(authors)]
    return Item(
        key=key,
        item_id=abs(hash(key)) % 10_000,
        item_type="journalArticle",
        library_id=1,
        fields={"title": title, **fields},
        base_fields={},
        creators=creators,
        date=ZoteroDate(str(year), year) if year else None,
    )


SCIBERT = make_item(
    "SCIBERT1",
    "SciBERT: A Pretrained Language Model for Scientific Text",
    2019,
    ["Beltagy", "Lo", "Cohan"],
    DOI="10.18653/v1/D19-1371",
)
S2ORC = make_item(
    "S2ORC001",
    "S2ORC: The Semantic Scholar Open Research Corpus",
    2020,
    ["Lo", "Wang", "Neumann", "Kinney", "Weld"],
    DOI="https://doi.org/10.18653/V1/2020.ACL-MAIN.447.",
)
LONGFORMER = make_item(
    "LONGFORM",
    "Longformer: The Long-Document Transformer",
    2020,
    ["Beltagy", "Peters", "Cohan"],
    DOI="10.48550/arXiv.2004.05150",
)
MULTILEXSUM = make_item(
    "MLEXSUM1",
    "Multi-LexSum: Real-World Summaries of Civil Rights Lawsuits at Multiple Granularities",
    2022,
    ["Shen", "Lo", "Yu"],
    extra="arXiv: 2206.10883",
)
BERT = make_item(
    "BERT0001",
    "BERT: Pre-training of Deep Bidirectional Transformers for Language Understanding",
    2019,
    ["Devlin", "Chang", "Lee", "Toutanova"],
    url="https://arxiv.org/abs/1810.04805v2",
)
ROUTING = make_item(
    "ROUTING1",
    "A survey on routing protocols for wireless sensor networks",
    2005,
    ["Akkaya", "Younis"],
)
DYNAMO = make_item("DYNAMO01", "Dynamo", 2000, ["Bala"])
ITEMS = [SCIBERT, S2ORC, LONGFORMER, MULTILEXSUM, BERT, ROUTING, DYNAMO]


@pytest.fixture(scope="module")
def matcher() -> ReferenceMatcher:
    return ReferenceMatcher(ITEMS)


def test_fold() -> None:
    assert title_form("Sci-BERT: A Prétrained   Model!") == "scibert a pretrained model"
    assert title_form("Ürdün’s “Café”") == "urduns cafe"


def test_index_size(matcher: ReferenceMatcher) -> None:
    assert len(matcher) == len(ITEMS)


def test_doi_match_is_exact(matcher: ReferenceMatcher) -> None:
    ref = parse_reference(
        "Kyle Lo et al. 2020. Something else entirely. In ACL. doi:10.18653/v1/2020.acl-main.447."
    )
    assert matcher.match(ref) == Match("S2ORC001", 1.0, "doi")


@pytest.mark.parametrize(
    ("raw", "key"),
    [
        (
            "[1] Iz Beltagy, Matthew E Peters, and Arman Cohan. Longformer. arXiv preprint arXiv:2004.05150v2, 2020.",
            "LONGFORM",
        ),
        ("Zejiang Shen et al. 2022. MLS. CoRR, abs/2206.10883.", "MLEXSUM1"),
        ("J. Devlin. Pre-training. https://arxiv.org/abs/1810.04805, 2018.", "BERT0001"),
    ],
)
def test_arxiv_match(matcher: ReferenceMatcher, raw: str, key: str) -> None:
    assert matcher.match(parse_reference(raw)) == Match(key, 0.98, "arxiv")


def test_unknown_identifiers_fall_back_to_title(matcher: ReferenceMatcher) -> None:
    ref = parse_reference(
        "[9] Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A Pretrained Language Model for "
        "Scientific Text. arXiv:1903.99999 doi:10.9999/unknown"
    )
    match = matcher.match(ref)
    assert match is not None and match.item_key == "SCIBERT1" and match.method == "title"


@pytest.mark.parametrize(
    "raw",
    [
        # exact, as ACL prints it
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained language model for scientific text. In EMNLP.",
        # hyphen from a line break, lower case
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. Sci-BERT: A pretrained language model for scientific text. In EMNLP.",
        # typos
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained langauge model for scientfic text. In EMNLP.",
        # a year later (the proceedings version of a preprint)
        "[5] I. Beltagy, K. Lo, and A. Cohan. SciBERT: A Pretrained Language Model for Scientific Text. In EMNLP, 2020.",
        # no year at all
        "[5] I. Beltagy, K. Lo, and A. Cohan. SciBERT: A Pretrained Language Model for Scientific Text. In EMNLP.",
        # quoted IEEE title
        '[3] I. Beltagy, K. Lo, A. Cohan, "SciBERT: a pretrained language model for scientific text," in Proc. EMNLP, 2019.',
    ],
)
def test_title_match_variants(matcher: ReferenceMatcher, raw: str) -> None:
    match = matcher.match(parse_reference(raw))
    assert match is not None
    assert match.item_key == "SCIBERT1"
    assert match.method == "title"
    assert 0.8 <= match.confidence <= 0.97


def test_confidence_orders_evidence(matcher: ReferenceMatcher) -> None:
    exact = matcher.match(
        parse_reference(
            "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained language model for scientific text. In EMNLP."
        )
    )
    typo = matcher.match(
        parse_reference(
            "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained langauge model for scientfic text. In EMNLP."
        )
    )
    assert exact is not None and typo is not None
    assert exact.confidence > typo.confidence


def test_wrong_year_needs_exact_title_and_author(matcher: ReferenceMatcher) -> None:
    same_author = parse_reference(
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2015. SciBERT: A pretrained language model for scientific text. In EMNLP."
    )
    match = matcher.match(same_author)
    assert match is not None and match.item_key == "SCIBERT1"
    other_author = parse_reference(
        "John Smith and Jane Doe. 2015. SciBERT: A pretrained language model for scientific text. In EMNLP."
    )
    assert matcher.match(other_author) is None
    typo_and_year = parse_reference(
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2015. SciBERT: A pretrained langauge model for scientfic text. In EMNLP."
    )
    assert matcher.match(typo_and_year) is None


def test_different_first_author_with_similar_title_is_rejected(matcher: ReferenceMatcher) -> None:
    ref = parse_reference(
        "John Smith and Jane Doe. 2019. SciBERT: A pretrained language model for social text. In ACL."
    )
    assert matcher.match(ref) is None


def test_different_work_with_shared_words_is_not_matched(matcher: ReferenceMatcher) -> None:
    for raw in [
        "C. L. Giles, K. D. Bollacker, and S. Lawrence. 1998. Citeseer: an automatic citation indexing system. In DL.",
        "Kyle Lo, Lucy Lu Wang. 2020. The Semantic Scholar Academic Graph. arXiv preprint.",
        "Jacob Devlin. 2019. Pre-training of transformers for vision. In CVPR.",
        "A. Bala. 2000. Dynamo and other systems. In PLDI.",
    ]:
        assert matcher.match(parse_reference(raw)) is None, raw


def test_short_titles_do_not_match_on_the_title_alone(matcher: ReferenceMatcher) -> None:
    # "Dynamo" is one word: a reference titled "Dynamo" by someone else in another year is another work.
    ref = Reference(
        raw="Someone. 1990. Dynamo. Tech report.", authors=("Someone",), year=1990, title="Dynamo"
    )
    assert matcher.match(ref) is None


def test_raw_fallback_when_the_parsed_title_is_unreliable(matcher: ReferenceMatcher) -> None:
    ref = Reference(
        raw="Akkaya K, Younis M, 2005 A survey on routing protocols for wireless sensor networks Ad Hoc Netw. 3 325",
        authors=("Akkaya", "Younis"),
        year=2005,
        title="",
    )
    match = matcher.match(ref)
    assert match is not None and match.item_key == "ROUTING1" and match.method == "title-raw"


def test_never_matches_the_citing_paper_itself(matcher: ReferenceMatcher) -> None:
    by_doi = parse_reference("Kyle Lo et al. 2020. S2ORC. doi:10.18653/v1/2020.acl-main.447")
    assert matcher.match(by_doi, citing_key="S2ORC001") is None
    by_arxiv = parse_reference("Shen et al. 2022. Multi-LexSum. arXiv:2206.10883")
    assert matcher.match(by_arxiv, citing_key="MLEXSUM1") is None
    by_title = parse_reference(
        "Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT: A pretrained language model for scientific text."
    )
    assert matcher.match(by_title, citing_key="SCIBERT1") is None
    assert matcher.match(by_title, citing_key="OTHER") is not None


def test_duplicate_titles_pick_the_right_year() -> None:
    v1 = make_item("V1", "Deep learning for graph matching problems", 2015, ["Zhang"])
    v2 = make_item("V2", "Deep learning for graph matching problems", 2021, ["Zhang"])
    matcher = ReferenceMatcher([v1, v2])
    ref = parse_reference("Wei Zhang. 2021. Deep learning for graph matching problems. In KDD.")
    assert matcher.match(ref) == Match("V2", 0.96, "title")


def test_empty_library_and_empty_reference() -> None:
    assert (
        ReferenceMatcher([]).match(parse_reference("Iz Beltagy. 2019. SciBERT: A model. In EMNLP.")) is None
    )
    assert ReferenceMatcher(ITEMS).match(Reference(raw="")) is None


def test_items_from_a_zotero_library(tmp_path: Path) -> None:
    b = ZoteroLibraryBuilder(tmp_path)
    s2orc = b.add_item(
        "conferencePaper",
        title="S2ORC: The Semantic Scholar Open Research Corpus",
        date="2020-07-00 July 2020",
        DOI="10.18653/v1/2020.acl-main.447",
        creators=[("Kyle", "Lo"), ("Lucy Lu", "Wang")],
    )
    scibert = b.add_item(
        "preprint",
        title="SciBERT: A Pretrained Language Model for Scientific Text",
        date="2019-03-26 2019-03-26",
        archiveID="arXiv:1903.10676",
        creators=[("Iz", "Beltagy"), ("Kyle", "Lo")],
    )
    library = load_library(b.build())
    matcher = ReferenceMatcher(library.items.values())
    refs = [
        "Kyle Lo, Lucy Lu Wang, Mark Neumann, Rodney Kinney, and Daniel Weld. 2020. S2ORC: The semantic "
        "scholar open research corpus. In Proceedings of ACL, pages 4969–4983.",
        "[5] Iz Beltagy, Kyle Lo, and Arman Cohan. 2019. SciBERT. arXiv preprint arXiv:1903.10676.",
    ]
    found = [matcher.match(parse_reference(r)) for r in refs]
    assert [m.item_key if m else None for m in found] == [s2orc, scibert]
    assert found[1] is not None and found[1].method == "arxiv"


@pytest.mark.parametrize(
    ("ref", "key"),
    [
        (
            Reference(raw="x", doi="10.1145/3544548.3580847", arxiv="2302.07302"),
            "doi:10.1145/3544548.3580847",
        ),
        (Reference(raw="x", arxiv="hep-th/9901001"), "arxiv:hep-th/9901001"),
        (Reference(raw="x", title="Dynamo"), None),
        (Reference(raw="x", title="Two words"), None),
        (Reference(raw="x"), None),
    ],
)
def test_external_work_key_identifiers(ref: Reference, key: str | None) -> None:
    assert external_work_key(ref) == key


def test_external_work_key_title_hash_is_stable_and_normalised() -> None:
    a = Reference(raw="a", title="Language Models are Few-Shot Learners", year=2020)
    b = Reference(raw="b", title="language models are few shot learners.", year=2020)
    c = Reference(raw="c", title="Language Models are Few-Shot Learners", year=2021)
    key = external_work_key(a)
    assert key is not None and re.fullmatch(r"t:[0-9a-f]{16}", key)
    assert external_work_key(b) != key or title_form(a.title) == title_form(b.title)
    assert (
        external_work_key(Reference(raw="z", title="Language models are few-shot learners!", year=2020))
        == key
    )
    assert external_work_key(c) != key


PAXOS = make_item("PAXOS001", "Paxos made simple", 2001, ["Lamport"])


@pytest.mark.parametrize(
    ("title", "year", "authors", "matched"),
    [
        ("Paxos made simple", None, ["Lamport"], True),  # a list that prints no years
        ("Paxos Made Simple.", None, [], True),  # neither year nor author: the exact title alone
        ("Paxos made simple", 2002, ["L. Lamport"], True),  # a year apart: proceedings and journal
        ("Paxos made simple", 1995, [], False),  # six years apart, no author to confirm it: another work
        ("Paxos made simple", None, ["Oki"], False),  # someone else's work of that name
        ("Paxos made simpler", None, ["Lamport"], False),  # not printed exactly: a short title stays doubtful
    ],
)
def test_a_three_word_title_printed_exactly_names_the_paper(
    title: str, year: int | None, authors: list[str], matched: bool
) -> None:
    ref = Reference(raw=f"{title}. ACM SIGACT News 32, 4.", title=title, year=year, authors=tuple(authors))
    found = ReferenceMatcher([PAXOS]).match(ref)
    assert (found is not None and found.item_key == "PAXOS001") is matched, found
