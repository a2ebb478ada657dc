// The editing pages: memories and media descriptions. Every piece of data goes in as text.
import { api, apiImage, el, fill, links, notice, post, SignInNeeded, time, userText } from "./dom.js";

async function change(path, body, then) {
  try {
    const r = await post(path, body);
    notice(r.answer ?? "done");
  } catch (e) {
    notice(String(e.message ?? e), true);
  }
  await then();
}

/** How often the Memory page looks again at the background embedding while memories wait for it. */
const MEANING_POLL_MS = 2000;

/**
 * Recall by meaning's background embedding, as `/status` says it ("Recall by meaning: 340 of
 * 1,200 memories embedded …"), looked at again while some memories wait and the page is shown.
 */
async function meaningProgress(p, name, stale) {
  while (!stale() && p.isConnected) {
    let r;
    try {
      r = await api(`memory-meaning?persona=${encodeURIComponent(name)}`);
    } catch (e) {
      if (e instanceof SignInNeeded) return; // signed out: the next page load shows the sign-in
      r = undefined; // the listener is restarting: try again
    }
    if (stale() || !p.isConnected) return;
    if (r)
      p.textContent =
        r.line ?? "Recall by meaning: off (no embedding model); memories are found by their words";
    if (r?.done) return;
    await new Promise((ok) => setTimeout(ok, MEANING_POLL_MS));
  }
}

export async function renderMemory(main, persona, stale = () => false) {
  const { personas } = await api("personas");
  if (stale()) return;
  const name = persona || personas[0]?.name || "";
  const q = el("input", { type: "search", id: "memory-q", placeholder: "search words (full-text index)" });
  const who = el("input", {
    id: "memory-chat",
    placeholder: "chat or person id (all when empty)",
    size: "24",
  });
  const out = el("div", { id: "memories" });
  const files = el("div", { id: "curated-memories" });
  let looks = 0;
  const show = async () => {
    const params = new URLSearchParams({ persona: name });
    if (q.value.trim()) params.set("q", q.value.trim());
    if (who.value.trim()) params.set("chat", who.value.trim());
    const mine = ++looks;
    const { memories } = await api(`memories?${params}`);
    if (mine !== looks) return; // a newer look (a search typed meanwhile) is on its way: it wins
    fill(
      out,
      memories.length === 0 ? el("p", { class: "muted" }, "nothing found") : null,
      el(
        "table",
        {},
        memories.map((m) => {
          const box = el("textarea", {
            class: "memory-text",
            rows: "2",
            cols: "60",
            "aria-label": `memory #${m.id}'s text`,
          });
          box.value = m.content;
          return el(
            "tr",
            { class: "memory", dataset: { memoryId: String(m.id) } },
            el("td", {}, `#${m.id}`),
            el(
              "td",
              {},
              m.subject !== null
                ? ["about ", userText(m.subjectName ?? `user ${m.subject}`, ""), ` (${m.subject})`]
                : "about the chat",
            ),
            el(
              "td",
              {},
              "learnt in ",
              userText(m.chatTitle ?? m.chatId, ""),
              ` (${m.chatId})`,
              m.toldByName ? [" from ", userText(m.toldByName, "")] : "",
              // The message it was said in: a link to it in its chat (the page around it).
              m.sourceId
                ? [
                    " (",
                    el(
                      "a",
                      { class: "memory-source", href: links.message(name, m.chatId, m.sourceId) },
                      `message #${m.sourceId}`,
                    ),
                    ")",
                  ]
                : "",
              m.edited ? " · edited by the owner" : "",
              m.shared ? ` · shared with ${m.shared}` : "",
            ),
            el("td", {}, box),
            el("td", {}, time(m.updatedAt)),
            el(
              "td",
              {},
              el(
                "button",
                {
                  class: "memory-save",
                  onclick: () =>
                    change("memory", { persona: name, action: "edit", id: m.id, content: box.value }, show),
                },
                "Save",
              ),
              el(
                "button",
                {
                  class: "memory-delete",
                  onclick: () => change("memory", { persona: name, action: "delete", id: m.id }, show),
                },
                "Delete",
              ),
            ),
          );
        }),
      ),
    );
  };
  // The chat a memory belongs to, by its title (the persona's 500 most recent chats, newest
  // first); any other chat by its id, typed.
  const { chats } = await api(`chats?persona=${encodeURIComponent(name)}&limit=500`);
  if (stale()) return;
  const addChat = el(
    "select",
    { id: "add-chat", "aria-label": "the chat it belongs to" },
    el("option", { value: "" }, "chat…"),
    chats.map((c) =>
      el(
        "option",
        { value: c.chatId },
        `${c.title ?? (c.username ? "@" + c.username : c.chatId)} (${c.chatType === "dm" ? "private" : c.chatType})`,
      ),
    ),
  );
  const addChatId = el("input", {
    id: "add-chat-id",
    placeholder: "or a chat id",
    size: "16",
    "aria-label": "the chat's id, when it is not in the list",
  });
  const addSubject = el("input", {
    id: "add-subject",
    placeholder: "about user id (empty: the chat)",
    size: "22",
  });
  const addText = el("input", { id: "add-text", placeholder: "what to remember", size: "50" });
  const add = el(
    "p",
    {},
    "Add: ",
    el("label", { for: "add-chat" }, "chat "),
    addChat,
    " ",
    addChatId,
    " ",
    el("label", { for: "add-subject" }, "about "),
    addSubject,
    " ",
    el("label", { for: "add-text" }, "text "),
    addText,
    " ",
    el(
      "button",
      {
        id: "add-memory",
        onclick: () =>
          change(
            "memory",
            {
              persona: name,
              action: "add",
              // A typed id wins over the list.
              chat: addChatId.value.trim() || addChat.value.trim(),
              subject: addSubject.value.trim(),
              content: addText.value,
            },
            show,
          ),
      },
      "Add",
    ),
  );
  q.addEventListener("change", () => show());
  who.addEventListener("change", () => show());
  const meaning = el("p", { id: "meaning-progress", class: "muted" });
  fill(
    main,
    el("h2", {}, "Memory"),
    meaning,
    el(
      "p",
      {},
      el("label", { for: "memory-q" }, "Search "),
      q,
      " ",
      el("label", { for: "memory-chat" }, "in "),
      who,
    ),
    add,
    out,
    el("h3", {}, "Curated files (read-only)"),
    files,
  );
  await show();
  void meaningProgress(meaning, name, stale);
  const c = await api(`curated-memories?persona=${encodeURIComponent(name)}`);
  fill(
    files,
    el(
      "p",
      { class: "muted" },
      "Folder: ",
      userText(c.dir, ""),
      " — edit the files themselves; they are read at start.",
    ),
    c.error ? el("p", { class: "error" }, c.error) : null,
    c.files.length === 0 && !c.error ? el("p", { class: "muted" }, "none") : null,
    c.files.map((f) =>
      el(
        "section",
        { class: "card curated-memory" },
        el("b", {}, userText(f.path, "")),
        ` · about user ${f.userId} · scope ${f.scope}`,
        el(
          "ul",
          {},
          f.lines.map((l) => el("li", {}, userText(l))),
        ),
      ),
    ),
  );
}

const picture = (uid) => apiImage(`media/image?uid=${encodeURIComponent(uid)}`, { class: "thumb" });

export async function renderMedia(main, persona, stale = () => false) {
  const { personas } = await api("personas");
  if (stale()) return;
  const name = persona || personas[0]?.name || "";
  const show = async () => {
    const v = await api(`media?persona=${encodeURIComponent(name)}`);
    if (stale()) return;
    const cachedImage = new Map(v.cache.map((r) => [r.uniqueId, r.hasImage]));
    const editor = (uid, current, scope) => {
      const box = el("textarea", { class: "media-text", rows: "2", cols: "60" });
      box.value = current ?? "";
      const where = el(
        "select",
        { class: "media-scope" },
        el("option", { value: "persona" }, `${name} only`),
        el("option", { value: "shared" }, "every persona"),
      );
      where.value = scope;
      return [
        box,
        where,
        el(
          "button",
          {
            class: "media-save",
            onclick: () =>
              change(
                "media",
                { persona: name, action: "describe", uid, description: box.value, scope: where.value },
                show,
              ),
          },
          "Save as curated",
        ),
      ];
    };
    fill(
      main,
      el("h2", {}, "Media descriptions"),
      el(
        "p",
        { class: "muted" },
        "Curated files: ",
        userText(v.dirs.persona, ""),
        " (this persona) and ",
        userText(v.dirs.shared, ""),
        " (every persona). Saving writes the file and the next prompt uses it.",
      ),
      el("h3", {}, "Curated"),
      v.curated.length === 0 ? el("p", { class: "muted" }, "none") : null,
      el(
        "table",
        { id: "curated-media" },
        v.curated.map((c) =>
          el(
            "tr",
            { class: "media-row", dataset: { uid: c.uniqueId } },
            el("td", {}, cachedImage.get(c.uniqueId) ? picture(c.uniqueId) : ""),
            el(
              "td",
              {},
              c.uniqueId,
              el("br"),
              [c.kind, c.stickerSet, c.stickerName].filter(Boolean).join(" · "),
            ),
            el("td", {}, userText(c.file, "muted")),
            el("td", {}, ...editor(c.uniqueId, c.description, c.scope)),
          ),
        ),
      ),
      el("h3", {}, "AI cache"),
      v.cache.length === 0 ? el("p", { class: "muted" }, "empty") : null,
      el(
        "table",
        { id: "media-cache" },
        v.cache.map((r) =>
          el(
            "tr",
            { class: "media-row", dataset: { uid: r.uniqueId } },
            el("td", {}, r.hasImage ? picture(r.uniqueId) : ""),
            el(
              "td",
              {},
              r.uniqueId,
              el("br"),
              [r.kind, r.stickerSet, r.model, time(r.at)].filter(Boolean).join(" · "),
              r.curated ? el("div", { class: "muted" }, "curated (the curated text wins)") : null,
            ),
            el(
              "td",
              { class: "media-status" },
              r.status === "ok"
                ? userText(r.description ?? "")
                : el("i", {}, "unsupported: ", userText(r.description ?? "")),
            ),
            el(
              "td",
              {},
              ...editor(r.uniqueId, r.status === "ok" ? r.description : "", "persona"),
              r.status === "ok"
                ? el(
                    "button",
                    {
                      class: "media-promote",
                      onclick: () =>
                        change("media", { persona: name, action: "promote", uid: r.uniqueId }, show),
                    },
                    "Promote as is",
                  )
                : null,
              el(
                "button",
                {
                  class: "media-drop",
                  onclick: () => change("media", { persona: name, action: "drop", uid: r.uniqueId }, show),
                },
                "Drop (describe again)",
              ),
            ),
          ),
        ),
      ),
      el("h3", {}, "Stickers the persona may send"),
      el("p", {}, "Sets: ", v.stickerSets.length ? v.stickerSets.join(", ") : "none"),
      el(
        "ul",
        {},
        v.stickers.map((s) =>
          el("li", {}, `${s.set} ${s.name}: `, userText(s.description ?? "(no description)")),
        ),
      ),
    );
  };
  await show();
}
