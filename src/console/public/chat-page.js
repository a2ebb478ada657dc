// One chat: its state and switches, its messages newest first, each with why it was or was not
// answered and, beside it, the plan that answered it. Every piece of data goes in as text.
import { api, el, links } from "./dom.js";
import { chatHead } from "./chat-head.js";
import { messageView } from "./message-view.js";
import { planView } from "./plan-view.js";

/**
 * A chat's page: its newest messages, or those below `before`, or — for a `msg/<id>` or
 * `plan/<n>` address — the page around that message (or the message that plan answered).
 */
export async function renderChat(persona, chatId, lane, laneId, before, act) {
  const filtered = (lane === "topic" || lane === "thread") && /^\d+$/.test(laneId);
  const filter = filtered ? `&${lane}=${laneId}` : "";
  const target =
    lane === "msg" && /^\d+$/.test(laneId)
      ? `&around=${laneId}`
      : lane === "plan" && /^\d+$/.test(laneId)
        ? `&plan=${laneId}`
        : "";
  const below = /^\d+$/.test(before) && !target ? `&before=${before}` : "";
  const v = await api(
    `chat?persona=${encodeURIComponent(persona)}&chat=${encodeURIComponent(chatId)}${filter}${target}${below}`,
  );
  // The same view (its filter kept), newest messages or below a message.
  const here = filtered ? links.lane(persona, chatId, lane, laneId) : links.chat(persona, chatId);
  const byId = new Map(v.messages.map((m) => [m.messageId, m]));
  const head = chatHead(persona, chatId, v, act);
  const plansFor = new Map();
  for (const p of v.plans)
    if (p.answers !== null && byId.has(p.answers))
      plansFor.set(p.answers, [...(plansFor.get(p.answers) ?? []), p]);
  const newestShown = v.messages.length ? v.messages[v.messages.length - 1].messageId : 0;
  // Plans whose message is not on the page: on an older page, not those of newer messages.
  const elsewhere = v.plans.filter(
    (p) => p.answers === null || (!byId.has(p.answers) && (v.page.newest || p.answers < newestShown)),
  );
  // Newest first: what just happened is at the top.
  const newestFirst = [...v.messages].reverse();
  const list = el(
    "section",
    { id: "messages" },
    el(
      "p",
      { class: "muted", id: "page-head" },
      `Newest first · ${v.messages.length} messages`,
      v.messages.length ? ` (#${v.messages[0].messageId}–#${newestShown})` : "",
      v.page.newest ? "" : [" · ", el("a", { id: "newest", href: here }, "newest messages")],
    ),
    newestFirst.map((m) => {
      const message = messageView(persona, chatId, m, byId);
      const beside = plansFor.get(m.messageId) ?? [];
      return el(
        "div",
        { class: "row", dataset: { anchor: `m${m.messageId}` } },
        message,
        el(
          "div",
          { class: "beside" },
          beside.map((p) => planView(persona, chatId, p)),
        ),
      );
    }),
  );
  // Older messages: the page below this one's oldest message, as a link (bookmark, new tab).
  const olderLink =
    v.page.older && v.messages.length
      ? el(
          "p",
          { class: "page-nav" },
          el("a", { id: "older", href: `${here}/before/${v.messages[0].messageId}` }, "older messages"),
        )
      : null;
  const other = elsewhere.length
    ? el(
        "section",
        { id: "other-plans" },
        el("h3", {}, "Plans for messages not on this page"),
        elsewhere.map((p) => planView(persona, chatId, p)),
      )
    : null;
  return [head, list, olderLink, other];
}
