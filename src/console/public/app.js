import {
  api,
  el,
  fill,
  links,
  listenForChanges,
  notice,
  post,
  refill,
  signInFromAddress,
  SignInNeeded,
  time,
  userText,
} from "./dom.js";
import { renderChat } from "./chat-page.js";
import { renderMedia, renderMemory } from "./edit-pages.js";
import { dayLine, geminiLine, renderNow, restrictionsLine } from "./now-page.js";
import { renderCosts, renderSummaries } from "./pages.js";

const main = document.getElementById("main");
let current = { page: "", persona: "", chat: "", lane: "", laneId: "", before: "" };
/**
 * Every load of a page takes a ticket; a load whose ticket is no longer the newest when its data
 * arrives is dropped, so a slow older load never overwrites the page the reader went to since.
 */
let ticket = 0;

/**
 * The address: `#<page>/<persona>/<chat>` then pairs — `topic/<id>` or `thread/<root>` (a filter),
 * `msg/<id>` or `plan/<n>` (a target), `before/<id>` (an older page).
 */
function route() {
  const [page = "now", persona = "", chat = "", ...rest] = location.hash
    .slice(1)
    .split("/")
    .map(decodeURIComponent);
  let lane = "";
  let laneId = "";
  let before = "";
  for (let i = 0; i + 1 < rest.length; i += 2) {
    if (rest[i] === "before") before = rest[i + 1];
    else if (!lane) [lane, laneId] = [rest[i], rest[i + 1]];
  }
  current = { page: page || "now", persona, chat, lane, laneId, before };
  for (const a of document.querySelectorAll("#nav a"))
    a.classList.toggle("active", a.dataset.page === (current.page === "chat" ? "chats" : current.page));
  show(false).catch(failed);
}

/** A load failed: without a session, the page that says how to sign in; else the error. */
function failed(e) {
  if (e instanceof SignInNeeded) {
    fill(main, signInPage(e.message));
    return;
  }
  notice(String(e.message ?? e), true);
}

/** How to sign in (static text: nothing of the personas). */
function signInPage(why) {
  return [
    el("h1", {}, "Sign in to the operator console"),
    el("p", {}, why),
    el(
      "ul",
      {},
      el(
        "li",
        {},
        "npm start logs a line “operator console: http://…/console/ (sign in once with ?token=<the secret in …/console-token>)”: ",
        "add ?token= and that file's content to this address once; on a terminal it prints the whole address. ",
        "After that this browser stays signed in (also after restarts) for 7 days from its last visit.",
      ),
      el("li", {}, "With HTTP_TOKEN set, sign in with ?token=<HTTP_TOKEN>."),
      el(
        "li",
        {},
        "The sandbox prints “sandbox: operator console on http://…/console/?token=…”: open that address (each run has its own).",
      ),
    ),
  ];
}

/** The route load in flight (its ticket), 0 when none: live updates wait for it. */
let loading = 0;
/** A live update came while a route was loading: it runs once that page is on screen. */
let liveWaiting = false;
/** The address (the `current` object) whose page is on screen. */
let onScreen;

/**
 * Load the page shown and put it on screen: a new route replaces the page (and scrolls to the
 * message or plan its address names); a live update patches it (refill: what is open stays open,
 * the view does not move). A live update never cancels a route's load — drawn by the patch, the
 * page would miss its scroll to the message or plan — it waits for it; and one that finds another
 * page on screen (a load that failed) draws the page whole.
 */
async function show(live) {
  if (live && loading) {
    liveWaiting = true;
    return;
  }
  const mine = ++ticket;
  if (!live) loading = mine;
  try {
    await draw(live, mine);
  } finally {
    if (loading === mine) {
      loading = 0;
      if (liveWaiting) {
        liveWaiting = false;
        onChange();
      }
    }
  }
}

async function draw(live, mine) {
  const stale = () => mine !== ticket;
  const at = current;
  const { page, persona, chat, lane, laneId, before } = at;
  let nodes;
  if (page === "now") nodes = await renderNow(persona, act);
  else if (page === "personas") nodes = await renderPersonas();
  else if (page === "chats") nodes = await renderChats(persona);
  else if (page === "chat") nodes = await renderChat(persona, chat, lane, laneId, before, act);
  else if (page === "costs") nodes = await renderCosts();
  else if (page === "summaries") nodes = await renderSummaries(persona);
  else if (page === "memory" || page === "media") {
    await (page === "memory" ? renderMemory : renderMedia)(main, persona, stale);
    if (!stale()) onScreen = at;
    return;
  } else nodes = [el("p", {}, `No page "${page}".`)];
  if (stale()) return; // the reader went elsewhere meanwhile
  if (live && onScreen === at) {
    refill(main, nodes);
    if (page === "chat") focusTarget(lane, laneId, false); // the mark stays; the view does not move
    return;
  }
  fill(main, nodes);
  onScreen = at;
  nodes.after?.(); // e.g. the costs chart, once its canvas is on the page
  if (page === "chat") focusTarget(lane, laneId);
  else window.scrollTo(0, 0);
}

/** A chat address that names a message (`/msg/12`) or a plan (`/plan/3`): scroll to it and mark it. */
function focusTarget(lane, id, scroll = true) {
  const target =
    lane === "msg"
      ? document.getElementById(`m-${id}`)
      : lane === "plan"
        ? document.querySelector(`.plan[data-plan-no="${CSS.escape(id)}"]`)
        : null;
  for (const old of document.querySelectorAll(".target")) old.classList.remove("target");
  if (target) {
    target.classList.add("target");
    if (!scroll) return;
    target.scrollIntoView({ block: "center" });
    target.querySelector("details.returned")?.setAttribute("open", "");
  } else if (scroll) {
    window.scrollTo(0, 0);
    // The page was loaded around it: it is not stored (retention deleted it) or not in this view.
    if (lane === "msg") notice(`message #${id} is not stored in this chat (or not in this view)`, true);
    else if (lane === "plan") notice(`plan ${id} is no longer stored in this chat`, true);
  }
}

async function act(body) {
  try {
    const r = await post("action", body);
    notice(r.answer ?? "done");
  } catch (e) {
    notice(String(e.message ?? e), true);
  }
  await show(true);
}

async function renderPersonas() {
  const { personas } = await api("personas");
  const cards = personas.map((p) =>
    el(
      "section",
      { class: "card persona", dataset: { persona: p.name } },
      el(
        "h2",
        { dataset: { anchor: `persona/${p.name}` } },
        userText(p.name, ""),
        " ",
        el(
          "span",
          { class: "muted" },
          `(${p.account.name ?? ""} ${p.account.username ? "@" + p.account.username : ""} · id ${p.account.id})`,
        ),
        " ",
        el("a", { href: links.now(p.name) }, "now"),
        " · ",
        el("a", { href: links.chats(p.name) }, "conversations"),
      ),
      el(
        "p",
        {},
        "Connection: ",
        el("b", { class: "conn" }, p.connection.state),
        p.connection.reason ? ` — ${p.connection.reason}` : "",
        restrictionsLine(p.restrictions),
        " · ",
        el("b", { class: "paused" }, p.paused ? "paused everywhere" : "answering"),
        " · mode ",
        el("b", {}, p.mode),
        p.modeIsDefault ? " (persona file)" : " (set by the owner)",
        " · pending tasks ",
        String(p.pendingTasks),
      ),
      el("p", { class: "gemini" }, "Gemini: ", geminiLine(p.gemini)),
      el("p", { class: "rhythm" }, "Today's rhythm: ", dayLine(p.day)),
      p.lastError
        ? el(
            "p",
            { class: "last-error" },
            "Last error: ",
            el("span", { class: "muted" }, time(p.lastError.at)),
            " ",
            userText(p.lastError.text, "warn"),
          )
        : el("p", { class: "muted last-error" }, "No error since the start."),
      el(
        "p",
        {},
        el(
          "button",
          {
            class: "pause-all",
            onclick: () => act({ persona: p.name, action: p.paused ? "resume" : "pause" }),
          },
          p.paused ? "Resume everywhere" : "Pause everywhere",
        ),
        ...["strict", "smart", "talkative"].map((m) =>
          el(
            "button",
            {
              class: `mode${p.mode === m ? " active" : ""}`,
              "aria-pressed": p.mode === m ? "true" : "false",
              onclick: () => act({ persona: p.name, action: "mode", mode: m }),
            },
            `Default mode ${m}`,
          ),
        ),
      ),
      el("h3", { dataset: { anchor: `today/${p.name}` } }, `Today (${p.today.day} UTC)`),
      el(
        "p",
        {},
        `answers: ${p.today.answers} · tokens: ${p.today.totalTokens.toLocaleString("en-US")} of ${p.today.dailyTokenBudget.toLocaleString("en-US")} · cost $${p.today.costUsd.toFixed(4)}${p.today.costByProvider ? ` (${p.today.costByProvider.map((c) => `${c.provider} $${c.costUsd.toFixed(4)}${c.unpriced.length ? " + unpriced" : ""}`).join(", ")})` : ""}`,
      ),
      el(
        "div",
        { class: "scroll" },
        el(
          "table",
          {},
          el(
            "tr",
            {},
            el("th", {}, "purpose"),
            el("th", {}, "calls"),
            el("th", {}, "tokens"),
            el("th", {}, "cost"),
          ),
          p.today.purposes.map((r) =>
            el(
              "tr",
              {},
              el("td", {}, r.purpose),
              el("td", {}, String(r.calls)),
              el("td", {}, String(r.tokens)),
              el("td", {}, `$${r.costUsd.toFixed(4)}`),
            ),
          ),
        ),
      ),
      el("h3", { dataset: { anchor: `caps/${p.name}` } }, "Caps reached"),
      p.capped.length
        ? el(
            "ul",
            {},
            p.capped.map((c) =>
              el(
                "li",
                {},
                `${c.cap} in `,
                el("a", { href: links.chat(p.name, c.chatId) }, c.chatId),
                ` since ${time(c.at)}`,
              ),
            ),
          )
        : el("p", { class: "muted" }, "none"),
      el("h3", { dataset: { anchor: `chats/${p.name}` } }, "Chats with their own settings"),
      p.chats.length
        ? el(
            "div",
            { class: "scroll" },
            el(
              "table",
              {},
              p.chats.map((c) =>
                el(
                  "tr",
                  { dataset: { chat: c.chatId, anchor: `chat/${p.name}/${c.chatId}` } },
                  el(
                    "td",
                    {},
                    el("a", { href: links.chat(p.name, c.chatId) }, userText(c.title ?? c.chatId, "")),
                  ),
                  el("td", {}, c.paused ? "paused" : "answering"),
                  el("td", {}, c.mode ?? ""),
                  el("td", {}, c.silentUntil ? `silent until ${time(c.silentUntil)}` : ""),
                  el(
                    "td",
                    {},
                    el(
                      "button",
                      {
                        onclick: () =>
                          act({ persona: p.name, action: c.paused ? "resume" : "pause", chat: c.chatId }),
                      },
                      c.paused ? "Resume" : "Pause",
                    ),
                  ),
                ),
              ),
            ),
          )
        : el("p", { class: "muted" }, "none (pause or set a mode on a chat from its conversation page)"),
    ),
  );
  return cards.length ? cards : [el("p", {}, "No persona is running.")];
}

async function renderChats(persona) {
  const { personas } = await api("personas");
  const name = persona || personas[0]?.name || "";
  const { chats } = await api(`chats?persona=${encodeURIComponent(name)}`);
  return [
    el(
      "p",
      {},
      "Persona: ",
      ...personas.map((p) =>
        el(
          "a",
          { href: links.chats(p.name), class: p.name === name ? "active" : "" },
          userText(p.name, ""),
          " ",
        ),
      ),
    ),
    el(
      "div",
      { class: "scroll" },
      el(
        "table",
        { id: "chats" },
        el(
          "tr",
          {},
          el("th", {}, "chat"),
          el("th", {}, "type"),
          el("th", {}, "last"),
          el("th", {}, "message"),
        ),
        chats.map((c) =>
          el(
            "tr",
            { class: "chatrow", dataset: { chat: c.chatId, anchor: `c${c.chatId}` } },
            // A real link: reachable with Tab, opens in a new tab, can be bookmarked.
            el(
              "td",
              {},
              el(
                "a",
                { class: "chatlink", href: links.chat(name, c.chatId) },
                userText(c.title ?? (c.username ? "@" + c.username : c.chatId), ""),
              ),
            ),
            el("td", {}, c.chatType),
            el("td", {}, time(c.lastDate)),
            el("td", {}, userText(c.lastSender, ""), ": ", userText(c.lastText)),
          ),
        ),
      ),
    ),
  ];
}

// Live: one event stream; a change patches the page shown (at most every 300 ms).
let pending = false;
function onChange() {
  if (pending) return;
  pending = true;
  setTimeout(() => {
    pending = false;
    if (["now", "personas", "chats", "chat"].includes(current.page)) show(true).catch(failed);
  }, 300);
}
function listen() {
  const live = document.getElementById("live");
  listenForChanges(onChange, (state) => (live.textContent = state));
}

window.addEventListener("hashchange", route);
signInFromAddress().then((error) => {
  if (error) return fill(main, signInPage(error));
  listen();
  route();
}, failed);
