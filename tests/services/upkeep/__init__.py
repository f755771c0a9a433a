"""Tests of update-db, rebuilds, the watcher and servers following Zotero, long and failing work."""
