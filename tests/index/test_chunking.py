"""Token-bounded chunking with page ranges, sections and overlap; the metadata chunk."""

from __future__ import annotations

import itertools
import random
import re
import uuid
from dataclasses import dataclass

import pytest

from agent_zot.index.chunking import Chunk, chunk_pages, metadata_chunk
from agent_zot.index.embed import Embedder
from agent_zot.index.embed_local import OnnxEmbedder
from agent_zot.zotero.models import Creator, Item, TagRef, ZoteroDate


@dataclass(frozen=True)
class Page:
    number: int
    text: str


@pytest.fixture(scope="module")
def embedder() -> OnnxEmbedder:
    return OnnxEmbedder()  # only its tokenizer is used: no model is loaded


_WORDS = ["protein", "cell", "binding", "assay", "mouse", "model", "receptor", "signal", "pathway", "dose"]


def sentence(rng: random.Random, n: int, tag: str = "") -> str:
    words = [rng.choice(_WORDS) for _ in range(n)]
    return f"{tag}{' '.join(words).capitalize()}."


def paragraph(rng: random.Random, sentences: int, tag: str = "") -> str:
    return " ".join(sentence(rng, rng.randint(6, 14), tag if i == 0 else "") for i in range(sentences))


def book(seed: int = 1, pages: int = 6) -> list[Page]:
    rng = random.Random(seed)
    return [
        Page(
            p, "\n\n".join(paragraph(rng, rng.randint(1, 6), f"P{p}x{k} ") for k in range(rng.randint(2, 5)))
        )
        for p in range(1, pages + 1)
    ]


def chunk(pages: list[Page], embedder: Embedder, **options: object) -> list[Chunk]:
    return chunk_pages(pages, item_key="ITEM1", attachment_key="ATT1", embedder=embedder, **options)  # type: ignore[arg-type]


def test_ids_are_deterministic_and_unique(embedder: OnnxEmbedder) -> None:
    pages = book()
    first, second = chunk(pages, embedder), chunk(list(pages), embedder)
    assert [c.id for c in first] == [c.id for c in second]
    assert len({c.id for c in first}) == len(first) > 3
    assert all(uuid.UUID(c.id).version == 5 for c in first)
    changed = [pages[0], Page(2, pages[1].text.replace("P2x0", "P2x0 revised")), *pages[2:]]
    changed_chunks = chunk(changed, embedder)
    assert {c.id for c in changed_chunks} != {c.id for c in first}  # different text -> different ids
    first, changed_chunks = chunk(pages, embedder, max_tokens=64), chunk(changed, embedder, max_tokens=64)
    unchanged = {c.id for c in first if c.page_end == 1}
    assert unchanged and unchanged <= {c.id for c in changed_chunks}
    other_item = chunk_pages(pages, item_key="ITEM2", attachment_key="ATT1", embedder=embedder)
    assert not {c.id for c in other_item} & {c.id for c in first}


@pytest.mark.parametrize("max_tokens", [24, 64, 128, 256])
def test_no_chunk_exceeds_max_tokens(embedder: OnnxEmbedder, max_tokens: int) -> None:
    chunks = chunk(book(seed=max_tokens), embedder, max_tokens=max_tokens, overlap_tokens=max_tokens // 8)
    assert chunks
    assert max(embedder.count_tokens(c.text) for c in chunks) <= max_tokens
    assert [c.ordinal for c in chunks] == list(range(len(chunks)))
    assert all(c.kind == "chunk" and c.item_key == "ITEM1" and c.attachment_key == "ATT1" for c in chunks)


def test_every_word_is_in_some_chunk(embedder: OnnxEmbedder) -> None:
    pages = book(seed=7, pages=4)
    chunks = chunk(pages, embedder, max_tokens=64, overlap_tokens=8)
    joined = " ".join(c.text for c in chunks)
    for page in pages:
        for tag in re.findall(r"P\d+x\d+", page.text):
            assert tag in joined


def test_page_ranges_and_a_chunk_crossing_pages(embedder: OnnxEmbedder) -> None:
    pages = [
        Page(1, "The experiment began with a small cohort of"),
        Page(2, "volunteers who were followed for two years."),
        Page(3, "   \n  "),
        Page(4, "Results are reported on this page."),
    ]
    [only] = chunk(pages, embedder)
    assert (only.page_start, only.page_end) == (1, 4)
    assert only.text.startswith("The experiment") and "cohort of\nvolunteers" in only.text

    many = chunk(book(seed=3, pages=8), embedder, max_tokens=96, overlap_tokens=0)
    text_of = {p.number: p.text for p in book(seed=3, pages=8)}
    assert any(c.page_start < c.page_end for c in many)
    for c in many:
        assert c.page_start is not None and c.page_end is not None and c.page_start <= c.page_end
        pieces = c.text.split("\n")
        assert pieces[0] in text_of[c.page_start] and pieces[-1] in text_of[c.page_end]
    assert [c.page_start for c in many] == sorted(c.page_start for c in many)


def test_consecutive_chunks_overlap(embedder: OnnxEmbedder) -> None:
    rng = random.Random(5)
    long_paragraph = paragraph(rng, 60)
    chunks = chunk([Page(1, long_paragraph)], embedder, max_tokens=128, overlap_tokens=32)
    assert len(chunks) >= 4
    for prev, nxt in itertools.pairwise(chunks):
        shared = _overlap(prev.text, nxt.text)
        assert shared, "no overlap"
        tokens = embedder.count_tokens(shared) - 2
        assert 12 <= tokens <= 56
    no_overlap = chunk([Page(1, long_paragraph)], embedder, max_tokens=128, overlap_tokens=0)
    assert all(not _overlap(a.text, b.text) for a, b in itertools.pairwise(no_overlap))


def _overlap(left: str, right: str) -> str:
    """The longest suffix of ``left`` that is a prefix of ``right``."""
    for size in range(min(len(left), len(right)), 0, -1):
        if left.endswith(right[:size]):
            return right[:size]
    return ""


def test_overlap_starts_at_sentence_boundaries_when_it_can(embedder: OnnxEmbedder) -> None:
    rng = random.Random(11)
    chunks = chunk([Page(1, paragraph(rng, 50))], embedder, max_tokens=128, overlap_tokens=32)
    starts = [c.text[0] for c in chunks[1:]]
    assert sum(s.isupper() for s in starts) >= len(starts) - 1


def test_paragraphs_are_kept_whole_when_they_fit(embedder: OnnxEmbedder) -> None:
    rng = random.Random(2)
    paragraphs = [paragraph(rng, rng.randint(2, 4), f"Q{k} ") for k in range(12)]
    assert all(embedder.count_tokens(p) <= 100 for p in paragraphs)
    chunks = chunk([Page(1, "\n\n".join(paragraphs))], embedder, max_tokens=128, overlap_tokens=16)
    for p in paragraphs:
        assert any(p in c.text for c in chunks), p[:20]
    # Cuts fall between paragraphs: each chunk's new text ends with a paragraph's end.
    assert all(c.text.endswith(".") for c in chunks)


def test_long_paragraph_without_punctuation_still_splits(embedder: OnnxEmbedder) -> None:
    words = [f"w{i:04d}" for i in range(1500)]
    chunks = chunk([Page(1, " ".join(words))], embedder, max_tokens=64, overlap_tokens=8)
    assert len(chunks) > 10
    assert max(embedder.count_tokens(c.text) for c in chunks) <= 64
    seen = set(" ".join(c.text for c in chunks).split())
    assert seen == set(words)  # cut between words, never inside one


def test_runs_without_spaces_split_between_tokens(embedder: OnnxEmbedder) -> None:
    cjk = "".join(chr(0x4E00 + (i * 7) % 500) for i in range(600))  # one token per character, no gaps
    chunks = chunk([Page(1, cjk)], embedder, max_tokens=32, overlap_tokens=4)
    assert len(chunks) > 10
    assert max(embedder.count_tokens(c.text) for c in chunks) <= 32
    assert cjk.startswith(chunks[0].text) and cjk.endswith(chunks[-1].text)
    blob = "".join(f"{chr(97 + i % 26)}{i % 10}" for i in range(45))  # one 90-character "word"
    pieces = chunk([Page(1, blob)], embedder, max_tokens=16, overlap_tokens=0)
    assert len(pieces) > 1 and "".join(c.text for c in pieces) == blob
    assert max(embedder.count_tokens(c.text) for c in pieces) <= 16


def test_sections_come_from_the_latest_heading_at_or_before_the_start_page(embedder: OnnxEmbedder) -> None:
    pages = book(seed=4, pages=6)
    headings = [(3, "Methods"), (2, "Introduction"), (5, "Results"), (5, "Discussion")]
    chunks = chunk(pages, embedder, max_tokens=64, headings=headings)
    expected = {1: None, 2: "Introduction", 3: "Methods", 4: "Methods", 5: "Discussion", 6: "Discussion"}
    assert {c.section for c in chunks} == {None, "Introduction", "Methods", "Discussion"}
    for c in chunks:
        assert c.page_start is not None and c.section == expected[c.page_start]


def test_a_heading_lower_on_the_page_does_not_name_the_text_above_it(embedder: OnnxEmbedder) -> None:
    rng = random.Random(8)
    first = "\n\n".join(paragraph(rng, 4, f"A{k} ") for k in range(3))
    second = "\n\n".join(paragraph(rng, 4, f"B{k} ") for k in range(3))
    pages = [Page(1, "Introduction\n\n" + first + "\n\nMethods\n\n" + second)]
    chunks = chunk(pages, embedder, max_tokens=64, headings=[(1, "Introduction"), (1, "Methods")])
    sections = [c.section for c in chunks]
    assert sections[0] == "Introduction" and sections[-1] == "Methods"
    for c in chunks:  # text from before the "Methods" line is never labelled Methods
        assert c.section == (
            "Methods" if pages[0].text.find(c.text[:40]) > pages[0].text.find("Methods") else "Introduction"
        )


def test_empty_input_gives_no_chunks(embedder: OnnxEmbedder) -> None:
    assert chunk([], embedder) == []
    assert chunk([Page(1, ""), Page(2, "  \n\n\t "), Page(3, "\n")], embedder) == []


def test_max_tokens_is_capped_by_the_model_and_must_leave_room(embedder: OnnxEmbedder) -> None:
    text = " ".join(f"w{i}" for i in range(2000))
    chunks = chunk([Page(1, text)], embedder, max_tokens=10_000)
    assert max(embedder.count_tokens(c.text) for c in chunks) <= embedder.max_tokens
    with pytest.raises(ValueError, match="no room"):
        chunk([Page(1, text)], embedder, max_tokens=2)


def _item(**fields: str) -> Item:
    return Item(
        key="ABCD2345",
        item_id=1,
        item_type="journalArticle",
        library_id=1,
        fields=fields,
        base_fields={},
        creators=[Creator(1, "author", "Curie", "Marie"), Creator(2, "editor", "Editor", "Ed")],
        tags=[TagRef("radioactivity"), TagRef("physics", automatic=True)],
        date=ZoteroDate("1903-00-00 1903", 1903),
    )


def test_metadata_chunk_describes_the_item() -> None:
    item = _item(
        title="Radioactive substances", publicationTitle="Annales", abstractNote="  We study radium.  "
    )
    meta = metadata_chunk(item)
    assert (meta.kind, meta.item_key, meta.attachment_key, meta.page_start, meta.section) == (
        "metadata",
        "ABCD2345",
        None,
        None,
        None,
    )
    lines = meta.text.splitlines()
    assert lines[0] == "Radioactive substances"
    assert "Marie Curie" in meta.text and "Ed Editor" not in meta.text  # authors, not editors
    assert "Annales" in meta.text and "1903" in meta.text
    # tags are the user's filing, carried in the payload: a retag must not change what is embedded
    assert "radioactivity" not in meta.text and "physics" not in meta.text
    assert lines[-1] == "We study radium."
    assert metadata_chunk(item).id == meta.id
    assert metadata_chunk(_item(title="Radioactive substances")).id != meta.id


def test_metadata_chunk_of_a_bare_item() -> None:
    # nothing of its own to match or quote: no point ("Untitled journalArticle" was offered as evidence)
    assert metadata_chunk(_item()) is None
    assert metadata_chunk(_item(title="Untitled")) is None
