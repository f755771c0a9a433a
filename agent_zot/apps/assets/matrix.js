// The review matrix (zot_summarize mode matrix): papers × questions, each cell's candidates with their
// pages. Choosing a candidate (click, Enter or Space) fills the cell's answer, which stays editable (the
// number an edited answer states is its value, checked against the quote);
// "not found" cells are marked and can be the only rows shown; a column header sorts; "Next rows" asks
// the server for the next page; a candidate's "in context" shows its whole page (zot_summarize mode full)
// with the passage marked; Export sends the chosen cells to zot_export (mode matrix), which checks
// each citation, and every cell then says verified, or unverified and why.
(() => {
  "use strict";
  const shell = window.agentZotApp;
  const { el, fill } = shell;

  function render(root, result) {
    const data = result.structuredContent;
    const state = {
      questions: data.questions,
      scope: data.scope || {},
      total: data.total,
      next: data.next,
      rows: [],
      chosen: new Map(), // "KEY|n" -> {answer, value, page, quote, index}
      verdicts: new Map(), // "KEY|n" -> {ok, reason}
      onlyMissing: false,
      sort: { column: null, descending: false },
      status: "",
      context: null, // {title, page, text, quote} of the passage shown on its page
    };
    addRows(state, data);
    draw(root, state);
  }

  function addRows(state, data) {
    const texts = (data.view && data.view.candidates) || [];
    data.rows.forEach((row, i) => {
      const cells = (row.cells || []).map((cell, n) => ({
        ...cell,
        candidates: (cell.candidates || []).map((c, k) => ({ ...c, ...((texts[i] || [])[n] || [])[k] })),
      }));
      state.rows.push({ ...row, cells, number: data.offset + i });
    });
  }

  // The number an answer states, which the export checks among the quoted words; none without one.
  function valueOf(answer) {
    const match = /-?\d+(?:[.,]\d+)?/.exec(answer.replace(/(\d),(\d{3})/g, "$1$2"));
    return match ? Number(match[0].replace(",", ".")) : null;
  }

  const key = (row, n) => `${row.item_key}|${n + 1}`;
  const missing = (row) => row.error || row.cells.some((cell) => !cell.found);

  function sortKey(state, row) {
    const column = state.sort.column;
    if (column === "paper") return (row.title || row.item_key).toLowerCase();
    if (column === "year") return row.year || 0;
    const cell = row.cells[column];
    if (!cell || !cell.found) return -Infinity; // not found sorts last (first when descending)
    const chosen = state.chosen.get(key(row, column));
    const value = chosen ? chosen.value : cell.candidates[0].value;
    return typeof value === "number" ? value : 0;
  }

  function visibleRows(state) {
    let rows = state.rows.filter((row) => !state.onlyMissing || missing(row));
    if (state.sort.column !== null) {
      const sign = state.sort.descending ? -1 : 1;
      rows = [...rows].sort((a, b) => {
        const x = sortKey(state, a);
        const y = sortKey(state, b);
        return x < y ? -sign : x > y ? sign : a.number - b.number;
      });
    }
    return rows;
  }

  function header(state, root, column, label, className) {
    const active = state.sort.column === column;
    const direction = active ? (state.sort.descending ? "descending" : "ascending") : "none";
    const toggle = () => {
      state.sort = { column, descending: active ? !state.sort.descending : false };
      draw(root, state);
    };
    return el("th", { class: className, "aria-sort": direction, scope: "col" },
      el("button", { type: "button", onclick: toggle, title: "Sort by this column" },
        label, active ? (state.sort.descending ? " ▼" : " ▲") : ""));
  }

  function choose(state, root, row, n, candidate, index) {
    const answer = candidate.value !== null && candidate.value !== undefined ? String(candidate.value) : candidate.text;
    state.chosen.set(key(row, n), {
      answer, value: candidate.value, page: candidate.page, quote: candidate.text, index,
    });
    state.verdicts.delete(key(row, n));
    draw(root, state, `${key(row, n)}`);
  }

  function cellNode(state, root, row, n) {
    const cell = row.cells[n];
    const id = key(row, n);
    if (!cell.found) {
      return el("td", { class: "missing", "data-cell": id },
        el("strong", {}, "not found"), el("div", { class: "muted" }, `searched: ${cell.searched || "nothing"}`));
    }
    const chosen = state.chosen.get(id);
    const buttons = cell.candidates.map((candidate, index) => el("div", { class: "cand-row" },
      el("button", {
        type: "button", class: "cand", "aria-pressed": chosen && chosen.index === index ? "true" : "false",
        "data-candidate": index, title: candidate.text,
        onclick: () => choose(state, root, row, n, candidate, index),
      }, el("span", { class: "page" }, `[${candidate.pages}]`), candidate.text || "(words in the text answer)"),
      candidate.page ? el("button", {
        type: "button", class: "ctx", "aria-label": `Show this passage on page ${candidate.page}`,
        title: `Show this passage on page ${candidate.page}`, onclick: () => showContext(state, root, row, candidate),
      }, "in context") : null));
    const parts = [...buttons];
    if (chosen) {
      parts.push(el("input", {
        class: "answer", value: chosen.answer, "aria-label": `Answer to Q${n + 1} for ${row.title || row.item_key}`,
        oninput: (event) => {
          chosen.answer = event.target.value;
          chosen.value = valueOf(chosen.answer);
          state.verdicts.delete(id);
        },
      }));
    }
    const verdict = state.verdicts.get(id);
    if (verdict) {
      parts.push(el("span", { class: verdict.ok ? "verdict ok" : "verdict bad" },
        verdict.ok ? "✓ verified" : `✗ unverified: ${verdict.reason}`));
    }
    return el("td", { "data-cell": id, class: verdict ? (verdict.ok ? "verified" : "unverified") : null }, parts);
  }

  async function nextRows(state, root) {
    state.status = "Loading the next rows…";
    draw(root, state);
    try {
      const result = await shell.callTool("zot_summarize", state.next);
      const data = result.structuredContent;
      addRows(state, data);
      state.next = data.next;
      state.status = `Rows ${data.offset}–${data.offset + data.rows.length - 1} added.`;
    } catch (error) {
      state.status = `Could not load the next rows: ${error.message}`;
    }
    draw(root, state);
  }

  // The page's text as zot_summarize mode full gives it: the block after its "--- p. N ---" line.
  function pageText(text, page) {
    const blocks = text.split(/^--- (p\. [^\n]*?) ---$/m);
    for (let i = 1; i < blocks.length; i += 2) {
      if (new RegExp(`^p\\. ${page}(\\D|$)`).test(blocks[i])) {
        return blocks[i + 1].split(/\n(?:Next: |End of the paper\.)/)[0].trim();
      }
    }
    return null;
  }

  async function showContext(state, root, row, candidate) {
    state.status = `Loading page ${candidate.page}…`;
    draw(root, state);
    try {
      const result = await shell.callTool("zot_summarize", {
        query: row.title || row.item_key, item_key: row.item_key, force_mode: "full", pages: String(candidate.page),
      });
      const text = pageText(shell.textOf(result), candidate.page);
      state.context = { title: row.title || row.item_key, page: candidate.page, text, quote: candidate.text || "" };
      state.status = "";
    } catch (error) {
      state.status = `Could not load page ${candidate.page}: ${error.message}`;
    }
    draw(root, state);
    const shown = root.querySelector("#context");
    if (shown) shown.scrollIntoView({ block: "nearest" });
  }

  // Where the passage is on its page: its words in order, whatever spaces or line breaks the page puts
  // between them (the whole passage, else its first eight words); null when they are not there verbatim.
  function locate(text, quote) {
    const words = quote.split(/\s+/).filter(Boolean).map((w) => w.replace(/[.*+?^${}()|[\]\\]/g, "\\$&"));
    for (const n of [words.length, Math.min(8, words.length)]) {
      if (!n) break;
      const match = new RegExp(words.slice(0, n).join("\\s+"), "i").exec(text);
      if (match) return { start: match.index, end: match.index + match[0].length };
    }
    return null;
  }

  function contextNode(state, root) {
    const c = state.context;
    if (!c) return null;
    const close = el("button", { type: "button", class: "close", "aria-label": "Close the page",
      onclick: () => { state.context = null; draw(root, state); } }, "×");
    const heading = el("h3", {}, `${c.title} `, el("span", { class: "muted" }, `p. ${c.page}`), close);
    if (c.text === null) {
      return el("section", { id: "context" }, heading, el("p", { class: "muted" }, "This page has no text in the index."));
    }
    const found = locate(c.text, c.quote);
    const body = found
      ? [c.text.slice(0, found.start), el("mark", {}, c.text.slice(found.start, found.end)), c.text.slice(found.end)]
      : [c.text];
    return el("section", { id: "context" }, heading,
      found ? null : el("p", { class: "muted" }, "The passage's words are not on this page verbatim; the page as indexed:"),
      el("div", { class: "page-text" }, body));
  }

  async function exportCells(state, root) {
    const cells = [...state.chosen.entries()].map(([id, c]) => {
      const [item_key, question] = id.split("|");
      const cell = { item_key, question: Number(question), answer: c.answer, page: c.page, quote: c.quote };
      if (typeof c.value === "number") cell.value = c.value;
      return cell;
    });
    if (!cells.length) {
      state.status = "Choose an answer in at least one cell first.";
      return draw(root, state);
    }
    state.status = "Exporting…";
    draw(root, state);
    try {
      const result = await shell.callTool("zot_export", {
        query: "export the filled review matrix", force_mode: "matrix", questions: state.questions,
        ...state.scope, cells, path: "review-matrix.csv",
      });
      const data = result.structuredContent;
      const reasons = new Map((data.unverified || []).map((u) => [`${u.item_key}|${u.question}`, u.reason]));
      for (const id of state.chosen.keys()) {
        state.verdicts.set(id, reasons.has(id) ? { ok: false, reason: reasons.get(id) } : { ok: true });
      }
      state.status = `Wrote ${data.path}: ${data.verified} verified, ${reasons.size} unverified.`;
    } catch (error) {
      state.status = `Export failed: ${error.message}`;
    }
    draw(root, state);
  }

  function draw(root, state, focus) {
    const rows = visibleRows(state);
    const shown = state.rows.length;
    const bar = el("div", { class: "bar" },
      el("span", { class: "grow" },
        `Review matrix: ${shown} of ${state.total} papers × ${state.questions.length} questions`),
      el("label", {}, el("input", {
        type: "checkbox", id: "only-missing", checked: state.onlyMissing,
        onchange: (event) => { state.onlyMissing = event.target.checked; draw(root, state); },
      }), " only rows with “not found”"),
      state.next ? el("button", { type: "button", id: "next-rows", onclick: () => nextRows(state, root) }, "Next rows") : null,
      el("button", { type: "button", id: "export", onclick: () => exportCells(state, root) },
        `Export ${state.chosen.size} chosen`));
    const head = el("tr", {}, header(state, root, "paper", "Paper", "paper"),
      state.questions.map((q, n) => header(state, root, n, `Q${n + 1}: ${q}`)));
    const body = rows.map((row) => el("tr", { "data-row": row.item_key },
      el("th", { scope: "row" }, `${row.number}. ${row.title || row.item_key}`,
        row.year ? el("span", { class: "muted" }, ` (${row.year})`) : null,
        row.note || row.error ? el("div", { class: "muted" }, row.note || row.error) : null),
      row.error ? el("td", { colspan: state.questions.length, class: "missing" }, row.error)
        : state.questions.map((_, n) => cellNode(state, root, row, n))));
    fill(root, bar, el("table", {}, el("thead", {}, head), el("tbody", {}, body)),
      el("p", { class: "status muted", role: "status" }, state.status), contextNode(state, root));
    const mark = root.querySelector("#context mark");
    if (mark && !focus) mark.scrollIntoView({ block: "nearest" });
    if (focus) {
      const node = root.querySelector(`[data-cell="${CSS.escape(focus)}"] .answer`);
      if (node) node.focus();
    }
  }

  shell.renderers.matrix = render;
})();
