// Building the page without innerHTML: every piece of data goes in as text.

/** el("div", { class: "x", onclick: fn }, "text", childNode, …) */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k.startsWith("on") && typeof v === "function") node.addEventListener(k.slice(2), v);
    else if (k === "class") node.className = String(v);
    else if (k === "dataset") Object.assign(node.dataset, v);
    else node.setAttribute(k, String(v));
  }
  for (const c of children.flat()) {
    if (c === undefined || c === null || c === false) continue;
    node.append(c instanceof Node ? c : document.createTextNode(String(c)));
  }
  return node;
}

/** Text from a stranger (a name, a message): isolated for direction, shown literally. */
export function userText(s, cls = "text") {
  return el("bdi", { class: cls }, s ?? "");
}

/** Replace a node's children: nested arrays flattened, null/undefined/false left out, strings as text. */
export function fill(node, ...children) {
  node.replaceChildren(
    ...children
      .flat(Infinity)
      .filter((c) => c !== undefined && c !== null && c !== false)
      .map((c) => (c instanceof Node ? c : document.createTextNode(String(c)))),
  );
  return node;
}

export function time(ms) {
  if (!ms) return "";
  return new Date(ms).toISOString().slice(0, 19).replace("T", " ");
}

function csrf() {
  const m = document.cookie
    .split(";")
    .map((c) => c.trim())
    .find((c) => c.startsWith("console_csrf="));
  return m ? decodeURIComponent(m.slice("console_csrf=".length)) : "";
}

export async function api(path) {
  const res = await fetch(`api/${path}`, { credentials: "same-origin" });
  if (!res.ok)
    throw new Error(`${res.status}: ${(await res.json().catch(() => ({}))).error ?? res.statusText}`);
  return res.json();
}

export async function post(path, body) {
  const res = await fetch(`api/${path}`, {
    method: "POST",
    credentials: "same-origin",
    headers: { "content-type": "application/json", "x-console-csrf": csrf() },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.error ?? res.statusText);
  return json;
}

export function notice(text, error = false) {
  const n = document.getElementById("notice");
  n.textContent = text;
  n.className = error ? "error" : "";
}
