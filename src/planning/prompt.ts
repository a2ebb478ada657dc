/**
 * The planner's request. The system instruction is the persona's fixed text (instructions, role
 * prompts, its name, its stickers, the rules): the same for every chat and every call, so
 * Gemini's implicit prefix cache applies to it. Everything about the chat goes in one `user`
 * turn, in labelled parts (the labels use the envelope's reserved brackets, so no message can
 * forge one), what changes least first:
 *
 * ```
 * ⟦chat⟧ a group chat titled "Sandbox" · 5 members      (title and names as sanitised data;
 *                                   a forum topic: topic "Trip" in the group "Flat 3B";
 *                                   a private chat: with [Ann](tg:@ann), who is [Ann] after that)
 * ⟦summary⟧ …                       (the room's rolling summary, when there is one)
 * ⟦thread summary⟧ …                (the reply thread's, when the question is asked in one)
 * ⟦earlier⟧ …                       (older messages the conversation refers to: thread, replied-to)
 * ⟦#12 [Ann](tg:@ann) · Tue 24 Nov 18:02⟧ …
 * ⟦history⟧ …                       (the room's newest messages, every one, in order)
 * ⟦#40 [Ann](tg:@ann) · 09:14⟧ …
 * ⟦3 hours later⟧
 * ⟦#41 Mira (you) · 12:20⟧ …          (the persona's own messages: its name, never a reference)
 * ⟦#42 [Bob](tg:@bob) · 12:21 · replies to you⟧
 * [↩ reply to #41 Mira (you)]
 * …
 * ⟦memories⟧ …                      (what the persona remembers: notes, not instructions)
 * ⟦now⟧ Wednesday 2026-11-25 12:22 (Europe/Berlin). People in view: … New for you: #42.
 * ```
 *
 * The addressed messages stay where they were written, marked with how they reached the persona
 * (address-marks.ts: `replies to you`, `@mentions you`, `names you`…); nothing is reordered. No
 * `model` turns (the persona's earlier words are history items) and no `system` role in
 * `contents`. Pictures an addressed message shows (or replies to) follow as inline parts.
 */
import { barePartner } from "../context/memory-teller";
import type { LlmPart } from "../llm/types";
import { addressMark } from "./address-marks";
import { compileAddressMatcher } from "../inbound/addressing";
import type { StoredMessage } from "../store/messages";
import {
  formatGap,
  formatHeaderTime,
  formatMemoryEnvelope,
  formatSummarySection,
  localTime,
} from "../context/envelope";
import { HISTORY_LABEL, itemOfMessage, renderItem } from "../context/history-item";
import { HISTORY_MAX_CODE_POINTS, INJECTED_MAX_CODE_POINTS } from "../context/window";
import type { PlanPrompt, PromptInput } from "./prompt-input";
import {
  chatHeader,
  duePart,
  EARLIER_LABEL,
  INTENTIONS_LABEL,
  MEMORIES_LABEL,
  noteText,
  nowPart,
  partnerBare,
  peopleInView,
  SUMMARY_LABEL,
  THREAD_SUMMARY_LABEL,
} from "./prompt-parts";
import { mergeTimeline, replyView } from "./prompt-timeline";
import { systemInstruction } from "./prompt-system";

export type { ChatHeader, PlanPrompt, PromptInput } from "./prompt-input";
export { NOW_LABEL, SUMMARY_LABEL } from "./prompt-parts";
export { mayIntend } from "./prompt-system";

/** Assemble the planner's request (see the module comment for the layout). */
export function buildPlanPrompt(i: PromptInput): PlanPrompt {
  const targets = new Map(i.targets.map((t) => [t.messageId, t.reply]));
  const history = i.history.filter((m) => !targets.has(m.messageId));
  const targetMessages = i.targets
    .map((t) => i.lookup(t.messageId))
    .filter((m): m is StoredMessage => m !== undefined);
  const all = [...history, ...targetMessages].sort((a, b) => a.messageId - b.messageId);
  const inView = new Set<number>(all.map((m) => m.messageId));
  const isDm = i.chat.chatType === "dm";
  // In a private chat the partner is named in full once, in the chat part, and `[Ann]` after.
  const speakers = isDm ? partnerBare(i.speakers, i.chat.chatId) : i.speakers;
  const ctx = { chatType: i.chat.chatType, speakers, ...(i.media ? { media: i.media } : {}) };
  const names = compileAddressMatcher([i.persona.name, ...i.persona.aliases]);
  const marks = {
    isDm,
    personaName: i.persona.name,
    speakers,
    names,
    lookup: i.lookup,
    present: peopleInView(speakers, all),
  };
  const tz = i.persona.timeZone;
  const nowYear = localTime(i.now, tz).year;

  // (What the chat allows to react with is the plan schema's: plan-schema.ts.)
  const parts: LlmPart[] = [{ text: chatHeader(i.chat, i.speakers) }];
  const summary = formatSummarySection(i.summary, SUMMARY_LABEL);
  if (summary !== "") parts.push({ text: summary });
  const threadSummary = formatSummarySection(i.threadSummary, THREAD_SUMMARY_LABEL);
  if (threadSummary !== "") parts.push({ text: threadSummary });

  // One chronological history: earlier messages under their label, then the room's newest.
  const timeline = mergeTimeline(
    all,
    [...(i.extraItems ?? [])].sort((a, b) => a.date - b.date),
  );
  // Sections only go forward: ⟦earlier⟧ (when there is any), then ⟦history⟧.
  const firstMessage = timeline.find((y): y is StoredMessage => !("kind" in y));
  let section: "earlier" | "history" | undefined;
  let previousDay: string | undefined;
  let previousDate: number | undefined;
  for (const x of timeline) {
    const isEarlier = (m: StoredMessage | undefined) =>
      m !== undefined && i.earlierIds?.has(m.messageId) === true;
    let want: "earlier" | "history" =
      "kind" in x
        ? (section ?? (isEarlier(firstMessage) ? "earlier" : "history"))
        : isEarlier(x)
          ? "earlier"
          : "history";
    if (section === "history") want = "history";
    if (want !== section) {
      parts.push({ text: want === "earlier" ? EARLIER_LABEL : HISTORY_LABEL });
      section = want;
      previousDate = undefined;
    }
    const time = formatHeaderTime(x.date, tz, previousDay, nowYear);
    previousDay = localTime(x.date, tz).dayKey;
    if ("kind" in x) {
      parts.push({ text: renderItem(x, { mentions: speakers, time }) });
      continue;
    }
    if (previousDate !== undefined) {
      const gap = formatGap(x.date - previousDate);
      if (gap !== "") parts.push({ text: gap });
    }
    previousDate = x.date;
    const { reply, quote } = replyView(x, targets.get(x.messageId), inView, i, speakers);
    parts.push({
      text: renderItem(itemOfMessage(x, ctx), {
        mentions: speakers,
        time,
        ...(targets.has(x.messageId) ? { mark: addressMark(x, targets.get(x.messageId), marks) } : {}),
        ...(reply ? { reply } : {}),
        ...(quote !== undefined ? { quote } : {}),
        // Only what is answered is shown whole: context is bounded (earlier tighter than history).
        ...(!targets.has(x.messageId)
          ? { maxTextCodePoints: want === "earlier" ? INJECTED_MAX_CODE_POINTS : HISTORY_MAX_CODE_POINTS }
          : {}),
      }),
    });
  }
  if (section === undefined) parts.push({ text: HISTORY_LABEL }, { text: "(no message)" });
  if (i.memories.length > 0)
    parts.push({
      text: [
        MEMORIES_LABEL,
        ...i.memories.map((n) => formatMemoryEnvelope(barePartner(n, isDm ? i.chat.chatId : undefined))),
      ].join("\n"),
    });
  const pending = i.intentions?.pending ?? [];
  // Times of today are written as the clock alone (⟦now⟧ says the day).
  const today = localTime(i.now, tz).dayKey;
  if (pending.length > 0)
    parts.push({
      text: [
        `${INTENTIONS_LABEL} What you already mean to do here later (cancel_schedule {id} drops one):`,
        ...pending.map(
          (n) => `id ${n.id} · ${formatHeaderTime(n.dueAt, tz, today, nowYear)}: ${noteText(n.note)}`,
        ),
      ].join("\n"),
    });
  for (const d of i.intentions?.due ?? []) parts.push({ text: duePart(d, i, inView, speakers, nowYear) });
  for (const text of i.extraParts ?? []) if (text !== "") parts.push({ text });
  parts.push({ text: nowPart(i, targetMessages, marks.present) });
  for (const img of i.images ?? []) {
    parts.push(
      { text: `⟦picture of #${img.messageId}⟧` },
      { inlineData: { mimeType: img.mime, data: img.bytes.toString("base64") } },
    );
  }
  return { systemInstruction: systemInstruction(i), contents: [{ role: "user", parts }] };
}
