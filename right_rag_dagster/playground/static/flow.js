// The flow diagram: nodes and arrows of a FLOW graph laid out in layers (SVG), and a trace's steps lit on it.
import { svg } from "./dom.js";

const W = 132, H = 42, COL = 176, ROW = 64, PAD = 22;

export function layout(graph) {
  // Layer = first BFS depth from the entry node; an arrow into an earlier or equal layer is a loop.
  const layer = { [graph.nodes[0].id]: 0 };
  const queue = [graph.nodes[0].id];
  while (queue.length) {
    const id = queue.shift();
    for (const [from, to] of graph.edges) {
      if (from === id && !(to in layer)) { layer[to] = layer[id] + 1; queue.push(to); }
    }
  }
  graph.nodes.forEach((n) => { if (!(n.id in layer)) layer[n.id] = 0; });
  // within a layer, nodes that loop back go last (lowest), so loops run under the diagram
  const loops = (id) => graph.edges.some(([from, to]) => from === id && layer[to] <= layer[from]);
  const columns = {};
  [...graph.nodes].sort((a, b) => loops(a.id) - loops(b.id)).forEach((n) => (columns[layer[n.id]] ||= []).push(n.id));
  const tallest = Math.max(...Object.values(columns).map((c) => c.length));
  const pos = {};
  for (const [col, ids] of Object.entries(columns)) {
    ids.forEach((id, row) => {
      pos[id] = { x: PAD + col * COL, y: PAD + (row + (tallest - ids.length) / 2) * ROW };
    });
  }
  const width = PAD * 2 + (Object.keys(columns).length - 1) * COL + W;
  const looping = graph.edges.some(([from, to]) => layer[to] <= layer[from]);
  const height = PAD * 2 + (tallest - 1) * ROW + H + (looping ? 34 : 4);
  return { pos, layer, width, height };
}

function edgePath(a, b, back) {
  if (back) {  // a loop: leave below the later node, come back below the earlier one
    const y = Math.max(a.y, b.y) + H + 26;
    return `M${a.x + W / 2},${a.y + H} C${a.x + W / 2},${y} ${b.x + W / 2},${y} ${b.x + W / 2},${b.y + H}`;
  }
  const x1 = a.x + W, y1 = a.y + H / 2, x2 = b.x, y2 = b.y + H / 2, mid = (x1 + x2) / 2;
  return `M${x1},${y1} C${mid},${y1} ${mid},${y2} ${x2},${y2}`;
}

export function drawFlow(graph, steps = []) {
  const { pos, layer, width, height } = layout(graph);
  const visits = {}, walked = {};
  steps.forEach((s, i) => (visits[s.step] ||= []).push(i + 1));
  steps.slice(1).forEach((s, i) => {
    const key = `${steps[i].step}>${s.step}`;
    walked[key] = (walked[key] || 0) + 1;
  });
  const root = svg("svg", { class: "flow", viewBox: `0 0 ${width} ${height}`, width, height, role: "img",
                            "aria-label": `flow ${graph.name}` });
  root.append(svg("defs", {}, ["plain", "lit", "loop"].map((kind) => svg("marker", {
    id: `arrow-${kind}`, viewBox: "0 0 10 10", refX: 9, refY: 5, markerWidth: 7, markerHeight: 7, orient: "auto-start-reverse",
  }, svg("path", { d: "M0,0 L10,5 L0,10 z", class: `arrowhead ${kind}` })))));
  for (const [from, to] of graph.edges) {
    const back = layer[to] <= layer[from];
    const count = walked[`${from}>${to}`] || 0;
    const kind = count ? (back ? "loop" : "lit") : "plain";
    const path = svg("path", { d: edgePath(pos[from], pos[to], back), class: `edge ${kind}`,
                               "data-edge": `${from}>${to}`, "marker-end": `url(#arrow-${kind})` });
    root.append(path);
    if (count > 1 || (back && count)) {
      const a = pos[from], b = pos[to];
      root.append(svg("text", { class: `edge-count ${kind}`, x: (a.x + b.x + W) / 2,
                                y: back ? Math.max(a.y, b.y) + H + 32 : (a.y + b.y + H) / 2 - 6 }, `×${count}`));
    }
  }
  for (const node of graph.nodes) {
    const p = pos[node.id], order = visits[node.id] || [];
    const group = svg("g", { class: `node ${node.kind}${order.length ? " visited" : ""}`, "data-node": node.id,
                             "data-visits": order.join(","), transform: `translate(${p.x},${p.y})`, tabindex: 0 });
    group.append(svg("rect", { width: W, height: H, rx: 9 }));
    group.append(svg("text", { x: W / 2, y: H / 2 + 5, class: "label" }, node.label));
    if (node.id === graph.nodes[0].id) group.append(svg("text", { x: -4, y: -6, class: "entry" }, "start"));
    if (order.length) {
      const text = order.join(" · ");
      const bw = Math.max(22, text.length * 7 + 12);
      group.append(svg("g", { class: "badge", transform: `translate(${W - bw + 8},-10)` },
        svg("rect", { width: bw, height: 20, rx: 10 }), svg("text", { x: bw / 2, y: 14 }, text)));
    }
    root.append(group);
  }
  return root;
}
