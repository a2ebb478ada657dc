// One chat: its state and switches, its messages newest first, each with why it was or was not
// answered and, beside it, the plan that answered it. Every piece of data goes in as text.
import { api, apiAudio, el, links, time, userText } from "./dom.js";

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

/** The `schedule` entries of a returned plan: they set intentions (the Now page's table), not tasks. */
const scheduled = (p) =>
  Array.isArray(p.plan?.tasks) ? p.plan.tasks.filter((t) => t && t.kind === "schedule") : [];

const planName = (p) => (p.no !== null ? `plan ${p.no}` : `planning round (task #${p.id})`);

/** What a plan's origin says, where it shows. */
const ORIGIN = {
  "dry-run": "dry run: not sent (no GEMINI_API_KEY)",
  echo: "not from a model: the sandbox's offline echo planner",
};

function planView(persona, chatId, p) {
  return el(
    "section",
    {
      class: `plan${p.origin ? " not-model" : ""}`,
      id: `plan-${p.id}`,
      dataset: { planId: String(p.id), planNo: p.no !== null ? String(p.no) : "", anchor: `p${p.id}` },
    },
    el(
      "div",
      {},
      p.no !== null
        ? el("a", { class: "plan-link", href: links.plan(persona, chatId, p.no) }, el("b", {}, planName(p)))
        : el("b", {}, planName(p)),
      p.replacedBy
        ? [
            " · ",
            el("span", { class: "replaced" }, "replaced by a newer plan"),
            p.replacedBy.no !== null
              ? [
                  " (",
                  el("a", { href: links.plan(persona, chatId, p.replacedBy.no) }, `plan ${p.replacedBy.no}`),
                  ")",
                ]
              : ` (task #${p.replacedBy.id})`,
          ]
        : ` · ${p.status}`,
      p.origin ? [" · ", el("span", { class: "origin" }, ORIGIN[p.origin] ?? p.origin)] : "",
      p.messages.length ? " · for " : "",
      p.messages.flatMap((i, n) => [
        n ? ", " : "",
        el("a", { href: links.message(persona, chatId, i) }, `#${i}`),
      ]),
      (p.intentions ?? []).flatMap((i) => [
        ` · for intention #${i.id} (`,
        userText(i.note, ""),
        i.inReplyTo !== null
          ? [
              ", set answering ",
              el("a", { href: links.message(persona, chatId, i.inReplyTo) }, `#${i.inReplyTo}`),
            ]
          : "",
        ")",
      ]),
      ` · ${time(p.createdAt)}`,
    ),
    p.replacedBy
      ? el(
          "div",
          { class: "why" },
          "Newer messages came in while this round planned: they were planned together in the newer round, and whatever this one came back with was not carried out.",
        )
      : p.error
        ? el("div", { class: "why" }, p.error)
        : null,
    p.usage.length
      ? el(
          "div",
          { class: "muted" },
          p.usage
            .map(
              (u) =>
                `${u.model}: ${u.promptTokens} in + ${u.outputTokens} out + ${u.thinkingTokens} thinking tokens${u.costUsd !== null ? `, $${u.costUsd.toFixed(5)}` : ""}`,
            )
            .join("; "),
        )
      : null,
    p.tasks.length || scheduled(p).length
      ? el(
          "ul",
          { class: "tasks" },
          scheduled(p).map((t) =>
            el(
              "li",
              { class: "schedule" },
              `schedule — ${p.origin === "dry-run" ? "dry run: not set" : "an intention"} `,
              t.at !== undefined
                ? `at ${t.at} `
                : t.after_minutes !== undefined
                  ? `in ${t.after_minutes} min `
                  : "",
              userText(String(t.note ?? "")),
            ),
          ),
          ...p.tasks.map((t) =>
            el(
              "li",
              { dataset: { taskId: String(t.id) } },
              `#${t.id} ${t.kind} — ${p.origin === "dry-run" ? "dry run: not sent" : t.status}${t.error ? ` (${t.error})` : ""} `,
              t.payload.text !== undefined ? userText(String(t.payload.text)) : "",
              t.payload.emoji !== undefined ? `${t.payload.emoji} on #${t.payload.messageId}` : "",
              t.payload.sentId !== undefined
                ? [
                    " → ",
                    el(
                      "a",
                      { href: links.message(persona, chatId, t.payload.sentId) },
                      `#${t.payload.sentId}`,
                    ),
                  ]
                : "",
            ),
          ),
        )
      : el(
          "p",
          { class: "muted tasks-none" },
          p.replacedBy
            ? "no task: replaced by a newer plan"
            : p.status === "done"
              ? p.origin === "dry-run"
                ? "dry run: not sent — nothing was planned"
                : "no task: the plan chose to do nothing"
              : "no task yet",
        ),
    p.request
      ? el(
          "details",
          { class: "request", dataset: { key: `req-${p.id}` } },
          el("summary", {}, "the request"),
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
          { class: "returned", dataset: { key: `ret-${p.id}` } },
          el(
            "summary",
            {},
            p.plan.silent
              ? `no usable plan: ${p.plan.silent}`
              : p.origin
                ? `plan returned (${ORIGIN[p.origin] ?? p.origin})`
                : "plan returned",
          ),
          el("pre", {}, JSON.stringify(p.plan, null, 2)),
        )
      : null,
  );
}

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
      const cls = [
        "msg",
        m.byOwner ? "owner" : m.isAgent ? "persona" : "",
        m.why.answered === true ? "answered" : m.why.answered === false ? "silent" : "",
      ].join(" ");
      const parent = m.replyToId !== null ? byId.get(m.replyToId) : undefined;
      const why = m.why;
      const message = el(
        "article",
        { class: cls, id: `m-${m.messageId}`, dataset: { messageId: String(m.messageId) } },
        el(
          "div",
          { class: "muted" },
          el(
            "a",
            { class: "permalink", href: links.message(persona, chatId, m.messageId) },
            `#${m.messageId}`,
          ),
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
