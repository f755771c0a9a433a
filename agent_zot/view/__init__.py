"""`agent-zot view`: the library's knowledge graph as a self-contained page in the browser (the page in
``page``, the loopback server in ``serve``, scripts bundled in ``assets``; what it draws comes from the
services: services/explore/view_data.py, services/evidence/graph_view.py, services/audit/graph_view.py)."""
