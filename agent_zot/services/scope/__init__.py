"""Which papers a request covers: one library scope (collection and below, tags, keys, a search)."""
