// The claim worksheet (zot_search mode evidence): the claim, its passages grouped by paper with their pages,
// and per passage a stance the person chooses (radio buttons: arrow keys move, Space picks) with an optional
// one-line reason and the words it quotes. "Send verdicts" hands the chosen ones to zot_export (format
// review) as the person's (judge "person"); each passage then says whether its verdict checked out.
(() => {
  "use strict";
  const shell = window.agentZotApp;
  const { el } = shell;
  const STANCES = [["", "not judged"], ["supports", "supports"], ["contradicts", "contradicts"], ["unrelated", "unrelated"]];
  const QUOTE_WORDS = 8; // enough words to find the passage on its page, few enough to sit on one page

  function pages(p) {
    if (p.page_start === null || p.page_start === undefined) return "abstract";
    return p.page_end && p.page_end !== p.page_start ? `pp. ${p.page_start}–${p.page_end}` : `p. ${p.page_start}`;
  }

  function render(root, result) {
    const data = result.structuredContent;
    const texts = data.view.passages || [];
    const state = { claim: data.claim, marks: [], written: null };
    const status = el("p", { class: "status muted", role: "status" });
    const papers = data.papers.map((paper, i) => el("section", { class: "paper", "data-paper": paper.key },
      el("h3", {}, `${i + 1}. ${paper.title || paper.key}`, paper.year ? el("span", { class: "muted" }, ` (${paper.year})`) : null),
      paper.passages.map((p, j) => passage(state, paper, p, (texts[i] || [])[j] || ""))));
    const send = el("button", { type: "button", id: "send", onclick: () => sendVerdicts(state, status) }, "Send verdicts");
    root.replaceChildren(
      el("div", { class: "bar" }, el("span", { class: "grow" }, el("strong", {}, "Claim: "), data.claim), send),
      el("p", { class: "muted" }, data.judged_by || ""),
      ...papers, status);
  }

  function passage(state, paper, p, text) {
    const mark = { n: p.n, item_key: paper.key, page: p.page_start ?? null, stance: "", reason: "",
      quote: text.split(/\s+/).filter(Boolean).slice(0, QUOTE_WORDS).join(" ") };
    state.marks.push(mark);
    const name = `stance-${p.n}`;
    const radios = STANCES.map(([value, label]) => el("label", { class: "stance" },
      el("input", { type: "radio", name, value, checked: value === mark.stance,
        onchange: () => { mark.stance = value; mark.node.classList.toggle("marked", Boolean(value)); } }), ` ${label}`));
    mark.verdict = el("span", { class: "verdict" });
    mark.node = el("article", { class: "passage", "data-n": p.n },
      el("div", {}, el("span", { class: "page" }, `[${p.n}] ${pages(p)}`), " ", text),
      el("fieldset", {}, el("legend", { class: "muted" }, `Passage ${p.n}:`), radios),
      el("input", { class: "reason", placeholder: "reason (one line, optional)", "aria-label": `Reason for passage ${p.n}`,
        oninput: (event) => { mark.reason = event.target.value; } }),
      el("input", { class: "quote", value: mark.quote, "aria-label": `Words quoted from passage ${p.n}`,
        title: "The words the verdict quotes; they are checked on the page",
        oninput: (event) => { mark.quote = event.target.value; } }),
      mark.verdict);
    return mark.node;
  }

  async function sendVerdicts(state, status) {
    const chosen = state.marks.filter((m) => m.stance);
    if (!chosen.length) {
      status.textContent = "Choose a stance for at least one passage first.";
      return;
    }
    status.textContent = "Sending…";
    const verdicts = chosen.map((m) => ({ item_key: m.item_key, page: m.page, quote: m.quote, stance: m.stance,
      reason: m.reason.trim(), judge: "person" }));
    const path = "claim-review.md";
    try {
      const result = await shell.callTool("zot_export", {
        query: "review package of the claim check", force_mode: "review", draft: state.claim, verdicts, path,
        overwrite: state.written === path, // only the file this view wrote itself is replaced
      });
      const data = result.structuredContent;
      state.written = path;
      for (const m of state.marks) { m.verdict.textContent = ""; m.verdict.className = "verdict"; m.node.classList.remove("verified", "unverified"); }
      (data.verdict_checks || []).forEach((check, i) => {
        const m = chosen[check.n - 1] || chosen[i];
        const ok = check.status === "verified";
        m.verdict.className = ok ? "verdict ok" : "verdict bad";
        m.verdict.textContent = ok ? `✓ ${m.stance}: verified` : `✗ ${m.stance}: unverified: ${check.reason || check.status}`;
        m.node.classList.add(ok ? "verified" : "unverified");
      });
      status.textContent = `Wrote ${data.path}. ${data.judged_by || ""}`;
    } catch (error) {
      status.textContent = `Sending failed: ${error.message}`;
    }
  }

  shell.renderers.evidence = render;
})();
