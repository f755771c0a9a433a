"""Tests of collections, tags, notes and writes to Zotero (services/organize, notes, writes)."""
