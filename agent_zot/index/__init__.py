"""Full-text index: chunking, embeddings, vector stores (the index state lives in agent_zot/state)."""
