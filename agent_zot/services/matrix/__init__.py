"""The review matrix (`zot_summarize` mode `matrix`): the same questions over the papers of a scope, its
cells, question kinds, counts, quantities and sentence roles, and its file (`zot_export` format `matrix`)."""
