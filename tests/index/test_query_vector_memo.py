"""One request may embed its query in more than one step (a title lookup, then the search it decides; a
claim's check after the question whether it is a title): the index's resources keep the last few query
vectors, so each query runs through the model once."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import numpy as np
import pytest

from agent_zot.config import Settings
from agent_zot.index.resources import QUERY_VECTORS_KEPT, IndexResources

TITLE = "Photoplethysmography and Deep Learning: Ranking Hypertension Risk"


def test_a_query_runs_through_the_model_once_for_the_steps_of_a_request(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    resources = IndexResources(Settings(data_dir=tmp_path))
    embedder = resources.embedder
    runs: list[list[str]] = []
    model_run = embedder.embed_queries

    def counted(texts: Sequence[str]) -> np.ndarray:
        runs.append(list(texts))
        return model_run(texts)

    monkeypatch.setattr(embedder, "embed_queries", counted)
    first = resources.query_vector(TITLE)
    both = resources.query_vectors([TITLE, "cuffless blood pressure"])
    assert runs == [[TITLE], ["cuffless blood pressure"]]
    assert np.array_equal(both[0], first)
    assert np.allclose(both[1], embedder.embed_query("cuffless blood pressure"), atol=1e-6)
    assert not first.flags.writeable  # shared between the steps: no step may change it
    for n in range(QUERY_VECTORS_KEPT):  # the oldest go first
        resources.query_vector(f"query {n}")
    resources.query_vector(TITLE)
    assert runs[-1] == [TITLE]
    resources.close()
