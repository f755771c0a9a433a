"""Summarize: the `zot_summarize` tool and its one-paper modes (quick, full, targeted, comprehensive,
figures); its matrix and audit modes live in services/matrix and services/audit."""
