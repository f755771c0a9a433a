"""Fit the weights of a review-matrix cell's sentence features (agent_zot/services/matrix/weights.py, one
column per question kind) on the dev papers of scripts/data/matrix_cells.jsonl; the test third is never read.

    .venv/bin/python scripts/fit_cells.py --work DIR [--folds 5] [--l2 0.002] [--kind-l2 0.005]
        [--seeds 7,11,13,17,19]

Every sentence of each dev paper is scored for each labelled question; a sentence is a positive when it
holds the labelled answer (scripts/bench_cells.py `holds`). The weights maximise the listwise likelihood
of the positives (softmax over the paper's sentences, L2-regularised). Reported: the share of answered
cells with a positive among the first 1, 3 and 10 sentences, for the current weights and for weights
fitted on the other folds (papers split into folds, so no paper is scored by weights fitted on it; the
mean over a few random splits), then the weights fitted on all dev papers, as the table to paste into
weights.py. The "other" column is fitted on every kind's cells (--l2 towards the current "other" column);
each kind's column on its own cells, drawn towards the "other" column (--kind-l2): a kind has 20-60 cells.

A learned answer-word model (per question kind, the log-odds of each word stem in labelled answers) was
tried and dropped (2026-11-27): in-sample it lifted the first sentence from 0.41 to 0.62 of the dev cells,
but learned on other folds it scored 0.37-0.41 whatever the support asked of a word (3 to 8 papers, 2 or
3 libraries), no better than the weights without it (0.41): the words were the dev papers' own.
"""

from __future__ import annotations

import argparse
import json
import random
import sys
from collections import defaultdict
from pathlib import Path
from typing import Any

import numpy as np
from scipy.optimize import minimize

from agent_zot.services.context import AppContext
from agent_zot.services.full_text import full_text_of
from agent_zot.services.matrix.cells import PaperText, chunk_ranks, features
from agent_zot.services.matrix.weights import FEATURES, WEIGHTS
from agent_zot.services.paper_reading.questions import classify
from agent_zot.services.paper_reading.roles import excluded

sys.path.insert(0, str(Path(__file__).resolve().parent))
from bench_cells import LABELS, _index, _keys, holds

NAMES = list(FEATURES)
KINDS = ("other", "problem", "method", "data", "count", "result", "limitation")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--work", type=Path, required=True)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--l2", type=float, default=0.002)
    parser.add_argument("--kind-l2", type=float, default=0.005)
    parser.add_argument("--seeds", default="7,11,13,17,19", help="random splits into folds")
    args = parser.parse_args()
    rows = [json.loads(line) for line in LABELS.read_text(encoding="utf-8").splitlines() if line.strip()]
    dev = [r for r in rows if r["split"] == "dev" and r["answers"]]
    cells = _cells(dev, args.work)
    print(
        f"{len(cells)} answered dev cells, {sum(c['positive'].any() for c in cells)} with a positive sentence"
    )
    current = {kind: np.array([WEIGHTS.get(kind, WEIGHTS["other"])[n] for n in NAMES]) for kind in KINDS}
    print("current weights:", _recall_each([dict(c, weights=current[c["kind"]]) for c in cells]))
    runs = []
    for seed in (int(s) for s in args.seeds.split(",")):
        papers = sorted({c["paper"] for c in cells})
        random.Random(seed).shuffle(papers)
        fold_of = {paper: n % args.folds for n, paper in enumerate(papers)}
        held: list[dict[str, Any]] = []
        for fold in range(args.folds):
            fitted = _fit_kinds([c for c in cells if fold_of[c["paper"]] != fold], current["other"], args)
            held += [dict(c, weights=fitted[c["kind"]]) for c in cells if fold_of[c["paper"]] == fold]
        runs.append(_recall_each(held))
    print(
        "fitted on the other folds:",
        {k: round(float(np.mean([r[k] for r in runs])), 3) for k in runs[0]},
    )
    final = _fit_kinds(cells, current["other"], args)
    print("fitted on all dev papers:")
    print("feature".ljust(16) + "".join(kind.rjust(11) for kind in KINDS))
    for n, name in enumerate(NAMES):
        print(name.ljust(16) + "".join(f"{final[kind][n]:11.2f}" for kind in KINDS))


def _fit_kinds(
    cells: list[dict[str, Any]], start: np.ndarray, args: argparse.Namespace
) -> dict[str, np.ndarray]:
    """The "other" column on all cells, then each kind's column on its own cells, drawn towards it."""
    shared = _fit(cells, start, args.l2)
    fitted = {"other": shared}
    for kind in KINDS[1:]:
        own = [c for c in cells if c["kind"] == kind]
        fitted[kind] = _fit(own, shared, args.kind_l2) if own else shared
    return fitted


def _cells(rows: list[dict[str, Any]], work: Path) -> list[dict[str, Any]]:
    by_corpus: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        by_corpus[row["corpus"]].append(row)
    cells = []
    for corpus, asked in sorted(by_corpus.items()):
        settings = _index(corpus, work)
        keys = _keys(settings, corpus)
        ctx = AppContext(settings)
        try:
            papers: dict[str, PaperText] = {}
            for row in asked:
                key = keys.get(row["file"])
                if key is None:
                    continue
                if key not in papers:
                    item = ctx.library().items[key]
                    full = full_text_of(ctx, item)
                    if not full.indexed or full.attachment is None:
                        continue
                    pages = ctx.index().state.pages_of(full.attachment.attachment_key)
                    papers[key] = PaperText.of(
                        full.attachment.attachment_key, [(p.number, p.text) for p in pages]
                    )
                paper = papers[key]
                kind = classify(row["question"]).name
                found = features(paper, row["question"], chunk_ranks(ctx, key, row["question"], paper))
                # a sentence that may not answer (thanks, references, chrome) is never a candidate
                keep = [i for i, s in enumerate(paper.sentences) if not excluded(s.kind, kind)]
                matrix = np.array([[found[i][0][n] for n in NAMES] for i in keep])
                positive = np.array(
                    [holds(paper.sentences[i].page, paper.sentences[i].text, row["answers"]) for i in keep]
                )
                cells.append(
                    {"paper": f"{corpus}/{row['file']}", "kind": kind, "x": matrix, "positive": positive}
                )
        finally:
            ctx.close()
    return cells


def _loss(weights: np.ndarray, cells: list[dict[str, Any]], l2: float, anchor: np.ndarray) -> float:
    total = 0.0
    for cell in cells:
        if not cell["positive"].any():
            continue
        scores = cell["x"] @ weights
        top = scores.max()
        log_all = top + np.log(np.exp(scores - top).sum())
        log_pos = top + np.log(np.exp(scores[cell["positive"]] - top).sum())
        total += log_all - log_pos
    return total / max(1, len(cells)) + l2 * float(((weights - anchor) ** 2).sum())


def _fit(cells: list[dict[str, Any]], start: np.ndarray, l2: float) -> np.ndarray:
    result = minimize(_loss, start, args=(cells, l2, start), method="L-BFGS-B")
    return result.x


def _recall_each(cells: list[dict[str, Any]]) -> dict[str, float]:
    at = {1: 0, 3: 0, 10: 0}
    for cell in cells:
        order = np.argsort(-(cell["x"] @ cell["weights"]), kind="stable")
        for k in at:
            at[k] += bool(cell["positive"][order[:k]].any())
    return {f"@{k}": round(v / len(cells), 3) for k, v in at.items()}


if __name__ == "__main__":
    main()
