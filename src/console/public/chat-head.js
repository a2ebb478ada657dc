// The head of a chat's page: its title, state (paused, mode, silence, how her remarks were
// received) and switches, its forum topics, the lane shown, and its open tasks.
import { el, links, time, userText } from "./dom.js";

/** The chat's card; `act` carries out a switch (app.js). */
export function chatHead(persona, chatId, v, act) {
  const s = v.settings;
  const isDm = v.chat.chatType === "dm";
  const title = v.chat.title ?? (v.chat.username ? "@" + v.chat.username : v.chat.chatId);
  const minutes = el("input", {
    type: "number",
    min: "1",
    max: "10080",
    value: "30",
    id: "silence-minutes",
    size: "5",
    "aria-label": "minutes of silence",
  });
  const modeFrom = { chat: "this chat's own", persona: "the persona's default", file: "the persona file's" };
  return el(
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
      s.pausedEverywhere ? el("b", { class: "warn" }, "paused everywhere · ") : "",
      s.paused ? el("b", { class: "warn" }, "paused in this chat") : "answering in this chat",
      s.effectiveMode
        ? [" · mode ", el("b", { id: "chat-mode" }, s.effectiveMode), ` (${modeFrom[s.modeFrom]})`]
        : "",
      s.silentUntil
        ? [" · ", el("b", { class: "warn", id: "silent-until" }, `silent until ${time(s.silentUntil)} UTC`)]
        : "",
    ),
    // How her unasked remarks were received here (ignored, welcomed, told to stop), with its reset.
    v.reception
      ? el(
          "p",
          { id: "chat-reception" },
          el("span", { class: v.reception.state === "rejected" ? "warn" : "" }, v.reception.text),
          " ",
          el(
            "button",
            {
              id: "reception-reset",
              onclick: () => act({ persona, action: "reception-reset", chat: chatId }),
            },
            "Forget how she was received",
          ),
        )
      : null,
    el(
      "p",
      { class: "actions" },
      el(
        "button",
        {
          id: "pause-chat",
          onclick: () => act({ persona, action: s.paused ? "resume" : "pause", chat: chatId }),
        },
        s.paused ? "Resume this chat" : "Pause this chat",
      ),
      s.silentUntil
        ? el(
            "button",
            { id: "end-silence", onclick: () => act({ persona, action: "unsilence", chat: chatId }) },
            "End silence",
          )
        : null,
      // A DM is always addressed: group modes do not apply there.
      isDm
        ? null
        : ["strict", "smart", "talkative"].map((m) =>
            el(
              "button",
              {
                class: `mode${s.effectiveMode === m ? " active" : ""}`,
                "aria-pressed": s.effectiveMode === m ? "true" : "false",
                dataset: { mode: m },
                onclick: () => act({ persona, action: "mode", mode: m, chat: chatId }),
              },
              `Mode ${m}`,
            ),
          ),
      el(
        "button",
        { id: "forget", onclick: () => act({ persona, action: "forget", chat: chatId }) },
        "Cancel the pending plan",
      ),
      el("span", { class: "nowrap" }, " Silence for ", minutes, " min "),
      el(
        "button",
        {
          id: "silence",
          onclick: () =>
            act({
              persona,
              action: "silence",
              chat: chatId,
              minutes: Number(document.getElementById("silence-minutes").value),
            }),
        },
        "Silence",
      ),
    ),
    v.topics.length
      ? el(
          "p",
          { id: "topics" },
          "Topics: ",
          el("a", { href: links.chat(persona, chatId), class: v.lane ? "" : "active" }, "all"),
          v.topics.flatMap((t) => [
            " · ",
            el(
              "a",
              {
                href: links.lane(persona, chatId, "topic", t.topicId),
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
          el("a", { href: links.chat(persona, chatId) }, "show the whole chat"),
        )
      : null,
    v.openTasks.length
      ? el(
          "p",
          { class: "muted" },
          `open tasks: ${v.openTasks.map((t) => `#${t.id} ${t.kind} ${t.status}`).join(", ")} · `,
          el("a", { href: links.now(persona) }, "see them on Now"),
        )
      : null,
  );
}
