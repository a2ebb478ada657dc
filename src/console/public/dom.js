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

// The console session: a signed token the page got for the console token (auth.ts), kept in
// this origin's localStorage (its port included: no other local server's page can read it) and
// sent as a header. No cookie: cookies are shared by every port of 127.0.0.1.
const SESSION_KEY = "console-session";
const SESSION_HEADER = "x-console-session";

function session() {
  try {
    return localStorage.getItem(SESSION_KEY) ?? "";
  } catch {
    return "";
  }
}

function keep(res) {
  const renewed = res.headers.get(SESSION_HEADER);
  if (renewed) localStorage.setItem(SESSION_KEY, renewed);
}

/** Thrown when the console has no (valid) session: the page shows how to sign in. */
export class SignInNeeded extends Error {}

/**
 * Trade the `?token=` of the address for a session, then take the token out of the address
 * (history entry replaced). Returns the error to show, or "" when signed in (or nothing to do).
 */
export async function signInFromAddress() {
  const params = new URLSearchParams(location.search);
  const token = params.get("token");
  if (token === null) return "";
  params.delete("token");
  const rest = params.toString();
  history.replaceState(null, "", `${location.pathname}${rest ? `?${rest}` : ""}${location.hash}`);
  const res = await fetch("api/session", {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ token }),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) return json.error ?? res.statusText;
  localStorage.setItem(SESSION_KEY, json.session);
  return "";
}

/** A GET of the console's API with the session; the raw response (for pictures, streams). */
export async function authorised(path, init = {}) {
  const res = await fetch(`api/${path}`, {
    ...init,
    headers: { ...(init.headers ?? {}), [SESSION_HEADER]: session() },
  });
  keep(res);
  if (res.status === 401) {
    const json = await res.json().catch(() => ({}));
    if (json.signIn) throw new SignInNeeded(json.error ?? "sign in");
    throw new Error(`401: ${json.error ?? res.statusText}`);
  }
  return res;
}

export async function api(path) {
  const res = await authorised(path);
  if (!res.ok)
    throw new Error(`${res.status}: ${(await res.json().catch(() => ({}))).error ?? res.statusText}`);
  return res.json();
}

export async function post(path, body) {
  const res = await authorised(path, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const json = await res.json().catch(() => ({}));
  if (!res.ok) throw new Error(json.error ?? res.statusText);
  return json;
}

/** An <img> of a picture the API serves (fetched with the session, shown from a blob). */
export function apiImage(path, attrs = {}) {
  const img = el("img", { ...attrs, alt: attrs.alt ?? "" });
  authorised(path)
    .then((res) => (res.ok ? res.blob() : undefined))
    .then((blob) => {
      if (blob) img.src = URL.createObjectURL(blob);
    })
    .catch(() => undefined);
  return img;
}

/**
 * An `<audio controls preload="none">` for an API path: nothing is fetched until it is played
 * (an `<audio src>` cannot carry the session header, so the first play fetches the bytes and
 * plays them from a blob URL). A failed fetch says so beside the player.
 */
export function apiAudio(path) {
  const note = el("span", { class: "muted" });
  const audio = el("audio", { controls: "", preload: "none" });
  const player = el("span", { class: "voice", dataset: { keep: path } }, audio, note);
  audio.addEventListener("play", () => {
    player.dataset.played = "yes"; // a live update keeps this player (refill)
    if (audio.src) return;
    authorised(path)
      .then(async (res) => {
        if (!res.ok) throw new Error(res.status === 404 ? "no longer on Telegram" : `error ${res.status}`);
        audio.src = URL.createObjectURL(await res.blob());
        note.textContent = "";
        return audio.play();
      })
      .catch((e) => {
        note.textContent = ` could not play: ${e.message}`;
      });
  });
  return player;
}

/**
 * The server's change events (`api/events`, server-sent events read through fetch so the
 * session travels as a header): `onChange` per change, `onState("live" | "reconnecting…")`.
 * Reconnects after 2 s when the stream ends.
 */
export function listenForChanges(onChange, onState) {
  const run = async () => {
    try {
      const res = await authorised("events");
      if (!res.ok || !res.body) throw new Error(String(res.status));
      onState("live");
      const reader = res.body.pipeThrough(new TextDecoderStream()).getReader();
      let buffer = "";
      for (;;) {
        const { value, done } = await reader.read();
        if (done) break;
        buffer += value;
        let end;
        while ((end = buffer.indexOf("\n\n")) >= 0) {
          const event = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          if (/^event: change$/m.test(event)) onChange();
        }
      }
    } catch (e) {
      if (e instanceof SignInNeeded) return onState("signed out");
    }
    onState("reconnecting…");
    setTimeout(run, 2000);
  };
  void run();
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
 * them within its data-anchor element) — so a keyboard user is not thrown elsewhere; a voice
 * note's player that was played (data-keep, data-played) is kept as it is, sound and all.
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
  // The field being typed in stays itself: its caret and selection too (a copy would put what is
  // typed next after the text the owner selected to replace). Handlers read fields by id.
  if (focused && active.matches("input, textarea, select") && node.contains(active)) {
    const f = fresh.querySelector(`#${CSS.escape(focused)}`);
    if (f && f.tagName === active.tagName) f.replaceWith(active);
  }
  // A player the reader has played stays itself (a new one would stop the sound, or never get
  // the note it is fetching); back in the page within this task, it is not paused.
  for (const old of node.querySelectorAll("[data-keep][data-played]")) {
    const f = fresh.querySelector(`[data-keep="${CSS.escape(old.dataset.keep)}"]`);
    if (f) f.replaceWith(old);
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
