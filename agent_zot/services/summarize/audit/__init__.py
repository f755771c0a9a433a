"""Audit: the `audit` mode of `zot_summarize` (a draft's claims and citations checked)."""
