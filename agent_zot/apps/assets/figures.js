// The figure list (zot_summarize mode figures): each figure and table with a small picture, its page and
// caption. Choosing one (click, Enter or Space: they are buttons) asks zot_summarize through the host for
// that element and shows what comes back at full size: its image (or a table's rows as text), its caption
// and the sentences of the paper that cite it, with their pages.
(() => {
  "use strict";
  const shell = window.agentZotApp;
  const { el } = shell;
  const LABELS = { figure: "Figure", table: "Table", equation: "Equation" };

  const count = (n, noun) => `${n} ${noun}${n === 1 ? "" : "s"}`;

  function nameOf(e) {
    return `${LABELS[e.kind] || e.kind} ${e.number}`.trim();
  }

  function render(root, result) {
    const data = result.structuredContent;
    const thumbs = data.view.thumbnails || [];
    const shown = el("section", { id: "figure", class: "figure-large", "aria-live": "polite" });
    const status = el("p", { class: "status muted", role: "status" });
    const buttons = [];
    const items = data.elements
      .map((e, i) => ({ e, thumb: thumbs[i] }))
      .filter(({ e }) => e.kind === "figure" || e.kind === "table")
      .map(({ e, thumb }) => {
        const button = el("button", { type: "button", class: "fig", "aria-pressed": "false",
          "data-name": nameOf(e),
          onclick: () => choose(data, e, button, buttons, shown, status) },
        thumb ? el("img", { src: thumb, alt: `${nameOf(e)} (small)` })
          : el("span", { class: "nothumb muted" }, "no picture"),
        el("span", { class: "figtext" }, el("strong", {}, nameOf(e)), el("span", { class: "page" }, ` p. ${e.page}`),
          el("span", { class: "caption" }, e.caption)));
        buttons.push(button);
        return el("li", {}, button);
      });
    const counts = data.counts || {};
    root.replaceChildren(
      el("div", { class: "bar" }, el("strong", { class: "grow" }, data.title || data.item_key),
        el("span", { class: "muted" }, `${count(counts.figure || 0, "figure")}, ${count(counts.table || 0, "table")}`)),
      items.length ? el("ul", { class: "figlist" }, items)
        : el("p", { class: "muted" }, "No captioned figures or tables were found in this PDF's text."),
      status, shown);
  }

  async function choose(data, e, button, buttons, shown, status) {
    for (const b of buttons) b.setAttribute("aria-pressed", String(b === button));
    status.textContent = `Loading ${nameOf(e)}…`;
    try {
      const result = await shell.callTool("zot_summarize", {
        query: data.title || data.item_key, item_key: data.item_key, force_mode: "figures", figure: nameOf(e),
      });
      const one = (result.structuredContent || {}).element || e;
      const images = (result.content || []).filter((c) => c.type === "image");
      const rows = one.as === "markdown" ? shell.textOf(result).split("\n").filter((l) => l.startsWith("|")) : [];
      const citing = one.citing || [];
      shown.replaceChildren(...[
        el("h3", {}, `${nameOf(one)} `, el("span", { class: "muted" }, `p. ${one.page}`)),
        ...images.map((img) => el("img", { class: "large", src: `data:${img.mimeType};base64,${img.data}`, alt: nameOf(one) })),
        rows.length ? el("pre", { class: "rows" }, rows.join("\n")) : null,
        el("p", { class: "caption" }, one.caption || "(no caption)"),
        citing.length
          ? el("div", { class: "citing" }, el("strong", {}, "Cited in:"),
            el("ul", {}, citing.map((c) => el("li", {}, el("span", { class: "page" }, `p. ${c.page}: `), c.text))))
          : el("p", { class: "muted" }, "No sentence of the paper cites it."),
      ].filter(Boolean));
      status.textContent = "";
      shown.scrollIntoView({ block: "nearest" });
    } catch (error) {
      status.textContent = `Could not show ${nameOf(e)}: ${error.message}`;
    }
  }

  shell.renderers.figures = render;
})();
