"""Tests of zot_summarize's one-paper modes, figures, and the citation audit."""
