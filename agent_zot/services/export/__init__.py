"""Export: the `zot_export` tool (BibTeX, CSL-JSON, Markdown, GraphML, annotations, matrix, review)."""
