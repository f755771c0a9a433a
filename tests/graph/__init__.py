"""Tests of agent_zot.graph: references, authors, concepts, graph stores, the graph tool end to end."""
