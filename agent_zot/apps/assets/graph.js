// The library graph in the chat: zot_explore_graph's papers around the paper, author or concept the request
// named, drawn by the code of `agent-zot view` (view.js) in the chat's theme. "Centre the graph here" asks
// zot_explore_graph again from the chosen paper and tells the assistant what the person now looks at.
(() => {
  "use strict";
  const shell = window.agentZotApp;
  // A paper's graph is re-centred with the mode the result had, or with `related` after an author's or a
  // concept's graph.
  const PAPER_MODES = ["citation", "related", "content_similarity", "comprehensive"];
  let current = null;

  function colours() {
    const style = getComputedStyle(document.documentElement);
    const read = (name) => style.getPropertyValue(name).trim();
    return { fg: read("--fg"), bg: read("--bg"), faded: read("--line") };
  }

  function render(root, result) {
    const view = result.structuredContent.view;
    const mode = result.structuredContent.route.mode;
    if (current) current.kill();
    root.classList.add("graph-view");
    root.replaceChildren(document.getElementById("graph-body").content.cloneNode(true));
    current = window.agentZotGraph.mount(root, view, {
      title: view.title,
      seed: view.seed,
      colours: colours(),
      onCentre: (key) => centre(root, key, PAPER_MODES.includes(mode) ? mode : "related"),
    });
    shell.graph = current;
  }

  async function centre(root, key, mode) {
    const status = root.querySelector("#status");
    status.textContent = "Asking agent-zot for the graph around this paper…";
    let result;
    try {
      result = await shell.callTool("zot_explore_graph", { item_key: key, force_mode: mode });
    } catch (error) {
      status.textContent = `Could not re-centre the graph: ${error.message}`;
      return;
    }
    shell.show(result);
    tellTheAssistant(result);
  }

  function tellTheAssistant(result) {
    // Hosts that take context updates hear what the person now looks at; the others simply do not.
    const capabilities = shell.app.getHostCapabilities() || {};
    if (!capabilities.updateModelContext) return;
    const text = `The person re-centred the graph view; the answer it shows:\n${shell.textOf(result)}`;
    shell.app.updateModelContext({ content: [{ type: "text", text }] }).catch(() => {});
  }

  window.addEventListener("agent-zot:theme", () => current && current.retheme(colours()));
  shell.renderers.graph = render;
})();
