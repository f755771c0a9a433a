"""Tests of agent_zot.ingest: parsers, OCR, figures, sections and roles of what a file holds."""
