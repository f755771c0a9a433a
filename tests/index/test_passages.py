"""The passage that answers: sentence splitting and windows, and `zot_search` / `zot_summarize` answers
of the best sentences with the right page, through a real MCP client on a real indexed PDF."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import pytest
from fastmcp import Client
from fpdf import FPDF

from agent_zot.config import Settings
from agent_zot.index.chunk_sentences import ReadChunks
from agent_zot.index.passages import (
    JOINED_CHARS,
    JUDGING,
    WINDOW_CHARS,
    ChunkHit,
    Passage,
    PassagePicker,
    windows,
)
from agent_zot.index.retrieval import PaperHit, search_papers
from agent_zot.index.sentences import (
    asks_a_question,
    focus_of,
    prose_share,
    sentence_spans,
    split_question,
)
from agent_zot.index.store import Hit
from agent_zot.index.title_block import without_title_block
from agent_zot.services.context import AppContext
from agent_zot.services.search.answer import PASSAGES_BY_RANK, QUESTION_DEPTH, QUESTION_PASSAGES_BY_RANK
from agent_zot.services.search.present import FURTHER_CHARS, paper_response
from agent_zot.state.index import IndexState, PageRecord
from agent_zot.text import spelled_out_acronyms, with_numerals
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import connect, guard_database, index_library, library_settings, text_of

ANSWER = "The sampling rate of the hydrophone array was fixed at 48 kilohertz for every recording session."
FILLER = [
    "Underwater acoustic monitoring helps ecologists follow marine mammals across long seasons.",
    "Our field team deployed recorders along the coast and retrieved them after several months.",
    "Storms and shipping noise make the recordings uneven, so every file is screened by hand.",
    "The screened files are then grouped by site, by week and by the species that was heard.",
    "Volunteers labelled the calls with a shared guide that was revised twice during the project.",
    "Disagreements between volunteers were settled by a second reading of the same recording.",
]

TIDES = [
    "was levelled against the harbour benchmark before the winter.",
    "logged the water height every hour for two years.",
    "lost a month of data when ice blocked its stilling well.",
]


def sentences(text: str) -> list[str]:
    return [text[a:b] for a, b in sentence_spans(text)]


# -- sentences and windows ---------------------------------------------------------------------------


def test_sentences_end_at_full_stops_not_at_abbreviations() -> None:
    text = (
        "Results are in Fig. 3 and Tab. 2, e.g. the F1 of 0.89 reported by Tkaczyk et al. (2018). "
        "The corpus has 81.1M papers! Is it large? Yes."
    )
    assert sentences(text) == [
        "Results are in Fig. 3 and Tab. 2, e.g. the F1 of 0.89 reported by Tkaczyk et al. (2018).",
        "The corpus has 81.1M papers!",
        "Is it large?",
        "Yes.",
    ]


def test_numbered_headings_and_paragraph_breaks_end_sentences() -> None:
    text = (
        "filtered out of the corpus\n2.4 Assembling the corpus\nWe construct the final corpus.\n\nNext part"
    )
    assert sentences(text) == [
        "filtered out of the corpus",
        "2.4 Assembling the corpus",
        "We construct the final corpus.",
        "Next part",
    ]


def test_a_window_takes_the_better_neighbour_first_and_stays_within_its_size() -> None:
    text = "Alpha one. Beta two. Gamma three. Delta four. Epsilon five."
    spans = sentence_spans(text)
    best = windows(spans, [0.1, 0.2, 0.9, 0.5, 0.3])[0]
    assert (best.peak, best.first, best.last) == (2, 1, 3)  # both neighbours: WINDOW_SENTENCES is 3
    long = "A" * (WINDOW_CHARS - 5) + ". Short one. Other one."
    spans = sentence_spans(long)
    best = windows(spans, [0.8, 0.9, 0.5])[0]
    assert (best.first, best.last) == (1, 2)  # the better but long neighbour would overflow the window


def test_an_answer_told_over_several_sentences_reads_as_one_passage() -> None:
    told = [
        "The probe was calibrated before each session.",
        "Subjects were grouped by their resting heart rate.",
        "Each group was then split into two halves.",
        "Every second group was held out for testing the heart rate model.",
        "The room was kept at 21 degrees.",
        "Recordings lasted ten minutes.",
    ]
    pool = _chunks(" ".join(told))
    asked = "How were subjects grouped and which group was held out for testing the heart rate model?"
    passages = PassagePicker(None, asked, detail="sentences").pick(pool, 3)  # type: ignore[arg-type]
    whole = " ".join(told[1:4])
    assert any(whole in p.text for p in passages), [p.text for p in passages]
    shown = [sentence for p in passages for sentence in told if sentence in p.text]
    assert len(shown) == len(set(shown))  # no sentence is shown twice


# One answer told over two sentences, each too long to share a passage with the other, and a passage from
# elsewhere that scores between them.
TOLD_FIRST = (
    "First, the heart rate model was trained on the grouped subjects, because grouping by resting heart rate "
    "removed most of the spread between people, "
    + "and the bands were chosen so that each held the same number of subjects and the same share of older "
    "volunteers " * 4 + "."
)
TOLD_SECOND = (
    "Second, the heart rate model was checked on the held-out half, "
    + "which had never been seen in training and which was recorded on a different day with a different "
    "probe operator " * 4 + "."
)
TOLD_ELSEWHERE = (
    "The heart rate model of the earlier pilot study was trained on ungrouped subjects and did worse."
)
TOLD_ASKED = (
    "Why was the heart rate model trained on grouped subjects and how was the heart rate model checked?"
)


def _told_pool() -> list[ChunkHit]:
    filler = " ".join(["The recordings were stored on an encrypted laboratory server for later review."] * 5)
    return _chunks(f"{filler} {TOLD_FIRST} {TOLD_SECOND} {filler}", TOLD_ELSEWHERE)


def test_an_answer_too_long_to_join_reads_on_in_the_next_passage() -> None:
    """Two sentences of one answer, each too long to share a passage with the other: the second is shown right
    after the first, not after a passage from elsewhere that scored between them."""
    passages = PassagePicker(None, TOLD_ASKED, detail="sentences").pick(_told_pool(), 5)  # type: ignore[arg-type]
    texts = [p.text for p in passages]
    assert len(texts) == 3 and texts[0].endswith(TOLD_FIRST), texts
    assert texts[1] == TOLD_SECOND and texts[2] == TOLD_ELSEWHERE, texts  # by score: first, elsewhere, second


def test_a_deeper_tier_leaves_the_shallower_one_as_pick_alone_gives_it() -> None:
    """An answer that may read further is chosen once for both depths: the later windows of the deeper one
    join or follow earlier passages (here the second half of an answer moves up beside its first), so the
    shallower tier is kept as it stood, not cut from the deeper one."""
    pool = _told_pool()
    picker = PassagePicker(None, TOLD_ASKED, detail="sentences")  # type: ignore[arg-type]
    tiers = [[p.text for p in tier] for tier in picker.pick_tiers(pool, (1, 2, 5))]
    for count, tier in zip((1, 2, 5), tiers, strict=True):
        alone = PassagePicker(None, TOLD_ASKED, detail="sentences").pick(pool, count)  # type: ignore[arg-type]
        assert tier == [p.text for p in alone]
    # the deeper tier is not the shallower plus more
    assert tiers[1][1] == TOLD_ELSEWHERE and tiers[2][1] == TOLD_SECOND
    assert picker.pick_tiers(pool, (0, 2))[0] == []


def test_a_heading_is_neither_a_neighbour_nor_a_passage() -> None:
    text = (
        "Subjects were grouped by their resting heart rate.\n\n3 Results\n"
        "The grouped model lowered the heart rate error by a third."
    )
    pool = _chunks(text)
    asked = "What did grouping subjects by heart rate do to the heart rate error?"
    passages = PassagePicker(None, asked, detail="sentences").pick(pool, 3)  # type: ignore[arg-type]
    assert passages and all("3 Results" not in p.text for p in passages), [p.text for p in passages]


def test_a_running_title_left_alone_by_a_heading_is_no_passage() -> None:
    """A file-name line printed above the abstract ("Lo et al. - 2020 - S2ORC") ends where the "Abstract"
    heading begins: a fragment with no end mark and a few words says nothing on its own."""
    text = (
        "Beltagy et al. - 2019 - SciBERT\nAbstract\nGeneral-purpose models split scientific terms into "
        "fragments. We pretrain SciBERT with a vocabulary built from scientific papers."
    )
    asked = "how was SciBERT's vocabulary built?"
    passages = PassagePicker(None, asked, detail="sentences").pick(_chunks(text), 5)  # type: ignore[arg-type]
    assert passages and all("2019 - SciBERT" not in p.text for p in passages), [p.text for p in passages]


_GROWN = "We grew 500 trees for each of the 32 data sets. Each tree saw a bootstrap sample of the rows."


@pytest.mark.parametrize(
    ("stray", "text"),
    [
        ("17.", f"Random forests average many decorrelated trees.\n17.\n{_GROWN}"),
        (". . .", f". . .\n{_GROWN}"),
        ("-0.23 -0.27 0.01 4.", f"-0.23 -0.27 0.01 4.\n{_GROWN}"),
    ],
)
def test_a_number_or_marks_alone_are_no_passage_nor_part_of_one(stray: str, text: str) -> None:
    """A contents line's page number left on its own ("17."), leader dots, a table's row of numbers without
    its labels: no word in them, so never a passage, and a passage does not run across them."""
    asked = "how many trees were grown for each data set?"
    passages = PassagePicker(None, asked, detail="sentences").pick(_chunks(text), 10)  # type: ignore[arg-type]
    assert passages[0].text.startswith("We grew 500 trees"), [p.text for p in passages]
    assert all(stray not in p.text for p in passages), [p.text for p in passages]


def test_a_sentence_two_overlapping_chunks_hold_is_shown_once() -> None:
    """Consecutive chunks overlap: the second opens inside a sentence the first holds whole. That piece is
    the same sentence: another window is shown in its place."""
    first = (
        "The probe was calibrated before each session. Subjects were grouped by their resting heart rate into "
        "three bands of equal size, a band for each third of the range."
    )
    second = (
        "grouped by their resting heart rate into three bands of equal size, a band for each third of the "
        "range. Each band was split in two halves by the day of the visit. The held-out half tested the "
        "heart rate model."
    )
    asked = "How were the subjects grouped by resting heart rate into bands?"
    passages = PassagePicker(None, asked, detail="sentences").pick(_chunks(first, second), 3)  # type: ignore[arg-type]
    told = "three bands of equal size, a band for each third of the range."
    assert sum(p.text.count(told) for p in passages) == 1, [p.text for p in passages]
    assert any("split in two halves" in p.text for p in passages), [p.text for p in passages]


def test_a_window_opening_at_a_citations_year_reads_its_sentence_from_the_start(tmp_path: Path) -> None:
    """A chunk cut after "Kokori et al." opens with "(2021) we defined ...": inside a sentence, whose start the
    page gives."""
    page = (
        "Ariel observes each transit whole. For this reason, in Kokori et al. (2021) we defined that the aim of "
        "the project is to predict transit times to within a twelfth of the transit duration. Most planets "
        "already meet that aim. Some need one more transit. A few need several. The rest are lost."
    )
    state = IndexState(tmp_path / "state.sqlite")
    state.record_item(
        "ITEM", "f", status="indexed", attachments=[], pages={"ATT": [PageRecord(3, None, page)]}
    )
    chunk = page[page.index("(2021)") :]
    asked = (
        "Do most planets already meet that aim?"  # the chunk's second sentence: its window opens the chunk
    )
    resources = SimpleNamespace(state=state, read_chunks=ReadChunks())  # the parts the picker reads
    picker = PassagePicker(resources, asked, detail="sentences")  # type: ignore[arg-type]
    shown = picker.pick(_chunks(chunk), 1)[0].text
    state.close()
    assert "Most planets already meet that aim." in shown
    assert shown.startswith("For this reason, in Kokori et al. (2021) we defined"), shown


def test_the_papers_outline_of_itself_is_no_passage() -> None:
    """A sentence like "Section 3 discusses the precision of the calculator" repeats the question's words
    and answers nothing: the sentence that states the precision does."""
    pool = _chunks(
        "Section 3 discusses the precision of the limb-darkening calculator for transit light curves.",
        "The calculator's coefficients reproduce the model intensities to within 0.1 per cent.",
    )
    asked = "What precision does the limb-darkening calculator reach for transit light curves?"
    passages = PassagePicker(None, asked, detail="sentences").pick(pool, 2)  # type: ignore[arg-type]
    assert [p.text for p in passages] == [
        "The calculator's coefficients reproduce the model intensities to within 0.1 per cent."
    ]


def _chunks(*texts: str) -> list[ChunkHit]:
    """One single-sentence chunk per text, ranked in the order given."""
    found = []
    for rank, text in enumerate(texts, 1):
        payload = {"text": text, "kind": "chunk", "attachment_key": "ATT", "page_start": 3, "page_end": 3}
        found.append(ChunkHit(Hit(id=f"c{rank}", score=1.0 / rank, payload=payload), 1.0 / rank, {"dense"}))
    return found


def test_a_what_is_question_prefers_the_sentence_that_defines_the_term() -> None:
    pool = _chunks(
        "Dispersion of the instrument response shifts every decay curve in our data.",
        "We correct the dispersion of the instrument response before fitting.",
        "Dispersion is defined as the dependence of the instrument response on wavelength.",  # ranked last, defines
    )
    asked = "What is meant by dispersion of the instrument response?"
    best = PassagePicker(None, asked, detail="sentences").pick(pool, 1)  # type: ignore[arg-type]
    assert best[0].text == "Dispersion is defined as the dependence of the instrument response on wavelength."
    plain = "Where does dispersion of the instrument response shift the decay curve?"
    other = PassagePicker(None, plain, detail="sentences").pick(pool, 1)  # type: ignore[arg-type]
    assert other[0].text.startswith("Dispersion of the instrument response shifts every decay curve")


def test_a_question_spelling_out_what_the_paper_abbreviates_matches_the_abbreviation() -> None:
    """The paper says "PTT" after defining it once; the question says "pulse transit time". Its sentences
    that say "PTT" answer the question's words as if they were spelled out."""
    pool = _chunks(
        "After exercise the cuff reading rose in every volunteer.",
        "After exercise the PTT fell by a fifth.",  # answers, ranked below a sentence on the cuff
        *FILLER[:4],
        "Each session also gave the pulse transit time (PTT) between the heart and the finger.",
    )
    asked = "How did the pulse transit time change after exercise?"
    best = PassagePicker(None, asked, detail="sentences").pick(pool, 2)  # type: ignore[arg-type]
    assert [p.text for p in best] == [
        "Each session also gave the pulse transit time (PTT) between the heart and the finger.",
        "After exercise the PTT fell by a fifth.",
    ]
    # a question that uses the abbreviation itself, and one that spells out nothing the paper abbreviates
    texts = [c.hit.payload["text"] for c in pool]
    assert spelled_out_acronyms("How did the PTT change after exercise?", texts) == []
    assert spelled_out_acronyms("How did the pulse transit times change?", texts) == ["PTT"]
    assert spelled_out_acronyms("How did the cuff reading change after exercise?", texts) == []


def test_the_questions_words_rare_in_the_paper_outweigh_those_everywhere_in_it() -> None:
    """Every candidate sentence of this paper says "heartbeats", "arm" and "ECG"; only one says "linear
    kernel", which is what the question asks about. A passage to read finds it first (each word's rarity
    among the candidates counts twice); a claim check's passages to judge keep plain BM25."""
    pool = _chunks(
        "Heartbeats are identified in the weak arm ECG by a support vector machine.",
        "The weak arm ECG is recorded between two electrodes on the upper arm.",
        "Motion corrupts the weak arm ECG far more than a chest ECG.",
        "Identified heartbeats from the arm ECG then guide the PPG peak search.",
        "Each candidate heartbeat in the arm ECG is described by six features.",
        "A linear kernel is chosen to keep the computation light enough for a wearable device.",
    )
    asked = "Why does the SVM that identifies heartbeats in the weak arm ECG use a linear kernel?"
    read = PassagePicker(None, asked, detail="sentences").pick(pool, 2)  # type: ignore[arg-type]
    assert read[0].text.startswith("A linear kernel is chosen")
    judged = PassagePicker(None, asked, detail="sentences", shape=JUDGING).pick(pool, 2)  # type: ignore[arg-type]
    assert judged[0].text.startswith("Heartbeats are identified")


def test_a_spelled_out_number_is_also_read_as_its_digits() -> None:
    assert with_numerals("segments of two seconds") == "segments of two seconds 2"
    assert with_numerals("twenty-four volunteers and ten thousand machines").endswith(" 24 10000 10,000")
    assert (
        with_numerals("one by one, and a dozen") == "one by one, and a dozen 12"
    )  # a lone "one" is no count
    assert with_numerals("No number here.") == "No number here."


def test_a_number_the_question_spells_out_finds_the_sentence_that_writes_its_digits() -> None:
    pool = _chunks(
        "Each recording of the dataset is cut into segments before the segments are labelled.",
        "Longer segments are rarely usable because the finger moves during the recording.",
        "A waveform quality index is accurate on segments of 2 s, which motivated their length.",
    )
    asked = "Why were the recording segments only two seconds long?"
    best = PassagePicker(None, asked, detail="sentences").pick(pool, 1)  # type: ignore[arg-type]
    assert best[0].text.startswith("A waveform quality index is accurate on segments of 2 s")


def test_prose_reads_higher_than_table_cells_and_running_titles() -> None:
    assert prose_share("We construct the final corpus by assembling clustered paper metadata.") == 1.0
    assert prose_share("25.6 BART 34.02 15.20 27.96 35.48 24.4") < 0.2
    assert prose_share("SISSA 1475-7516/08/10003+15$30.00 Contents") < 0.5


# -- through the tools -------------------------------------------------------------------------------


def _pdf(path: Path, pages: list[list[str]]) -> bytes:
    pdf = FPDF(format="A4")
    pdf.set_font("Helvetica", size=11)
    for lines in pages:
        pdf.add_page()
        pdf.multi_cell(0, 6, " ".join(lines))
    pdf.output(str(path))
    return path.read_bytes()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """A field-recording paper whose answer sentence opens page 3 (its chunk starts on page 2), and an
    unrelated paper."""
    root = tmp_path_factory.mktemp("passages")
    b = ZoteroLibraryBuilder(root / "library", shape="z7", seed=7)
    whales = b.add_item("journalArticle", title="Listening to Whales", date="2021-00-00 2021")
    # pages of about 1,600 characters, as printed pages hold at least
    pages = [
        [f"In season {n}, site {site}, {s[0].lower()}{s[1:]}" for site in "ABC" for s in FILLER]
        for n in (1, 2, 3, 4)
    ]
    pages[2][0] = ANSWER
    b.add_attachment(whales, filename="whales.pdf", content=_pdf(root / "whales.pdf", pages))
    soil = b.add_item("journalArticle", title="Soil Carbon Under Grazing", date="2020-00-00 2020")
    other = [["Grazing changes soil carbon in grasslands, and the effect depends on rainfall."] * 3] * 2
    b.add_attachment(soil, filename="soil.pdf", content=_pdf(root / "soil.pdf", other))
    db = guard_database(b.build())
    return index_library(library_settings(db.parent, root), root / "home")


@pytest.fixture
async def client(library: Settings, tmp_path: Path) -> AsyncIterator[Client]:
    async with connect(library, home=tmp_path / "home") as connected:
        yield connected


async def call(client: Client, tool: str, **arguments: Any) -> tuple[str, dict[str, Any]]:
    result = await client.call_tool(tool, arguments, raise_on_error=False)
    assert not result.is_error, text_of(result)
    return text_of(result), result.structured_content


QUESTION = "How many kilohertz was the hydrophone sampling rate?"


@pytest.mark.slow
async def test_search_answers_with_the_sentence_and_its_own_page(client: Client) -> None:
    text, data = await call(client, "zot_search", query=QUESTION)
    first = data["papers"][0]
    assert first["title"] == "Listening to Whales"
    best = first["passages"][0]
    assert best["kind"] == "chunk" and best["page_end"] == 3 and best["page_start"] in (2, 3)
    assert all(p["kind"] == "chunk" for p in first["passages"])  # no metadata record beside full text
    assert best["chars"] <= JOINED_CHARS
    lines = text.splitlines()
    assert lines[1].startswith("1. [") and lines[2].startswith("   [p") and ANSWER in lines[2]
    # the answer costs its words once: the structured form says where they are
    assert "every recording session" not in json.dumps(data)
    assert data["tokens"] == (len(text) + 3) // 4 and f"≈{data['tokens']:,} tokens" in lines[0]
    assert "zot_summarize item_key=KEY" in lines[-1] and "detail='full'" in lines[-1]


@pytest.mark.slow
async def test_a_question_reads_its_first_paper_in_depth_and_a_topic_keeps_its_breadth(
    client: Client,
) -> None:
    _, asked = await call(client, "zot_search", query=QUESTION)
    _, topic = await call(client, "zot_search", query="hydrophone recordings of whales")
    deep, broad = len(asked["papers"][0]["passages"]), len(topic["papers"][0]["passages"])
    assert QUESTION_PASSAGES_BY_RANK[0] >= deep > PASSAGES_BY_RANK["sentences"][0] >= broad
    assert asks_a_question(QUESTION) and not asks_a_question("hydrophone recordings of whales")


@pytest.mark.slow
async def test_detail_full_returns_whole_chunks(client: Client) -> None:
    _, lean_data = await call(client, "zot_search", query=QUESTION)
    full, full_data = await call(client, "zot_search", query=QUESTION, detail="full")
    assert full_data["detail"] == "full" and lean_data["detail"] == "sentences"
    whole = full_data["papers"][0]["passages"][0]
    assert whole["chars"] > lean_data["papers"][0]["passages"][0]["chars"]
    assert whole["page_start"] < whole["page_end"]  # a whole chunk spans the page break
    assert ANSWER in full and "detail='full'" not in full.splitlines()[-1]


@pytest.mark.slow
async def test_a_bad_detail_value_is_an_error_the_assistant_can_act_on(client: Client) -> None:
    result = await client.call_tool(
        "zot_search", {"query": QUESTION, "detail": "everything"}, raise_on_error=False
    )
    assert result.is_error and "detail" in result.content[0].text


@pytest.mark.slow
async def test_summarize_targeted_shares_the_passage_ranking(client: Client) -> None:
    _, found = await call(client, "zot_search", query=QUESTION)
    key = found["papers"][0]["key"]
    text, data = await call(client, "zot_summarize", query=QUESTION, item_key=key, force_mode="targeted")
    assert data["passages"][0]["page_end"] == 3 and ANSWER in text.splitlines()[2]
    assert "every recording session" not in json.dumps(data)


def test_a_question_that_names_its_paper_is_asked_within_it_by_what_it_asks() -> None:
    named = "In the study that recorded whales with hydrophones off Iceland, how many kilohertz was the sampling rate?"
    assert focus_of(named) == "how many kilohertz was the sampling rate?"
    assert focus_of("According to the grazing survey, did soil carbon rise?") == "did soil carbon rise?"
    for plain in (QUESTION, "In 2020, soil carbon rose under grazing.", "What does it do, and how?"):
        assert focus_of(plain) == plain  # no naming clause: the whole question
    # a relative clause after the paper's name still names it; the question comes after it
    described = (
        "In the third release of the transit-timing network, which for the first time folded in TESS light "
        "curves, what shortcoming did the Kepler fits show?"
    )
    assert split_question(described) == (
        "what shortcoming did the Kepler fits show?",
        "the third release of the transit-timing network, which for the first time folded in TESS light curves",
    )
    # a clause with an indefinite article sets a condition and names no paper; a "trailing clause" that
    # holds the question itself names none either
    condition = (
        "For a given linear gain that stabilizes the linearization, what two requirements define the problem?"
    )
    assert split_question(condition) == (condition, None)
    pooled = (
        "When all beats from the MIMIC subjects were pooled, how strongly did the best feature correlate?"
    )
    assert split_question(pooled) == (pooled, None)
    # "which" asking, not describing: the question it opens is what is asked
    assert focus_of("In the grazing survey, which plots lost soil carbon, and why?") == (
        "which plots lost soil carbon, and why?"
    )


def test_a_description_naming_the_paper_inside_a_question_is_read_as_it() -> None:
    # "the <words> study" names the paper: its words would match the paper everywhere, so within the paper
    # the question asks "How did it ... damp the effect of breathing ...?"
    inside = (
        "How did the camera-based blood pressure study with an arterial line damp the effect of breathing?"
    )
    assert focus_of(inside) == "How did it with an arterial line damp the effect of breathing?"
    owners = "Why did the authors of the 2012 ImageNet convolutional network start some biases at one?"
    assert focus_of(owners) == "Why did the authors of it start some biases at one?"
    assert focus_of("What limitation does the survey of deep learning on ECG admit?") == (
        "What limitation does it deep learning on ECG admit?"
    )
    # a short reference to a part of the work is what is asked about, not a name for the paper
    for asked in ("How large was the test dataset?", "Why does the proposed method fail on noisy beats?"):
        assert focus_of(asked) == asked
    # a topic is no question: its description is its subject, whole, and it stays a topic
    topic = "the camera-based blood pressure study with an arterial line"
    assert focus_of(topic) == topic and not asks_a_question(topic)


@pytest.mark.slow
async def test_a_question_naming_its_paper_finds_the_answer_inside_it(client: Client) -> None:
    named = (
        "In the paper on listening to whales across four seasons of field recordings, how many kilohertz was "
        "the hydrophone sampling rate?"
    )
    text, data = await call(client, "zot_search", query=named)
    assert data["papers"][0]["title"] == "Listening to Whales" and ANSWER in text.splitlines()[2]


@pytest.fixture(scope="module")
def long_paper(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    """One field-recording paper of eight pages, more windows than an answer shows, and a short tide-gauge
    paper."""
    root = tmp_path_factory.mktemp("long_paper")
    b = ZoteroLibraryBuilder(root / "library", shape="z7", seed=8)
    seasons = b.add_item("journalArticle", title="Eight Seasons of Field Recordings", date="2022-00-00 2022")
    pages = [
        [f"In season {n}, site {site}, {s[0].lower()}{s[1:]}" for site in "ABCD" for s in FILLER]
        for n in range(1, 9)
    ]
    b.add_attachment(seasons, filename="seasons.pdf", content=_pdf(root / "seasons.pdf", pages))
    tides = b.add_item("journalArticle", title="A Coastal Tide Gauge Network", date="2021-00-00 2021")
    gauges = [[f"Gauge {n}{site} {s}" for site in "ABCD" for s in TIDES] for n in range(1, 5)]
    b.add_attachment(tides, filename="tides.pdf", content=_pdf(root / "tides.pdf", gauges))
    db = guard_database(b.build())
    return index_library(library_settings(db.parent, root), root / "home")


@pytest.mark.slow
async def test_a_question_its_shown_passages_leave_unanswered_reads_further_in_its_paper(
    long_paper: Settings, tmp_path: Path
) -> None:
    """No shown passage holds more than one of "team", "drink" and "wait": the answer goes on to the
    paper's further passages, and to the second paper's (the first may be the wrong one), within 3,000 and
    2,500 characters more; a question whose words a passage holds stops at the usual depth and budget."""
    async with connect(long_paper, home=tmp_path / "home") as client:
        held, answered = await call(
            client, "zot_search", query="How were disagreements between volunteers settled?"
        )
        missed, unanswered = await call(
            client, "zot_search", query="What did the team drink while they waited?"
        )
    assert len(answered["papers"][0]["passages"]) == QUESTION_DEPTH.by_rank[0] and len(held) <= 8000
    assert len(answered["papers"][1]["passages"]) == QUESTION_DEPTH.by_rank[1]
    first, second = (len(p["passages"]) for p in unanswered["papers"])
    assert (
        first == QUESTION_DEPTH.further[0] and QUESTION_DEPTH.by_rank[1] < second <= QUESTION_DEPTH.further[1]
    )
    assert len(missed) <= 8000 + sum(FURTHER_CHARS)


@pytest.mark.slow
def test_a_long_answer_keeps_the_first_papers_passages_and_says_what_it_left_out(library: Settings) -> None:
    ctx = AppContext(library)
    try:
        papers = [
            PaperHit(key, 1.0 / (n + 1), [Passage("word " * 120, "chunk", None, n + 1, n + 1, None, 1.0)] * 4)
            for n, key in enumerate(ctx.library().items)
        ] * 30  # 60 papers: their lines alone take a third of the answer
        answer = paper_response(ctx.library().items, papers, scope="", query="words", detail="sentences")
    finally:
        ctx.close()
    assert len(answer.text) <= 8000
    assert answer.data["papers"][0]["passages"] and not answer.data["papers"][-1]["passages"]
    assert "shown without all passages, to keep this answer short" in answer.text


def test_a_title_block_read_into_a_sentence_is_left_out_of_the_passage() -> None:
    # pdfium read the first page's title and authors between two lines of the introduction
    text = (
        "In this study, a novel BP estimation method based on\nsingle PPG feature - mean slope transit time "
        "(MSTT) was\nNovel Blood Pressure Estimation Method Using Single\nPhotoplethysmography Feature\n"
        "Yang Chen, Student Member, IEEE, Shuo Cheng, Tong Wang,\nand Ting Ma, Member, IEEE\n"
        "proposed and its performance was validated."
    )
    title = "Novel blood pressure estimation method using single photoplethysmography feature"
    creators = ["Chen", "Cheng", "Wang", "Ma"]
    assert without_title_block(text, title, creators) == (
        "In this study, a novel BP estimation method based on\nsingle PPG feature - mean slope transit time "
        "(MSTT) was\nproposed and its performance was validated."
    )
    assert without_title_block(text, title, []).endswith(
        "(MSTT) was\nYang Chen, Student Member, IEEE, "
        "Shuo Cheng, Tong Wang,\nand Ting Ma, Member, IEEE\n"
        "proposed and its performance was validated."
    )
    # the affiliations under the names go with them; the text after them stays
    block = (
        "Signals were recorded at rest.\nContinuous Blood Pressure Estimation from PPG Signal\n"
        "Gasper Slapnicar and Mitja Lustrek\nJozef Stefan Institute, Jamova cesta 39, 1000 Ljubljana\n"
        "E-mail: gasper.slapnicar@ijs.si\nMatej Marinko\nFaculty of Mathematics and Physics, Ljubljana\n"
        "Each recording lasted ten minutes."
    )
    ppg = "Continuous blood pressure estimation from PPG signal"
    assert without_title_block(block, ppg, ["Slapnicar", "Lustrek", "Marinko"]) == (
        "Signals were recorded at rest.\nEach recording lasted ten minutes."
    )
    # a title alone stays what it is; a sentence naming the title in passing is not a title block
    assert without_title_block(
        "Novel Blood Pressure Estimation\nMethod", "Novel Blood Pressure Estimation Method", []
    ) == ("Novel Blood Pressure Estimation\nMethod")
    passing = (
        "We extend the novel blood pressure estimation method using single\nphotoplethysmography feature."
    )
    assert without_title_block(passing, title, creators) == passing


def test_a_question_that_names_its_paper_at_its_end_is_asked_within_it_by_what_it_asks() -> None:
    # A work noun heads the naming phrase, or a relative clause describes what the paper studied; a ", and
    # why?" after it still belongs to what is asked.
    assert split_question(
        "How was the signal filtered before peak detection in the wrist-worn accelerometer sleep study?"
    ) == ("How was the signal filtered before peak detection?", "the wrist-worn accelerometer sleep study")
    assert (
        focus_of(
            "How were outliers flagged among the 300 lakes whose ice records were merged from three archives?"
        )
        == "How were outliers flagged?"
    )
    assert focus_of("How large a network could it handle for the chain-topology example, and why?") == (
        "How large a network could it handle, and why?"
    )
    # A "naming" clause that holds the question's own verb is part of what is asked: all its words pick the
    # sentences (the paper it describes still counts for choosing the paper).
    asked = "Which extension of the lake-ice merging method do the authors leave for future work?"
    assert split_question(asked) == (
        asked,
        "the lake-ice merging method do the authors leave for future work",
    )
    # "the authors of <the work>": the question's verb follows the work ("What do the authors?" asks nothing)
    owners = "What do the authors of the lake-ice merging study recommend to those who reuse its records?"
    assert split_question(owners) == (
        owners,
        "the lake-ice merging study recommend to those who reuse its records",
    )
    # "Why is it a problem, according to <the work>, to let …?": the infinitive the "it" stands for is asked
    extraposed = (
        "Why is it a problem, according to the lake-ice merging study that works with gappy as well as whole"
        " records, to let one lake's winters recur many times in the training data?"
    )
    assert split_question(extraposed) == (
        "Why is it a problem, to let one lake's winters recur many times in the training data?",
        "the lake-ice merging study that works with gappy as well as whole records",
    )
    for plain in (
        "What limitation of the training data affected the detection of motion artifacts in pressure recordings?",
        "Why was the large ImageNet CNN split across two GPUs instead of training on one?",
    ):
        assert split_question(plain) == (plain, None)  # no clause names a paper: the whole question


@pytest.mark.slow
def test_a_search_asked_for_no_passages_picks_none(library: Settings) -> None:
    """The resolver ranks papers and reads none of their text: a count of 0 is none, not all."""
    ctx = AppContext(library)
    try:
        papers = search_papers(ctx.index(), QUESTION, limit=2, passages_per_paper=0)
    finally:
        ctx.close()
    assert papers and all(not p.passages for p in papers)
