// "Now": per persona, what it is doing (open tasks per chat with their timers, each cancellable),
// Telegram's and Gemini's state, the last errors, and the live activity feed.
import { api, el, inTime, links, time, userText } from "./dom.js";

const KIND_LABEL = {
  plan: "plan",
  send: "sent",
  sticker: "sticker",
  reaction: "reaction",
  cancelled: "cancelled",
  refusal: "refused",
  cap: "cap",
  "catch-up": "catch-up",
  intention: "intention",
  error: "error",
};

/** The persona's day in one line: local time, awake / busy / asleep and until when, its ranges, online. */
export function dayLine(d) {
  const doing =
    d.state === "asleep" ? "asleep" : d.state === "busy" ? `busy (${d.level ?? "slow"})` : "awake";
  return el(
    "span",
    { class: `day ${d.state}`, dataset: { state: d.state } },
    `it is ${d.local} (${d.timeZone}): `,
    el("b", { class: "doing" }, doing),
    d.untilLocal ? ` until ${d.untilLocal.slice(11)}` : "",
    " · sleeps ",
    d.sleep ?? "never",
    d.busy.length ? ` · busy ${d.busy.join(", ")}` : "",
    " · ",
    // Presence (what others see in Telegram), not the connection: said so beside "Telegram: connected".
    el("b", { class: "online" }, d.online ? "presence: online" : "presence: offline"),
  );
}

const STATE_LABEL = {
  pending: "pending",
  firing: "planning now",
  fired: "fired",
  skipped: "skipped",
  missed: "missed",
  cancelled: "cancelled",
  refused: "refused",
};

function intentionRow(p, i, act) {
  const when =
    i.state === "pending"
      ? i.notBefore !== i.dueAt
        ? `${i.dueLocal}, looked at again ${time(i.notBefore)} (${inTime(i.inSec)})`
        : `${i.dueLocal} (${inTime(i.inSec)})`
      : i.dueLocal;
  const state = `${STATE_LABEL[i.state] ?? i.state}${i.state === "fired" ? (i.spoke ? ", wrote" : ", said nothing") : ""}`;
  let field;
  return el(
    "tr",
    { class: `intention ${i.state}`, dataset: { intentionId: String(i.id), state: i.state } },
    el("td", {}, `#${i.id}`),
    el("td", {}, chatLabel(p.name, i.chatId, i.title)),
    el("td", { class: "due" }, when),
    el(
      "td",
      { class: "state" },
      state,
      i.reason ? el("div", { class: "muted reason" }, userText(i.reason, "")) : "",
    ),
    el(
      "td",
      { class: "note" },
      userText(i.note, ""),
      i.inReplyTo !== null
        ? el(
            "div",
            { class: "muted set-by" },
            "set answering ",
            el("a", { href: links.message(p.name, i.chatId, i.inReplyTo) }, `#${i.inReplyTo}`),
          )
        : "",
    ),
    el(
      "td",
      {},
      i.state === "pending"
        ? [
            el(
              "button",
              {
                class: "cancel-intention",
                "aria-label": `cancel intention #${i.id}`,
                onclick: () => act({ persona: p.name, action: "cancel-intention", intention: i.id }),
              },
              "Cancel",
            ),
            " ",
            (field = el("input", {
              // An id, so a live refresh keeps what the owner is typing (dom.js refill).
              id: `reschedule-at-${p.name}-${i.id}`,
              class: "reschedule-at",
              "aria-label": `new time for intention #${i.id} (YYYY-MM-DD HH:MM, ${p.day.timeZone})`,
              value: i.dueLocal,
              size: "16",
            })),
            el(
              "button",
              {
                class: "reschedule-intention",
                onclick: () =>
                  act({
                    persona: p.name,
                    action: "reschedule-intention",
                    intention: i.id,
                    // By id: a live refresh keeps the field being typed in itself (dom.js refill).
                    at: document.getElementById(field.id).value,
                  }),
              },
              "Reschedule",
            ),
          ]
        : "",
    ),
  );
}

function intentionsPart(p, act) {
  const own = p.intentions;
  const rows = [...own.pending, ...own.ended];
  return [
    el("h3", { dataset: { anchor: `intentions/${p.name}` } }, `Intentions (${own.total} pending)`),
    rows.length === 0
      ? el("p", { class: "muted", id: "no-intentions" }, "none: it has set itself nothing to do later")
      : el(
          "div",
          { class: "scroll" },
          el(
            "table",
            { class: "intentions" },
            el(
              "tr",
              {},
              ["id", "chat", "due", "state", "what it means to do", ""].map((h) => el("th", {}, h)),
            ),
            rows.map((i) => intentionRow(p, i, act)),
          ),
          own.total > own.pending.length
            ? el(
                "p",
                { class: "muted" },
                `… and ${own.total - own.pending.length} more pending (the soonest are listed)`,
              )
            : null,
        ),
  ];
}

export function geminiLine(g) {
  if (g.keyless) return el("span", { class: "muted" }, "no Gemini key (dry or offline planner)");
  if (g.down.length)
    return el(
      "span",
      { class: "warn gemini-down" },
      g.down
        .map(
          (d) =>
            `${d.model} failing since ${time(d.since)} (${d.failures} failures: ${d.lastError}); next try ${time(d.nextTryAt)}${d.waiting ? `; ${d.waiting} plan(s) waiting` : ""}`,
        )
        .join(" · "),
    );
  return el(
    "span",
    { class: "gemini-up" },
    "answering",
    g.lastEnded
      ? el("span", { class: "muted" }, ` (last outage ended ${time(g.lastEnded.endedAt ?? g.lastEnded.at)})`)
      : "",
  );
}

/** Telegram's restrictions of the account (frozen, PEER_FLOOD): one small read-out, or nothing. */
export function restrictionsLine(restrictions) {
  if (!restrictions?.length) return "";
  return [
    " · ",
    el(
      "span",
      { class: "warn restricted" },
      restrictions
        .map((r) => `${r.kind === "frozen" ? "account frozen" : "PEER_FLOOD"}: ${r.summary}`)
        .join(" · "),
    ),
  ];
}

function chatLabel(persona, chatId, title) {
  return el("a", { href: links.chat(persona, chatId) }, userText(title ?? chatId, ""));
}

/**
 * The server's clock minus the browser's, as of the last view: timers count down from the
 * server's time (a task's `due` is on its clock), so a browser clock set wrong does not matter.
 */
let clockOffset = 0;
/** Each timer cell on the page and the task it counts for. */
const timers = new WeakMap();

/** A timer's text, `sec` seconds before the task's next moment. */
function timerText(t, sec) {
  if (t.status === "running") return t.until ? `running, until ${time(t.until)} (${inTime(sec)})` : "running";
  if (t.until) return `until ${time(t.until)} (${inTime(sec)})`;
  if (sec > 0) return `starts ${inTime(sec)} (${time(t.notBefore)})`;
  return t.dependsOn.length ? `after #${t.dependsOn.join(", #")}` : "due";
}

const secondsTo = (due) => Math.max(0, Math.round((due - (Date.now() + clockOffset)) / 1000));

// Once a second, every timer on the page counts down (no request: from the last view's clock).
setInterval(() => {
  for (const cell of document.querySelectorAll("td.timer")) {
    const t = timers.get(cell);
    if (t) cell.textContent = timerText(t, secondsTo(t.due));
  }
}, 1000);

function taskRow(p, c, t, act) {
  const timer = el("td", { class: "timer" }, timerText(t, secondsTo(t.due)));
  timers.set(timer, t);
  return el(
    "tr",
    { class: "open-task", dataset: { taskId: String(t.id), kind: t.kind, anchor: `t${t.id}` } },
    el("td", {}, `#${t.id}`),
    el("td", { class: "kind" }, t.kind),
    el("td", { class: "what" }, userText(t.what, "")),
    timer,
    el(
      "td",
      {},
      t.attempts > 0 ? `attempt ${t.attempts}` : "",
      t.inDoubt ? " · in doubt (may have reached the server)" : "",
      t.error ? el("div", { class: "warn" }, t.error) : null,
    ),
    el(
      "td",
      {},
      t.planNo !== null && !c.summary
        ? el("a", { href: links.plan(p.name, c.chatId, t.planNo) }, `plan ${t.planNo}`)
        : "",
    ),
    el(
      "td",
      {},
      el(
        "button",
        {
          class: "cancel-task",
          "aria-label": `cancel task #${t.id}`,
          onclick: () => act({ persona: p.name, action: "cancel-task", task: t.id }),
        },
        "Cancel",
      ),
    ),
  );
}

function eventRow(p, e) {
  const where = e.chatId && !e.chatId.startsWith("summary:") ? chatLabel(p.name, e.chatId, e.chatTitle) : "";
  const target =
    e.chatId && e.planNo !== undefined && e.planNo !== null
      ? el("a", { class: "goto", href: links.plan(p.name, e.chatId, e.planNo) }, `plan ${e.planNo}`)
      : e.chatId && e.messageId !== undefined
        ? el("a", { class: "goto", href: links.message(p.name, e.chatId, e.messageId) }, `#${e.messageId}`)
        : "";
  return el(
    "li",
    { class: `event ${e.kind}`, dataset: { kind: e.kind, anchor: `e${p.name}/${e.seq}` } },
    el("span", { class: "muted" }, time(e.at)),
    " ",
    el("span", { class: "badge" }, KIND_LABEL[e.kind] ?? e.kind),
    " ",
    where,
    where ? " · " : "",
    userText(e.text, ""),
    target ? [" · ", target] : "",
  );
}

export async function renderNow(persona, act) {
  const { personas } = await api(`now${persona ? `?persona=${encodeURIComponent(persona)}` : ""}`);
  if (personas.length === 0) return [el("p", {}, "No persona is running.")];
  clockOffset = personas[0].now - Date.now();
  return personas.map((p) =>
    el(
      "section",
      { class: "card now", dataset: { persona: p.name } },
      el("h2", { dataset: { anchor: `now/${p.name}` } }, "Now: ", userText(p.name, "")),
      el(
        "p",
        {},
        "Telegram: ",
        el("b", { class: "conn" }, p.connection.state),
        p.connection.reason ? ` — ${p.connection.reason}` : "",
        restrictionsLine(p.restrictions),
        " · Gemini: ",
        geminiLine(p.gemini),
        p.paused ? [" · ", el("b", { class: "warn" }, "paused everywhere")] : "",
      ),
      el("p", {}, "Its day: ", dayLine(p.day)),
      p.errors.length || p.lastError
        ? el(
            "div",
            { class: "errors" },
            el("h3", {}, "Last errors"),
            el(
              "ul",
              {},
              (p.errors.length ? p.errors : [{ at: p.lastError.at, text: p.lastError.text }]).map((e) =>
                el("li", {}, el("span", { class: "muted" }, time(e.at)), " ", userText(e.text, "")),
              ),
            ),
          )
        : null,
      el("h3", { dataset: { anchor: `tasks/${p.name}` } }, "Open tasks"),
      p.chats.length === 0
        ? el("p", { class: "muted", id: "no-open-tasks" }, "nothing pending")
        : p.chats.map((c) =>
            el(
              "div",
              { class: "open-chat scroll", dataset: { chat: c.chatId } },
              el(
                "h4",
                { dataset: { anchor: `chat/${p.name}/${c.chatId}` } },
                c.summary
                  ? `summary ${c.chatId.slice("summary:".length)}`
                  : chatLabel(p.name, c.chatId, c.title),
              ),
              el(
                "table",
                { class: "open-tasks" },
                el(
                  "tr",
                  {},
                  ["task", "kind", "what", "timer", "tries", "plan", ""].map((h) => el("th", {}, h)),
                ),
                c.tasks.map((t) => taskRow(p, c, t, act)),
              ),
            ),
          ),
      ...intentionsPart(p, act),
      el("h3", { dataset: { anchor: `activity/${p.name}` } }, "Activity"),
      p.activity.length === 0
        ? el("p", { class: "muted" }, "nothing yet since the start")
        : el(
            "ul",
            { class: "activity" },
            p.activity.map((e) => eventRow(p, e)),
          ),
    ),
  );
}
