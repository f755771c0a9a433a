"""Tests of agent_zot.index and state: chunks, embedders, vector stores, passages, the index's integrity."""
