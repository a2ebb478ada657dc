import { isSummaryGraph } from "../tasks/task";
import { EVERYWHERE, isGroupChatId, type Memory, type MemoryStore } from "../store/memories";
import { ALL_CHATS, type ChatMode, type ChatSettingsStore } from "../store/chat-settings";
import type { ChatInfo, ChatStore } from "../store/chats";
import type { Scheduler } from "../tasks/scheduler";
import { describeChat, findChat } from "./chat-names";
import { formatStatus, receptionLine, type StatusFacts } from "./status";
import type { Reception } from "../inbound/reception";
import type { Intention, IntentionStore } from "../store/intentions";
import type { Intentions } from "../life/intentions";
import { formatLocal } from "../base/zoned-time";

/** What the commands need from the runtime. */
export interface OwnerCommandDeps {
  readonly selfId: string;
  readonly chats: Pick<ChatStore, "all">;
  /** A basic group upgraded to a supergroup: named by title, only the supergroup it became is meant. */
  readonly movedAway?: (chatId: string) => boolean;
  readonly settings: ChatSettingsStore;
  readonly scheduler: Pick<Scheduler, "cancelPending" | "openTasks">;
  readonly status: () => StatusFacts;
  /** The persona's memories (`/memories`, `/share`, `/unshare`); absent: those commands are unavailable. */
  readonly memories?: Pick<MemoryStore, "forOwner" | "get" | "share" | "unshare">;
  /** A person's name as the owner knows them (the entity store), for memory listings. */
  readonly nameOf?: (userId: string) => string | undefined;
  /** The persona's own intentions (`/intentions`, `/cancel`); absent: those commands are unavailable. */
  readonly intentions?: {
    readonly engine: Pick<Intentions, "cancel">;
    readonly store: Pick<IntentionStore, "open" | "recentEnded">;
    /** The persona's `# Time Zone`: due times are shown in it. */
    readonly timeZone: string;
  };
  /** How her unasked remarks are received per group (`/reception`); absent: unavailable. */
  readonly reception?: Pick<Reception, "report" | "reset">;
}

const MODES: readonly ChatMode[] = ["strict", "smart", "talkative"];

const HELP = [
  "Commands (type them here, in Saved Messages):",
  "/status — uptime, connection, chats, pending tasks, LLM use and cost today, caps, last error",
  "/pause [chat] — stop answering in a chat (or everywhere); messages are still stored",
  "/resume [chat] — answer again (also ends a takeover silence in that chat)",
  "/mode <strict|smart|talkative> [chat] — set the group mode of a chat (or the default)",
  "/forget <chat> — drop the pending plan of a chat",
  "/memories <chat> — what the persona remembers from a chat (a private chat: also about that person), with ids",
  "/share <memory id> <chat|everywhere> — show a memory in another chat too (where its person is present), or everywhere",
  "/unshare <memory id> — back to where it was learnt",
  "/intentions — what the persona means to do later by itself (reminders, follow-ups), with ids, and what became of the last ones",
  "/cancel <intention id> — drop one of them",
  "/reception [reset <chat>] — how her unasked remarks were received in each group (ignored, welcomed, told to stop); reset forgets it for a chat",
  "/help — this list",
  "A chat is named by its id, its @username or a part of its title; a name that fits several chats changes nothing.",
].join("\n");

/** Most candidates an ambiguous name lists. */
const MAX_CANDIDATES = 10;

/**
 * Run one owner command (text typed in Saved Messages, starting with `/`) and return the answer
 * to send back there. Changes are durable before the answer is written. Answers never start
 * with `/`, so an answer that comes back as an update can never be taken for a command.
 */
export function runOwnerCommand(text: string, d: OwnerCommandDeps): string {
  const [head = "", ...rest] = text.trim().split(/\s+/);
  const cmd = head.toLowerCase().replace(/@\w+$/, "");
  const arg = rest.join(" ");
  switch (cmd) {
    case "/help":
    case "/start":
      return HELP;
    case "/status":
      return formatStatus(d.status());
    case "/pause":
      return pause(arg, d);
    case "/resume":
      return resume(arg, d);
    case "/mode":
      return mode(rest, d);
    case "/forget":
      return forget(arg, d);
    case "/memories":
      return listMemories(arg, d);
    case "/share":
      return share(rest, d);
    case "/unshare":
      return unshare(arg, d);
    case "/intentions":
      return listIntentions(d);
    case "/cancel":
      return cancelIntention(arg, d);
    case "/reception":
      return reception(rest, d);
    default:
      return `Unknown command ${JSON.stringify(head)}. /help lists the commands.`;
  }
}

/** The chat a command names, or the answer explaining why there is none. */
function chatOrAnswer(name: string, d: OwnerCommandDeps): ChatInfo | string {
  const chats = d.chats.all().filter((c) => c.chatId !== d.selfId && !d.movedAway?.(c.chatId));
  const found = findChat(name, chats);
  if (found.kind === "found") return found.chat;
  if (found.kind === "none")
    return `No chat matches ${JSON.stringify(name)}. Name it by id, @username or a part of its title.`;
  const shown = found.candidates.slice(0, MAX_CANDIDATES).map((c) => `- ${describeChat(c)}`);
  const more =
    found.candidates.length > MAX_CANDIDATES
      ? [`… and ${found.candidates.length - MAX_CANDIDATES} more`]
      : [];
  return [
    `${JSON.stringify(name)} matches ${found.candidates.length} chats, so nothing was changed; name one by its id (or @username):`,
    ...shown,
    ...more,
  ].join("\n");
}

/** Cancel a chat's open tasks, pending addressing calls included; how many went. */
function dropPlan(chatId: string, reason: string, d: OwnerCommandDeps): number {
  return d.scheduler.cancelPending(chatId, reason, { addressing: true }).length;
}

function pause(name: string, d: OwnerCommandDeps): string {
  if (name === "") {
    d.settings.update(ALL_CHATS, { paused: true });
    // Chats' graphs only: a lane summary (summary:<lane>) is background work, not an answer.
    const chats = new Set(
      d.scheduler
        .openTasks()
        .map((t) => t.chatId)
        .filter((g) => !isSummaryGraph(g)),
    );
    chats.delete(d.selfId);
    let dropped = 0;
    for (const chatId of chats) dropped += dropPlan(chatId, "paused by the owner", d);
    return `Paused everywhere: messages are stored, not answered${dropped ? `; ${dropped} pending task(s) dropped` : ""}. /resume to answer again.`;
  }
  const chat = chatOrAnswer(name, d);
  if (typeof chat === "string") return chat;
  d.settings.update(chat.chatId, { paused: true });
  const dropped = dropPlan(chat.chatId, "paused by the owner", d);
  return `Paused in ${describeChat(chat)}: messages there are stored, not answered${dropped ? `; ${dropped} pending task(s) dropped` : ""}. /resume ${chat.chatId} to answer again.`;
}

function resume(name: string, d: OwnerCommandDeps): string {
  if (name === "") {
    d.settings.update(ALL_CHATS, { paused: false });
    const still = d.settings
      .entries()
      .filter(([id, s]) => id !== ALL_CHATS && s.paused)
      .map(([id]) => id);
    return `Answering again everywhere${still.length ? ` except the chats paused one by one (${still.join(", ")}; /resume <chat> for each)` : ""}.`;
  }
  const chat = chatOrAnswer(name, d);
  if (typeof chat === "string") return chat;
  d.settings.update(chat.chatId, { paused: false, silentUntil: undefined });
  const everywhere = d.settings.get(ALL_CHATS).paused
    ? " (but everything is still paused: /resume alone ends that)"
    : "";
  return `Answering again in ${describeChat(chat)}${everywhere}.`;
}

function mode(args: readonly string[], d: OwnerCommandDeps): string {
  const [m = "", ...rest] = args;
  const wanted = m.toLowerCase() as ChatMode;
  if (!MODES.includes(wanted)) return `Usage: /mode <${MODES.join("|")}> [chat]`;
  const name = rest.join(" ");
  let target = "by default";
  if (name === "") d.settings.update(ALL_CHATS, { mode: wanted });
  else {
    const chat = chatOrAnswer(name, d);
    if (typeof chat === "string") return chat;
    d.settings.update(chat.chatId, { mode: wanted });
    target = `in ${describeChat(chat)}`;
  }
  const note = name === "" ? " A chat's own /mode, if set, still wins there." : "";
  return `Mode ${target} set to ${wanted}.${note}`;
}

function forget(name: string, d: OwnerCommandDeps): string {
  if (name === "") return "Usage: /forget <chat>";
  const chat = chatOrAnswer(name, d);
  if (typeof chat === "string") return chat;
  const dropped = dropPlan(chat.chatId, "forgotten by the owner", d);
  return dropped
    ? `Dropped the pending plan in ${describeChat(chat)} (${dropped} task(s)).`
    : `Nothing was pending in ${describeChat(chat)}.`;
}

/** Most memories `/memories` lists. */
const MAX_LISTED = 20;
/** A memory's text in a listing is cut to this many characters. */
const LISTED_CHARS = 120;

const memoryUsage = "Usage: /share <memory id> <chat|everywhere> — the ids are in /memories <chat>";

function listMemories(name: string, d: OwnerCommandDeps): string {
  if (!d.memories) return "Memories are not available here.";
  if (name === "") return "Usage: /memories <chat>";
  const chat = chatOrAnswer(name, d);
  if (typeof chat === "string") return chat;
  const found = d.memories.forOwner(chat.chatId, MAX_LISTED + 1);
  if (found.length === 0) return `Nothing remembered from ${describeChat(chat)}.`;
  const lines = found.slice(0, MAX_LISTED).map((m) => `- ${describeMemory(m, d)}`);
  const more = found.length > MAX_LISTED ? [`… and older ones (the newest ${MAX_LISTED} are listed)`] : [];
  return [
    `Remembered from ${describeChat(chat)}:`,
    ...lines,
    ...more,
    "/share <id> <chat|everywhere> shows one in another chat too.",
  ].join("\n");
}

/** `#12 about Alice, said by Dave in Sandbox (-100…), 2026-11-22, shown there and in Alice's private chat: …` */
function describeMemory(m: Memory, d: OwnerCommandDeps): string {
  const person = (id: string) => d.nameOf?.(id) ?? `user ${id}`;
  const source = chatName(m.chatId, d);
  const about = m.subject !== undefined ? `about ${person(m.subject)}` : "about the chat";
  const said =
    (m.toldBy !== undefined ? `, said by ${person(m.toldBy)}` : "") +
    (m.sourceId !== undefined ? ` (message #${m.sourceId})` : "") +
    (m.edited === true ? ", edited by the owner" : "");
  const where = isGroupChatId(m.chatId) ? `in ${source}` : `in the private chat with ${person(m.chatId)}`;
  const base = isGroupChatId(m.chatId)
    ? m.subject !== undefined
      ? `there and in ${person(m.subject)}'s private chat`
      : "there"
    : "only in that private chat";
  const shown = m.shared?.includes(EVERYWHERE)
    ? "everywhere"
    : m.shared?.length
      ? `${base}, and in ${m.shared.map((c) => chatName(c, d)).join(", ")}`
      : base;
  const text = m.content.length > LISTED_CHARS ? `${m.content.slice(0, LISTED_CHARS - 1)}…` : m.content;
  return `#${m.id} ${about}${said} ${where}, ${new Date(m.updatedAt).toISOString().slice(0, 10)}; shown ${shown}: ${text}`;
}

function chatName(chatId: string, d: OwnerCommandDeps): string {
  const c = d.chats.all().find((x) => x.chatId === chatId);
  return c ? describeChat(c) : chatId;
}

function memoryId(raw: string | undefined): number | undefined {
  const m = /^#?(\d{1,12})$/.exec(raw ?? "");
  return m ? Number(m[1]) : undefined;
}

function share(args: readonly string[], d: OwnerCommandDeps): string {
  if (!d.memories) return "Memories are not available here.";
  const [raw, ...rest] = args;
  const id = memoryId(raw);
  const name = rest.join(" ");
  if (id === undefined || name === "") return memoryUsage;
  if (!d.memories.get(id)) return `No memory #${id}. /memories <chat> lists them with their ids.`;
  if (name.toLowerCase() === "everywhere") {
    const m = d.memories.share(id, EVERYWHERE)!;
    return `Memory #${id} is now shown everywhere${m.subject !== undefined ? ` ${d.nameOf?.(m.subject) ?? "its person"} is present` : ""}. /unshare ${id} takes that back.`;
  }
  const chat = chatOrAnswer(name, d);
  if (typeof chat === "string") return chat;
  const m = d.memories.share(id, chat.chatId)!;
  const present =
    m.subject !== undefined ? ` when ${d.nameOf?.(m.subject) ?? "its person"} is present there` : "";
  return `Memory #${id} is now also shown in ${describeChat(chat)}${present}. /unshare ${id} takes that back.`;
}

function unshare(raw: string, d: OwnerCommandDeps): string {
  if (!d.memories) return "Memories are not available here.";
  const id = memoryId(raw.trim());
  if (id === undefined) return "Usage: /unshare <memory id>";
  const m = d.memories.unshare(id);
  if (!m) return `No memory #${id}. /memories <chat> lists them with their ids.`;
  return `Memory #${id} is shown only where it was learnt again: ${describeMemory(m, d)}`;
}

/** Most intentions `/intentions` lists (pending, then ended). */
const MAX_INTENTIONS = 20;
const MAX_ENDED = 5;

function listIntentions(d: OwnerCommandDeps): string {
  const i = d.intentions;
  if (!i) return "Intentions are not available here.";
  const { list, total } = i.store.open(MAX_INTENTIONS);
  const ended = i.store.recentEnded(MAX_ENDED);
  if (total === 0 && ended.length === 0) return "No intentions: the persona has set none.";
  const line = (x: Intention) => `- ${describeIntention(x, d, i.timeZone)}`;
  const more =
    total > list.length ? [`… and ${total - list.length} more (the soonest ${list.length} are listed)`] : [];
  return [
    total === 0 ? "Nothing pending." : `Pending (${total}), soonest first:`,
    ...list.map(line),
    ...more,
    ...(ended.length ? ["Lately:", ...ended.map(line)] : []),
    ...(total > 0 ? ["/cancel <id> drops one."] : []),
  ].join("\n");
}

/** `#3 in Sandbox (-100…), due 2026-11-23 09:00 (Europe/Berlin), held: asleep until 07:30: ask about the exam` */
function describeIntention(x: Intention, d: OwnerCommandDeps, timeZone: string): string {
  const where = isGroupChatId(x.chatId)
    ? `in ${chatName(x.chatId, d)}`
    : `in the private chat with ${d.nameOf?.(x.chatId) ?? `user ${x.chatId}`}`;
  const due = `due ${formatLocal(x.dueAt, timeZone)} (${timeZone})`;
  const state =
    x.state === "pending"
      ? x.reason
        ? `, ${x.reason}`
        : ""
      : x.state === "firing"
        ? ", planning now"
        : x.state === "fired"
          ? `, fired${x.spoke ? " (it wrote)" : " (it chose to say nothing)"}`
          : `, ${x.reason ?? x.state}`;
  const note = x.note.length > LISTED_CHARS ? `${x.note.slice(0, LISTED_CHARS - 1)}…` : x.note;
  return `#${x.id} ${where}, ${due}${state}: ${note}`;
}

function cancelIntention(raw: string, d: OwnerCommandDeps): string {
  const i = d.intentions;
  if (!i) return "Intentions are not available here.";
  const id = memoryId(raw.trim());
  if (id === undefined) return "Usage: /cancel <intention id> — the ids are in /intentions";
  const gone = i.engine.cancel(id, "by the owner");
  if (!gone) return `No pending intention #${id}. /intentions lists them with their ids.`;
  return `Intention #${id} cancelled: ${gone.note}`;
}

/** `/reception`: the groups' verdicts; `/reception reset <chat>`: forget one (a "stop" included). */
function reception(args: readonly string[], d: OwnerCommandDeps): string {
  if (!d.reception) return "Not available here.";
  const [sub = "", ...rest] = args;
  if (sub === "") {
    const all = d.reception.report();
    if (all.length === 0) return "No unasked remark of hers has been received anywhere yet.";
    return all.map((r) => receptionLine(r, chatName(r.chatId, d))).join("\n");
  }
  if (sub.toLowerCase() !== "reset" || rest.length === 0) return "Usage: /reception [reset <chat>]";
  const chat = chatOrAnswer(rest.join(" "), d);
  if (typeof chat === "string") return chat;
  return d.reception.reset(chat.chatId)
    ? `Forgot how her unasked remarks were received in ${describeChat(chat)}: she joins in there as usual again.`
    : `Nothing was known about how her remarks are received in ${describeChat(chat)}.`;
}
