"""Audit: a draft's claims and citations checked (`zot_summarize` mode `audit`, `agent-zot audit`), and the
review package built on it (`zot_export` format `review`)."""
