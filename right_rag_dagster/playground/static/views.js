// The detail panel: a step's inputs, outputs and retrieved chunks; a citation inside its unit and document tree.
import { h, ms, num, where } from "./dom.js";

function value(v) {
  if (v === null || v === undefined) return h("span", { class: "muted" }, "–");
  if (typeof v === "object") return h("pre", {}, JSON.stringify(v, null, 1));
  return String(v);
}

function table(obj, skip = []) {
  const rows = Object.entries(obj || {}).filter(([k]) => !skip.includes(k));
  if (!rows.length) return h("p", { class: "muted" }, "none");
  return h("table", { class: "kv" }, rows.map(([k, v]) => h("tr", {}, h("th", {}, k), h("td", {}, value(v)))));
}

function ranking(details) {
  // hybrid: each ranking's rank and score; "named": the document the question names; "defines": the term a
  // definition unit defines (a definition question moved it up); bm25/dense alone: nothing
  if (!details || !Object.keys(details).length) return "";
  return Object.entries(details).map(([name, d]) => {
    if (typeof d === "object" && d !== null && "rank" in d) return `${name} #${d.rank} (${num(d.score, 3)})`;
    return typeof d === "number" ? `${name} ${num(d, 3)}` : `${name}: ${d}`;
  }).join(" · ");
}

export function chunkTable(hits, run) {
  const marks = (run.evidence && run.evidence.chunks) || {};
  return h("table", { class: "hits" },
    h("thead", {}, h("tr", {}, ["#", "document", "page", "section path", "score", "ranking details", ""].map((t) => h("th", {}, t)))),
    h("tbody", {}, hits.map((hit) => {
      const chunk = run.chunks[hit.chunk_id] || {};
      // a hit that joins neighbouring chunks (retrieval/searching/neighbours.py) shows them all, in document order
      const parts = hit.joined ? [...hit.joined].sort((a, b) => a[2] - b[2]).map((p) => p[0]) : [hit.chunk_id];
      const evidence = parts.some((id) => marks[id]);
      const body = parts.map((id) => (run.chunks[id] || {}).text || "").join("\n\n");
      const text = h("tr", { class: "chunk-text", hidden: true }, h("td", { colspan: 7 }, h("pre", {}, body)));
      const row = h("tr", { class: `hit${evidence ? " evidence" : ""}`, "data-chunk": hit.chunk_id,
                            onclick: () => { text.hidden = !text.hidden; } },
        h("td", {}, hit.rank), h("td", {}, hit.document), h("td", {}, hit.pages || chunk.pages || "–"),
        h("td", { class: "path" }, (hit.section_path || []).join(" › ")), h("td", {}, num(hit.score, 4)),
        h("td", { class: "details" }, [ranking(hit.details), hit.joined ? ` · joins ${hit.joined.length} neighbouring chunks` : ""].join("")),
        h("td", {}, evidence ? h("span", { class: "evidence-tag", title: "holds the question's evidence" }, "evidence") : ""));
      return [row, text];
    })));
}

export function stepView(run, index) {
  const step = run.trace.steps[index];
  const hits = (step.outputs && step.outputs.hits) || [];
  const node = run.trace.flow.nodes.find((n) => n.id === step.step) || { label: step.step };
  return h("div", { class: "step-detail", "data-step": step.step, "data-index": index },
    h("h2", {}, `Step ${index + 1}: ${node.label}`),
    h("p", { class: "muted" }, `${step.step} · ${ms(step.seconds)} · started at ${step.started_ms.toFixed(1)} ms`),
    h("h3", {}, "Inputs"), table(step.inputs),
    h("h3", {}, "Outputs"), table(step.outputs, ["hits", "order"]),
    step.scores && step.scores.length && !hits.length ? [h("h3", {}, "Scores"), value(step.scores)] : null,
    hits.length ? [h("h3", {}, `Retrieved chunks (${hits.length})`), chunkTable(hits, run),
                   h("p", { class: "muted" }, "Click a row for the chunk's text.")] : null,
    step.outputs && step.outputs.order ? [h("h3", {}, "Order after this step"),
      chunkTable(step.outputs.order.map((id, i) => ({ ...(run.hits.find((x) => x.chunk_id === id) || { chunk_id: id }),
        rank: i + 1, score: step.scores[i] })), run)] : null);
}

function tree(levels) {
  if (!levels.length) return h("p", { class: "muted" }, "Baseline chunks have no unit: the document around the chunk is shown.");
  return h("div", { class: "tree" }, levels.map((level, depth) => h("ul", { style: `margin-left:${depth * 14}px` },
    level.more_before ? h("li", { class: "muted" }, `… ${level.more_before} before`) : null,
    level.units.map((u) => h("li", { class: u.on_path ? "on-path" : (level.children ? "child" : "") },
      u.topic, u.unit_type ? h("span", { class: "type" }, ` ${u.unit_type}`) : null)),
    level.more_after ? h("li", { class: "muted" }, `… ${level.more_after} more`) : null)));
}

function markedText(context) {
  // paint the chunk span, then the quote span over it
  const text = context.text, marks = context.marks;
  const edges = new Set([0, text.length]);
  marks.forEach((m) => { edges.add(Math.max(0, m.start)); edges.add(Math.min(text.length, m.end)); });
  const cuts = [...edges].sort((a, b) => a - b);
  const pre = h("pre", { class: "unit-text" });
  for (let i = 0; i < cuts.length - 1; i++) {
    const [a, b] = [cuts[i], cuts[i + 1]];
    const kinds = marks.filter((m) => m.start <= a && m.end >= b).map((m) => m.kind);
    const piece = text.slice(a, b);
    pre.append(kinds.length ? h("mark", { class: kinds.join(" ") }, piece) : piece);
  }
  return pre;
}

export function citationView(citation, context, onLineage) {
  const lineage = h("div", { class: "lineage" });
  const window = context.window;
  return h("div", { class: "citation-detail", "data-chunk": citation.chunk_id },
    h("h2", {}, `Citation [${citation.number}]`),
    h("p", {}, where({ ...citation, pages: window.pages || citation.page_label_start })),
    h("h3", {}, "Place in the document tree"),
    h("p", { class: "muted" }, context.document), tree(context.tree),
    h("h3", {}, context.unit.unit_id ? `Unit: ${context.unit.topic}` : "Document text"),
    h("p", { class: "legend" }, h("mark", { class: "chunk" }, "retrieved chunk"), " ", h("mark", { class: "chunk quote" }, "quoted in the answer"),
      window.clipped ? h("span", { class: "muted" }, ` · characters ${window.start}–${window.end} of a longer unit`) : null),
    markedText(context),
    h("button", { type: "button", class: "lineage-button", onclick: () => onLineage(lineage) }, "right-rag lineage"),
    lineage);
}
