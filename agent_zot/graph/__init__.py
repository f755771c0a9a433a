"""The knowledge graph: papers, authors, venues, concepts, tags, collections and the works they cite."""
