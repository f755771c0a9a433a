/* agent-zot view: draws the page's embedded graph with sigma (WebGL) over a graphology graph, lays it out
   with ForceAtlas2 in small steps (the page stays responsive), and wires the search box, toggles and panel.
   All text from the library is set with textContent, never parsed as HTML. */
(function () {
  "use strict";

  var PALETTE = ["#4e79a7", "#f28e2b", "#e15759", "#76b7b2", "#59a14f", "#edc948", "#b07aa1", "#ff9da7",
    "#9c755f", "#2f6f9f", "#8cd17d", "#d37295"];
  var OTHER_GROUP = "#9aa3ad";
  var NO_GROUP = "#c9cfd6";
  var YEAR_RAMP = ["#440154", "#3b528b", "#21918c", "#5ec962", "#fde725"];
  var EDGE_RGB = { cites: "87,96,106", coauthor: "232,145,45", concept: "58,163,154" };
  var FADED = "#e6e9ed";
  // A claim's links to papers, by what the check found (the order is the code in data.edges.evidence).
  var STANCES = ["supports", "contradicts", "related", "unjudged", "cited", "fault", "suggested"];
  var STANCE_RGB = { supports: "46,160,67", contradicts: "214,39,40", related: "110,119,129", unjudged: "160,168,176",
    cited: "31,119,180", fault: "242,142,43", suggested: "148,103,189" };
  var STANCE_WORDS = { supports: "supports", contradicts: "contradicts", related: "related", unjudged: "not judged",
    cited: "cited, no problem found", fault: "cited, with a problem", suggested: "could be cited" };
  var CLAIM_COLOR = "#1f2933";

  // Draws ``data`` into ``root`` (the document, or an element holding graph-body.html). Options, from the
  // view in the chat: title; seed ({key} selects a paper, {keys, label} marks an author's or a concept's
  // papers); onCentre(key), which shows a button that re-centres the graph on the selected paper; colours
  // ({fg, bg, faded}) for a dark theme. Returns the view's handle (the tests read it too).
  function mount(root, data, options) {
    options = options || {};
    var claims = data.claims || [];
    var view = { ready: false, layoutMs: null, firstDrawMs: null, killed: false };
    // Big graphs start with citations only: every link kind at once is a hairball, and slow to draw.
    var state = { size: "citations", color: "collection",
      edges: { cites: true, coauthor: data.nodes.length <= 1000, concept: false, evidence: true },
      selected: null, neighbours: null, matches: null };

    function $(id) { return root.querySelector("#" + id); }
    function plural(n, word) { return n.toLocaleString("en") + " " + word + (n === 1 ? "" : "s"); }
    function setText(id, text) { $(id).textContent = text; }

    // ---- the graph -------------------------------------------------------------------------------------
    var graph = new graphology.MultiGraph({ type: "mixed", allowSelfLoops: false });
    var nodes = data.nodes;
    var keys = nodes.map(function (n) { return n.key; });
    var maxRank = nodes.reduce(function (m, n) { return Math.max(m, n.pagerank || 0); }, 1e-12);
    var maxCited = nodes.reduce(function (m, n) { return Math.max(m, n.cited_by || 0); }, 1);
    var years = nodes.map(function (n) { return n.year; }).filter(function (y) { return typeof y === "number"; });
    var minYear = years.length ? Math.min.apply(null, years) : null;
    var maxYear = years.length ? Math.max.apply(null, years) : null;
    var big = nodes.length > 1000;
    // Links are drawn translucent, more so when there are many, so that dense regions read as dense.
    var EDGE_COLOR = {};
    Object.keys(EDGE_RGB).forEach(function (kind) { EDGE_COLOR[kind] = "rgba(" + EDGE_RGB[kind] + "," + (big ? 0.35 : 0.75) + ")"; });
    var colours = options.colours || {};
    var random = mulberry32(20250101); // the same start positions every time: the same picture every time

    nodes.forEach(function (n, i) {
      // Start each collection's papers in their own sector, so ForceAtlas2 settles groups side by side.
      var angle = (n.group >= 0 ? n.group : data.groups.length) * 2.399963 + random() * 0.9;
      var radius = 50 + random() * 50;
      graph.addNode(n.key, {
        x: Math.cos(angle) * radius, y: Math.sin(angle) * radius, index: i,
        label: n.title.length > 60 ? n.title.slice(0, 57) + "…" : n.title,
        size: 1, color: NO_GROUP,
      });
    });
    ["cites", "coauthor", "concept"].forEach(function (kind) {
      (data.edges[kind] || []).forEach(function (e) {
        var source = keys[e[0]], target = keys[e[1]], weight = e[2] || 1;
        var attributes = { kind: kind, weight: kind === "concept" ? 0.5 * weight : weight,
          color: EDGE_COLOR[kind], size: (big ? 0.6 : 1) * (kind === "cites" ? 1.5 : Math.min(3, 0.8 + 0.4 * weight)),
          type: kind === "cites" ? "arrow" : "line" };
        if (kind === "cites") graph.addDirectedEdge(source, target, attributes);
        else graph.addUndirectedEdge(source, target, attributes);
      });
    });

    // Claims sit among the papers they link to: ForceAtlas2 pulls each towards its papers.
    claims.forEach(function (claim, i) {
      var angle = i * 2.399963, radius = 10 + random() * 30;
      graph.addNode("claim:" + i, { x: Math.cos(angle) * radius, y: Math.sin(angle) * radius, claim: i,
        label: claim.label + ": " + (claim.text.length > 50 ? claim.text.slice(0, 47) + "…" : claim.text),
        size: 1, color: CLAIM_COLOR });
    });
    (data.edges.evidence || []).forEach(function (e) {
      var stance = STANCES[e[2]] || "unjudged";
      graph.addDirectedEdge("claim:" + e[0], keys[e[1]], { kind: "evidence", stance: stance, weight: 2,
        color: "rgba(" + STANCE_RGB[stance] + ",0.85)", size: 2.2, type: "arrow" });
    });

    function nodeSize(n) {
      // Bounded, so a much-cited paper stays a landmark rather than a blot over its neighbours.
      var t = state.size === "pagerank" ? (n.pagerank || 0) / maxRank : (n.cited_by || 0) / maxCited;
      return big ? 2.5 + 12 * Math.sqrt(t) : 5 + 14 * Math.sqrt(t);
    }
    function nodeColor(n) {
      if (state.color === "year") return n.year == null || minYear === null ? NO_GROUP : yearColor(n.year);
      if (n.group < 0) return NO_GROUP;
      return n.group < PALETTE.length ? PALETTE[n.group] : OTHER_GROUP;
    }
    function yearColor(year) {
      var t = maxYear === minYear ? 1 : (year - minYear) / (maxYear - minYear);
      var pos = t * (YEAR_RAMP.length - 1), i = Math.min(YEAR_RAMP.length - 2, Math.floor(pos));
      return mix(YEAR_RAMP[i], YEAR_RAMP[i + 1], pos - i);
    }

    view.graphBuiltMs = performance.now();

    // ---- layout, then the renderer ------------------------------------------------------------------
    // ForceAtlas2 runs before anything is drawn, in slices of ~50 ms so the page stays responsive: drawing
    // every intermediate state costs far more than the layout itself on big graphs.
    var container = $("graph");
    var renderer = null;
    var fa2 = graphologyLayoutForceAtlas2;
    var layoutSettings = fa2.inferSettings(graph);
    layoutSettings.barnesHutOptimize = graph.order > 400;
    // Enough pull towards the centre that papers linked to nothing stay in view instead of drifting out.
    layoutSettings.gravity = Math.max(layoutSettings.gravity || 0, graph.order < 300 ? 3 : 1);
    var totalIterations = graph.order > 3000 ? 100 : graph.order > 1000 ? 150 : graph.order > 300 ? 250 : 400;
    var done = graph.size > 0 ? 0 : totalIterations;
    var progress = document.createElement("p");
    progress.className = "progress";
    container.appendChild(progress);
    function layoutSlice() {
      if (view.killed) return;
      var started = performance.now();
      while (done < totalIterations && performance.now() - started < 50) {
        fa2.assign(graph, { iterations: 5, settings: layoutSettings, getEdgeWeight: "weight" });
        done += 5;
      }
      if (done < totalIterations) {
        progress.textContent = "Laying out " + plural(graph.order, "paper") + "… " + Math.round((100 * done) / totalIterations) + "%";
        setTimeout(layoutSlice, 0);
        return;
      }
      view.layoutMs = performance.now();
      container.removeChild(progress);
      draw();
    }
    setTimeout(layoutSlice, 0);

    function draw() {
      try {
        renderer = new Sigma(graph, container, Object.assign({
          renderEdgeLabels: false,
          hideEdgesOnMove: graph.size > 10000, // dragging stays smooth on big graphs; edges return at rest
          labelRenderedSizeThreshold: big ? 7 : 0,
          labelDensity: big ? 0.5 : 1,
          labelFont: "system-ui, sans-serif",
          zIndex: true,
          nodeReducer: nodeReducer,
          edgeReducer: edgeReducer,
        }, themed()));
      } catch (err) {
        var failure = document.createElement("p");
        failure.className = "failure";
        failure.textContent = "This browser could not draw the graph (" + err.message + "). The page needs WebGL: " +
          "try another browser, or turn on hardware acceleration.";
        container.appendChild(failure);
        setText("status", "Not drawn.");
        throw err;
      }
      view.renderer = renderer;
      // Labels run to the right of their discs: leave room for them at the right edge.
      renderer.getCamera().setState({ x: 0.56, y: 0.5, ratio: 1.15, angle: 0 });
      renderer.on("clickNode", function (event) { select(event.node, false); });
      renderer.on("clickStage", unselect);
      renderer.on("enterNode", function () { container.style.cursor = "pointer"; });
      renderer.on("leaveNode", function () { container.style.cursor = ""; });
      setText("status", "Scroll to zoom, drag to pan, click a paper for details.");
      startAtSeed();
      requestAnimationFrame(function () {
        view.firstDrawMs = performance.now();
        view.ready = true;
      });
    }
    view.graph = graph;
    function refresh() { if (renderer) renderer.refresh(); }
    view.kill = function () {
      view.killed = true;
      if (renderer) renderer.kill();
    };

    // In a dark theme labels take the theme's text colour, and a hovered paper's label its background.
    function themed() {
      if (!colours.fg) return {};
      return { labelColor: { color: colours.fg }, defaultDrawNodeHover: drawHover };
    }
    function drawHover(context, data, settings) {
      var size = settings.labelSize, pad = 3;
      context.font = settings.labelWeight + " " + size + "px " + settings.labelFont;
      var width = data.label ? context.measureText(data.label).width + 2 * pad : 0;
      context.fillStyle = colours.bg || "#fff";
      context.beginPath();
      context.arc(data.x, data.y, data.size + pad, 0, 2 * Math.PI);
      context.fill();
      if (!data.label) return;
      context.fillRect(data.x, data.y - size / 2 - pad, data.size + pad + width, size + 2 * pad);
      context.fillStyle = colours.fg;
      context.fillText(data.label, data.x + data.size + pad + 1, data.y + size / 3);
    }
    view.retheme = function (next) {
      colours = next || {};
      if (!renderer) return;
      var settings = themed();
      renderer.setSetting("labelColor", settings.labelColor || { color: "#000" });
      if (settings.defaultDrawNodeHover) renderer.setSetting("defaultDrawNodeHover", settings.defaultDrawNodeHover);
      refresh();
    };

    // The view in the chat starts where the request did: at its paper, or with its author's papers marked.
    function startAtSeed() {
      var seed = options.seed;
      if (!seed) return;
      if (seed.key && graph.hasNode(seed.key)) { select(seed.key, false); return; }
      var marked = (seed.keys || []).filter(function (key) { return graph.hasNode(key); });
      if (!marked.length) return;
      state.matches = new Set(marked);
      setText("status", plural(marked.length, "paper") + " " + (seed.label || "") + (marked.length === 1 ? " is" : " are") +
        " marked; click one for details.");
      refresh();
    }

    function nodeReducer(key, attrs) {
      var out = attrs.claim !== undefined
        ? Object.assign({}, attrs, { size: big ? 8 : 11, color: CLAIM_COLOR })
        : Object.assign({}, attrs, { size: nodeSize(nodes[attrs.index]), color: nodeColor(nodes[attrs.index]) });
      var focus = state.neighbours || state.matches;
      if (focus && !focus.has(key)) {
        out.color = colours.faded || FADED; out.label = ""; out.zIndex = 0;
      } else if (focus) {
        out.zIndex = 1; out.forceLabel = focus.size <= 40;
      }
      if (key === state.selected) { out.highlighted = true; out.zIndex = 2; out.forceLabel = true; }
      return out;
    }
    function edgeReducer(edge, attrs) {
      if (!state.edges[attrs.kind]) return Object.assign({}, attrs, { hidden: true });
      if (state.selected) {
        var ends = graph.extremities(edge);
        if (ends[0] !== state.selected && ends[1] !== state.selected) return Object.assign({}, attrs, { hidden: true });
        return Object.assign({}, attrs, { zIndex: 1, size: attrs.size + 0.8 });
      }
      if (state.matches) return Object.assign({}, attrs, { color: colours.faded || FADED });
      return attrs;
    }

    // ---- header, toggles and legend --------------------------------------------------------------------
    setText("title", options.title || document.title);
    var c = data.counts;
    var scope = data.scope.charAt(0).toUpperCase() + data.scope.slice(1);
    if (claims.length) {
      $("evidence-toggle").hidden = false;
      setText("summary", scope + ": " + plural(claims.length, "claim") + " linked to " + plural(c.papers, "paper") + " (" +
        stanceCounts().map(function (sc) { return sc[1] + " " + STANCE_WORDS[sc[0]]; }).join(", ") + "), and " +
        plural(c.cites, "citation") + " between the papers.");
    } else {
      setText("summary", scope + ": " + plural(c.papers, "paper") + ", " + plural(c.cites, "citation") +
        " between them, " + plural(c.coauthor, "shared-author link") + ", " + plural(c.concept, "shared-concept link") + ".");
    }
    function stanceCounts() {
      var counts = {};
      claims.forEach(function (claim) { claim.links.forEach(function (l) { counts[l.stance] = (counts[l.stance] || 0) + 1; }); });
      return STANCES.filter(function (s) { return counts[s]; }).map(function (s) { return [s, counts[s]]; });
    }
    if (data.note) { $("note").hidden = false; setText("note", data.note); }
    root.querySelectorAll("#controls input[type=checkbox]").forEach(function (box) {
      var kind = box.dataset.kind;
      box.checked = state.edges[kind];
      box.parentElement.querySelector(".count").textContent = "(" + (c[kind] || 0).toLocaleString("en") + ")";
      box.addEventListener("change", function () { state.edges[kind] = box.checked; refresh(); });
    });
    root.querySelectorAll("input[name=size-by]").forEach(function (radio) {
      radio.addEventListener("change", function () { state.size = radio.value; refresh(); });
    });
    root.querySelectorAll("input[name=color-by]").forEach(function (radio) {
      radio.addEventListener("change", function () { state.color = radio.value; legend(); refresh(); });
    });

    function legend() {
      var box = $("legend");
      box.textContent = "";
      if (claims.length) {
        var heading = document.createElement("h3");
        heading.textContent = "Claims";
        var links = document.createElement("ul");
        links.appendChild(item(CLAIM_COLOR, "claim (" + claims.length + ")"));
        stanceCounts().forEach(function (sc) { links.appendChild(item("rgb(" + STANCE_RGB[sc[0]] + ")", "→ " + STANCE_WORDS[sc[0]] + " (" + sc[1] + ")")); });
        box.appendChild(heading);
        box.appendChild(links);
      }
      var title = document.createElement("h3");
      box.appendChild(title);
      if (state.color === "year") {
        title.textContent = "Year";
        if (minYear === null) { box.appendChild(item(NO_GROUP, "no year recorded")); return; }
        var ramp = document.createElement("div");
        ramp.className = "ramp";
        ramp.style.background = "linear-gradient(to right, " + YEAR_RAMP.join(", ") + ")";
        var ends = document.createElement("div");
        ends.className = "ends";
        [minYear, maxYear].forEach(function (y) { var s = document.createElement("span"); s.textContent = y; ends.appendChild(s); });
        box.appendChild(ramp); box.appendChild(ends);
        if (years.length < nodes.length) box.appendChild(item(NO_GROUP, "no year (" + (nodes.length - years.length) + ")"));
        return;
      }
      title.textContent = "Collection";
      var list = document.createElement("ul");
      data.groups.slice(0, PALETTE.length).forEach(function (g, i) { list.appendChild(item(PALETTE[i], g.name + " (" + g.count + ")")); });
      var rest = data.groups.slice(PALETTE.length).reduce(function (sum, g) { return sum + g.count; }, 0);
      if (rest) list.appendChild(item(OTHER_GROUP, "other collections (" + rest + ")"));
      var none = nodes.filter(function (n) { return n.group < 0; }).length;
      if (none) list.appendChild(item(NO_GROUP, "in no collection (" + none + ")"));
      box.appendChild(list);
    }
    function item(color, text) {
      var li = document.createElement("li");
      var swatch = document.createElement("span");
      swatch.className = "swatch";
      swatch.style.background = color;
      li.appendChild(swatch);
      li.appendChild(document.createTextNode(" " + text));
      li.title = text;
      return li;
    }
    legend();

    // ---- selection and the side panel -----------------------------------------------------------------
    function select(key, moveCamera) {
      if (!graph.hasNode(key)) return;
      state.selected = key;
      state.matches = null;
      state.neighbours = new Set([key]);
      graph.forEachEdge(key, function (edge, attrs, source, target) {
        if (state.edges[attrs.kind]) state.neighbours.add(source === key ? target : source);
      });
      var claim = graph.getNodeAttribute(key, "claim");
      if (claim !== undefined) showClaimPanel(claim);
      else showPanel(nodes[graph.getNodeAttribute(key, "index")]);
      refresh();
      if (moveCamera && renderer) {
        // Bring the paper into view when it is off-screen or lost in a crowd; leave a small graph as it is.
        var display = renderer.getNodeDisplayData(key);
        var spot = view.screenPosition(key), width = container.offsetWidth, height = container.offsetHeight;
        var inView = spot.x > width * 0.1 && spot.x < width * 0.9 && spot.y > height * 0.1 && spot.y < height * 0.9;
        var camera = renderer.getCamera();
        if (display && (big || !inView)) {
          camera.animate({ x: display.x, y: display.y, ratio: big ? Math.min(camera.ratio, 0.5) : camera.ratio }, { duration: 400 });
        }
      }
    }
    function unselect() {
      state.selected = null; state.neighbours = null;
      $("panel").hidden = true;
      refresh();
    }
    view.select = function (key) { select(key, true); };
    view.screenPosition = function (key) {
      var attrs = graph.getNodeAttributes(key);
      return renderer.graphToViewport({ x: attrs.x, y: attrs.y });
    };

    function showPanel(n) {
      $("panel").hidden = false;
      $("panel-paper").hidden = false;
      $("panel-claim").hidden = true;
      setText("panel-title", n.title);
      $("panel-centre").hidden = !options.onCentre || Boolean(options.seed && options.seed.key === n.key);
      var meta = [];
      if (n.retracted) meta.push(n.retracted);  // Zotero's retraction record: never miss it
      if (n.authors && n.authors.length) meta.push(n.authors.join(", "));
      meta.push(n.year == null ? "n.d." : String(n.year));
      if (n.venue) meta.push(n.venue);
      if (n.type) meta.push(n.type);
      setText("panel-meta", meta.join(" · "));
      setText("panel-stats", "Cited by " + plural(n.cited_by || 0, "paper") + " in your library · PageRank " +
        (n.pagerank || 0).toFixed(4) + " · " + n.key);
      $("panel-zotero").href = n.link;
      var doi = $("panel-doi");
      doi.hidden = !n.doi;
      if (n.doi) { doi.href = "https://doi.org/" + encodeURI(n.doi); doi.textContent = "doi:" + n.doi; }
      setText("panel-collections", n.collections && n.collections.length ? "Collections: " + n.collections.join("; ") : "");
      setText("panel-tags", n.tags && n.tags.length ? "Tags: " + n.tags.join(", ") : "");
      setText("panel-abstract", n.abstract || "");
      fillPapers("panel-cites", n.cites || []);
      fillPapers("panel-cited-by", n.cited_by_keys || []);
      setText("panel-cites-count", "(" + (n.cites || []).length + ")");
      setText("panel-cited-by-count", "(" + (n.cited_by_keys || []).length + ")");
      setText("panel-external", n.external_refs ? "…and " + plural(n.external_refs, "work") + " outside your library." : "");
      var bearing = [];
      claims.forEach(function (claim, i) {
        claim.links.forEach(function (l) { if (l.key === n.key) bearing.push([i, l]); });
      });
      $("panel-claims-section").hidden = !claims.length;
      setText("panel-claims-count", "(" + bearing.length + ")");
      var list = $("panel-claims");
      list.textContent = "";
      bearing.forEach(function (pair) {
        var li = document.createElement("li");
        li.appendChild(badge(pair[1].stance));
        li.appendChild(claimLink(pair[0]));
        if (pair[1].note) li.appendChild(document.createTextNode(" — " + pair[1].note));
        list.appendChild(li);
      });
    }
    function showClaimPanel(i) {
      var claim = claims[i];
      $("panel").hidden = false;
      $("panel-paper").hidden = true;
      $("panel-claim").hidden = false;
      setText("panel-title", claim.text);
      setText("panel-meta", claim.label + " · " + claim.verdict);
      setText("panel-evidence-count", "(" + claim.links.length + ")");
      var list = $("panel-evidence");
      list.textContent = "";
      claim.links.forEach(function (l) {
        var li = document.createElement("li");
        li.appendChild(badge(l.stance));
        if (graph.hasNode(l.key)) {
          var n = nodes[graph.getNodeAttribute(l.key, "index")];
          var a = document.createElement("a");
          a.href = "#";
          a.textContent = n.title + (n.year ? " (" + n.year + ")" : "");
          a.addEventListener("click", function (event) { event.preventDefault(); select(l.key, true); });
          li.appendChild(a);
        } else {
          li.appendChild(document.createTextNode((data.others[l.key] || l.key) + " — not drawn here"));
        }
        var said = [l.where, l.note].filter(Boolean).join(" · ");
        if (said) li.appendChild(document.createTextNode(" · " + said));
        if (l.passage) { var quote = document.createElement("blockquote"); quote.textContent = l.passage; li.appendChild(quote); }
        list.appendChild(li);
      });
    }
    function badge(stance) {
      var span = document.createElement("span");
      span.className = "stance";
      span.style.background = "rgb(" + (STANCE_RGB[stance] || STANCE_RGB.unjudged) + ")";
      span.textContent = stance;
      span.title = STANCE_WORDS[stance] || stance;
      return span;
    }
    function claimLink(i) {
      var a = document.createElement("a");
      a.href = "#";
      a.textContent = claims[i].label + ": " + claims[i].text;
      a.addEventListener("click", function (event) { event.preventDefault(); select("claim:" + i, true); });
      return a;
    }
    function fillPapers(id, list) {
      var ul = $(id);
      ul.textContent = "";
      list.forEach(function (key) {
        var li = document.createElement("li");
        if (graph.hasNode(key)) {
          var n = nodes[graph.getNodeAttribute(key, "index")];
          var a = document.createElement("a");
          a.href = "#";
          a.textContent = n.title + (n.year ? " (" + n.year + ")" : "");
          a.addEventListener("click", function (event) { event.preventDefault(); select(key, true); });
          li.appendChild(a);
        } else {
          li.textContent = (data.others[key] || key) + " — not drawn here";
        }
        ul.appendChild(li);
      });
      if (!list.length) { var none = document.createElement("li"); none.textContent = "none found"; ul.appendChild(none); }
    }
    $("panel-close").addEventListener("click", unselect);
    var centre = $("panel-centre");
    if (options.onCentre) {
      centre.addEventListener("click", function () {
        if (state.selected && graph.getNodeAttribute(state.selected, "claim") === undefined) options.onCentre(state.selected);
      });
    }

    // ---- search ----------------------------------------------------------------------------------------
    var haystacks = nodes.map(function (n) {
      return fold([n.title, (n.authors || []).join(" "), n.year || "", n.key, n.venue || ""].join(" "));
    });
    var input = $("search"), results = $("search-results"), found = [];
    function search() {
      var words = fold(input.value).split(/\s+/).filter(Boolean);
      results.textContent = "";
      if (!words.length) { results.hidden = true; state.matches = null; refresh(); return; }
      found = [];
      haystacks.forEach(function (text, i) {
        if (words.every(function (w) { return text.indexOf(w) >= 0; })) found.push(i);
      });
      found.sort(function (a, b) { return (nodes[b].cited_by || 0) - (nodes[a].cited_by || 0) || a - b; });
      state.matches = new Set(found.map(function (i) { return keys[i]; }));
      if (!state.selected) refresh();
      found.slice(0, 12).forEach(function (i) {
        var li = document.createElement("li");
        li.textContent = nodes[i].title + (nodes[i].year ? " (" + nodes[i].year + ")" : "");
        li.addEventListener("mousedown", function (event) { event.preventDefault(); choose(i); });
        results.appendChild(li);
      });
      if (!found.length) { var li = document.createElement("li"); li.className = "empty"; li.textContent = "No paper matches."; results.appendChild(li); }
      else if (found.length > 12) { var more = document.createElement("li"); more.className = "empty"; more.textContent = "…" + (found.length - 12) + " more"; results.appendChild(more); }
      results.hidden = false;
    }
    function choose(i) {
      results.hidden = true;
      select(keys[i], true);
    }
    input.addEventListener("input", search);
    input.addEventListener("keydown", function (event) {
      if (event.key === "Enter" && found.length) choose(found[0]);
      if (event.key === "Escape") { input.value = ""; search(); }
    });
    input.addEventListener("blur", function () { results.hidden = true; });
    input.addEventListener("focus", function () { if (input.value) search(); });

    return view;
  }

  // ---- helpers ---------------------------------------------------------------------------------------
  function fold(text) { return String(text).normalize("NFKD").replace(/[\u0300-\u036f]/g, "").toLowerCase(); }
  function mix(a, b, t) {
    var x = parseInt(a.slice(1), 16), y = parseInt(b.slice(1), 16), out = "#";
    [16, 8, 0].forEach(function (shift) {
      var v = Math.round(((x >> shift) & 255) * (1 - t) + ((y >> shift) & 255) * t);
      out += (v < 16 ? "0" : "") + v.toString(16);
    });
    return out;
  }
  function mulberry32(seed) {
    return function () {
      seed |= 0; seed = (seed + 0x6d2b79f5) | 0;
      var t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
      t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
      return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
    };
  }

  window.agentZotGraph = { mount: mount };
  var embedded = document.getElementById("view-data");  // the page of `agent-zot view` carries its data
  if (embedded) window.agentZotView = mount(document, JSON.parse(embedded.textContent));
})();
