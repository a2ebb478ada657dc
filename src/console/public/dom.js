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
  for (const c of children.flat(Infinity)) {
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

/** The links in `scope` with this href, in document order. */
const linksTo = (scope, href) =>
  [...scope.querySelectorAll("a[href]")].filter((a) => a.getAttribute("href") === href);

/**
 * A live update of the page shown: the new content replaces the old, but what the reader has
 * open stays open (details elements with a data-key), the element at the top of the view stays
 * where it was (elements with a data-anchor; a reader at the very top stays at the top, seeing
 * what was added there), a field being typed in keeps its text and the focus (by id), and a
 * focused link keeps the focus — the same one of several links to one address (by its place among
 * them within its data-anchor element) — so a keyboard user is not thrown elsewhere.
 */
export function refill(node, ...children) {
  const opened = new Map([...node.querySelectorAll("details[data-key]")].map((d) => [d.dataset.key, d.open]));
  let anchor;
  if (window.scrollY > 0)
    for (const e of node.querySelectorAll("[data-anchor]")) {
      const r = e.getBoundingClientRect();
      if (r.bottom > 0) {
        anchor = { key: e.dataset.anchor, top: r.top };
        break;
      }
    }
  const edited = new Map(
    [...node.querySelectorAll("input[id], textarea[id], select[id]")]
      .filter((f) => f === document.activeElement || f.value !== f.defaultValue)
      .map((f) => [f.id, f.value]),
  );
  const active = document.activeElement;
  const focused = active?.id;
  let focusedLink;
  if (!focused && active && node.contains(active) && active.matches("a[href]")) {
    const href = active.getAttribute("href");
    const scope = active.closest("[data-anchor]");
    const within = scope && node.contains(scope) ? scope : node;
    focusedLink = {
      href,
      anchor: within === node ? undefined : scope.dataset.anchor,
      index: linksTo(within, href).indexOf(active),
    };
  }
  const fresh = fill(document.createElement("div"), ...children);
  for (const d of fresh.querySelectorAll("details[data-key]"))
    if (opened.has(d.dataset.key)) d.open = opened.get(d.dataset.key);
  for (const [id, value] of edited) {
    const f = fresh.querySelector(`#${CSS.escape(id)}`);
    if (f) f.value = value;
  }
  node.replaceChildren(...fresh.childNodes);
  if (anchor) {
    const e = node.querySelector(`[data-anchor="${CSS.escape(anchor.key)}"]`);
    if (e) window.scrollBy(0, e.getBoundingClientRect().top - anchor.top);
  }
  if (focused) document.getElementById(focused)?.focus({ preventScroll: true });
  else if (focusedLink) {
    const scope =
      focusedLink.anchor !== undefined
        ? node.querySelector(`[data-anchor="${CSS.escape(focusedLink.anchor)}"]`)
        : node;
    const same = scope ? linksTo(scope, focusedLink.href) : [];
    (same[focusedLink.index] ?? linksTo(node, focusedLink.href)[0])?.focus({ preventScroll: true });
  }
  return node;
}

/** "in 42 s", "in 3 min", "now". */
export function inTime(sec) {
  if (sec <= 0) return "now";
  if (sec < 120) return `in ${sec} s`;
  if (sec < 7200) return `in ${Math.round(sec / 60)} min`;
  return `in ${Math.round(sec / 3600)} h`;
}

/** Links of the console's pages (hash routes). */
export const links = {
  chat: (persona, chatId) => `#chat/${encodeURIComponent(persona)}/${encodeURIComponent(chatId)}`,
  message: (persona, chatId, id) => `${links.chat(persona, chatId)}/msg/${encodeURIComponent(id)}`,
  plan: (persona, chatId, no) => `${links.chat(persona, chatId)}/plan/${encodeURIComponent(no)}`,
  lane: (persona, chatId, lane, id) => `${links.chat(persona, chatId)}/${lane}/${encodeURIComponent(id)}`,
  chats: (persona) => `#chats/${encodeURIComponent(persona)}`,
  now: (persona) => `#now/${encodeURIComponent(persona)}`,
};
