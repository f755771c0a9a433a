"""BGE-M3's real code path (FlagEmbedding's BGEM3FlagModel) on a tiny checkpoint built here: a 2-layer
XLM-RoBERTa with a trained Unigram tokenizer plus the colbert/sparse heads, as NOTES-offline.md describes."""

from __future__ import annotations

import io
from pathlib import Path

import numpy as np
import pytest

from agent_zot.config import Settings
from agent_zot.index.embed import make_embedder
from agent_zot.index.model_fetch import MANIFEST, ModelFetchError, cached_model_dir, ensure_model, is_hub_id
from agent_zot.index.resources import IndexResources
from agent_zot.services.upkeep.update_db import UpdateOptions, update_index
from agent_zot.zotero.builder import ZoteroLibraryBuilder
from agent_zot.zotero.reader import load_library
from tests.fake_hub import FakeHub

CORPUS = [
    "Page-aware parsing keeps page numbers so passages can be cited.",
    "Citation graphs connect papers through their reference lists.",
    "Mixed-effects models describe grouped measurements of subjects.",
    "Language models pretrained on scientific text help entity recognition.",
    "Narwhals migrate along the fjord every spring.",
] * 20
HIDDEN = 64


@pytest.fixture(scope="module")
def tiny_bge_m3(tmp_path_factory: pytest.TempPathFactory) -> Path:
    import torch
    from tokenizers import Tokenizer, decoders, models, normalizers, pre_tokenizers, processors, trainers
    from transformers import XLMRobertaConfig, XLMRobertaModel, XLMRobertaTokenizerFast

    folder = tmp_path_factory.mktemp("tiny-bge-m3")
    specials = ["<s>", "<pad>", "</s>", "<unk>", "<mask>"]
    tokenizer = Tokenizer(models.Unigram())
    tokenizer.normalizer = normalizers.NFKC()
    tokenizer.pre_tokenizer = pre_tokenizers.Metaspace()
    tokenizer.decoder = decoders.Metaspace()
    tokenizer.train_from_iterator(
        CORPUS, trainers.UnigramTrainer(vocab_size=200, special_tokens=specials, unk_token="<unk>")
    )
    tokenizer.post_processor = processors.TemplateProcessing(
        single="<s> $A </s>", pair="<s> $A </s> </s> $B </s>", special_tokens=[("<s>", 0), ("</s>", 2)]
    )
    XLMRobertaTokenizerFast(
        tokenizer_object=tokenizer,
        bos_token="<s>",
        eos_token="</s>",
        cls_token="<s>",
        sep_token="</s>",
        unk_token="<unk>",
        pad_token="<pad>",
        mask_token="<mask>",
        model_max_length=128,
    ).save_pretrained(folder)
    torch.manual_seed(0)
    config = XLMRobertaConfig(
        vocab_size=tokenizer.get_vocab_size(),
        hidden_size=HIDDEN,
        num_hidden_layers=2,
        num_attention_heads=2,
        intermediate_size=128,
        max_position_embeddings=130,
        pad_token_id=1,
        bos_token_id=0,
        eos_token_id=2,
    )
    XLMRobertaModel(config).save_pretrained(folder)
    torch.save(torch.nn.Linear(HIDDEN, HIDDEN).state_dict(), folder / "colbert_linear.pt")
    torch.save(torch.nn.Linear(HIDDEN, 1).state_dict(), folder / "sparse_linear.pt")
    return folder


@pytest.mark.slow
def test_dense_and_lexical_weights_from_one_model(tiny_bge_m3: Path) -> None:
    embedder = make_embedder("bge-m3", model_dir=tiny_bge_m3)
    assert embedder.dim == HIDDEN and embedder.max_tokens == 128
    texts = CORPUS[:3]
    dense = embedder.embed_documents(texts)
    assert dense.shape == (3, HIDDEN) and dense.dtype == np.float32
    assert np.allclose(np.linalg.norm(dense, axis=1), 1.0, atol=1e-5)
    sparse = embedder.sparse_documents(texts)
    assert len(sparse) == 3 and all(s.indices and len(s.indices) == len(s.values) for s in sparse)
    vocab = embedder.count_tokens("")  # only <s> and </s>
    assert vocab == 2
    assert all(0 <= i < 200 for s in sparse for i in s.indices) and all(
        v > 0 for s in sparse for v in s.values
    )
    # the same text gives the same vectors (deterministic inference)
    again = make_embedder("bge-m3", model_dir=tiny_bge_m3)
    assert np.allclose(again.embed_query(texts[0]), dense[0], atol=1e-5)
    assert again.sparse_query(texts[0]).indices == sparse[0].indices


@pytest.mark.slow
def test_update_db_with_bge_m3_uses_its_lexical_weights_as_sparse(tiny_bge_m3: Path, tmp_path: Path) -> None:
    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=3)
    keys = [b.add_item("journalArticle", title=text, date="2020-00-00 2020") for text in CORPUS[:5]]
    library = load_library(b.build())
    resources = IndexResources(
        Settings(
            data_dir=tmp_path / "state", embedder="bge-m3", embedder_model=str(tiny_bge_m3), bge_m3_int8=False
        )
    )
    try:
        summary = update_index(library, resources, UpdateOptions(fulltext=False))
        assert summary.indexed == 5 and summary.model == f"{tiny_bge_m3.name}@bge-m3"
        assert resources.sparse_kind == "bge-m3" and resources.open().sparse == "bge-m3"
        query = CORPUS[4]
        hits = resources.store.search(None, resources.sparse_query(query), limit=1)  # lexical weights alone
        assert hits[0].payload["item_key"] == keys[4]
    finally:
        resources.close()


# -- fetching the model by its hub id (a FAKE hub that follows the documented HTTP API) -------------


@pytest.mark.slow
def test_a_hub_id_is_fetched_once_into_the_data_folder_then_used_offline(
    tiny_bge_m3: Path, tmp_path: Path
) -> None:
    b = ZoteroLibraryBuilder(tmp_path / "Zotero", shape="z7", seed=3)
    for text in CORPUS[:3]:
        b.add_item("journalArticle", title=text, date="2020-00-00 2020")
    library = load_library(b.build())
    with FakeHub("test-org/tiny-bge-m3", tiny_bge_m3) as hub:
        settings = Settings(
            data_dir=tmp_path / "state",
            embedder="bge-m3",
            embedder_model="test-org/tiny-bge-m3",
            model_hub_url=hub.url,
        )
        resources = IndexResources(settings)
        try:
            summary = update_index(library, resources, UpdateOptions(fulltext=False))
        finally:
            resources.close()
        fetched = cached_model_dir(settings.data_dir, "test-org/tiny-bge-m3")
        assert summary.indexed == 3 and summary.model == "test-org--tiny-bge-m3@bge-m3-int8"  # no GPU here
        assert (fetched / "config.json").read_bytes() == (tiny_bge_m3 / "config.json").read_bytes()
        assert {"sparse_linear.pt", "tokenizer.json"} <= {p.name for p in fetched.iterdir()}
        asked = len(hub.requests)
        again = IndexResources(settings)
        try:
            assert again.embedder.dim == HIDDEN  # from the fetched folder
        finally:
            again.close()
        assert len(hub.requests) == asked  # nothing fetched twice


def test_an_interrupted_fetch_resumes_and_a_wrong_id_is_named(tiny_bge_m3: Path, tmp_path: Path) -> None:
    progress = io.StringIO()
    with FakeHub("test-org/tiny-bge-m3", tiny_bge_m3) as hub:
        hub.fail_once = {"model.safetensors"}
        with pytest.raises(ModelFetchError, match=r"model\.safetensors"):
            ensure_model("test-org/tiny-bge-m3", tmp_path, hub_url=hub.url, progress=progress)
        folder = cached_model_dir(tmp_path, "test-org/tiny-bge-m3")
        assert not (folder / MANIFEST).exists() and not (folder / "model.safetensors").exists()
        assert ensure_model("test-org/tiny-bge-m3", tmp_path, hub_url=hub.url, progress=progress) == folder
        weights = (folder / "model.safetensors").read_bytes()
        assert weights == (tiny_bge_m3 / "model.safetensors").read_bytes()
        assert "[1/" in progress.getvalue() and "MB" in progress.getvalue()
        with pytest.raises(ModelFetchError, match="has no model 'test-org/missing'"):
            ensure_model("test-org/missing", tmp_path, hub_url=hub.url, progress=progress)
    assert is_hub_id("BAAI/bge-m3") and not is_hub_id(str(tiny_bge_m3)) and not is_hub_id("minilm")


# -- INT8 on the CPU: the ONNX export, quantized once and cached -------------------------------------


@pytest.mark.slow
def test_int8_model_matches_fp32_and_is_exported_once(tiny_bge_m3: Path, tmp_path: Path) -> None:
    import shutil

    folder = tmp_path / "model"
    shutil.copytree(tiny_bge_m3, folder)
    fp32 = make_embedder("bge-m3", model_dir=folder)
    int8 = make_embedder("bge-m3-int8", model_dir=folder)
    texts = CORPUS[:5]
    dense_fp32, dense_int8 = fp32.embed_documents(texts), int8.embed_documents(texts)
    cosines = (dense_fp32 * dense_int8).sum(axis=1)  # both normalised
    assert cosines.min() >= 0.999, cosines
    assert int8.name == "model@bge-m3-int8" and dense_int8.shape == (5, HIDDEN)
    for a, b in zip(fp32.sparse_documents(texts), int8.sparse_documents(texts), strict=True):
        # the same weights per token, a token near zero in one possibly just above it in the other
        wa, wb = dict(zip(a.indices, a.values, strict=True)), dict(zip(b.indices, b.values, strict=True))
        tokens = sorted(set(wa) | set(wb))
        error = max(abs(wa.get(t, 0.0) - wb.get(t, 0.0)) for t in tokens)
        assert error <= 0.05 * max(wa.values())  # the sparse head stays fp32
        assert max(wa, key=wa.get) == max(wb, key=wb.get)  # the heaviest token agrees
    cached = folder / "agent-zot-int8" / "model.int8.onnx"
    assert cached.is_file() and not (folder / "agent-zot-int8" / "model.fp32.onnx").exists()
    stamp = cached.stat().st_mtime_ns
    again = make_embedder("bge-m3-int8", model_dir=folder)
    # dynamic quantization scales each batch's activations by that batch's range: alone, a text's vector
    # moves in the fourth decimal
    assert np.allclose(again.embed_query(texts[0]), dense_int8[0], atol=1e-3)
    assert cached.stat().st_mtime_ns == stamp  # not exported twice
