"""Summarize: the `zot_summarize` tool and its modes (quick, full, targeted, figures, matrix, audit)."""
