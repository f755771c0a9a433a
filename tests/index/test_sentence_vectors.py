"""Sentence vectors read in their chunk's context: pooled from the indexing run's token states, stored with
the index, and scoring the sentences of a question's answer by meaning as well as by words."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import numpy as np
import pytest
from click.testing import CliRunner
from fastmcp import Client
from fpdf import FPDF

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.index import passages
from agent_zot.index.embed_local import OnnxEmbedder, SentenceTransformerEmbedder
from agent_zot.index.sentence_vectors import SentenceVectors, chunk_spans, pool_sentences
from agent_zot.state.index import IndexState
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from tests.conftest import connect, guard_database, index_library, library_settings, text_of

# No word of the question is in the answer: only what the sentences mean tells them apart.
QUESTION = "What stops this approach from being put on small battery-powered gadgets?"
ANSWER = "The computational cost of the network prohibits deployment on embedded devices."
METHODS = (
    "We recorded heart signals from forty volunteers at rest. Each volunteer sat for five minutes before "
    "the first reading. Signals were filtered between one and ten hertz. Recordings lasted twenty minutes "
    "in a quiet room. Electrodes were placed on both wrists and the left ankle. The room was kept at "
    "twenty-two degrees. Volunteers were asked not to drink coffee on the morning of the visit. Two nurses "
    "supervised every visit. Blood samples were taken at the end of each visit. The samples were frozen "
    "within one hour. Each visit ended with a short questionnaire about sleep. Most volunteers came in the "
    "morning. The questionnaire had twelve items. Three volunteers did not finish the questionnaire. "
    f"Heart rates ranged from fifty to ninety beats per minute. {ANSWER} Participants were paid for their "
    "time."
)


def test_a_sentence_is_the_mean_of_its_own_tokens_and_special_tokens_belong_to_none() -> None:
    hidden = np.array([[9.0, 9.0], [1.0, 0.0], [3.0, 0.0], [0.0, 2.0], [9.0, -9.0]], dtype=np.float32)
    offsets = [(0, 0), (0, 4), (5, 9), (11, 15), (0, 0)]  # [CLS] two words | one word [SEP]
    vectors = pool_sentences(hidden, offsets, [(0, 10), (11, 16), (20, 30)])
    assert np.allclose(vectors[0], [1.0, 0.0]) and np.allclose(vectors[1], [0.0, 1.0])
    assert not vectors[2].any()  # cut off by the model's truncation: no vector, not a wrong one


def test_packed_vectors_keep_their_spans_and_meet_only_the_same_sentences() -> None:
    rng = np.random.default_rng(3)
    raw = rng.normal(size=(3, 384)).astype(np.float32)
    spans = ((0, 40), (41, 90), (91, 130))
    stored = SentenceVectors(spans, raw / np.linalg.norm(raw, axis=1, keepdims=True))
    back = SentenceVectors.unpack(stored.pack())
    assert back.spans == spans and len(stored.pack()) == 4 + 3 * 8 + 3 * 384
    query = stored.vectors[1]
    found = back.similarities(query, list(spans))
    assert found is not None and found[1] == pytest.approx(1.0, abs=0.01) and max(found) == found[1]
    assert back.similarities(query, [(0, 40), (41, 130)]) is None  # split otherwise since: none of them
    # split more finely since (a paragraph of Chinese sentences cut at 。): each takes the vector holding it
    finer = back.similarities(query, [(0, 40), (41, 60), (62, 90), (91, 130)])
    assert (
        finer is not None
        and finer[1] == finer[2] == found[1]
        and (finer[0], finer[3]) == (found[0], found[2])
    )


def _pdf(path: Path, text: str) -> bytes:
    pdf = FPDF()
    pdf.set_font("Helvetica", size=11)
    pdf.add_page()
    pdf.multi_cell(0, 6, text)
    pdf.output(str(path))
    return path.read_bytes()


@pytest.fixture(scope="module")
def library(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    root = tmp_path_factory.mktemp("sentence_vectors")
    b = ZoteroLibraryBuilder(root / "library", shape="z7", seed=11)
    study = b.add_item("journalArticle", title="Heart Signals at Rest", date="2022-00-00 2022")
    b.add_attachment(study, filename="heart.pdf", content=_pdf(root / "heart.pdf", METHODS))
    soil = b.add_item("journalArticle", title="Soil Carbon Under Grazing", date="2020-00-00 2020")
    grazing = "Grazing changes soil carbon in grasslands, and the effect depends on rainfall. " * 4
    b.add_attachment(soil, filename="soil.pdf", content=_pdf(root / "soil.pdf", grazing))
    db = guard_database(b.build())
    # the ONNX model embeds in every build (the default engine is chosen per machine)
    return index_library(library_settings(db.parent, root, embedder="minilm-onnx"), root / "home")


@pytest.mark.slow
def test_every_full_text_chunk_keeps_its_sentence_vectors(library: Settings) -> None:
    state = library.data_dir / "index" / "state.sqlite"
    with sqlite3.connect(f"file:{state}?mode=ro", uri=True) as conn:
        rows = conn.execute("SELECT data FROM sentence_vectors").fetchall()
    assert len(rows) >= 2  # one a paper's chunk (metadata points have none)
    sentences = [SentenceVectors.unpack(data) for (data,) in rows]
    assert all(s.vectors.shape == (len(s.spans), 384) for s in sentences)
    assert any(len(s.spans) >= 7 for s in sentences)


async def _first_passage(client: Client) -> str:
    """The first paper's title and its first passage, as the assistant reads them."""
    result = await client.call_tool("zot_search", {"query": QUESTION}, raise_on_error=False)
    assert not result.is_error, text_of(result)
    first = (result.structured_content or {})["papers"][0]
    lines = text_of(result).splitlines()
    assert lines[2].startswith("   [p"), lines[:3]  # "1. [KEY] …" then its passages, best first
    return f"{first['title']}\n{lines[2]}"


@pytest.mark.slow
async def test_a_question_in_other_words_finds_its_sentence_by_meaning(
    library: Settings, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    async with connect(library, home=tmp_path / "home") as client:
        title, passage = (await _first_passage(client)).split("\n")
        assert title == "Heart Signals at Rest"
        assert ANSWER in passage
        # by words alone every sentence ties, and the first one opens the answer
        monkeypatch.setattr(passages, "DENSE_WEIGHT", 0.0)
        _, passage = (await _first_passage(client)).split("\n")
        assert ANSWER not in passage


def test_an_item_indexed_again_or_forgotten_leaves_no_sentence_vectors_behind(tmp_path: Path) -> None:
    state = IndexState(tmp_path / "state.sqlite")
    vectors = SentenceVectors(((0, 5),), np.ones((1, 4), dtype=np.float32) / 2).pack()
    state.record_item(
        "ITEM1", "f1", status="indexed", attachments=[], pages={}, sentence_vectors={"p1": vectors}
    )
    state.record_item(
        "ITEM2", "f2", status="indexed", attachments=[], pages={}, sentence_vectors={"p9": vectors}
    )
    assert set(state.sentence_vectors(["p1", "p9", "nope"])) == {"p1", "p9"}
    state.record_item(
        "ITEM1", "f3", status="indexed", attachments=[], pages={}, sentence_vectors={"p2": vectors}
    )
    assert set(state.sentence_vectors(["p1", "p2"])) == {"p2"}  # its old chunk's are gone with it
    state.forget_items(["ITEM1"])
    assert set(state.sentence_vectors(["p1", "p2", "p9"])) == {"p9"}
    state.close()


@pytest.mark.slow
def test_an_index_made_before_sentence_vectors_gains_them_on_its_next_updates(tmp_path: Path) -> None:
    """From the chunks' stored text, without parsing the files again; as many items a run as its time budget
    allows, the next run going on; then later updates do not look."""
    b = ZoteroLibraryBuilder(tmp_path / "library", shape="z7", seed=12)
    study = b.add_item("journalArticle", title="Heart Signals at Rest", date="2022-00-00 2022")
    b.add_attachment(study, filename="heart.pdf", content=_pdf(tmp_path / "heart.pdf", METHODS))
    other = b.add_item("journalArticle", title="Sleep in Shift Workers", date="2021-00-00 2021")
    b.add_attachment(other, filename="sleep.pdf", content=_pdf(tmp_path / "sleep.pdf", _SLEEP))
    db = guard_database(b.build())
    env = {"AGENT_ZOT_DATA_DIR": str(tmp_path / "state"), "AGENT_ZOT_EMBEDDER": "minilm-onnx"}
    update = ["--library", str(db.parent), "update-db"]
    runner = CliRunner()
    first = runner.invoke(cli, update, env=env)
    assert first.exit_code == 0 and "Sentence vectors" not in first.output, first.output  # kept as it indexed
    state = tmp_path / "state" / "index" / "state.sqlite"
    with sqlite3.connect(state) as conn:  # an index an older agent-zot made: no sentence vectors
        made = dict(conn.execute("SELECT point_id, data FROM sentence_vectors").fetchall())
        conn.execute("DELETE FROM sentence_vectors")
        conn.execute("DELETE FROM meta WHERE key = 'sentence_vectors'")
    conn.close()
    assert made

    def kept() -> dict[str, bytes]:
        with sqlite3.connect(f"file:{state}?mode=ro", uri=True) as conn:
            found = dict(conn.execute("SELECT point_id, data FROM sentence_vectors").fetchall())
        conn.close()
        return found

    off = runner.invoke(cli, update, env={**env, "AGENT_ZOT_SENTENCE_BACKFILL_MINUTES": "0"})
    assert off.exit_code == 0 and "Sentence vectors" not in off.output and not kept(), off.output
    # a budget the first item outlasts: that item is done, the other waits for the next update
    brief = runner.invoke(cli, update, env={**env, "AGENT_ZOT_SENTENCE_BACKFILL_MINUTES": "0.000001"})
    assert brief.exit_code == 0 and "Indexed 0 items" in brief.output, brief.output  # no file read again
    assert "Sentence vectors: added to 1 item indexed before they were kept" in brief.output
    assert "Sentence vectors: 1 item still to do; the next update-db goes on" in brief.output
    assert 0 < len(kept()) < len(made)
    again = runner.invoke(cli, update, env=env)
    assert "Sentence vectors: added to 1 item indexed before they were kept" in again.output, again.output
    assert "still to do" not in again.output
    gained = kept()
    assert set(gained) == set(made)
    for point, data in made.items():
        before, after = SentenceVectors.unpack(data), SentenceVectors.unpack(gained[point])
        assert before.spans == after.spans
        assert min(float(a @ b) for a, b in zip(before.vectors, after.vectors, strict=True)) > 0.99
    third = runner.invoke(cli, update, env=env)
    assert third.exit_code == 0 and "Sentence vectors" not in third.output, third.output


_SLEEP = (
    "We followed sixty nurses on rotating shifts for a month. Each wore a wrist actigraph day and night. "
    "Sleep after night shifts was shorter by seventy minutes on average. Naps before a night shift "
    "restored part of the loss."
)


@pytest.mark.slow
def test_a_torch_build_keeps_the_sentence_vectors_an_onnx_build_keeps() -> None:
    """GPUs, and CPUs where torch is faster than the export, embed with torch: their sentence vectors are
    the same pooling of the same model's token states."""
    spans = chunk_spans(METHODS)
    torch_model = SentenceTransformerEmbedder()  # no export folder: documents run on torch
    dense, by_torch = torch_model.embed_with_sentences([METHODS], [spans])
    assert float(dense[0] @ torch_model.embed_documents([METHODS])[0]) > 0.9999
    _, by_onnx = OnnxEmbedder().embed_with_sentences([METHODS], [spans])  # the int8 export
    assert by_torch[0].shape == by_onnx[0].shape == (len(spans), torch_model.dim)
    assert min(float(a @ b) for a, b in zip(by_torch[0], by_onnx[0], strict=True)) > 0.95
    question = torch_model.embed_query(QUESTION)
    answer = next(i for i, (a, b) in enumerate(spans) if METHODS[a:b] == ANSWER)
    assert int(np.argmax(by_torch[0] @ question)) == answer


def test_the_readme_tells_this_example() -> None:
    readme = " ".join((Path(__file__).resolve().parents[2] / "README.md").read_text(encoding="utf-8").split())
    assert f'"{QUESTION}" finds "{ANSWER[0].lower()}{ANSWER[1:-1]}"' in readme
