// One message of a chat: who wrote it when, where (topic, thread), what it replies to, its media
// (her voice notes played from Telegram on demand), its reactions, and why it was or was not
// answered, linking the plan that answered it.
import { apiAudio, el, links, time, userText } from "./dom.js";

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

/** The message `m` as an article; `byId` holds the messages on the page (the one it replies to). */
export function messageView(persona, chatId, m, byId) {
  const cls = [
    "msg",
    m.byOwner ? "owner" : m.isAgent ? "persona" : "",
    m.why.answered === true ? "answered" : m.why.answered === false ? "silent" : "",
  ].join(" ");
  const parent = m.replyToId !== null ? byId.get(m.replyToId) : undefined;
  const why = m.why;
  return el(
    "article",
    { class: cls, id: `m-${m.messageId}`, dataset: { messageId: String(m.messageId) } },
    el(
      "div",
      { class: "muted" },
      el("a", { class: "permalink", href: links.message(persona, chatId, m.messageId) }, `#${m.messageId}`),
      ` · ${time(m.date)} · `,
      userText(m.senderName, "sender"),
      m.topicId !== null
        ? [
            " · ",
            el(
              "a",
              { class: "topic", href: links.lane(persona, chatId, "topic", m.topicId) },
              userText(m.topicName, ""),
            ),
          ]
        : "",
      m.threadRoot !== null
        ? [
            " · ",
            el(
              "a",
              { class: "thread", href: links.lane(persona, chatId, "thread", m.threadRoot) },
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
          "↪ reply to ",
          el("a", { href: links.message(persona, chatId, m.replyToId) }, `#${m.replyToId}`),
          parent ? [": ", userText(parent.text.slice(0, 80), "")] : "",
        )
      : m.replyElsewhere
        ? el(
            "div",
            { class: "muted reply" },
            "↪ reply to a message in another chat",
            m.quote ? [": ", userText(m.quote.slice(0, 80), "")] : "",
          )
        : null,
    mediaPart(m.media),
    // Her voice notes (stored as their words, "[voice 3 s] …"): played from Telegram on demand.
    m.isAgent && /^\[voice [\d:]+( s)?\]/.test(m.text)
      ? el(
          "div",
          { class: "voice-note" },
          apiAudio(
            `voice?persona=${encodeURIComponent(persona)}&chat=${encodeURIComponent(chatId)}&msg=${m.messageId}`,
          ),
        )
      : null,
    // A caption-less media message's text is its placeholder ("[photo]"): the media line says it.
    m.media && /^\[[^\]]*\]$/.test(m.text.trim()) ? null : el("div", {}, userText(m.text)),
    m.reactions.length
      ? el(
          "div",
          { class: "muted" },
          m.reactions.map((r) => `${r.emoji}${r.byPersona ? " (persona)" : ""} `),
        )
      : null,
    el(
      "div",
      { class: `why${why.exact ? "" : " derived"}` },
      "why: ",
      why.text,
      why.exact ? "" : " (derived)",
      why.plan
        ? [
            " · ",
            why.plan.no !== null
              ? el(
                  "a",
                  { class: "why-plan", href: links.plan(persona, chatId, why.plan.no) },
                  `plan ${why.plan.no}`,
                )
              : el("span", { class: "muted" }, `task #${why.plan.id}`),
          ]
        : "",
    ),
  );
}
