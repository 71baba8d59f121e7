// Tiny DOM helpers: build elements from data (text is always set as text, never parsed as HTML).

export function h(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attrs || {})) {
    if (value === undefined || value === null || value === false) continue;
    if (key === "class") node.className = value;
    else if (key === "dataset") Object.assign(node.dataset, value);
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, value === true ? "" : value);
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    node.append(child instanceof Node ? child : String(child));
  }
  return node;
}

export function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS("http://www.w3.org/2000/svg", tag);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== undefined && value !== null) node.setAttribute(key, value);
  }
  for (const child of children.flat(Infinity)) if (child) node.append(child instanceof Node ? child : String(child));
  return node;
}

export function ms(seconds) {
  const value = seconds * 1000;
  return value < 10 ? `${value.toFixed(1)} ms` : `${Math.round(value)} ms`;
}

export function num(value, digits = 2) {
  if (value === null || value === undefined) return "–";
  return Number.isInteger(value) ? value.toLocaleString() : value.toFixed(digits);
}

export function where(chunk) {
  // file, p. label, section > path: how citations read everywhere in right-rag
  const parts = [chunk.document];
  if (chunk.pages) parts.push(`p. ${chunk.pages}`);
  if (chunk.section_path && chunk.section_path.length) parts.push(chunk.section_path.join(" › "));
  return parts.join(", ");
}
