"""Chosen windows that touch read as one passage, however many: an answer told over four or five sentences
is often chosen as two or three windows of its chunk. The real PassagePicker on a chunk's payload."""

from __future__ import annotations

from agent_zot.index.chunk_sentences import SentenceMemo
from agent_zot.index.passages import ChunkHit, PassagePicker
from agent_zot.index.store import Hit


def _one_chunk(text: str) -> list[ChunkHit]:
    """A candidate pool of one chunk of a PDF's page 3 holding ``text``."""
    payload = {"text": text, "kind": "chunk", "attachment_key": "ATT", "page_start": 3, "page_end": 3}
    return [ChunkHit(Hit(id="c1", score=1.0, payload=payload), 1.0, {"vector"})]


def test_an_answer_told_over_three_windows_reads_as_one_passage() -> None:
    """A passage grown by one chosen window grows again by the next that touches it (within the joined size)."""
    told = [
        "The lab was booked for the whole of the spring term.",
        "Volunteers arrived in the morning before breakfast.",
        "The electrodes were placed on the chest in the standard lead positions.",
        "Each volunteer then rested quietly for a while.",
        "The lights were dimmed and the door was closed.",
        "The signals were filtered with a band pass between one and forty hertz.",
        "A technician watched the screen for loose contacts.",
        "Breaks were offered every half hour.",
        "Water and snacks were on the side table.",
        "The recordings were stored on an encrypted drive for ten years.",
        "Nobody left before the end of the session.",
    ]
    pool = _one_chunk(" ".join(told))
    asked = "How were the electrodes placed on the chest, how were the signals filtered and where was it all stored?"
    passages = PassagePicker(None, asked, detail="sentences").pick(pool, 3)  # type: ignore[arg-type]
    assert any(all(s in p.text for s in told[2:10]) for p in passages), [p.text for p in passages]
    shown = [s for p in passages for s in told if s in p.text]
    assert len(shown) == len(set(shown))  # no sentence is shown twice


def test_a_passage_that_announces_what_follows_goes_on_to_it() -> None:
    """A window that ends on "… as follows." takes the sentence it announces (past a label such as
    "Theorem 3."), though that sentence holds none of the question's words."""
    told = [
        "The cuff was placed on the upper arm of each seated volunteer.",
        "Readings were taken every five minutes during the morning session.",
        "Three commonly used regression learners were applied to the pulse features in this study as follows.",
        "2.4.1.",
        "A linear epsilon-insensitive machine with an L1 loss was fitted first.",
        "The lights were dimmed and the door was closed.",
        "Breaks were offered every half hour.",
    ]
    pool = _one_chunk(" ".join(told))
    asked = "Which regression learners were applied to the pulse features?"
    passages = PassagePicker(None, asked, detail="sentences").pick(pool, 1)  # type: ignore[arg-type]
    assert len(passages) == 1 and told[2] in passages[0].text
    assert told[4] in passages[0].text, passages[0].text


def test_a_pick_of_no_passages_is_none() -> None:
    text = "The signals were filtered with a band pass. They were stored for ten years. Nobody left early."
    pool = _one_chunk(text)
    picker = PassagePicker(None, "How were the signals filtered?", detail="sentences")  # type: ignore[arg-type]
    assert picker.pick(pool, 0) == []
    assert len(picker.pick(pool, 1)) == 1


def test_one_search_keeps_nothing_it_read_and_a_shared_memo_reads_a_chunk_once() -> None:
    """Keeping every chunk a lone search read cost it ~9 % of its time; a claim check's variants share."""
    text = "The signals were filtered with a band pass. They were stored for ten years. Nobody left early."
    pool = _one_chunk(text)
    alone = PassagePicker(None, "How were the signals filtered?", detail="sentences")  # type: ignore[arg-type]
    assert alone.pick(pool, 1) and len(alone.memo) == 0
    memo = SentenceMemo()
    for question in ("How were the signals filtered?", "How long were they stored?"):
        picker = PassagePicker(None, question, detail="sentences", memo=memo)  # type: ignore[arg-type]
        assert picker.pick(pool, 1)
    assert len(memo) == 1
