"""`agent-zot view`: the library's knowledge graph as a self-contained page in the browser (data in
``data``/``scope``, the page in ``page``, the loopback server in ``serve``; scripts bundled in ``assets``)."""
