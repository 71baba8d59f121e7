// The playground page: choices from /api/catalog, runs from /api/run, drawn as flow + steps + answer per side.
import { h, ms, num, where } from "./dom.js";
import { drawFlow } from "./flow.js";
import { chunkTable, citationView, stepView } from "./views.js";

const state = { catalog: null, mode: "live", runs: {}, asked: {} };
const $ = (selector, root = document) => root.querySelector(selector);
const METRICS = [["hit@1", "hit@1"], ["hit@5", "hit@5"], ["mrr@10", "MRR@10"], ["ndcg@10", "nDCG@10"],
                 ["context_chars@5", "ctx chars@5"]];

async function api(path, body) {
  const response = await fetch(path, body ? { method: "POST", headers: { "Content-Type": "application/json" },
                                              body: JSON.stringify(body) } : {});
  const data = await response.json();
  if (!response.ok) throw new Error(data.error || response.statusText);
  return data;
}

function notice(text, kind = "") {
  const node = $("#notice");
  node.textContent = text;
  node.className = kind;
}

// ---- choices -------------------------------------------------------------------------------------------

function recordedConfigs() {
  return (state.catalog.recorded.available && state.catalog.recorded.configs) || [];
}

function allowed(side) {
  // which chunkers / retrievers / flows the current mode can run, given the side's other choices
  const form = $(`fieldset[data-side="${side}"]`);
  const chunker = form.elements.chunker.value, flow = form.elements.flow.value;
  if (state.mode === "recorded") {
    const configs = recordedConfigs();
    return {
      chunker: (name) => configs.some((c) => c.chunker === name),
      flow: (name) => configs.some((c) => c.chunker === chunker && c.flow === name),
      retriever: (name) => configs.some((c) => c.chunker === chunker && c.flow === flow && c.retriever === name),
    };
  }
  const info = state.catalog.chunkers.find((c) => c.name === chunker) || { indexes: [] };
  const vectors = info.indexes.includes("dense");
  return {
    chunker: (name) => (state.catalog.chunkers.find((c) => c.name === name) || {}).chunks > 0,
    flow: () => true,
    retriever: (name) => name === "" || name === "bm25" || vectors || !["dense", "hybrid"].includes(name),
  };
}

function fillSelect(select, options, ok) {
  const current = select.value;
  select.replaceChildren(...options.map((o) => o.group
    ? h("optgroup", { label: o.group }, o.options.map((x) => h("option", { value: x.value, disabled: !ok(x.value) }, x.label)))
    : h("option", { value: o.value, disabled: !ok(o.value) }, o.label)));
  const enabled = [...select.options].filter((o) => !o.disabled);
  select.value = enabled.some((o) => o.value === current) ? current : (enabled[0] || select.options[0] || {}).value;
}

function chunkerList() {
  // recorded mode offers what the recording holds (the sample project's chunkers), live mode this project's
  return state.mode === "recorded"
    ? state.catalog.recorded.chunkers.map((name) => ({ name, kind: name.startsWith("baseline:") ? "baseline" : "project" }))
    : state.catalog.chunkers;
}

function refreshChoices() {
  const cat = state.catalog;
  const chunkers = chunkerList();
  const chunkerOptions = ["project", "baseline"].map((kind) => ({
    group: kind === "project" ? "project chunkers" : "baselines (evaluation only)",
    options: chunkers.filter((c) => c.kind === kind).map((c) => ({
      value: c.name, label: c.name + (state.mode === "live" && !c.chunks
        ? (kind === "baseline" ? " (run right-rag evaluate --compare)" : " (not indexed)") : "") })),
  }));
  const flowOptions = cat.flows.map((f) => ({ value: f.name, label: f.name }));
  const retrieverOptions = [{ value: "", label: "flow decides" }, ...cat.retrievers.map((r) => ({ value: r, label: r }))];
  for (const side of ["a", "b"]) {
    const form = $(`fieldset[data-side="${side}"]`);
    fillSelect(form.elements.chunker, chunkerOptions, allowed(side).chunker);
    fillSelect(form.elements.flow, flowOptions, allowed(side).flow);
    fillSelect(form.elements.retriever, retrieverOptions, allowed(side).retriever);
  }
  const questions = state.mode === "recorded" ? (cat.recorded.questions || []) : cat.questions;
  $("#dev-questions").replaceChildren(h("option", { value: "" }, questions.length ? "pick one…" : "none in this project"),
    ...questions.map((q) => h("option", { value: q.question }, `${q.id}: ${q.question}`)));
  const asked = questions.find((q) => q.question === $("#question").value.trim());
  $("#dev-questions").value = asked ? asked.question : "";
  const generators = state.mode === "recorded" ? [{ name: cat.recorded.generator || "extractive", endpoint: null,
                                                   note: "recorded" }] : cat.generators;
  $("#generator").replaceChildren(...generators.map((g) => h("option", { value: g.name }, g.name)));
  showEndpoint();
  for (const side of $("#compare-toggle").checked ? ["a", "b"] : ["a"]) {
    if (JSON.stringify(state.asked[side]) !== JSON.stringify({ mode: state.mode, ...choice(side) })) preview(side);
  }
  $('article[data-side="b"]').hidden = !$("#compare-toggle").checked;
  for (const button of document.querySelectorAll("#mode button")) {
    button.setAttribute("aria-checked", String(button.dataset.mode === state.mode));
    const mode = button.dataset.mode === "live" ? cat.live : cat.recorded;
    button.disabled = !mode.available;
    button.title = mode.available ? "" : mode.reason;
  }
  modeNotice();
}

function showEndpoint() {
  const list = state.mode === "recorded" ? [] : state.catalog.generators;
  const chosen = list.find((g) => g.name === $("#generator").value);
  $("#generator-endpoint").textContent = state.mode === "recorded" ? "replayed: no model runs"
    : chosen && chosen.endpoint ? `endpoint ${chosen.endpoint}` : (chosen ? chosen.note : "");
}

function modeNotice() {
  const rec = state.catalog.recorded;
  if (state.mode === "recorded") {
    const stale = rec.stale && rec.stale.length
      ? ` The recording is stale (changed: ${rec.stale.slice(0, 4).join(", ")}${rec.stale.length > 4 ? ", …" : ""}): re-record with right-rag playground --record.` : "";
    notice(`Recorded mode: ${rec.questions.length} questions of the ${rec.project} project, recorded ${rec.recorded_at}, replayed without a model.${stale}`,
           stale ? "warning" : "");
  } else {
    notice(state.catalog.live.available ? `Live mode: the real query code on ${state.catalog.project.root}.` : state.catalog.live.reason,
           state.catalog.live.available ? "" : "warning");
  }
}

function choice(side) {
  const form = $(`fieldset[data-side="${side}"]`);
  return { chunker: form.elements.chunker.value, retriever: form.elements.retriever.value, flow: form.elements.flow.value };
}

// ---- runs ----------------------------------------------------------------------------------------------

function preview(side) {
  // the chosen flow drawn from its FLOW graph before it runs (or after the choice changed)
  const c = choice(side);
  const flow = state.catalog.flows.find((f) => f.name === c.flow);
  const pane = $(`article[data-side="${side}"]`);
  if (!flow) return;
  pane.hidden = false;
  pane.dataset.preview = "true";
  pane.replaceChildren(h("header", {}, h("h2", {}, `${c.chunker} × ${c.retriever || "flow decides"} × ${c.flow}`)),
    h("p", { class: "muted" }, flow.description),
    h("div", { class: "diagram" }, drawFlow(flow.graph, [])),
    h("p", { class: "muted" }, "Ask a question: the steps this flow takes light up here, in order."));
}

async function ask(event) {
  if (event) event.preventDefault();
  const question = $("#question").value.trim();
  if (!question) { notice("Type a question, or pick a development question.", "warning"); return; }
  const sides = $("#compare-toggle").checked ? ["a", "b"] : ["a"];
  $('article[data-side="b"]').hidden = sides.length < 2;
  $("#ask-button").disabled = true;
  closeDetail();
  await Promise.all(sides.map(async (side) => {
    const pane = $(`article[data-side="${side}"]`);
    state.asked[side] = { mode: state.mode, ...choice(side) };
    pane.hidden = false;
    delete pane.dataset.preview;
    pane.replaceChildren(h("p", { class: "muted" }, "running…"));
    pane.classList.add("busy");
    try {
      const run = await api("/api/run", { mode: state.mode, question, generator: $("#generator").value,
                                          k: state.catalog.defaults.k, ...choice(side) });
      state.runs[side] = run;
      renderRun(pane, run, side);
      loadMetrics(pane, run);
    } catch (error) {
      pane.replaceChildren(h("p", { class: "error" }, error.message));
    } finally {
      pane.classList.remove("busy");
    }
  }));
  $("#ask-button").disabled = false;
}

function renderRun(pane, run, side) {
  const s = run.settings;
  const steps = run.trace.steps;
  const total = steps.reduce((sum, step) => sum + step.seconds, 0);
  pane.dataset.mode = run.mode;
  pane.replaceChildren(
    h("header", {}, h("h2", {}, `${s.chunker} × ${s.retriever} × ${run.flow}`), routing(run),
      h("span", { class: `badge ${run.mode}` }, run.mode), h("span", { class: "muted" }, `${s.generator}, k=${s.k}`)),
    h("div", { class: "metrics" }, h("span", { class: "muted" }, "metrics loading…")),
    evidenceBanner(run),
    h("div", { class: "diagram" }, drawFlow(run.trace.flow, steps)),
    h("ol", { class: "steps" }, steps.map((step, i) => h("li", {
      class: "step", "data-step": step.step, "data-index": i, tabindex: 0, style: `animation-delay:${i * 120}ms`,
      onclick: () => openStep(side, i) },
      h("span", { class: "order" }, i + 1), h("span", { class: "name" }, step.step), h("span", { class: "time" }, ms(step.seconds)),
      h("span", { class: "summary" }, stepSummary(step))))),
    h("p", { class: "muted total" }, `${steps.length} steps, ${ms(total)} in all`),
    h("h3", {}, "Answer"),
    answerText(run, side),
    h("ol", { class: "citations" }, run.citations.map((c) => h("li", {},
      h("button", { type: "button", class: "citation", "data-number": c.number, onclick: () => openCitation(side, c.number) },
        `[${c.number}]`), " ", where({ ...c, pages: c.page_label_start ? (c.page_label_end && c.page_label_end !== c.page_label_start ? `${c.page_label_start}-${c.page_label_end}` : c.page_label_start) : "" }),
      run.evidence && run.evidence.chunks[c.chunk_id] ? h("span", { class: "evidence-tag" }, "evidence") : null))),
  );
  for (const node of pane.querySelectorAll("g.node")) {
    const first = (node.dataset.visits || "").split(",")[0];
    if (first) node.addEventListener("click", () => openStep(side, Number(first) - 1));
  }
}

function routing(run) {
  // the retrievers the flow used, in order, when it chose or switched them itself
  const used = run.trace.steps.filter((st) => st.step === "retrieve").map((st) => st.inputs.retriever);
  const distinct = used.filter((name, i) => name && name !== used[i - 1]);
  const routed = run.trace.steps.some((st) => st.step === "route" && st.outputs.reason !== "chosen by the caller");
  return routed || distinct.length > 1 ? h("span", { class: "muted routing" }, `flow used ${distinct.join(" → ")}`) : null;
}

function stepSummary(step) {
  const o = step.outputs || {};
  if (o.hits) return `${o.hits.length} chunks${step.inputs.retriever ? ` via ${step.inputs.retriever}` : ""}`;
  if ("enough" in o) return `coverage ${o.coverage} → ${o.enough ? "enough" : "retry"}`;
  if (o.retriever && step.step === "route") return `→ ${o.retriever}`;
  if (o.query) return `“${o.query}”`;
  if ("found" in o) return o.found ? `cites ${o.cited.map((n) => `[${n}]`).join("")}` : "not found";
  if (o.order) return `${o.order.length} chunks, ${step.inputs.method}`;
  return "";
}

function answerText(run, side) {
  const p = h("p", { class: `answer${run.found ? "" : " not-found"}` });
  const parts = run.answer.split(/(\[\d+\])/);
  for (const part of parts) {
    const m = part.match(/^\[(\d+)\]$/);
    const n = m && Number(m[1]);
    p.append(m && run.citations.some((c) => c.number === n)
      ? h("button", { type: "button", class: "cite", onclick: () => openCitation(side, n) }, part) : part);
  }
  return p;
}

function evidenceBanner(run) {
  const e = run.evidence;
  if (!e) return h("p", { class: "evidence-banner none" }, "Not a development question: no evidence to check.");
  const docs = [...new Set(e.items.map((i) => i.document))].join(", ");
  const text = !e.scored ? `Development question ${e.question_id}: its evidence could not be located.`
    : e.first_hit_rank ? `Development question ${e.question_id}: evidence (${docs}) retrieved at rank ${e.first_hit_rank} of ${e.depth}.`
    : `Development question ${e.question_id}: evidence (${docs}) not in the top ${e.depth}.`;
  return h("p", { class: `evidence-banner ${e.first_hit_rank ? "hit" : "miss"}` }, text);
}

async function loadMetrics(pane, run) {
  const box = $(".metrics", pane);
  const params = new URLSearchParams({ mode: run.mode, chunker: run.settings.chunker, retriever: run.settings.retriever });
  try {
    const data = await api(`/api/metrics?${params}`);
    if (!data.available) { box.replaceChildren(h("span", { class: "muted" }, data.reason)); return; }
    const m = data.metrics;
    box.replaceChildren(h("span", { class: "muted" }, `${run.settings.chunker} × ${run.settings.retriever} on ${m.scored} questions:`),
      ...METRICS.map(([key, label]) => h("span", { class: "metric", "data-metric": key },
        h("b", {}, key === "context_chars@5" ? Math.round(m[key]).toLocaleString() : num(m[key], key.startsWith("hit") ? 2 : 3)), ` ${label}`)));
  } catch (error) {
    box.replaceChildren(h("span", { class: "error" }, error.message));
  }
}

// ---- detail panel --------------------------------------------------------------------------------------

function openDetail(content) {
  $("#detail").hidden = false;
  $("#detail-body").replaceChildren(content);
}

function closeDetail() {
  $("#detail").hidden = true;
  document.querySelectorAll(".step.selected, g.node.selected").forEach((n) => n.classList.remove("selected"));
}

function openStep(side, index) {
  const run = state.runs[side];
  const pane = $(`article[data-side="${side}"]`);
  document.querySelectorAll(".step.selected, g.node.selected").forEach((n) => n.classList.remove("selected"));
  $(`.step[data-index="${index}"]`, pane).classList.add("selected");
  const node = $(`g.node[data-node="${run.trace.steps[index].step}"]`, pane);
  if (node) node.classList.add("selected");
  openDetail(stepView(run, index));
}

async function openCitation(side, number) {
  const run = state.runs[side];
  const citation = run.citations.find((c) => c.number === number);
  const params = new URLSearchParams({ mode: run.mode, chunker: run.settings.chunker, chunk_id: citation.chunk_id,
                                       quote_start: citation.quote_start ?? "", quote_end: citation.quote_end ?? "" });
  try {
    const context = await api(`/api/citation?${params}`);
    openDetail(citationView(citation, context, (box) => showLineage(box, run, citation)));
  } catch (error) {
    openDetail(h("p", { class: "error" }, error.message));
  }
}

async function showLineage(box, run, citation) {
  const params = new URLSearchParams({ chunker: run.settings.chunker, chunk_id: citation.chunk_id });
  try {
    const data = await api(`/api/lineage?${params}`);
    box.replaceChildren(h("p", { class: "muted" }, `$ ${data.command}`), h("pre", { class: "lineage-text" }, data.text));
  } catch (error) {
    box.replaceChildren(h("p", { class: "error" }, error.message));
  }
}

// ---- start ---------------------------------------------------------------------------------------------

function applyUrl(params) {
  for (const side of ["a", "b"]) {
    const form = $(`fieldset[data-side="${side}"]`);
    for (const name of ["chunker", "retriever", "flow"]) {
      const value = params.get(side === "a" ? name : `${name}_b`);
      if (value !== null) form.elements[name].value = value;
    }
  }
  if (params.get("chunker_b")) { $("#compare-toggle").checked = true; $('fieldset[data-side="b"]').hidden = false; }
  if (params.get("question")) $("#question").value = params.get("question");
}

async function start() {
  state.catalog = await api("/api/catalog");
  const params = new URLSearchParams(location.search);
  const wanted = params.get("mode") || state.catalog.defaults.mode;
  state.mode = (wanted === "live" ? state.catalog.live.available : state.catalog.recorded.available) ? wanted : state.catalog.defaults.mode;
  $("#project-name").textContent = `project ${state.catalog.project.name}`;
  refreshChoices();
  $('fieldset[data-side="a"]').elements.chunker.value = state.catalog.defaults.chunker;
  $('fieldset[data-side="a"]').elements.flow.value = state.catalog.defaults.flow;
  refreshChoices();
  applyUrl(params);
  refreshChoices();
  document.querySelectorAll("#mode button").forEach((b) => b.addEventListener("click", () => {
    state.mode = b.dataset.mode;
    refreshChoices();
  }));
  document.querySelectorAll("fieldset.choice select").forEach((s) => s.addEventListener("change", refreshChoices));
  $("#generator").addEventListener("change", showEndpoint);
  $("#dev-questions").addEventListener("change", (e) => { if (e.target.value) $("#question").value = e.target.value; });
  $("#compare-toggle").addEventListener("change", (e) => {
    $('fieldset[data-side="b"]').hidden = !e.target.checked;
    if (e.target.checked) pickContrast();
    else refreshChoices();
  });
  $("#ask-form").addEventListener("submit", ask);
  $("#detail-close").addEventListener("click", closeDetail);
  document.body.dataset.ready = "true";
}

function pickContrast() {
  // side B starts on another chunker than side A (a baseline when one can run), same flow
  const a = choice("a"), form = $('fieldset[data-side="b"]');
  const ok = allowed("b").chunker;
  const other = chunkerList().find((c) => c.name !== a.chunker && c.kind === "baseline" && ok(c.name))
             || chunkerList().find((c) => c.name !== a.chunker && ok(c.name));
  if (other) form.elements.chunker.value = other.name;
  form.elements.flow.value = a.flow;
  refreshChoices();
}

start().catch((error) => notice(`The playground could not start: ${error.message}`, "error"));
