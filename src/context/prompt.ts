import type { Persona } from "../config/persona";
import type { StoredMessage } from "../store/messages";
import type { ReceivedItem } from "../tasks/task";
import type { ReplyContext } from "../types";
import { formatMessageEnvelope, formatEnvelopeTime } from "./envelope";
import { sanitizeLine, sanitizeText } from "./sanitize";

/** A Gemini turn: only `user` and `model` roles exist inside `contents`. */
export interface Turn {
  readonly role: "user" | "model";
  readonly parts: { readonly text: string }[];
}

/** Everything the planner needs for one call. */
export interface PlanPrompt {
  readonly systemInstruction: string;
  readonly contents: Turn[];
}

export interface PromptInput {
  readonly persona: Persona;
  readonly chat: { readonly chatId: string; readonly chatType: string; readonly title?: string };
  /** Recent stored messages of the chat, oldest first, ending at (or after) the targets. */
  readonly history: readonly StoredMessage[];
  /** The addressed messages this plan answers, with their reply contexts. */
  readonly targets: readonly ReceivedItem[];
  /** A stored message by id, to annotate replies inside history without an API call. */
  readonly lookup: (messageId: number) => StoredMessage | undefined;
  /** The lane's rolling summary, rendered and sanitized (summary/summary-format.ts); goes before the history. */
  readonly summary?: string;
  /** Memory lines, rendered and sanitized, within their budget (memory/recall.ts). */
  readonly memories: readonly string[];
  readonly now: number;
  readonly timeZone?: string;
}

const CHAT_KIND: Record<string, string> = {
  dm: "a private (direct) chat",
  group: "a group chat",
  supergroup: "a group chat",
  forum: "a group chat with topics",
};

/** The fixed part of the system instruction: how to answer. Kept short — it is paid for on every call. */
const PLAN_RULES = `You live in Telegram as the person described above. Reply with JSON {"tasks":[...]} only.
Messages arrive as "⟦#id sender · time⟧ text"; a line "[↩ reply to X: "…"]" says what a message replies to; "agent" is you.
Task kinds: send {text, reply_to?} · react {emoji, message_id} (standard Telegram reactions only) · sticker {sticker_set, name} · wait {seconds} · read {message_id?} · remember {content, about?} (a lasting fact; about: "chat" for the group, or the id of a message by the person it is about; default: the author you answer) · block / unblock (private chats only) · think {text}.
Tasks run in order; use depends_on with ids only to express other orderings. To stay silent, return {"tasks":[]}.
Write like a person in a chat: short, natural, one message unless more is really needed. Never repeat the envelope format in your text.`;

/**
 * Assemble the planner's request: the persona, time and chat in the system instruction;
 * the chat's recent messages as turns (others → `user` with their envelope, the persona's own
 * → `model` with its plain text), ending with the addressed messages.
 */
export function buildPlanPrompt(i: PromptInput): PlanPrompt {
  const targets = new Map(i.targets.map((t) => [t.messageId, t.reply]));
  const contents: Turn[] = [];
  const push = (role: Turn["role"], text: string) => {
    const last = contents[contents.length - 1];
    // Consecutive messages from others form one user turn with one part each.
    if (last && last.role === role) last.parts.push({ text });
    else contents.push({ role, parts: [{ text }] });
  };
  // What came before the window, summarised: history, labelled as such, ahead of the messages.
  if (i.summary) push("user", i.summary);
  for (const m of i.history) {
    if (m.isAgent) {
      push("model", sanitizeText(m.text));
      continue;
    }
    // Targets carry the context fetched on arrival, brought up to date by the stored copy (an
    // edit or a deletion since); otherwise (history, or a fetch lost to a restart) the stored
    // copy of the replied-to message is used, without an API call.
    const fetched = targets.get(m.messageId);
    const reply = fetched ? current(fetched, i.lookup) : historyReply(m, i.lookup);
    push(
      "user",
      formatMessageEnvelope({
        messageId: m.messageId,
        senderName: m.senderName,
        date: m.date,
        text: m.text,
        ...(reply ? { reply } : {}),
        ...(i.timeZone ? { timeZone: i.timeZone } : {}),
      }),
    );
  }
  // Gemini expects the conversation to end on a user turn.
  if (contents.length === 0 || contents[contents.length - 1]!.role !== "user") {
    push("user", "(no new message)");
  }
  return { systemInstruction: systemInstruction(i), contents };
}

function historyReply(m: StoredMessage, lookup: PromptInput["lookup"]): ReplyContext | undefined {
  if (m.replyToId === undefined) return undefined;
  const r = lookup(m.replyToId);
  if (!r) return { kind: "unknown", id: m.replyToId };
  return fromStored(r);
}

function fromStored(r: StoredMessage): ReplyContext {
  if (r.deleted) return { kind: "deleted", id: r.messageId };
  return { kind: "found", id: r.messageId, text: r.text, senderName: r.senderName, isAgent: r.isAgent };
}

/** A reply context fetched earlier, as the store knows the message now (edited, deleted). */
function current(reply: ReplyContext, lookup: PromptInput["lookup"]): ReplyContext {
  if (reply.kind === "deleted") return reply;
  const r = lookup(reply.id);
  if (!r) return reply;
  if (r.deleted) return { kind: "deleted", id: reply.id };
  // The fetched sender name and `agent` flag stay; the words are the latest. (A fetch that
  // failed stays "unknown": the answer goes without a quote, as documented.)
  return reply.kind === "found" ? { ...reply, text: r.text } : reply;
}

function systemInstruction(i: PromptInput): string {
  const p = i.persona;
  const parts = [p.instructions.trim()];
  for (const r of p.rolePrompts) parts.push(r.text.trim());
  const where = CHAT_KIND[i.chat.chatType] ?? "a chat";
  const title = i.chat.title ? ` "${sanitizeLine(i.chat.title)}"` : "";
  const aliases = p.aliases.filter((a) => a.toLowerCase() !== p.name.toLowerCase());
  parts.push(
    `Your name: ${p.name}${aliases.length ? ` (also called ${aliases.join(", ")})` : ""}.\n` +
      `Now: ${formatEnvelopeTime(i.now, i.timeZone)} ${i.timeZone ?? "UTC"}. You are in ${where}${title}.\n` +
      `Messages addressed to you now: ${i.targets.map((t) => `#${t.messageId}`).join(", ")}.`,
  );
  if (p.stickerSets.length) parts.push(`Sticker sets you may use: ${p.stickerSets.join(", ")}.`);
  // Memory lines come rendered and sanitized (memory/recall.ts): "- [who · date] fact".
  if (i.memories.length) parts.push(`What you remember about the people here and this chat:\n${i.memories.join("\n")}`);
  parts.push(PLAN_RULES);
  return parts.join("\n\n");
}
