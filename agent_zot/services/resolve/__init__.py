"""Which paper, author, collection or field the user means, in one place for every tool.

library.py  items by key, papers by key or title words, collections by name/path/key, authors' surnames
target.py   the paper a summarize request names (key, DOI, citation key, "Lo et al. 2020", title words)
graph.py    authors, concepts and fields (concept, tag, collection, topic) in the knowledge graph
"""
