"""Embedders (both offline MiniLM backends, Ollama against a fake server, BGE-M3's missing-extra path) and
the BM25 sparse encoder."""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import pytest
from tokenizers import Tokenizer

from agent_zot.errors import AgentZotError
from agent_zot.index.embed import (
    DEFAULT_MINILM_BACKEND,
    Embedder,
    EmbedderError,
    make_embedder,
    minilm_model_dir,
)
from agent_zot.index.embed_bge_m3 import BgeM3Embedder
from agent_zot.index.embed_local import OnnxEmbedder, SentenceTransformerEmbedder
from agent_zot.index.embed_remote import OllamaEmbedder
from agent_zot.index.sparse import BM25_B, BM25_K1, Bm25Encoder, _convert

REPO_ROOT = Path(__file__).resolve().parents[2]
BACKENDS = ["st_embedder", "onnx_embedder"]


@pytest.fixture(scope="module")
def st_embedder() -> SentenceTransformerEmbedder:
    return SentenceTransformerEmbedder(threads=2)


@pytest.fixture(scope="module")
def onnx_embedder() -> OnnxEmbedder:
    return OnnxEmbedder(threads=2)


@pytest.fixture(params=BACKENDS)
def embedder(request: pytest.FixtureRequest) -> Embedder:
    return request.getfixturevalue(request.param)  # type: ignore[no-any-return]


SENTENCES = [
    "The drug lowered blood pressure in patients with hypertension.",
    "Hypertensive patients had reduced blood pressure after the medication.",
    "The telescope observed a distant spiral galaxy.",
]


# --- local MiniLM backends ---------------------------------------------------------------------


@pytest.mark.slow
def test_local_backends_return_unit_float32_vectors(embedder: Embedder) -> None:
    vectors = embedder.embed_documents(SENTENCES, batch_size=2)
    assert vectors.shape == (3, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-4)
    query = embedder.embed_query(SENTENCES[0])
    assert query.shape == (384,) and query.dtype == np.float32
    np.testing.assert_allclose(query, vectors[0], atol=1e-4)
    assert embedder.dim == 384 and embedder.max_tokens == 256


@pytest.mark.slow
def test_queries_embedded_together_get_the_vectors_each_gets_alone(embedder: Embedder) -> None:
    # A claim check embeds the claim and its refutation variants in one run: padding to the longest of
    # them must not move any vector, or the answer would change with the variants a claim has.
    queries = [
        "Aspirin reduces the risk of heart attack.",
        "Aspirin does not reduce the risk of heart attack.",
        "no effect no association no difference Aspirin risk heart attack",
        "however in contrast Aspirin reduces the risk of heart attack in older adults with diabetes",
    ]
    together = embedder.embed_queries(queries)
    assert together.shape == (4, 384) and together.dtype == np.float32
    np.testing.assert_allclose(together, np.stack([embedder.embed_query(q) for q in queries]), atol=1e-6)


def test_semantically_close_sentences_are_closer(embedder: Embedder) -> None:
    a, b, c = embedder.embed_documents(SENTENCES)
    assert float(a @ b) > float(a @ c) + 0.3
    assert float(a @ b) > float(b @ c) + 0.3


@pytest.mark.slow
def test_the_two_backends_agree(
    st_embedder: SentenceTransformerEmbedder, onnx_embedder: OnnxEmbedder
) -> None:
    texts = [*SENTENCES, "word " * 400]  # the long one is truncated the same way by both
    cosines = (st_embedder.embed_documents(texts) * onnx_embedder.embed_documents(texts)).sum(axis=1)
    assert cosines.min() > 0.99


def test_empty_batch_and_names(embedder: Embedder) -> None:
    assert embedder.embed_documents([]).shape == (0, 384)
    assert embedder.sparse_documents(["x"]) is None and embedder.sparse_query("x") is None
    assert embedder.name.startswith("all-MiniLM-L6-v2@")


@pytest.mark.slow
def test_backend_names_differ(st_embedder: SentenceTransformerEmbedder, onnx_embedder: OnnxEmbedder) -> None:
    # Vectors from different backends are close but not identical: the index must notice a switch.
    assert st_embedder.name != onnx_embedder.name


def test_count_tokens_and_spans_agree_with_the_tokenizer(embedder: Embedder) -> None:
    tokenizer = Tokenizer.from_file(str(minilm_model_dir() / "tokenizer.json"))
    tokenizer.no_truncation()
    tokenizer.no_padding()
    text = "α-Synuclein aggregates in Parkinson's disease (PD); see Fig. 3. " * 30  # > 128 tokens
    encoding = tokenizer.encode(text)
    assert embedder.count_tokens(text) == len(encoding.ids) > 300  # no truncation in counting
    spans = embedder.token_spans(text)
    assert len(spans) == embedder.count_tokens(text) - embedder.count_tokens("") == len(encoding.ids) - 2
    assert spans == tokenizer.encode(text, add_special_tokens=False).offsets
    assert [text[s:e] for s, e in spans[:5]] == ["α", "-", "Syn", "uc", "lein"]
    assert "".join(text[s:e] for s, e in spans) == "".join(text.split())  # every character, in order


def test_constructing_embedders_imports_nothing_heavy() -> None:
    code = """
import json, sys
from agent_zot.index.embed import make_embedder
from agent_zot.index.sparse import Bm25Encoder
made = [make_embedder(kind) for kind in ("minilm", "minilm-st", "minilm-onnx")]
made.append(make_embedder("ollama", model="nomic-embed-text"))
made[0].count_tokens("counting tokens needs only the tokenizer")
Bm25Encoder()
heavy = ("torch", "sentence_transformers", "transformers", "onnxruntime", "FlagEmbedding", "httpx", "qdrant_edge")
print(json.dumps([m for m in heavy if m in sys.modules]))
"""
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert json.loads(out.stdout) == []


def test_make_embedder_kinds_and_errors(tmp_path: Path) -> None:
    assert type(make_embedder("minilm")) is type(make_embedder(DEFAULT_MINILM_BACKEND))
    assert isinstance(make_embedder("minilm-onnx"), OnnxEmbedder)
    assert isinstance(make_embedder("MiniLM-ST"), SentenceTransformerEmbedder)
    with pytest.raises(EmbedderError, match="Choose one of"):
        make_embedder("word2vec")
    with pytest.raises(EmbedderError, match="Invalid option"):
        make_embedder("minilm-onnx", modle_path="x")
    with pytest.raises(EmbedderError, match="not found"):
        make_embedder("minilm-st", model_dir=tmp_path / "missing")
    assert issubclass(EmbedderError, AgentZotError)


def test_backends_are_found_by_name_and_loaded_on_first_use() -> None:
    from agent_zot.index import embed

    assert isinstance(embed.make_embedder("minilm-onnx", threads=1), OnnxEmbedder)
    assert isinstance(embed.make_embedder("ollama", model="x"), OllamaEmbedder)
    assert not hasattr(embed, "OnnxEmbedder")  # the Protocol's module imports no backend
    with pytest.raises(EmbedderError, match="Unknown embedder"):
        embed.make_embedder("no-such-embedder")


# --- Ollama against a fake server --------------------------------------------------------------

FAKE_DIM = 8


class FakeOllama:
    """A tiny stand-in for Ollama's ``POST /api/embed`` on 127.0.0.1 with deterministic vectors."""

    def __init__(self, models: set[str]) -> None:
        self.models = models
        self.requests: list[dict[str, Any]] = []
        fake = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                fake.requests.append(body)
                if self.path != "/api/embed":
                    self._reply(404, {"error": "not found"})
                elif body.get("model") not in fake.models:
                    self._reply(404, {"error": f"model '{body.get('model')}' not found"})
                else:
                    inputs = body["input"] if isinstance(body["input"], list) else [body["input"]]
                    self._reply(200, {"model": body["model"], "embeddings": [fake.vector(t) for t in inputs]})

            def _reply(self, status: int, payload: dict[str, Any]) -> None:
                data = json.dumps(payload).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)

    @staticmethod
    def vector(text: str) -> list[float]:
        digest = hashlib.sha256(text.encode()).digest()
        return [b - 128.0 for b in digest[:FAKE_DIM]]  # deliberately not unit length

    def __enter__(self) -> FakeOllama:
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture(scope="module")
def fake_ollama() -> Iterator[FakeOllama]:
    with FakeOllama({"fake-embed"}) as fake:
        yield fake


def test_ollama_embeds_in_batches_and_normalises(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("fake-embed", url=fake_ollama.url)
    before = len(fake_ollama.requests)
    vectors = embedder.embed_documents(["alpha", "beta", "gamma"], batch_size=2)
    assert [len(r["input"]) for r in fake_ollama.requests[before:]] == [2, 1]
    assert fake_ollama.requests[-1]["model"] == "fake-embed"
    assert vectors.shape == (3, FAKE_DIM) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    expected = np.array(FakeOllama.vector("beta"), dtype=np.float32)
    np.testing.assert_allclose(vectors[1], expected / np.linalg.norm(expected), atol=1e-6)
    np.testing.assert_allclose(embedder.embed_query("alpha"), vectors[0], atol=1e-6)
    assert embedder.dim == FAKE_DIM and embedder.name == "fake-embed@ollama"
    assert embedder.sparse_documents(["alpha"]) is None
    embedder.close()


def test_ollama_discovers_dimension_on_demand(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("fake-embed", url=fake_ollama.url)
    before = len(fake_ollama.requests)
    assert embedder.dim == FAKE_DIM  # asks the server once
    assert embedder.dim == FAKE_DIM
    assert len(fake_ollama.requests) == before + 1


@pytest.mark.slow
def test_ollama_token_counting_uses_the_minilm_tokenizer(
    fake_ollama: FakeOllama, onnx_embedder: OnnxEmbedder
) -> None:
    embedder = OllamaEmbedder("fake-embed", url=fake_ollama.url)
    text = "Token counts for Ollama models are approximated."
    assert embedder.count_tokens(text) == onnx_embedder.count_tokens(text)
    assert embedder.token_spans(text) == onnx_embedder.token_spans(text)


def test_ollama_unknown_model_says_how_to_pull_it(fake_ollama: FakeOllama) -> None:
    embedder = OllamaEmbedder("x", url=fake_ollama.url)
    with pytest.raises(EmbedderError) as err:
        embedder.embed_query("hello")
    assert "ollama pull x" in str(err.value) and "not found" in str(err.value)


def test_ollama_unreachable_says_how_to_start_it() -> None:
    with socket.socket() as sock:  # a port nobody listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    embedder = OllamaEmbedder("nomic-embed-text", url=f"http://127.0.0.1:{port}")
    with pytest.raises(EmbedderError) as err:
        embedder.embed_documents(["hello"])
    message = str(err.value)
    assert f"127.0.0.1:{port}" in message and "ollama serve" in message


# --- BGE-M3 ------------------------------------------------------------------------------------


def test_bge_m3_without_flagembedding_says_which_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "FlagEmbedding", None)  # as if the extra were not installed
    embedder = make_embedder("bge-m3", model_dir=tmp_path)
    with pytest.raises(EmbedderError, match=r"pip install 'agent-zot\[bge-m3\]'"):
        embedder.embed_query("hello")
    with pytest.raises(EmbedderError, match="not found"):
        BgeM3Embedder(tmp_path / "missing")


class _FakeFlagModel:
    """Stands in for BGEM3FlagModel.encode's output format (dense_vecs + lexical_weights by token id)."""

    def __init__(self) -> None:
        self.calls = 0

    def encode(self, texts: list[str], **kwargs: Any) -> dict[str, Any]:
        self.calls += 1
        assert kwargs["return_sparse"] and kwargs["return_dense"]
        dense = np.array([[len(t), 1.0, 0.0, 2.0] for t in texts], dtype=np.float32)
        weights = [{"17": 0.25, "5": 0.5, "9": 0.0} for _ in texts]
        return {"dense_vecs": dense, "lexical_weights": weights, "colbert_vecs": None}


def test_bge_m3_converts_dense_and_lexical_outputs(tmp_path: Path) -> None:
    (tmp_path / "config.json").write_text(json.dumps({"hidden_size": 4, "max_position_embeddings": 514}))
    embedder = BgeM3Embedder(tmp_path)
    assert (embedder.dim, embedder.max_tokens) == (4, 512)
    fake = _FakeFlagModel()
    embedder._model = fake  # skip loading: FlagEmbedding is an optional extra
    dense = embedder.embed_documents(["ab", "abcd"])
    np.testing.assert_allclose(np.linalg.norm(dense, axis=1), 1.0, atol=1e-6)
    sparse = embedder.sparse_documents(["ab", "abcd"])
    assert fake.calls == 1  # the sparse half came from the same forward pass
    assert sparse is not None and sparse[0].indices == [5, 17] and sparse[0].values == [0.5, 0.25]
    query = embedder.sparse_query("q")
    assert query is not None and query.indices == [5, 17]


# --- BM25 --------------------------------------------------------------------------------------


def test_bm25_indices_are_deterministic_across_processes() -> None:
    text = "Mitochondrial dysfunction drives neuronal death in Parkinson's disease."
    local = Bm25Encoder().encode_document(text)
    code = (
        "import json; from agent_zot.index.sparse import Bm25Encoder; "
        f"v = Bm25Encoder().encode_document({text!r}); print(json.dumps([v.indices, v.values]))"
    )
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert json.loads(out.stdout) == [local.indices, local.values]
    assert local.indices == sorted(local.indices) and all(0 <= i < 2**32 for i in local.indices)


def test_bm25_vectors_are_sorted_whatever_order_the_model_gives() -> None:
    # The encoder's model gives sorted indices today; the conversion checks rather than trusts it.
    shuffled = _convert(SimpleNamespace(indices=[9, 2, 5], values=[0.9, 0.2, 0.5]))
    assert shuffled.indices == [2, 5, 9] and shuffled.values == [0.2, 0.5, 0.9]
    ordered = _convert(SimpleNamespace(indices=[2, 5, 9], values=[0.2, 0.5, 0.9]))
    assert (ordered.indices, ordered.values) == (shuffled.indices, shuffled.values)


def test_bm25_drops_stopwords_and_stems() -> None:
    encoder = Bm25Encoder()
    assert encoder.encode_document("the and of it is").indices == []
    assert encoder.encode_document("").indices == []
    assert encoder.encode_document("the cat").indices == encoder.encode_document("cat").indices
    assert encoder.encode_query("cats").indices == encoder.encode_query("cat").indices


def test_bm25_document_weights_follow_the_tf_formula() -> None:
    encoder = Bm25Encoder(avg_len=10.0)
    doc = encoder.encode_document("kinase kinase kinase inhibitor")
    weights = dict(zip(doc.indices, doc.values, strict=True))
    kinase = encoder.encode_query("kinase").indices[0]
    inhibitor = encoder.encode_query("inhibitor").indices[0]

    def tf_weight(tf: int, length: int) -> float:
        return tf * (BM25_K1 + 1) / (tf + BM25_K1 * (1 - BM25_B + BM25_B * length / 10.0))

    assert weights[kinase] == pytest.approx(tf_weight(3, 4), rel=1e-4)
    assert weights[inhibitor] == pytest.approx(tf_weight(1, 4), rel=1e-4)
    assert weights[kinase] > weights[inhibitor]
    assert all(0 < v < BM25_K1 + 1 for v in doc.values)
    longer = encoder.encode_document("inhibitor " + "protein structure folding dynamics " * 5)
    assert dict(zip(longer.indices, longer.values, strict=True))[inhibitor] < weights[inhibitor]


def test_bm25_query_has_unit_weights_matching_document_terms() -> None:
    encoder = Bm25Encoder()
    query = encoder.encode_query("How do kinase inhibitors work?")
    assert query.values and set(query.values) == {1.0}
    document = encoder.encode_document("A kinase inhibitor works by blocking the enzyme.")
    assert set(query.indices) <= set(document.indices)
    assert len(encoder.encode_documents(["a kinase", "an inhibitor"])) == 2


def test_bm25_rejects_invalid_parameters() -> None:
    with pytest.raises(ValueError):
        Bm25Encoder(b=1.5)
