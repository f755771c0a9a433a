"""Explore: the `zot_explore_graph` tool (citations, co-authors, concepts, cited works, reading gaps)."""
