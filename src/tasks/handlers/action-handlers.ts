import type { Logger } from "pino";
import type { Clock } from "../../types";
import type { ChatActions } from "../actions-port";
import type { MessageStore } from "../../store/messages";
import { TYPING_REFRESH_MS } from "../pacing";
import { AccountLostError, RateLimitedError } from "../errors";
import type { RateLimits } from "../rate-limits";
import type { HandlerOutcome, TaskHandler } from "../scheduler";
import type { Task } from "../task";

export interface ActionHandlerDeps {
  readonly actions: ChatActions;
  readonly clock: Clock;
  readonly logger: Logger;
  readonly messages: MessageStore;
  /**
   * The account's server limits (shared with the scheduler). Cosmetic actions (typing, read)
   * are skipped while limited instead of being retried into the limit — and the task they
   * decorate goes on; the limits they meet are recorded like any other.
   */
  readonly limits: RateLimits;
  /** Called after the persona's own message was sent, so it enters the chat history. */
  readonly onSent: (o: {
    chatId: string;
    messageId: number;
    text: string;
    replyTo?: number;
    topicId?: number;
  }) => void;
  /** Called after the persona's reaction was accepted, so it enters the chat history too. */
  readonly onReacted?: (o: { chatId: string; messageId: number; emoji: string }) => void;
  /**
   * The answer-age limit (ms): a send, a sticker or the typing before one whose newest answered
   * message is older than this is dropped, not sent hours late (absent: no check).
   */
  readonly maxAnswerAgeMs?: number;
}

/**
 * The answer-age check right before a message goes out: the plan may have waited, a restart or a
 * flood wait may have held it. Returns the outcome that drops it (logged once, here), or
 * undefined to go on. A task in doubt is not checked: it may already be out, and only the
 * server's answer to its retry settles it.
 */
function tooLate(
  d: ActionHandlerDeps,
  task: Task<"send" | "sticker" | "typing">,
): HandlerOutcome | undefined {
  const answers = task.payload.answers;
  if (d.maxAnswerAgeMs === undefined || task.inDoubt || !answers?.length) return undefined;
  const dates = answers
    .map((id) => d.messages.get(task.chatId, id)?.date)
    .filter((x): x is number => x !== undefined);
  if (dates.length === 0) return undefined;
  const age = d.clock.now() - Math.max(...dates);
  if (age <= d.maxAnswerAgeMs) return undefined;
  d.logger.info(
    {
      component: "tasks",
      chatId: task.chatId,
      taskId: task.id,
      kind: task.kind,
      answers,
      ageSec: Math.round(age / 1000),
      maxAgeSec: Math.round(d.maxAnswerAgeMs / 1000),
    },
    "answer dropped: the message it answers is older than the answer-age limit now",
  );
  return { type: "dropped", reason: "past the answer-age limit" };
}

/**
 * Typing: shown at once, refreshed every 5 s (Telegram expires it after ~6 s), done when the
 * spell is over. The spell's end is stored in the payload, so a restart does not lengthen it.
 * Typing is decoration: a failed or rate-limited typing request is logged and the spell goes on
 * silently, so the message it precedes is never lost or delayed because of it.
 */
export function typingHandler(d: ActionHandlerDeps): TaskHandler<"typing"> {
  return {
    async run(task) {
      const now = d.clock.now();
      const until = task.payload.until ?? now + task.payload.seconds * 1000;
      if (now >= until) return { type: "done" };
      // Not for an answer that is too late to send (checked when the spell starts).
      if (task.payload.until === undefined) {
        const late = tooLate(d, task);
        if (late) return late;
      }
      const { topicId } = task.payload;
      await bestEffort(d, task.chatId, "typing", now, () =>
        d.actions.setTyping({
          chatId: task.chatId,
          action: task.payload.action,
          ...(topicId !== undefined ? { topicId } : {}),
        }),
      );
      task.payload = { ...task.payload, until };
      return { type: "again", at: Math.min(now + TYPING_REFRESH_MS, until) };
    },
    async onCancel(task) {
      const { topicId } = task.payload;
      await bestEffort(d, task.chatId, "typing", d.clock.now(), () =>
        d.actions.setTyping({
          chatId: task.chatId,
          action: "cancel",
          ...(topicId !== undefined ? { topicId } : {}),
        }),
      );
    },
  };
}

/**
 * Run a cosmetic action: skipped while a rate limit on it lasts; its failure is a warning,
 * never the task's failure. (GramActions bounds these requests to a few seconds.)
 */
async function bestEffort(
  d: ActionHandlerDeps,
  chatId: string,
  what: "typing" | "read",
  now: number,
  fn: () => Promise<void>,
): Promise<void> {
  const keys = d.actions.rateKeys(what, chatId);
  if (d.limits.isLimited(keys, now)) return;
  try {
    await fn();
  } catch (e) {
    // The account itself is gone: that is no cosmetic matter (the persona stops).
    if (e instanceof AccountLostError) throw e;
    if (e instanceof RateLimitedError) d.limits.hit(e, d.clock.now());
    d.logger.warn(
      { component: "tasks", chatId, action: what, err: e instanceof Error ? e.message : String(e) },
      `${what} failed; going on without it`,
    );
  }
}

/**
 * The message an answer replies to: the plan's reply_to, else — in a group where others wrote
 * after the message answered, by the time the answer goes out — that message, so the answer lands
 * under it rather than after someone else's words.
 */
function replyTarget(
  d: ActionHandlerDeps,
  chatId: string,
  p: { replyTo?: number; autoReplyTo?: number },
): number | undefined {
  if (p.replyTo !== undefined) return p.replyTo;
  if (p.autoReplyTo !== undefined && d.messages.othersWroteAfter(chatId, p.autoReplyTo)) return p.autoReplyTo;
  return undefined;
}

export function sendHandler(d: ActionHandlerDeps): TaskHandler<"send"> {
  return {
    async run(task) {
      const late = tooLate(d, task);
      if (late) return late;
      const { text, topicId } = task.payload;
      const replyTo = replyTarget(d, task.chatId, task.payload);
      const id = await d.actions.sendText({
        chatId: task.chatId,
        text,
        randomId: task.randomId!,
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...(topicId !== undefined ? { topicId } : {}),
      });
      task.payload = { ...task.payload, sentId: id };
      d.onSent({
        chatId: task.chatId,
        messageId: id,
        text,
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...(topicId !== undefined ? { topicId } : {}),
      });
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("send", t.chatId),
  };
}

export function stickerHandler(d: ActionHandlerDeps): TaskHandler<"sticker"> {
  return {
    async run(task) {
      const late = tooLate(d, task);
      if (late) return late;
      const { set, name, topicId } = task.payload;
      const replyTo = replyTarget(d, task.chatId, task.payload);
      const common = {
        chatId: task.chatId,
        randomId: task.randomId!,
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...(topicId !== undefined ? { topicId } : {}),
      };
      const res = await d.actions.sendSticker({ ...common, set, name });
      const where = {
        ...(replyTo !== undefined ? { replyTo } : {}),
        ...(topicId !== undefined ? { topicId } : {}),
      };
      if (res !== "not-found") {
        d.onSent({ chatId: task.chatId, messageId: res, text: `[sticker ${name}]`, ...where });
        return { type: "done" };
      }
      // The set or sticker is gone: say it with the emoji instead. Same random_id — nothing was sent with it.
      d.logger.warn(
        { component: "tasks", chatId: task.chatId, set, name },
        "sticker not found; sending the emoji as text",
      );
      const id = await d.actions.sendText({ ...common, text: name });
      d.onSent({ chatId: task.chatId, messageId: id, text: name, ...where });
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("sticker", t.chatId),
  };
}

export function reactHandler(d: ActionHandlerDeps): TaskHandler<"react"> {
  return {
    async run(task) {
      const { messageId, emoji } = task.payload;
      const put = await d.actions.react({ chatId: task.chatId, messageId, emoji });
      if (put === undefined) {
        // The chat allows no reaction like it: the persona reacts with nothing — not a failure.
        d.logger.info(
          { component: "tasks", chatId: task.chatId, emoji },
          "the chat does not allow this reaction nor a close one; not reacting",
        );
        return { type: "done" };
      }
      d.onReacted?.({ chatId: task.chatId, messageId, emoji: put });
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("react", t.chatId),
  };
}

/** A wait holds the chat's graph; its end is stored so a restart does not restart the wait. */
export function waitHandler(d: ActionHandlerDeps): TaskHandler<"wait"> {
  return {
    async run(task) {
      const now = d.clock.now();
      const until = task.payload.until ?? now + task.payload.seconds * 1000;
      if (now >= until) return { type: "done" };
      task.payload = { ...task.payload, until };
      return { type: "again", at: until };
    },
  };
}

export function readHandler(d: ActionHandlerDeps): TaskHandler<"read"> {
  return {
    async run(task) {
      // maxId 0 means "everything so far": the newest message stored for the chat.
      const maxId =
        task.payload.maxId || (d.messages.recent(task.chatId, Number.MAX_SAFE_INTEGER, 1)[0]?.messageId ?? 0);
      // A read mark is a courtesy: if it fails, the answer that waits for it must still go out.
      if (maxId > 0)
        await bestEffort(d, task.chatId, "read", d.clock.now(), () =>
          d.actions.markRead({ chatId: task.chatId, maxId }),
        );
      return { type: "done" };
    },
  };
}

export function blockHandler(
  d: ActionHandlerDeps,
  kind: "block" | "unblock",
): TaskHandler<"block"> & TaskHandler<"unblock"> {
  return {
    async run(task) {
      await (kind === "block"
        ? d.actions.block({ chatId: task.chatId })
        : d.actions.unblock({ chatId: task.chatId }));
      return { type: "done" };
    },
    rateKeys: (t) => d.actions.rateKeys("block", t.chatId),
  };
}
