"""Search: the `zot_search` tool and its modes (passages, papers, metadata, evidence)."""
