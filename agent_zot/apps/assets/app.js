// The shell every agent-zot view shares: connects to the host (the official Apps SDK, vendored), follows
// its theme, and shows a tool result with the renderer of its mode, or plainly (its text) when the mode
// has none or the host sent no view data. Renderers register in window.agentZotApp.renderers[mode].
(() => {
  "use strict";
  const { App, PostMessageTransport, applyDocumentTheme, applyHostStyleVariables } = window.McpApps;
  const root = document.getElementById("root");

  function el(tag, attrs, ...children) {
    const node = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name.startsWith("on")) node.addEventListener(name.slice(2), value);
      else node.setAttribute(name, value === true ? "" : String(value));
    }
    for (const child of children.flat()) {
      if (child !== null && child !== undefined) node.append(child instanceof Node ? child : String(child));
    }
    return node;
  }

  // A node's children replaced by these, skipping the null, undefined and false that optional parts give.
  function fill(node, ...children) {
    node.replaceChildren(...children.flat().filter((c) => c !== null && c !== undefined && c !== false));
  }

  function textOf(result) {
    return (result.content || []).filter((c) => c.type === "text").map((c) => c.text).join("\n");
  }

  function plain(result) {
    root.replaceChildren(el("pre", { class: result.isError ? "plain error" : "plain" }, textOf(result)));
  }

  const app = new App({ name: "agent-zot", version: "1" }, {});
  const shell = { app, el, fill, textOf, renderers: {}, ready: false, rendered: null };
  window.agentZotApp = shell;

  async function callTool(name, args) {
    const result = await app.callServerTool({ name, arguments: args });
    if (result.isError) throw new Error(textOf(result) || `${name} failed`);
    return result;
  }
  shell.callTool = callTool;

  function show(result) {
    const data = result.structuredContent || {};
    const mode = data.route && data.route.mode;
    // A view names its renderer when one serves several modes (the graph); else the mode's own renders it.
    const renderer = shell.renderers[(data.view && data.view.renderer) || mode];
    if (!result.isError && renderer && data.view) renderer(root, result);
    else plain(result);
    shell.rendered = renderer && data.view && !result.isError ? mode : "text";
  }
  shell.show = show;

  function theme(context) {
    if (!context) return;
    if (context.theme === "dark" || context.theme === "light") applyDocumentTheme(context.theme);
    if (context.styles && context.styles.variables) applyHostStyleVariables(context.styles.variables);
    window.dispatchEvent(new Event("agent-zot:theme"));  // for what paints outside CSS (the graph's canvas)
  }

  app.ontoolresult = show;
  app.onhostcontextchanged = theme;
  function connect() {
    app
      .connect(new PostMessageTransport(window.parent, window.parent))
      .then(() => {
        theme(app.getHostContext());
        shell.ready = true;
      })
      .catch((error) => root.replaceChildren(el("p", { class: "error" }, `Could not reach the host: ${error}`)));
  }
  // The renderers are scripts after this one, and the parser may stop between scripts to handle messages:
  // connecting before they ran let a busy browser get the result first and show it as plain text.
  if (document.readyState === "loading") document.addEventListener("DOMContentLoaded", connect, { once: true });
  else connect();
})();
