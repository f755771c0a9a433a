"""Search: the `zot_search` tool and its modes (passages, papers, metadata; the claim check of
mode evidence lives in services/evidence)."""
