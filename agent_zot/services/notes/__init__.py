"""Notes: the `zot_manage_notes` tool (notes and annotations: list, search, create)."""
