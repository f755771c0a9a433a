"""A passage begins where its sentence begins. Chunks overlap and are cut where the text allows, sometimes
inside a sentence; a window that starts at such a cut is given the rest of its first sentence from the
page, so the assistant never reads "respectively (Table 4). Artifacts …". Real PDFs, the real index and
fastmcp's in-memory client."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from agent_zot.index.passages import ChunkHit, PassagePicker
from agent_zot.index.shown import Shown
from agent_zot.services.context import AppContext
from tests.conftest import SectionedPaper, call_tool, sectioned_library, text_of

TOPICS = [
    ("calibration", "the cuff readings taken before and after each session"),
    ("sampling", "the sensor sampled at two hundred and fifty hertz throughout"),
    ("filtering", "a fourth order band pass filter between half a hertz and eight hertz"),
    ("segmentation", "beats were cut at the foot of each pulse wave"),
    ("features", "upstroke time, dicrotic notch height and pulse width at half height"),
    ("validation", "ten fold cross validation with subjects kept apart"),
]


def _paragraph(n: int) -> str:
    # Long sentences, each on its own topic, so chunk cuts fall inside them as well as between them.
    sentences = []
    for i, (name, detail) in enumerate(TOPICS):
        sentences.append(
            f"In the {name} step of study part {n}, which the protocol describes in more detail than any "
            f"other step because later results depend on it, {detail}, and the team wrote down every "
            f"deviation from the plan together with the reason given by the technician on duty that day {i}."
        )
    return " ".join(sentences)


SECTIONS: list[tuple[str | None, str]] = [(f"{n} Part {n}", _paragraph(n)) for n in range(1, 9)]
QUESTIONS = [f"How was {name} done in the study?" for name, _ in TOPICS]


@pytest.mark.slow
async def test_no_passage_begins_inside_a_sentence(tmp_path: Path) -> None:
    root = tmp_path / "lib"
    root.mkdir()
    paper = SectionedPaper("A long protocol for cuffless pressure", SECTIONS, "protocol.pdf")
    settings = sectioned_library(root, [paper], seed=3)
    starts = []
    for question in QUESTIONS:
        result = await call_tool(settings, "zot_search", home=root / "home", query=question)
        assert not result.is_error, text_of(result)
        starts += [p["text"][:1] for p in result.structured_content["papers"][0]["passages"] if p.get("text")]
        if not starts:  # structured passages carry no text: read the lines the assistant reads
            starts += [
                m.group(1)
                for m in re.finditer(r"^\s+\[p\. [^\]]*\] (\S)", text_of(result), flags=re.MULTILINE)
            ]
    assert starts, "no passages shown"
    assert all(not c.islower() for c in starts), starts


# Short sentences of one shape, a feature each, in paragraphs: consecutive chunks share one sentence
FEATURES = [
    "moraine",
    "crevasse",
    "firn",
    "serac",
    "cirque",
    "esker",
    "drumlin",
    "nunatak",
    "ablation",
    "calving",
    "meltwater",
    "icefall",
    "bergschrund",
    "tarn",
    "outwash",
    "kame",
    "sastrugi",
    "arete",
    "tephra",
    "loess",
]


def _survey(features: list[str]) -> str:
    return " ".join(
        f"The {name} was measured at every stake along the transect, and its thickness changed little between "
        "the spring and autumn visits."
        for name in features
    )


@pytest.mark.slow
def test_the_sentence_before_a_chunks_cut_is_not_shown_again(tmp_path: Path) -> None:
    """A window that opens its chunk takes the sentence before the chunk's cut from the page, unless another
    passage of the paper already ends with it."""
    sections = [("1 Sites", _survey(FEATURES[:6]))] + [
        (None, _survey(FEATURES[n : n + 6])) for n in (6, 12, 18)
    ]
    paper = SectionedPaper("Glacier Survey Records", sections, "glacier.pdf")
    ctx = AppContext(sectioned_library(tmp_path, [paper], seed=5))
    try:
        resources = ctx.index_resources()
        key = next(iter(ctx.library().items.values())).key
        chunks = [hit for hit in resources.store.get_by_item(key) if hit.payload.get("kind") == "chunk"]
        # the chunk that opens with the ablation and the one before it (which ends with the ablation too)
        second = next(hit for hit in chunks if hit.payload["text"].startswith("The ablation"))
        first = next(hit for hit in chunks if "1 Sites" in hit.payload["text"])
        picker = PassagePicker(resources, "How did the ablation and the drumlin change?", detail="sentences")
        # the second chunk ranked first: its window opens it (ablation, calving) and would take the nunatak
        # sentence before its cut, which the first chunk's drumlin window (esker, drumlin, nunatak) shows
        passages = picker.pick([ChunkHit(second, 1.0, {"vector"}), ChunkHit(first, 0.9, {"vector"})], 2)
    finally:
        ctx.close()
    texts = [" ".join(p.text.split()) for p in passages]
    assert any("The drumlin was" in t for t in texts) and any("The ablation was" in t for t in texts), texts
    shown = [s for t in texts for s in re.split(r"(?<=\.) (?=The )", t)]
    assert len(shown) == len(set(shown)), texts


def test_a_sentence_counts_as_shown_in_any_of_its_copies() -> None:
    """Overlapping chunks and the page text hold one sentence in several copies: with another case, hyphen
    or spacing, cut at a chunk's start, or with its section's heading run into it. Each copy of a shown
    sentence counts as shown, so no answer repeats it; a whole sentence whose piece was shown says more."""
    sentence = (
        "The pre-processed ECG was band-pass filtered between 0.5 and 40 Hz before the R peaks were found."
    )
    shown = Shown()
    shown.update([sentence])
    assert (
        "The pre‑processed ECG was band‑pass filtered between 0.5 and 40 Hz before the R peaks were found ."
        in shown
    )
    assert "Signal Pre-processing " + sentence in shown  # the heading run into it
    assert "filtered between 0.5 and 40 Hz before the R peaks were found." in shown  # a piece of it
    assert "The ECG was filtered." not in shown
    piece = Shown()
    piece.update(["filtered between 0.5 and 40 Hz before the R peaks were found."])
    assert sentence not in piece  # the whole sentence says more than its piece
    assert f"{sentence} The PPG was filtered with a moving median over seventy samples first." not in shown
