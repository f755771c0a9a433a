"""Pure export formatters: Zotero items to BibTeX, CSL-JSON and Markdown strings, annotations and notes to
JSON or spreadsheet-safe CSV records (annotations.py, csvtable.py); no file I/O."""

from agent_zot.formats.bibtex import bibtex_keys, to_bibtex
from agent_zot.formats.csljson import to_csl_json
from agent_zot.formats.markdown import item_markdown, markdown_filename, to_markdown_single

__all__ = [
    "bibtex_keys",
    "item_markdown",
    "markdown_filename",
    "to_bibtex",
    "to_csl_json",
    "to_markdown_single",
]
