"""agent-zot's state database: its schema and connections (db.py) and the index records (index.py)."""
