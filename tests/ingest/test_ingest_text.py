"""Text cleaning, running headers, references and headings on hand-written page texts."""

from __future__ import annotations

import pytest

from agent_zot.ingest.clean import is_page_number, normalise_text, strip_running_lines
from agent_zot.ingest.document import build_document
from agent_zot.ingest.headings import find_headings, heading_level
from agent_zot.ingest.models import ParseError
from agent_zot.ingest.references import split_references


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        ("exam\x02ple text", "example text"),  # pdfium's soft-hyphen marker
        ("exam\ufffe\r\nple", "example"),  # older pdfium: marker, then the line break
        ("soft\u00adhyphen", "softhyphen"),
        ("Addison\x02Wesley", "Addison-Wesley"),  # capital after the break: a real hyphen
        ("IEEE\x02754", "IEEE-754"),
        ("self\x02attention", "self-attention"),  # prefixes written with a hyphen
        ("automatically\x02detected", "automatically-detected"),
        ("state-of-the\x02art", "state-of-the-art"),
        ("F1-\r\nscore", "F1-score"),  # a plain hyphen at a line end stays; the break goes
        ("\x02c 2008 IOP", "c 2008 IOP"),  # a marker that is a glyph without Unicode mapping
        ("a  b\t c\u00a0d", "a b c d"),
        ("line one\r\nline two\rline three", "line one\nline two\nline three"),
        ("para one\n\n\n\npara two", "para one\n\npara two"),
        ("nul\x00 and bell\x07 go\ufeff", "nul and bell go"),
        ("  trailing  \n  leading", "trailing\nleading"),
    ],
)
def test_normalise_text(raw: str, clean: str) -> None:
    assert normalise_text(raw) == clean


@pytest.mark.parametrize("line", ["12", "iv", "XII", "Page 3", "page 3 of 12", "- 7 -", "3/12"])
def test_page_number_lines(line: str) -> None:
    assert is_page_number(line)


@pytest.mark.parametrize("line", ["civil", "12 apples", "Introduction", "", "2019 was a good year"])
def test_not_page_number_lines(line: str) -> None:
    assert not is_page_number(line)


def test_page_label_line_is_a_page_number() -> None:
    assert is_page_number("A-3", label="A-3")


_WORDS = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota"]


def _page(n: int, header: str, body: str) -> str:
    """A header, body lines that differ from page to page (not only in digits), the page number."""
    word = _WORDS[n % len(_WORDS)]
    return f"{header}\n{body} about {word}.\nMore about {word} here.\nThe end of {word}.\n{n}"


def test_alternating_headers_and_page_numbers_are_stripped() -> None:
    pages = [
        _page(n, f"{n} Short Title of the Paper" if n % 2 == 0 else f"Journal of Tests {n}", "Body")
        for n in range(1, 9)
    ]
    cleaned = strip_running_lines(pages, [None] * 8)
    for n, (text, page) in enumerate(zip(cleaned, pages, strict=True), start=1):
        assert text == "\n".join(page.splitlines()[1:-1]), n


def test_lines_recurring_on_few_pages_stay() -> None:
    pages = [_page(n, "Rare header" if n <= 2 else f"Unique {chr(64 + n)}", "Body") for n in range(1, 9)]
    cleaned = strip_running_lines(pages, [None] * 8)
    assert cleaned[0].startswith("Rare header")


def test_recurring_line_in_the_middle_of_a_page_stays() -> None:
    pages = [f"Top {n}x\nBody\nRepeated sentence.\nMore body\nEnd text {n}x" for n in range(1, 6)]
    cleaned = strip_running_lines(pages, [None] * 5)
    assert all("Repeated sentence." in text for text in cleaned)


BODY = "\n".join(f"Body sentence number {i} with ordinary words in it." for i in range(30))
NUMBERED_REFS = "\n".join(f"[{i}] A. Author. Title number {i}. Journal, 20{10 + i}." for i in range(1, 8))


def test_references_after_heading_are_split() -> None:
    pages = [BODY, BODY + "\n7 References\n" + NUMBERED_REFS]
    split = split_references(pages)
    assert split is not None
    assert split.start_page_index == 1 and split.heading == "7 References"
    assert split.references_text == NUMBERED_REFS
    assert split.body_pages == [BODY, BODY]


def test_references_end_at_an_appendix_heading() -> None:
    appendix = "A Additional Experiments\n" + "\n".join(
        f"We ran extra experiment {i} here." for i in range(12)
    )
    pages = [BODY, BODY + "\nREFERENCES\n" + NUMBERED_REFS, appendix]
    split = split_references(pages)
    assert split is not None
    assert split.references_text == NUMBERED_REFS
    assert split.body_pages[2] == appendix


def test_wrapped_reference_title_is_not_an_appendix() -> None:
    refs = NUMBERED_REFS + "\nA Survey of Methods for Text\n" + NUMBERED_REFS.replace("[", "(")
    split = split_references([BODY, BODY + "\nReferences\n" + refs])
    assert split is not None and split.references_text == refs


def test_author_year_references_are_split() -> None:
    refs = "\n".join(
        f"Author{i}, A. and Other, B. ({2000 + i}). A title.\nJournal of Things, {i}:1-9." for i in range(8)
    )
    split = split_references([BODY, BODY + "\nBibliography\n" + refs])
    assert split is not None and split.references_text == refs


def test_numbered_list_without_heading_is_found() -> None:
    split = split_references([BODY, BODY + "\n" + NUMBERED_REFS])
    assert split is not None
    assert split.heading == "" and split.references_text == NUMBERED_REFS


def test_implausible_references_heading_is_ignored() -> None:
    pages = [BODY, BODY + "\nReferences\nThis section has no citations at all.\n" + BODY]
    assert split_references(pages) is None


def test_references_heading_in_the_table_of_contents_is_ignored() -> None:
    toc = "Contents\nIntroduction\nReferences\n" + NUMBERED_REFS
    assert split_references([toc, BODY, BODY, BODY, BODY, BODY]) is None


def test_headings() -> None:
    page = "\n".join(
        [
            "3.2 Results on the Test Set",
            "Body text that is long enough to follow a heading.",
            "INTRODUCTION",
            "Body text that is long enough to follow a heading.",
            "Related Work",
            "Body text that is long enough to follow a heading.",
            "1 Total papers 81.1M",  # a table row
            "2. Select the best metadata and full text parses",  # a list item
            "2008 IEEE Conference",
        ]
    )
    assert find_headings([page], [5]) == [
        (5, "3.2 Results on the Test Set"),
        (5, "INTRODUCTION"),
        (5, "Related Work"),
    ]


def test_chinese_chapters_numbered_sections_and_section_names_are_headings() -> None:
    """A line of Chinese prose wraps as short as a heading; a heading is told by its number or chapter
    mark before words with no punctuation, or by a section's name alone (spaced or with its colon)."""
    journal = "\n".join(
        [
            "基于运动学建模的自动瞄准系统",
            "摘要：",
            "本文介绍一种基于运动学建模的自动瞄准系统，能够有效地弥补传统自瞄系统的缺陷。",
            "0 引言",
            "在 RoboMaster 机器人比赛中，机器人的前后左右",
            "获得一等奖",  # a paragraph's last, short line
            "1 基础模型",
            "1.1 目标检测",
            "2 到 4 圈的速度自转，且由于采用了麦克纳姆轮",  # a wrapped line that opens with a number
            "图 4.1 静态目标击打与动态目标击打",  # a figure's caption
            "2.2.2目标识别算法",
            "目标检测是通过对摄像头捕获的图像进行处理，",
            "18 机器人离地",  # a figure's label over its English caption
            "Fig．18 Robot off the ground",
            "1．1．2 经典力学分析",  # full-width full stops
            "对驱动轮的受力进行分析。",
        ]
    )
    thesis = "\n".join(
        ["第 4 章 机器人运动学建模与状态观测", "4.1 本章简述", "在上一章，通过 PNP 进行三维重建。"]
    )
    back = "\n".join(["致 谢", "感谢导师的悉心指导。"])
    assert [text for _, text in find_headings([journal, thesis, back], [1, 31, 60])] == [
        "摘要：",
        "0 引言",
        "1 基础模型",
        "1.1 目标检测",
        "2.2.2目标识别算法",
        "1．1．2 经典力学分析",
        "第 4 章 机器人运动学建模与状态观测",
        "4.1 本章简述",
        "致 谢",
    ]
    japanese = "\n".join(
        ["1. はじめに", "本研究では、新しい手法を提案する。", "謝辞", "本研究は助成を受けた。"]
    )
    assert [text for _, text in find_headings([japanese], [1])] == ["1. はじめに", "謝辞"]
    levels = {
        "第 4 章 机器人运动学建模与状态观测": 1,
        "1 基础模型": 1,
        "1.1 目标检测": 2,
        "2.2.2目标识别算法": 3,
        "1．1．2 经典力学分析": 3,
    }
    assert {heading: heading_level(heading) for heading in levels} == levels


def test_lettered_subsections_under_roman_sections_are_headings() -> None:
    body = "The recordings were taken at rest in a quiet room for ten minutes."
    page = "\n".join(
        [
            "II. METHODS",
            "A. Data Collection",
            body,
            "It ended the session.",
            "B. Spectrum Analysis",
            body,
            "Authors are listed as follows:",
            "H. Smith",  # an initial and a surname
            "Department of Physiology, University of Somewhere, 1 Main Street",
            "The protocol was described above and used in all trials.",
            "C. the sampling rate was fixed",  # a list item in sentence case
            body,
            "It ended there.",
            "D. Results",
            body,
        ]
    )
    assert find_headings([page], [2]) == [
        (2, "II. METHODS"),
        (2, "A. Data Collection"),
        (2, "B. Spectrum Analysis"),
        (2, "D. Results"),
    ]
    assert heading_level("B. Spectrum Analysis") == 2


def test_repeated_labels_are_not_headings() -> None:
    page = "1 Trace\nsome text\n1 Trace\nmore\n1 Trace\n2 Methods"
    assert find_headings([page], [1]) == [(1, "2 Methods")]


def test_build_document_warns_about_empty_pages_and_raises_when_all_are_empty() -> None:
    doc = build_document("K", "pdfium", ["Some text here.", "  \x02 ", "More text."])
    assert doc.warnings == ["no text layer on 1 of 3 pages"]
    assert [p.text for p in doc.pages] == ["Some text here.", "", "More text."]
    with pytest.raises(ParseError, match="no text layer"):
        build_document("K", "pdfium", ["", " \n "])


@pytest.mark.parametrize(
    ("raw", "clean"),
    [
        # TeX's spacing accents, as pdfium reads papers set in Type 1 fonts (the shared libraries' affiliations,
        # names in reference lists)
        (
            "Universit¨at Stuttgart and Universidade de S˜ao Paulo",
            "Universität Stuttgart and Universidade de São Paulo",
        ),
        ("D. Cire¸san, U. Meier and J. Schmidhuber", "D. Cireşan, U. Meier and J. Schmidhuber"),
        (
            "Fran¸cois and Franc¸ois, Universidad Polit´ecnica",
            "François and François, Universidad Politécnica",
        ),
        ("¨Ozg¨ur and Gr`egory", "Özgür and Grègory"),
        ("the estimate ˆx of x", "the estimate x̂ of x"),  # a hat over a variable is that variable's hat
        # a grave accent before a word is TeX's opening quote; a mark standing alone is no accent
        ("the `hidden' state and an ´ alone", "the `hidden' state and an ´ alone"),
    ],
)
def test_texs_spacing_accents_are_joined_to_their_letters(raw: str, clean: str) -> None:
    assert normalise_text(raw) == clean


# Cover sheets as pdfium reads them from the shared libraries (a HAL preprint, a ResearchGate download).
HAL_COVER = (
    "HAL Id: hal-00905460\nhttps://hal.science/hal-00905460\nSubmitted on 18 Nov 2013\nHAL is a multi-disciplinary "
    "open access\narchive for the deposit and dissemination of scientific research documents, whether they are "
    "published or not.\nRelaxed and Hybridized Backstepping\nTo cite this version:\nHumberto Stein Shiromoto, "
    "Vincent Andrieu, Christophe Prieur. Relaxed and Hybridized\nBackstepping. IEEE Transactions on Automatic "
    "Control, 2013, 58 (12), pp.3236-3241.\nff10.1109/TAC.2013.2263613ff. ffhal-00905460ff"
)
RESEARCHGATE_COVER = (
    "See discussions, stats, and author profiles for this publication at: https://www.researchgate.net/publication/"
    "329891470\nDEEP LEARNING IN INDUSTRY 4.0 – BRIEF\nSome of the authors of this publication are also working "
    "on these related projects:\nClassifying Parkinson’s Disease Based on Acoustic Measures Using Artificial "
    "Neural Networks View project\nAll content following this page was uploaded by Lucijano Berus on 04 February "
    "2019.\nThe user has requested enhancement of the downloaded file."
)


@pytest.mark.parametrize("cover", [HAL_COVER, RESEARCHGATE_COVER])
def test_a_repositorys_cover_sheet_is_left_out_and_the_pages_keep_their_numbers(cover: str) -> None:
    doc = build_document("K", "pdfium", [cover, "Abstract: we consider nonlinear control systems.", "More."])
    assert [(p.number, p.text) for p in doc.pages] == [
        (1, ""),
        (2, "Abstract: we consider nonlinear control systems."),
        (3, "More."),
    ]
    assert doc.warnings == ["page 1 is a repository's cover sheet: left out"]


def test_a_paper_that_only_mentions_a_repository_keeps_its_first_page() -> None:
    first = "Preprint, HAL Id: hal-01234567. " + BODY * 40  # the first page of the paper itself, stamped
    doc = build_document("K", "pdfium", [first, "More."])
    assert doc.pages[0].text and not doc.warnings
    alone = build_document("K", "pdfium", [HAL_COVER])  # a file that is nothing but the sheet stays as it is
    assert alone.pages[0].text


def test_a_references_heading_repeated_atop_every_page_of_the_list_starts_it_on_its_first_page() -> None:
    """Chinese theses print "参考文献" (also spaced, "参 考 文 献") as the running header of each page of the
    list: the list starts at the first, and the repeats are no part of any entry."""
    entries = [
        f"[{n}] 作者{n}, 王剑平. 论文题目第{n}篇[J]. 价值工程, 20{10 + n % 10}, {n}(2): 1-9."
        for n in range(1, 31)
    ]
    for header, skipped in (("参考文献", None), ("参 考 文 献", None), ("参考文献", 1)):
        # some theses print it atop every other page only
        pages = [BODY, BODY, BODY] + [
            "\n".join([*([header] if n != skipped else []), *entries[start : start + 10]])
            for n, start in enumerate(range(0, 30, 10))
        ]
        split = split_references(pages)
        assert split is not None and split.start_page_index == 3
        found = split.references_text.splitlines()
        assert found == entries  # all thirty, and no header among them


def test_formulas_and_table_header_rows_are_not_headings() -> None:
    """An equation set on its own line with its number ("7 SBP = a PTT −2 + b w/o"), a kernel's definition
    and a table's column header row look like short headings; a section is never named that way."""
    body = "The model was fitted to each subject's first session and tested on the second one."
    page = "\n".join(
        [
            "2 Methods",
            body,
            "7 SBP = a PTT −2 + b w/o",
            body,
            "xT i , x] + b",
            body,
            "It ended the fit.",
            "= Φ(xi) · Φxj",
            body,
            "ME STD MAE RMSE ME STD MAE RMSE",
            body,
            "SBP DBP MAP HR",
            body,
            "RESULTS AND DISCUSSION",
            body,
            "3 C++ Implementation",
            body,
            "DATA AND CODE",
            body,
        ]
    )
    assert find_headings([page], [4]) == [
        (4, "2 Methods"),
        (4, "RESULTS AND DISCUSSION"),
        (4, "3 C++ Implementation"),
        (4, "DATA AND CODE"),
    ]


def test_a_first_pages_affiliations_author_marks_and_stamps_are_not_headings() -> None:
    """A first page numbers its affiliations and marks its authors with the numbers; publishers stamp it.
    None of those lines starts a section; "Abstract." over the abstract does."""
    body = "Objective: evaluate a method for estimating the nocturnal dip from wrist-worn sensors."
    page = "\n".join(
        [
            "ACCEPTED MANUSCRIPT",
            "Estimating Blood Pressure Trends from Photoplethysmography at Night",
            "1 Wei Zhou,2 Ying Xing ,1 and Xiaoguang Zhou 1",
            "1 Personal Health, Philips Research, Royal Philips, Eindhoven, The Netherlands",
            "2 Signal Processing Systems, Eindhoven University of Technology",
            "4 Faculty of Health and Life Sciences, Coventry University, Coventry, United",
            "Abstract.",
            body,
            "1. Introduction",
            body,
            "2 Hospital Recordings",  # a numbered heading may name a hospital: no comma, no place list
            body,
        ]
    )
    assert find_headings([page], [1]) == [
        (1, "Abstract."),
        (1, "1. Introduction"),
        (1, "2 Hospital Recordings"),
    ]
    assert heading_level("Abstract.") == 1


def test_an_english_abstract_printed_among_the_references_is_the_papers_own_text() -> None:
    """A Chinese journal sets the paper's English title, abstract and keywords on its last page, between
    two reference entries: the abstract is body text, the entries after it are still references."""
    before = "\n".join(
        f"[{n}] 作者{n}. 论文题目第{n}篇[J]. 价值工程, 2019, {n}(2): 1-9." for n in range(1, 6)
    )
    after = "\n".join(
        f"[{n}] MUIR P F. Kinematic modeling of wheeled robots[J]. 1987, {n}: 281-340." for n in (6, 7)
    )
    abstract = (
        "Abstract:\nThe RoboMaster National Robot Competition is a robotic competition in which robots strike\n"
        "the armour plates of the opponent's robots.\nKeywords:\nAutomatic Aiming; Kinematics"
    )
    pages = [BODY, BODY, BODY + "\n参考文献\n" + before, abstract + "\n" + after]
    split = split_references(pages)
    assert split is not None
    assert split.body_pages[3] == abstract
    assert split.references_text.splitlines() == [*before.splitlines(), *after.splitlines()]
    # a reference entry's wrapped line that opens with the word is no abstract
    wrapped = before + "\nAbstract algebra. Springer, 2004.\n" + after
    split = split_references([BODY, BODY, BODY + "\n参考文献\n" + wrapped])
    assert split is not None and "Abstract algebra. Springer, 2004." in split.references_text
