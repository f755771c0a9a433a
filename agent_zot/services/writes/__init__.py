"""Changing the library through Zotero's APIs (never zotero.sqlite): collections, tags, notes.

``service`` holds the entry points the tools call; importing this package loads nothing heavy.
"""
