"""The index follows Zotero: the watcher that notices edits and starts updates, and how far the index lags
behind the library."""
