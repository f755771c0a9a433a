"""MCP App views (the `io.modelcontextprotocol/ui` extension): self-contained HTML pages a host renders
beside a tool's result, in a sandboxed iframe. No fastmcp here: mcp/apps.py registers them."""
