"""`zot_manage_collections` import: add papers by identifier (DOI, arXiv id, PMID, ISBN).

requested.py    the identifiers a request names, normalised (parsing primitives: agent_zot/identifiers.py)
registries.py   the Registry protocol, the HTTP client they share (timeouts, a polite User-Agent), errors
doi.py, arxiv.py, pubmed.py, openlibrary.py   one adapter per registry: its answer as CSL-JSON
zotero_json.py  CSL-JSON → Zotero item JSON, fields checked against Zotero's schema for the item type
held.py         which requested papers the library already holds (copies included)
plan.py         what the lookups found, and how it is told
service.py      the mode: look everything up first (no write when a registry is down), then write
write.py        the write: new items with collection and tags in one request, then PDF links

The network is used only here, when the person asks to add a paper, and never while writes are off.
"""
