"""The MCP front end (fastmcp): tools, prompts, resources and app views registered from the specs."""
