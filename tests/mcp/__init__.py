"""Tests of the MCP front end: tools, specs, prompts and resources, transports."""
