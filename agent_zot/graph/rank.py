"""PageRank on compact arrays: a sparse matrix over the edges' node indexes, no graph objects.

The iteration and its stopping rule are networkx's (``nx.pagerank``: damping 0.85, uniform teleport,
dangling nodes' rank spread evenly, stop when the L1 change is under ``n * tol``), so the ranks match what
the networkx-backed code computed, for a fraction of the memory and time.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np
from scipy import sparse


def pagerank(
    edges: Sequence[tuple[str, str, float]], *, alpha: float = 0.85, max_iter: int = 100, tol: float = 1e-6
) -> dict[str, float]:
    """PageRank of every node an edge (source, target, weight) touches, in the order they first appear."""
    if not edges:
        return {}
    index: dict[str, int] = {}
    for source, target, _ in edges:
        index.setdefault(source, len(index))
        index.setdefault(target, len(index))
    n = len(index)
    rows = np.fromiter((index[s] for s, _, _ in edges), dtype=np.int64, count=len(edges))
    cols = np.fromiter((index[t] for _, t, _ in edges), dtype=np.int64, count=len(edges))
    weights = np.fromiter((w for _, _, w in edges), dtype=np.float64, count=len(edges))
    matrix = sparse.csr_array((weights, (rows, cols)), shape=(n, n))
    out = np.asarray(matrix.sum(axis=1)).ravel()
    scale = np.zeros(n)
    scale[out != 0] = 1.0 / out[out != 0]
    matrix = sparse.csr_array(sparse.diags_array(scale) @ matrix)  # rows sum to 1 (or 0: dangling)
    dangling = np.flatnonzero(out == 0)
    x = np.full(n, 1.0 / n)
    teleport = np.full(n, 1.0 / n)
    for _ in range(max_iter):
        last = x
        x = alpha * (x @ matrix + last[dangling].sum() * teleport) + (1 - alpha) * teleport
        if np.abs(x - last).sum() < n * tol:
            break
    return dict(zip(index, x.tolist(), strict=True))
