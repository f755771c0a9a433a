"""Read-only access to Zotero's data: the database, its files, and the library snapshot read from them."""
