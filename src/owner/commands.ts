import { isSummaryGraph } from "../summary/lane-summaries";
import { ALL_CHATS, type ChatMode, type ChatSettingsStore } from "../store/chat-settings";
import type { ChatInfo, MessageStore } from "../store/messages";
import type { Scheduler } from "../tasks/scheduler";
import { describeChat, findChat } from "./chat-names";
import { formatStatus, type StatusFacts } from "./status";

/** What the commands need from the runtime. */
export interface OwnerCommandDeps {
  readonly selfId: string;
  readonly messages: Pick<MessageStore, "chats">;
  readonly settings: ChatSettingsStore;
  readonly scheduler: Pick<Scheduler, "cancelPending" | "openTasks">;
  readonly status: () => StatusFacts;
}

const MODES: readonly ChatMode[] = ["strict", "smart", "talkative"];

export const HELP = [
  "Commands (type them here, in Saved Messages):",
  "/status — uptime, connection, chats, pending tasks, LLM use and cost today, caps, last error",
  "/pause [chat] — stop answering in a chat (or everywhere); messages are still stored",
  "/resume [chat] — answer again (also ends a takeover silence in that chat)",
  "/mode <strict|smart|talkative> [chat] — set the group mode of a chat (or the default)",
  "/forget <chat> — drop the pending plan of a chat",
  "/help — this list",
  "A chat is named by its id, its @username or a part of its title.",
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
    default:
      return `Unknown command ${JSON.stringify(head)}. /help lists the commands.`;
  }
}

/** The chat a command names, or the answer explaining why there is none. */
function chatOrAnswer(name: string, d: OwnerCommandDeps): ChatInfo | string {
  const chats = d.messages.chats().filter((c) => c.chatId !== d.selfId);
  const found = findChat(name, chats);
  if (found.kind === "found") return found.chat;
  if (found.kind === "none") return `No chat matches ${JSON.stringify(name)}. Name it by id, @username or a part of its title.`;
  const shown = found.candidates.slice(0, MAX_CANDIDATES).map((c) => `- ${describeChat(c)}`);
  const more = found.candidates.length > MAX_CANDIDATES ? [`… and ${found.candidates.length - MAX_CANDIDATES} more`] : [];
  return [`${JSON.stringify(name)} matches ${found.candidates.length} chats, so nothing was changed; name one by its id (or @username):`, ...shown, ...more].join("\n");
}

/** Cancel a chat's open tasks, pending addressing calls included; how many went. */
function dropPlan(chatId: string, reason: string, d: OwnerCommandDeps): number {
  return d.scheduler.cancelPending(chatId, reason, { addressing: true }).length;
}

function pause(name: string, d: OwnerCommandDeps): string {
  if (name === "") {
    d.settings.update(ALL_CHATS, { paused: true });
    // Chats' graphs only: a lane summary (summary:<lane>) is background work, not an answer.
    const chats = new Set(d.scheduler.openTasks().map((t) => t.chatId).filter((g) => !isSummaryGraph(g)));
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
    const still = d.settings.entries().filter(([id, s]) => id !== ALL_CHATS && s.paused).map(([id]) => id);
    return `Answering again everywhere${still.length ? ` except the chats paused one by one (${still.join(", ")}; /resume <chat> for each)` : ""}.`;
  }
  const chat = chatOrAnswer(name, d);
  if (typeof chat === "string") return chat;
  d.settings.update(chat.chatId, { paused: false, silentUntil: undefined });
  const everywhere = d.settings.get(ALL_CHATS).paused ? " (but everything is still paused: /resume alone ends that)" : "";
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
  return dropped ? `Dropped the pending plan in ${describeChat(chat)} (${dropped} task(s)).` : `Nothing was pending in ${describeChat(chat)}.`;
}
