"""Which papers, paper, author, collection or field a request names, in one place for every tool.

papers.py        the paper a request names: keys, DOIs, quoted titles, title words (stems, typos), surnames
                 in any position with a year, acronyms, possessives, duplicates merged; a ranked question
                 back when two candidates are close
clues.py         the request's words as weighed clues, looked up in the library's tables
paper_index.py   those tables, built once per loaded library (identifiers: zotero/identifier_table.py)
named.py         the one paper an export or notes request names (none when it asks for many)
described.py     a paper told by what it is, from the full-text index
works.py         works the papers cite but the library lacks, by the same tables
scope.py         which papers a request covers, one way for every tool: keys, a collection and below,
                 tags (the one tag rule), authors, years, item type, a search; one description of it
match.py         items whose metadata holds every word of a query (a scope's search without an index)
preview.py       what `agent-zot route` shows: the resolved paper and direction
library.py       the one item door (a key, with one "did you mean"), items by DOI, collections by
                 name/path/key, authors' surnames
graph.py         authors, concepts and fields (concept, tag, collection, topic) in the knowledge graph
"""
