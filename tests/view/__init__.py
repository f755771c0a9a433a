"""Tests of what people look at: `agent-zot view` and the MCP Apps, browser tests included."""
