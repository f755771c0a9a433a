"""Evidence: the `evidence` mode of `zot_search` (claim check, stance, worksheet)."""
