"""Which paper, author, collection or field a request names, in one place for every tool.

papers.py     the paper(s) a request names: keys, DOIs, quoted titles, title words (fuzzy), surnames in any
              position with a year, acronyms, possessives, duplicates merged; a ranked question back when
              two candidates are close
direction.py  which way a citation request points (in: papers citing it, out: what it cites, both)
library.py    items by key, collections by name/path/key, authors' surnames
graph.py      authors, concepts and fields (concept, tag, collection, topic) in the knowledge graph
"""
