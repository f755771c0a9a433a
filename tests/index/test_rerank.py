"""The cross-encoder reranker on tiny checkpoints built here (nothing can be downloaded): a 2-layer BERT with a
one-label classification head and a WordPiece tokenizer trained on a few sentences, loaded through
sentence-transformers' real ``CrossEncoder`` code path."""

from __future__ import annotations

import json
import math
from pathlib import Path
from typing import TYPE_CHECKING

import pytest
from click.testing import CliRunner

from agent_zot.cli.main import cli
from agent_zot.config import Settings
from agent_zot.index.rerank import CrossEncoderReranker, RerankerError, make_reranker, rerank_status
from tests.factories import FullLibrary

if TYPE_CHECKING:
    from transformers import BertConfig, PreTrainedModel

QUERY = "where do narwhals migrate"
RELEVANT = ["narwhals migrate along the fjord", "the narwhals dive under ice", "tracking narwhals with tags"]
IRRELEVANT = ["citation graphs link papers", "parsing keeps page numbers", "mixed models for grouped data"]
# Not used in training: the trained model must generalise from "narwhals" to these.
HELD_OUT_RELEVANT = "young narwhals follow the pod"
HELD_OUT_IRRELEVANT = "page numbers for citation graphs"
POSITIONS = 64  # the tiny model's position limit; its tokenizer claims 512 so the cap must come from here


def _save_tokenizer(folder: Path) -> None:
    from tokenizers import Tokenizer, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import BertTokenizerFast

    specials = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
    tokenizer = Tokenizer(models.WordPiece(unk_token="[UNK]"))
    tokenizer.normalizer = normalizers.BertNormalizer(lowercase=True)
    tokenizer.pre_tokenizer = pre_tokenizers.BertPreTokenizer()
    corpus = [QUERY, *RELEVANT, *IRRELEVANT, HELD_OUT_RELEVANT, HELD_OUT_IRRELEVANT]
    tokenizer.train_from_iterator(corpus, trainers.WordPieceTrainer(vocab_size=200, special_tokens=specials))
    cls_id, sep_id = tokenizer.token_to_id("[CLS]"), tokenizer.token_to_id("[SEP]")
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", cls_id), ("[SEP]", sep_id)],
    )
    BertTokenizerFast(tokenizer_object=tokenizer, model_max_length=512).save_pretrained(folder)


def _config(folder: Path, num_labels: int = 1, vocab_size: int | None = None) -> BertConfig:
    from transformers import BertConfig

    vocab = json.loads((folder / "tokenizer.json").read_text(encoding="utf-8"))["model"]["vocab"]
    return BertConfig(
        vocab_size=vocab_size or len(vocab),
        hidden_size=32,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=64,
        max_position_embeddings=POSITIONS,
        num_labels=num_labels,
        # no dropout, so the few training steps below move the model the same way every run
        hidden_dropout_prob=0.0,
        attention_probs_dropout_prob=0.0,
    )


def _train(model: PreTrainedModel, folder: Path, steps: int = 30) -> None:
    """Full-batch Adam on six pairs: passages naming narwhals are relevant to the query, the others are not."""
    import torch
    from transformers import BertTokenizerFast

    tokenizer = BertTokenizerFast.from_pretrained(folder)
    passages = RELEVANT + IRRELEVANT
    batch = tokenizer([QUERY] * len(passages), passages, padding=True, return_tensors="pt")
    labels = torch.tensor([1.0] * len(RELEVANT) + [0.0] * len(IRRELEVANT))
    optimiser = torch.optim.Adam(model.parameters(), lr=5e-3)
    model.train()
    for _ in range(steps):
        logits = model(**batch).logits.squeeze(-1)
        loss = torch.nn.functional.binary_cross_entropy_with_logits(logits, labels)
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    model.eval()


def build_cross_encoder(
    folder: Path,
    *,
    train: bool = False,
    num_labels: int = 1,
    head: bool = True,
    vocab_size: int | None = None,
) -> Path:
    import torch
    from transformers import BertForSequenceClassification, BertModel

    folder.mkdir(parents=True, exist_ok=True)
    _save_tokenizer(folder)
    torch.manual_seed(0)
    config = _config(folder, num_labels, vocab_size)
    model = BertForSequenceClassification(config) if head else BertModel(config)
    if train:
        _train(model, folder)
    model.save_pretrained(folder)
    return folder


@pytest.fixture(scope="module")
def tiny_ce(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_cross_encoder(tmp_path_factory.mktemp("tiny-ce"))


@pytest.fixture(scope="module")
def trained_ce(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return build_cross_encoder(tmp_path_factory.mktemp("trained-ce"), train=True)


@pytest.mark.slow
def test_scores_one_finite_float_per_passage_in_order(tiny_ce: Path) -> None:
    reranker = CrossEncoderReranker(tiny_ce)
    assert reranker.name == f"{tiny_ce.name}@cross-encoder"
    passages = [*IRRELEVANT, *RELEVANT]
    scores = reranker.score(QUERY, passages)
    assert len(scores) == len(passages) and all(isinstance(s, float) and math.isfinite(s) for s in scores)
    assert len(set(scores)) > 1  # the passages differ, so their scores do
    # order preserved: reversed input gives reversed scores; batching does not change a passage's score
    assert reranker.score(QUERY, passages[::-1]) == pytest.approx(scores[::-1], abs=1e-5)
    assert reranker.score(QUERY, passages, batch_size=1) == pytest.approx(scores, abs=1e-5)
    # deterministic: a second reranker on the same folder agrees
    assert CrossEncoderReranker(tiny_ce).score(QUERY, passages) == pytest.approx(scores, abs=1e-6)
    assert reranker.score(QUERY, []) == []
    with pytest.raises(RerankerError, match="batch_size"):
        reranker.score(QUERY, passages, batch_size=0)


@pytest.mark.slow
def test_long_passages_are_truncated_to_the_models_limit(tiny_ce: Path) -> None:
    reranker = CrossEncoderReranker(tiny_ce, max_tokens=512)
    assert reranker.max_tokens == POSITIONS  # not the tokenizer's 512, which would overflow the positions
    long_passage = " ".join(RELEVANT * 60)
    (score,) = reranker.score(QUERY, [long_passage])
    assert math.isfinite(score)
    assert CrossEncoderReranker(tiny_ce, max_tokens=16).max_tokens == 16


@pytest.mark.slow
def test_a_trained_cross_encoder_reorders_passages(trained_ce: Path) -> None:
    reranker = CrossEncoderReranker(trained_ce)
    reranker.load()
    reranker.load()  # idempotent
    candidates = [*IRRELEVANT, *RELEVANT]  # fused order puts the irrelevant ones first
    scores = reranker.score(QUERY, candidates)
    reranked = [p for _, p in sorted(zip(scores, candidates, strict=True), key=lambda pair: -pair[0])]
    assert set(reranked[: len(RELEVANT)]) == set(RELEVANT)
    held_out_irrelevant, held_out_relevant = reranker.score(QUERY, [HELD_OUT_IRRELEVANT, HELD_OUT_RELEVANT])
    assert held_out_relevant > held_out_irrelevant + 1.0


def test_missing_folder_says_which_setting_to_fix(tmp_path: Path) -> None:
    with pytest.raises(RerankerError, match="not found") as err:
        CrossEncoderReranker(tmp_path / "nowhere")
    assert "reranker_model" in str(err.value) and str(tmp_path / "nowhere") in str(err.value)


@pytest.mark.parametrize(
    ("kind", "message"),
    [
        ("embedding model", "no sequence-classification head"),
        ("three labels", "3 labels"),
        ("no config", "no config.json"),
        ("no tokenizer", "no tokenizer files"),
        ("no weights", "Cannot load the cross-encoder"),
        ("tokenizer larger than the model's vocabulary", "failed to score"),
    ],
)
def test_folders_that_are_not_cross_encoders_are_refused(tmp_path: Path, kind: str, message: str) -> None:
    folder = tmp_path / "model"
    if kind == "embedding model":
        build_cross_encoder(folder, head=False)
    elif kind == "three labels":
        build_cross_encoder(folder, num_labels=3)
    elif kind.startswith("tokenizer larger"):
        build_cross_encoder(folder, vocab_size=8)
    else:
        build_cross_encoder(folder)
        gone = {
            "no config": "config.json",
            "no tokenizer": "tokenizer.json",
            "no weights": "model.safetensors",
        }
        (folder / gone[kind]).unlink()
        if kind == "no tokenizer":  # transformers 4 also saves a vocab.txt beside tokenizer.json
            for name in ("tokenizer_config.json", "vocab.txt", "special_tokens_map.json"):
                (folder / name).unlink(missing_ok=True)
    with pytest.raises(RerankerError, match=message) as err:
        CrossEncoderReranker(folder).score(QUERY, RELEVANT)
    assert err.value.hint  # every refusal says what to do


@pytest.mark.slow
def test_make_reranker_is_off_unless_configured_and_shares_the_model(tiny_ce: Path, tmp_path: Path) -> None:
    assert make_reranker(Settings(data_dir=tmp_path)) is None
    settings = Settings(data_dir=tmp_path, reranker_model=tiny_ce)
    reranker = make_reranker(settings)
    assert isinstance(reranker, CrossEncoderReranker) and reranker.model_dir == tiny_ce
    assert make_reranker(settings) is reranker  # search may call it per query without reloading
    assert settings.rerank_candidates == 50
    with pytest.raises(RerankerError, match="not found"):
        make_reranker(Settings(data_dir=tmp_path, reranker_model=tmp_path / "nowhere"))


@pytest.mark.slow
def test_rerank_status_says_why_it_is_off(tiny_ce: Path, tmp_path: Path) -> None:
    on, why = rerank_status(Settings(data_dir=tmp_path))
    assert not on and "not set" in why
    on, why = rerank_status(Settings(data_dir=tmp_path, reranker_model=tmp_path / "nowhere"))
    assert not on and "not found" in why
    on, why = rerank_status(Settings(data_dir=tmp_path, reranker_model=tiny_ce, rerank_candidates=20))
    assert on and "top 20" in why


@pytest.mark.slow
def test_doctor_reports_the_reranker(
    full_lib: FullLibrary, tiny_ce: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_ZOT_DATA_DIR", str(tmp_path / "state"))
    monkeypatch.setenv("AGENT_ZOT_EXPORT_DIR", str(tmp_path / "exports"))
    monkeypatch.setenv("AGENT_ZOT_LINKED_ATTACHMENT_BASE_DIR", str(full_lib.linked_base))

    def doctor() -> tuple[int, dict[str, str]]:
        result = CliRunner().invoke(cli, ["--library", str(full_lib.data_dir), "doctor", "--json"])
        checks = {c["name"]: c for c in json.loads(result.output)["checks"]}
        return result.exit_code, checks["reranker"]

    code, check = doctor()
    assert code == 0 and check["status"] == "ok" and check["detail"].startswith("off")
    monkeypatch.setenv("AGENT_ZOT_RERANKER_MODEL", str(tiny_ce))
    code, check = doctor()
    assert code == 0 and check["status"] == "ok" and check["detail"].startswith("on")
    monkeypatch.setenv("AGENT_ZOT_RERANKER_MODEL", str(tmp_path / "nowhere"))
    code, check = doctor()
    assert code == 1 and check["status"] == "fail" and "not found" in check["detail"]
    assert "reranker_model" in check["fix"]


@pytest.mark.slow
def test_passages_are_ordered_by_the_cross_encoder_when_one_is_configured(
    trained_ce: Path, tmp_path: Path
) -> None:
    """The picker's best windows are re-scored by the cross-encoder: the passages come back in its order,
    with its scores."""
    from agent_zot.index.passages import ChunkHit, PassagePicker
    from agent_zot.index.resources import IndexResources
    from agent_zot.index.store import Hit

    def chunk(n: int, sentences: list[str]) -> ChunkHit:
        text = " ".join(s[0].upper() + s[1:] + "." for s in sentences)
        payload = {"item_key": "ITEMKEY1", "kind": "chunk", "text": text, "page_start": n, "page_end": n}
        return ChunkHit(Hit(f"id-{n}", 1.0, payload), 1.0, {"vector"})

    pool = [chunk(1, IRRELEVANT), chunk(2, RELEVANT), chunk(3, [HELD_OUT_IRRELEVANT, HELD_OUT_RELEVANT])]
    resources = IndexResources(Settings(data_dir=tmp_path))  # single-page chunks: no page lookups
    reranker = CrossEncoderReranker(trained_ce)
    plain = PassagePicker(resources, QUERY, detail="sentences").pick(pool, 3)
    ranked = PassagePicker(resources, QUERY, detail="sentences", reranker=reranker).pick(pool, 3)
    assert [p.score for p in ranked] == sorted((p.score for p in ranked), reverse=True)
    for passage in ranked:
        (expected,) = reranker.score(QUERY, [passage.text])
        assert passage.score == pytest.approx(expected, abs=1e-4)
    assert [p.score for p in plain] != [p.score for p in ranked]
    assert "narwhals" in ranked[0].text.casefold()
