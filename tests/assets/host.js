// A minimal MCP Apps host for the browser tests, on the official host-side SDK (AppBridge): connects to
// the agent-zot server over streamable HTTP announcing the Apps extension, calls the tool named in
// window.HOST_CALL, reads the ui:// resource the tool names, renders it in a sandboxed iframe and hands it
// the call's input and result. The bridge forwards the view's tool calls to the server.
(async () => {
  const { AppBridge, PostMessageTransport, Client, StreamableHTTPClientTransport } = window.McpHost;
  const state = (window.hostState = { ready: false, error: null, toolMeta: null });
  try {
    const client = new Client(
      { name: "agent-zot-test-host", version: "1" },
      { capabilities: { extensions: { "io.modelcontextprotocol/ui": { mimeTypes: ["text/html;profile=mcp-app"] } } } },
    );
    await client.connect(new StreamableHTTPClientTransport(new URL("/mcp", location.origin)));
    const { name, arguments: args, theme } = window.HOST_CALL;
    const tools = (await client.listTools()).tools;
    const tool = tools.find((t) => t.name === name);
    state.toolMeta = tool._meta || null;
    const uri = tool._meta && tool._meta.ui && tool._meta.ui.resourceUri;
    const result = await client.callTool({ name, arguments: args });
    const resource = await client.readResource({ uri });
    const html = resource.contents[0].text;
    const iframe = document.getElementById("view");
    const bridge = new AppBridge(client, { name: "agent-zot-test-host", version: "1" },
      { serverTools: {}, logging: {} }, { hostContext: { theme } });
    bridge.oninitialized = async () => {
      await bridge.sendToolInput({ arguments: args });
      await bridge.sendToolResult(result);
      state.ready = true;
    };
    await bridge.connect(new PostMessageTransport(iframe.contentWindow, iframe.contentWindow));
    iframe.srcdoc = html;
  } catch (error) {
    state.error = String(error && error.stack ? error.stack : error);
  }
})();
