import { api, el, fill, notice, post, time, userText } from "./dom.js";
import { renderMedia, renderMemory } from "./edit-pages.js";
import { renderCosts, renderSummaries } from "./pages.js";

const main = document.getElementById("main");
let current = { page: "", persona: "", chat: "", lane: "", laneId: "" };

function route() {
  const [page = "personas", persona = "", chat = "", lane = "", laneId = ""] = location.hash
    .slice(1)
    .split("/")
    .map(decodeURIComponent);
  current = { page, persona, chat, lane, laneId };
  for (const a of document.querySelectorAll("#nav a"))
    a.classList.toggle("active", a.dataset.page === (page === "chat" ? "chats" : page));
  render().catch((e) => notice(String(e.message ?? e), true));
}

async function render() {
  const { page, persona, chat, lane, laneId } = current;
  if (page === "chats") return renderChats(persona);
  if (page === "chat") return renderChat(persona, chat, lane, laneId);
  if (page === "memory") return renderMemory(main, persona);
  if (page === "media") return renderMedia(main, persona);
  if (page === "costs") return renderCosts(main);
  if (page === "summaries") return renderSummaries(main, persona);
  return renderPersonas();
}

async function act(body) {
  try {
    const r = await post("action", body);
    notice(r.answer ?? "done");
  } catch (e) {
    notice(String(e.message ?? e), true);
  }
  await render();
}

const chatLink = (persona, chatId) => `#chat/${encodeURIComponent(persona)}/${encodeURIComponent(chatId)}`;
/** One forum topic ("topic") or one reply thread ("thread") of a chat. */
const laneLink = (persona, chatId, lane, id) =>
  `${chatLink(persona, chatId)}/${lane}/${encodeURIComponent(id)}`;

async function renderPersonas() {
  const { personas } = await api("personas");
  const cards = personas.map((p) =>
    el(
      "section",
      { class: "card persona", dataset: { persona: p.name } },
      el(
        "h2",
        {},
        userText(p.name, ""),
        " ",
        el(
          "span",
          { class: "muted" },
          `(${p.account.name ?? ""} ${p.account.username ? "@" + p.account.username : ""} · id ${p.account.id})`,
        ),
      ),
      el(
        "p",
        {},
        "Connection: ",
        el("b", { class: "conn" }, p.connection.state),
        p.connection.reason ? ` — ${p.connection.reason}` : "",
        " · ",
        el("b", { class: "paused" }, p.paused ? "paused everywhere" : "answering"),
        " · mode ",
        el("b", {}, p.mode),
        p.modeIsDefault ? " (persona default)" : "",
        " · pending tasks ",
        String(p.pendingTasks),
      ),
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
            { onclick: () => act({ persona: p.name, action: "mode", mode: m }) },
            `Default mode ${m}`,
          ),
        ),
      ),
      el("h3", {}, `Today (${p.today.day} UTC)`),
      el(
        "p",
        {},
        `answers: ${p.today.answers} · tokens: ${p.today.totalTokens.toLocaleString("en-US")} of ${p.today.dailyTokenBudget.toLocaleString("en-US")} · cost $${p.today.costUsd.toFixed(4)}`,
      ),
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
      el("h3", {}, "Caps reached"),
      p.capped.length
        ? el(
            "ul",
            {},
            p.capped.map((c) => el("li", {}, `${c.cap} in ${c.chatId} since ${time(c.at)}`)),
          )
        : el("p", { class: "muted" }, "none"),
      el("h3", {}, "Chats with their own settings"),
      p.chats.length
        ? el(
            "table",
            {},
            p.chats.map((c) =>
              el(
                "tr",
                { dataset: { chat: c.chatId } },
                el(
                  "td",
                  {},
                  el("a", { href: chatLink(p.name, c.chatId) }, userText(c.title ?? c.chatId, "")),
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
          )
        : el("p", { class: "muted" }, "none (pause or set a mode on a chat from its conversation page)"),
    ),
  );
  fill(main, ...(cards.length ? cards : [el("p", {}, "No persona is running.")]));
}

async function renderChats(persona) {
  const { personas } = await api("personas");
  const name = persona || personas[0]?.name || "";
  const { chats } = await api(`chats?persona=${encodeURIComponent(name)}`);
  fill(
    main,
    el(
      "p",
      {},
      "Persona: ",
      ...personas.map((p) =>
        el(
          "a",
          { href: `#chats/${encodeURIComponent(p.name)}`, class: p.name === name ? "active" : "" },
          userText(p.name, ""),
          " ",
        ),
      ),
    ),
    el(
      "table",
      { id: "chats" },
      el("tr", {}, el("th", {}, "chat"), el("th", {}, "type"), el("th", {}, "last"), el("th", {}, "message")),
      chats.map((c) =>
        el(
          "tr",
          {
            class: "chatrow",
            dataset: { chat: c.chatId },
            onclick: () => (location.hash = chatLink(name, c.chatId)),
          },
          el("td", {}, userText(c.title ?? (c.username ? "@" + c.username : c.chatId), "")),
          el("td", {}, c.chatType),
          el("td", {}, time(c.lastDate)),
          el("td", {}, userText(c.lastSender, ""), ": ", userText(c.lastText)),
        ),
      ),
    ),
  );
}

function mediaPart(m) {
  if (!m) return null;
  const d = m.description;
  const what = [m.kind, m.sticker ? m.sticker.emoji : "", m.name ?? "", m.duration ? `${m.duration}s` : ""]
    .filter(Boolean)
    .join(" ");
  return el(
    "div",
    { class: "media" },
    "[",
    what,
    "] ",
    d
      ? d.status === "ok"
        ? userText(d.description ?? "")
        : el("i", {}, `unsupported: ${d.description ?? ""}`)
      : el("span", { class: "muted" }, "not described"),
  );
}

async function renderChat(persona, chatId, lane, laneId) {
  const filter = (lane === "topic" || lane === "thread") && /^\d+$/.test(laneId) ? `&${lane}=${laneId}` : "";
  const v = await api(
    `chat?persona=${encodeURIComponent(persona)}&chat=${encodeURIComponent(chatId)}${filter}`,
  );
  const byId = new Map(v.messages.map((m) => [m.messageId, m]));
  const s = v.settings;
  const title = v.chat.title ?? (v.chat.username ? "@" + v.chat.username : v.chat.chatId);
  const minutes = el("input", {
    type: "number",
    min: "1",
    max: "10080",
    value: "30",
    id: "silence-minutes",
    size: "5",
  });
  const head = el(
    "section",
    { class: "card" },
    el(
      "h2",
      {},
      userText(title, ""),
      el("span", { class: "muted" }, ` · ${v.chat.chatType} · ${v.chat.chatId}`),
    ),
    el(
      "p",
      { id: "chat-state" },
      s.pausedEverywhere ? "paused everywhere · " : "",
      s.paused ? "paused in this chat" : "answering in this chat",
      s.mode ? ` · mode ${s.mode}` : "",
      s.silentUntil ? ` · silent until ${time(s.silentUntil)}` : "",
    ),
    el(
      "p",
      {},
      el(
        "button",
        {
          id: "pause-chat",
          onclick: () => act({ persona, action: s.paused ? "resume" : "pause", chat: chatId }),
        },
        s.paused ? "Resume this chat" : "Pause this chat",
      ),
      ...["strict", "smart", "talkative"].map((m) =>
        el("button", { onclick: () => act({ persona, action: "mode", mode: m, chat: chatId }) }, `Mode ${m}`),
      ),
      el(
        "button",
        { id: "forget", onclick: () => act({ persona, action: "forget", chat: chatId }) },
        "Cancel the pending plan",
      ),
      " Silence for ",
      minutes,
      " min ",
      el(
        "button",
        {
          id: "silence",
          onclick: () => act({ persona, action: "silence", chat: chatId, minutes: Number(minutes.value) }),
        },
        "Silence",
      ),
    ),
    v.topics.length
      ? el(
          "p",
          { id: "topics" },
          "Topics: ",
          el("a", { href: chatLink(persona, chatId), class: v.lane ? "" : "active" }, "all"),
          v.topics.flatMap((t) => [
            " · ",
            el(
              "a",
              {
                href: laneLink(persona, chatId, "topic", t.topicId),
                class: v.lane?.topicId === t.topicId ? "active" : "",
                dataset: { topic: String(t.topicId) },
              },
              // A topic's title is its creator's text.
              userText(t.name, ""),
            ),
            el("span", { class: "muted" }, ` (${t.messages})`),
          ]),
        )
      : null,
    v.lane
      ? el(
          "p",
          { id: "lane" },
          "Showing ",
          v.lane.topicId !== undefined
            ? [
                "only ",
                userText(
                  v.topics.find((t) => t.topicId === v.lane.topicId)?.name ?? `topic #${v.lane.topicId}`,
                  "",
                ),
              ]
            : `only the reply thread of #${v.lane.threadRoot}`,
          " · ",
          el("a", { href: chatLink(persona, chatId) }, "show the whole chat"),
        )
      : null,
    v.openTasks.length
      ? el(
          "p",
          { class: "muted" },
          `open tasks: ${v.openTasks.map((t) => `#${t.id} ${t.kind} ${t.status}`).join(", ")}`,
        )
      : null,
  );
  const list = el(
    "section",
    { id: "messages" },
    v.messages.map((m) => {
      const cls = [
        "msg",
        m.isAgent ? "persona" : "",
        m.why.answered === true ? "answered" : m.why.answered === false ? "silent" : "",
      ].join(" ");
      const parent = m.replyToId !== null ? byId.get(m.replyToId) : undefined;
      return el(
        "div",
        { class: cls, dataset: { messageId: String(m.messageId) } },
        el(
          "div",
          { class: "muted" },
          `#${m.messageId} · ${time(m.date)} · `,
          userText(m.senderName, "sender"),
          m.topicId !== null
            ? [
                " · ",
                el(
                  "a",
                  { class: "topic", href: laneLink(persona, chatId, "topic", m.topicId) },
                  userText(m.topicName, ""),
                ),
              ]
            : "",
          m.threadRoot !== null
            ? [
                " · ",
                el(
                  "a",
                  { class: "thread", href: laneLink(persona, chatId, "thread", m.threadRoot) },
                  `thread of #${m.threadRoot}`,
                ),
              ]
            : "",
          m.deleted ? " · deleted" : "",
        ),
        m.replyToId !== null
          ? el(
              "div",
              { class: "muted reply" },
              `↪ reply to #${m.replyToId}`,
              parent ? [": ", userText(parent.text.slice(0, 80), "")] : "",
            )
          : null,
        mediaPart(m.media),
        el("div", {}, userText(m.text)),
        m.reactions.length
          ? el(
              "div",
              { class: "muted" },
              m.reactions.map((r) => `${r.emoji}${r.byPersona ? " (persona)" : ""} `),
            )
          : null,
        el(
          "div",
          { class: `why${m.why.exact ? "" : " derived"}` },
          "why: ",
          m.why.text,
          m.why.exact ? "" : " (derived)",
        ),
      );
    }),
  );
  const plans = el(
    "section",
    { id: "plans" },
    el("h3", {}, "Plans"),
    v.plans.length === 0 ? el("p", { class: "muted" }, "none in this page") : null,
    v.plans.map((p) =>
      el(
        "div",
        { class: "plan", dataset: { planId: String(p.id) } },
        el("b", {}, `plan #${p.id} · ${p.status}`),
        ` · for ${p.messages.map((i) => "#" + i).join(", ")} · ${time(p.createdAt)}`,
        p.error ? el("div", { class: "why" }, p.error) : null,
        p.usage.length
          ? el(
              "div",
              {},
              p.usage
                .map(
                  (u) =>
                    `${u.model}: ${u.promptTokens} in + ${u.outputTokens} out + ${u.thinkingTokens} thinking tokens${u.costUsd !== null ? `, $${u.costUsd.toFixed(5)}` : ""}`,
                )
                .join("; "),
            )
          : null,
        p.request
          ? el(
              "details",
              { class: "request" },
              el("summary", {}, "request"),
              el("h4", {}, "system instruction"),
              el("pre", { class: "system" }, p.request.system ?? ""),
              el("h4", {}, "user turn"),
              (p.request.parts ?? []).map((t) => el("pre", { class: "part" }, t)),
              el("h4", {}, "answer schema: task kinds"),
              el("p", { class: "kinds" }, (p.request.kinds ?? []).join(", ")),
            )
          : el("div", { class: "muted" }, "request not stored for this plan"),
        p.plan
          ? el(
              "details",
              { class: "returned", open: "" },
              el("summary", {}, p.plan.silent ? `no usable plan: ${p.plan.silent}` : "plan returned"),
              el("pre", {}, JSON.stringify(p.plan, null, 2)),
            )
          : null,
        el(
          "ul",
          { class: "tasks" },
          p.tasks.map((t) =>
            el(
              "li",
              {},
              `#${t.id} ${t.kind} — ${t.status}${t.error ? ` (${t.error})` : ""} `,
              t.payload.text !== undefined ? userText(String(t.payload.text)) : "",
            ),
          ),
        ),
      ),
    ),
  );
  fill(main, head, el("div", { class: "cols" }, list, plans));
}

// Live: one event stream; a change re-renders the page shown (at most twice a second).
let pending = false;
function onChange() {
  if (pending) return;
  pending = true;
  setTimeout(() => {
    pending = false;
    if (["personas", "chats", "chat"].includes(current.page))
      render().catch((e) => notice(String(e.message ?? e), true));
  }, 300);
}
function listen() {
  const es = new EventSource("api/events");
  const live = document.getElementById("live");
  es.onopen = () => (live.textContent = "live");
  es.onerror = () => (live.textContent = "reconnecting…");
  es.addEventListener("change", onChange);
}

window.addEventListener("hashchange", route);
listen();
route();
