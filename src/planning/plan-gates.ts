/**
 * Whether a `received` task is planned at all, asked before any request is made: which of its
 * addressed messages are still to be answered (not deleted, not too old), and whether she may
 * write in the chat now (its rights, a closed forum topic, the account-wide pause). A round that
 * ends here asks the model nothing. After the plan came back, the messages it answers may have
 * been deleted meanwhile: then nothing of it is done.
 */
import type { Logger } from "pino";
import type { Persona } from "../config/persona";
import type { MessageStore } from "../store/messages";
import type { Clock } from "../base/types";
import { MAX_ANSWER_AGE_MS } from "../inbound/pipeline";
import { lookedAt } from "../config/persona-rhythm";
import { mayWrite, type ChatWrites } from "../base/chat-writes";
import type { ReceivedItem, Task } from "../tasks/task";

/** What the gates read (a subset of the received handler's deps). */
export interface GateSources {
  readonly persona: Pick<Persona, "rhythm" | "timeZone">;
  readonly messages: Pick<MessageStore, "get">;
  readonly clock: Clock;
  /** Telegram's time, which message dates are (the answer-age limit); default the clock's. */
  readonly telegramNow?: () => number;
  readonly logger: Logger;
  /** Messages older than this (by their date) when the task plans are not answered (default: the inbound limit, 1 h). */
  readonly maxAnswerAgeMs?: number;
  /** What she may send in a group (base/chat-writes.ts); absent: everything, no slow mode. */
  readonly writes?: (chatId: string) => ChatWrites | undefined;
  /** The forum topic was closed by an admin. */
  readonly topicClosed?: (chatId: string, topicId: number | undefined) => boolean;
  /** Until when her writes to this chat are paused account-wide (ms; 0: not). */
  readonly writesPausedUntil?: (chatId: string) => number;
}

/** What she may send in the chat now (base/chat-writes.ts). */
export type MayWriteNow = ReturnType<typeof mayWrite>;

/**
 * The addressed messages still to be answered and what she may send, or undefined: nothing is
 * planned this round (logged once, why).
 */
export function openGates(
  d: GateSources,
  task: Task<"received">,
  /** Whether the answer may be spoken there (a chat that forbids her text may take voice messages). */
  spoken: (items: readonly ReceivedItem[], may: MayWriteNow) => boolean = () => false,
): { readonly items: ReceivedItem[]; readonly may: MayWriteNow } | undefined {
  const chatId = task.chatId;
  // The persona's own intentions due now (life/intentions.ts): planned with the messages, or alone.
  const intentions = task.payload.intentions ?? [];
  // A message deleted before it was planned for is not answered (a person would not either).
  const live = task.payload.items.filter((i) => !d.messages.get(chatId, i.messageId)?.deleted);
  if (live.length === 0 && intentions.length === 0) {
    d.logger.info(
      { component: "planner", chatId, messages: task.payload.items.map((i) => i.messageId) },
      "addressed messages deleted before planning; not answered",
    );
    return undefined;
  }
  // The age limit holds here too, not only at inbound: a task left pending by a crash (or a
  // long pause) must not answer a question hours later, out of the blue. Age counts from when
  // the persona first looked (a message of its sleep: its waking, `# Sleep`).
  const maxAge = d.maxAnswerAgeMs ?? MAX_ANSWER_AGE_MS;
  const oldest = (d.telegramNow ?? (() => d.clock.now()))() - maxAge;
  const seen = (date: number) => lookedAt(d.persona.rhythm, d.persona.timeZone, date);
  const items = live.filter((i) => seen(d.messages.get(chatId, i.messageId)?.date ?? Infinity) >= oldest);
  if (items.length < live.length) {
    d.logger.info(
      {
        component: "planner",
        chatId,
        messages: live.filter((i) => !items.includes(i)).map((i) => i.messageId),
        maxAgeSec: Math.round(maxAge / 1000),
      },
      "addressed messages too old by the time of planning; not answered",
    );
  }
  if (items.length === 0 && intentions.length === 0) return undefined;
  // Where she may not write (muted, her own restriction): no plan, no request (a person who
  // cannot type there does not compose an answer). Asked again at the next message.
  const may = mayWrite(d.writes?.(chatId), (d.telegramNow ?? (() => d.clock.now()))());
  if (!may.text && !may.sticker && !spoken(items, may)) {
    d.logger.info(
      { component: "planner", chatId, messages: items.map((i) => i.messageId) },
      "she may not write in this chat now (its banned rights); not planned",
    );
    return undefined;
  }
  // A closed forum topic takes no messages from members (TOPIC_CLOSED): nothing planned there.
  if (d.topicClosed?.(chatId, task.topicId)) {
    d.logger.info(
      { component: "planner", chatId, topicId: task.topicId, messages: items.map((i) => i.messageId) },
      "the topic is closed; not planned",
    );
    return undefined;
  }
  const pausedUntil = d.writesPausedUntil?.(chatId) ?? 0;
  if (pausedUntil > d.clock.now()) {
    d.logger.debug(
      { component: "planner", chatId, until: new Date(pausedUntil).toISOString() },
      "writes to supergroups are paused (USER_BANNED_IN_CHANNEL); not planned",
    );
    return undefined;
  }
  return { items, may };
}

/**
 * The addressed messages were all deleted (by their authors, for everyone) while the plan was
 * being made: the plan is dropped, none of its tasks made (logged once). An intention planned
 * with them still stands.
 */
export function deletedWhilePlanning(
  d: Pick<GateSources, "messages" | "logger">,
  chatId: string,
  items: readonly { readonly messageId: number }[],
  intentions: number,
): boolean {
  if (items.length === 0 || intentions > 0) return false;
  if (!items.every((i) => d.messages.get(chatId, i.messageId)?.deleted)) return false;
  d.logger.info(
    { component: "planner", chatId, messages: items.map((i) => i.messageId) },
    "addressed messages deleted while planning; the plan is dropped",
  );
  return true;
}
