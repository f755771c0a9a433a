"""Which paper, author, collection or field a request names, in one place for every tool.

papers.py        the paper a request names: keys, DOIs, quoted titles, title words (stems, typos), surnames
                 in any position with a year, acronyms, possessives, duplicates merged; a ranked question
                 back when two candidates are close
clues.py         the request's words as weighed clues, looked up in the library's tables
paper_index.py   those tables, built once per loaded library (and which items are copies of one paper)
named.py         the one paper an export or notes request names (none when it asks for many)
preview.py       what `agent-zot route` shows: the resolved paper and direction
direction.py     which way a citation request points (in: papers citing it, out: what it cites, both)
library.py       items by key, collections by name/path/key, authors' surnames
graph.py         authors, concepts and fields (concept, tag, collection, topic) in the knowledge graph
"""
