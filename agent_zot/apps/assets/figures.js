// The figure list (zot_summarize mode figures): each figure and table with a small picture, its page and
// caption. Choosing one (click, Enter or Space: they are buttons) asks zot_summarize through the host for
// that element and shows what comes back at full size: its image (or a table's rows as text), its caption
// and the sentences of the paper that cite it, with their pages. A page is shown whole the same way
// (figure='page N'): from the page picker, a numbered equation's entry, or a shown figure's page.
(() => {
  "use strict";
  const shell = window.agentZotApp;
  const { el, fill } = shell;
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
          onclick: () => choose(data, e, button, buttons, shown, status, showPage) },
        thumb ? el("img", { src: thumb, alt: `${nameOf(e)} (small)` })
          : el("span", { class: "nothumb muted" }, "no picture"),
        el("span", { class: "figtext" }, el("strong", {}, nameOf(e)), el("span", { class: "page" }, ` p. ${e.page}`),
          el("span", { class: "caption" }, e.caption)));
        buttons.push(button);
        return el("li", {}, button);
      });
    const counts = data.counts || {};
    const equations = data.elements.filter((e) => e.kind === "equation");
    const showPage = (page, heading) => {
      for (const b of buttons) b.setAttribute("aria-pressed", "false");
      return showWholePage(data, page, heading, shown, status);
    };
    fill(root,
      el("div", { class: "bar" }, el("strong", { class: "grow" }, data.title || data.item_key),
        el("span", { class: "muted" }, `${count(counts.figure || 0, "figure")}, ${count(counts.table || 0, "table")}`
          + (equations.length ? `, ${count(equations.length, "numbered equation")}` : ""))),
      items.length ? el("ul", { class: "figlist" }, items)
        : el("p", { class: "muted" }, "No captioned figures or tables were found in this PDF's text."),
      equations.length ? el("div", { class: "equations" }, el("strong", {}, "Equations: "),
        equations.map((e) => el("button", { type: "button", class: "eq", "data-name": `(${e.number})`,
          title: `Show page ${e.page}, where equation (${e.number}) is`,
          onclick: () => showPage(e.page, `Equation (${e.number}) · page ${e.page}`) },
        el("span", { class: "eqtext" }, e.caption || `(${e.number})`), el("span", { class: "page" }, ` (${e.number}) p. ${e.page}`)))) : null,
      pagePicker(data.view.pages, showPage),
      status, shown);
  }

  function pagePicker(pages, showPage) {
    if (!pages) return null;
    const input = el("input", { type: "number", min: 1, max: pages, value: 1, id: "page-number", "aria-label": "Page number" });
    const go = () => {
      const page = Math.min(pages, Math.max(1, Math.round(Number(input.value) || 1)));
      input.value = page;
      showPage(page, `Page ${page}`);
    };
    input.addEventListener("keydown", (event) => { if (event.key === "Enter") go(); });
    return el("div", { class: "bar pages" }, el("label", { for: "page-number" }, "A page in full:"), input,
      el("span", { class: "muted" }, `of ${pages}`), el("button", { type: "button", id: "show-page", onclick: go }, "Show page"));
  }

  async function showWholePage(data, page, heading, shown, status) {
    status.textContent = `Loading page ${page}…`;
    try {
      const result = await shell.callTool("zot_summarize", {
        query: data.title || data.item_key, item_key: data.item_key, force_mode: "figures", figure: `page ${page}`,
      });
      const images = (result.content || []).filter((c) => c.type === "image");
      fill(shown, el("h3", {}, heading),
        ...images.map((img) => el("img", { class: "large page-image", src: `data:${img.mimeType};base64,${img.data}`, alt: `Page ${page}` })),
        images.length ? null : el("p", { class: "muted" }, shell.textOf(result)));
      status.textContent = "";
      shown.scrollIntoView({ block: "nearest" });
    } catch (error) {
      status.textContent = `Could not show page ${page}: ${error.message}`;
    }
  }

  async function choose(data, e, button, buttons, shown, status, showPage) {
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
      fill(shown, ...[
        el("h3", {}, `${nameOf(one)} `, el("span", { class: "muted" }, `p. ${one.page}`)),
        ...images.map((img) => el("img", { class: "large", src: `data:${img.mimeType};base64,${img.data}`, alt: nameOf(one) })),
        rows.length ? el("pre", { class: "rows" }, rows.join("\n")) : null,
        el("p", { class: "caption" }, one.caption || "(no caption)"),
        citing.length
          ? el("div", { class: "citing" }, el("strong", {}, "Cited in:"),
            el("ul", {}, citing.map((c) => el("li", {}, el("span", { class: "page" }, `p. ${c.page}: `), c.text))))
          : el("p", { class: "muted" }, "No sentence of the paper cites it."),
        el("button", { type: "button", class: "whole-page",
          onclick: () => showPage(one.page, `Page ${one.page}, with ${nameOf(one)}`) }, `Show page ${one.page} in full`),
      ].filter(Boolean));
      status.textContent = "";
      shown.scrollIntoView({ block: "nearest" });
    } catch (error) {
      status.textContent = `Could not show ${nameOf(e)}: ${error.message}`;
    }
  }

  shell.renderers.figures = render;
})();
